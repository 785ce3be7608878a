// crit in OpenCode: the `!!!` prompt review and the review gate when a turn
// ends. Written by `crit install opencode`; `crit uninstall opencode` removes
// this file while it is exactly as written (a changed copy is yours, and a
// review reads it as part of the change).
//
// OpenCode's plugin hooks (opencode-ai 1.18.33, `Hooks` in
// packages/plugin/src/index.ts; https://opencode.ai/docs/plugins):
// - "chat.message" (input {sessionID, messageID, ...}, output {message,
//   parts}) runs before the user's message is saved: what it leaves in the
//   parts is what the model reads.
// - event({event}) sees every event; "session.idle" {sessionID} says a turn
//   has ended. It is not awaited, so it cannot hold the turn: a hold is sent
//   back as the next prompt (client.session.promptAsync), which OpenCode's
//   TUI and `opencode serve` run at once. `opencode run` exits when the turn
//   ends, before a held prompt runs.
import { spawn } from "node:child_process";

const CRIT = "__CRIT__";
const PROMPT_REVIEW = __PROMPT_REVIEW__;
const STOP_GATE = __STOP_GATE__;
// The gate ends its own review at 300 s; crit is stopped past this.
const TIMEOUT_MS = 360000;

function run(event, input, cwd, extra) {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let child;
    try {
      child = spawn(CRIT, ["hook", "opencode", event, ...extra], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      resolve({ code: -1, out, err: String(e) });
      return;
    }
    const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS);
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: -1, out, err: String(e) });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

function answer(out) {
  try {
    const v = JSON.parse(out);
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

export const CritPlugin = async ({ client, directory }) => {
  // Subagents' sessions: their end is not the turn's end.
  const children = new Set();
  // Sessions the gate is reviewing now.
  const reviewing = new Set();

  async function tell(message) {
    console.error(message);
    try {
      await client.tui.showToast({ body: { title: "crit", message, variant: "warning" } });
    } catch {}
  }

  async function call(event, input, extra = []) {
    const r = await run(event, input, directory, extra);
    if (r.err.trim()) console.error(r.err.trim());
    if (r.code !== 0) {
      await tell(`crit hook opencode ${event} could not run (${r.err.trim() || "exit " + r.code})`);
      return {};
    }
    const a = answer(r.out);
    if (typeof a.systemMessage === "string") await tell(a.systemMessage);
    return a;
  }

  return {
    "chat.message": async (input, output) => {
      const texts = output.parts.filter((p) => p.type === "text" && !p.synthetic);
      const prompt = texts.map((p) => p.text).join("\n");
      const event = { hook_event_name: "chat.message", sessionID: input.sessionID, cwd: directory, prompt };
      const a = await call("chat.message", event, PROMPT_REVIEW ? [] : ["--note-only"]);
      const context = a.hookSpecificOutput && a.hookSpecificOutput.additionalContext;
      if (typeof context === "string" && context && texts.length > 0) {
        const last = texts[texts.length - 1];
        last.text = `${last.text}\n\n${context}`;
      }
    },
    event: async ({ event }) => {
      if (event.type === "session.created" && event.properties.info && event.properties.info.parentID) {
        children.add(event.properties.info.id);
        return;
      }
      if (!STOP_GATE || event.type !== "session.idle") return;
      const id = event.properties.sessionID;
      if (children.has(id) || reviewing.has(id)) return;
      reviewing.add(id);
      try {
        const a = await call("session.idle", { hook_event_name: "session.idle", sessionID: id, cwd: directory });
        if (a.decision === "block" && typeof a.reason === "string" && a.reason) {
          await client.session.promptAsync({ path: { id }, body: { parts: [{ type: "text", text: a.reason }] } });
        }
      } finally {
        reviewing.delete(id);
      }
    },
  };
};
