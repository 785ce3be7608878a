//! Command hooks configured in Claude Code's shape, run as real processes
//! around the loop against crit-testkit: deny, exit 2, updatedInput,
//! PostToolUse context, Stop re-prompts with their bound, and timeouts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::kit;

use std::path::Path;

use crit_agent::transcript::{MemoryTranscript, NoTranscript, TranscriptItem};
use crit_agent::{HooksConfig, MAX_STOP_BLOCKS, RunStatus, ToolContext, ToolRegistry, run_agent};
use crit_testkit::{FakeServer, Reply, Step};
use kit::{last_user_text, model, project, results_of, spec, tool_results};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Writes an executable hook script into `dir` and returns its path.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path.display().to_string()
}

fn hooks(config: Value, project: &Path) -> crit_agent::Hooks {
    let c: HooksConfig = serde_json::from_value(config).unwrap();
    c.to_hooks(project)
        .unwrap()
        .with_session("session-42", Some(project.join("t.jsonl")))
}

#[tokio::test]
async fn pre_tool_use_deny_and_exit_2_keep_the_tool_from_running() {
    let dir = project();
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("pre-input.json");
    let deny = script(
        bin.path(),
        "deny.sh",
        &format!(
            r#"cat > {log}
echo "$CLAUDE_PROJECT_DIR" > {log}.dir
pwd > {log}.cwd
echo '{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no reading today"}}}}'"#,
            log = log.display()
        ),
    );
    let block = script(bin.path(), "block.sh", "echo 'grep is off' >&2; exit 2");
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_uses(vec![
        ("Read", json!({"file_path": "README.md"})),
        ("Grep", json!({"pattern": "unwrap"})),
        ("Glob", json!({"pattern": "*.md"})),
    ])));
    server.push(Step::reply(Reply::text("done")));
    let mut s = spec(ToolRegistry::builtin());
    s.hooks = hooks(
        json!({"PreToolUse": [
            {"matcher": "Read", "hooks": [{"type": "command", "command": deny, "timeout": 30}]},
            {"matcher": "Grep|Bash", "hooks": [{"type": "command", "command": block}]}
        ]}),
        dir.path(),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let mut sink = MemoryTranscript::default();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut sink,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let r = tool_results(&server, 1);
    assert_eq!(
        (r[0].1.as_str(), r[0].2),
        ("PreToolUse:Read hook error: no reading today", true)
    );
    assert_eq!(
        (r[1].1.as_str(), r[1].2),
        (
            format!("PreToolUse:Grep hook error: [{block}]: grep is off").as_str(),
            true
        )
    );
    assert!(
        !r[2].2 && r[2].1.contains("README.md"),
        "Glob had no hook: {r:?}"
    );

    // The hook got Claude Code's fields on stdin, ran in the project with CLAUDE_PROJECT_DIR.
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let root = cx.root().display().to_string();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["session_id"], "session-42");
    assert_eq!(input["cwd"], root.as_str());
    assert!(
        input["transcript_path"]
            .as_str()
            .unwrap()
            .ends_with("t.jsonl")
    );
    assert_eq!(input["tool_name"], "Read");
    assert_eq!(input["tool_input"], json!({"file_path": "README.md"}));
    assert_eq!(input["tool_use_id"], r[0].0.as_str());
    assert!(input.get("agent_id").is_none() && input.get("tool_response").is_none());
    let dir_env = std::fs::read_to_string(format!("{}.dir", log.display())).unwrap();
    assert_eq!(dir_env.trim(), root);
    let cwd = std::fs::read_to_string(format!("{}.cwd", log.display())).unwrap();
    assert_eq!(cwd.trim(), root);
    assert!(sink.items.iter().any(|i| matches!(i,
        TranscriptItem::Hook { event, effect, .. } if event == "PreToolUse" && effect == "deny: no reading today")));
}

#[tokio::test]
async fn pre_tool_use_updated_input_rewrites_the_call() {
    let dir = project();
    let bin = tempfile::tempdir().unwrap();
    let rewrite = script(
        bin.path(),
        "rewrite.sh",
        r#"cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"README.md"},"additionalContext":"rewritten"}}'"#,
    );
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "missing.md"}),
    )));
    server.push(Step::reply(Reply::text("done")));
    let mut s = spec(ToolRegistry::builtin());
    s.hooks = hooks(
        json!({"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": rewrite}]}]}),
        dir.path(),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let r = &tool_results(&server, 1)[0];
    assert!(!r.2, "{r:?}");
    assert!(r.1.contains("# Demo"), "{r:?}");
    assert!(
        r.1.ends_with(
            "<system-reminder>PreToolUse:Read hook additional context: rewritten</system-reminder>"
        ),
        "{r:?}"
    );
}

#[tokio::test]
async fn post_tool_use_context_is_appended_to_the_result_the_model_reads_next() {
    let dir = project();
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("post-input.json");
    let blocker = script(
        bin.path(),
        "post-block.sh",
        "cat >/dev/null; echo 'looks risky' >&2; exit 2",
    );
    let post = script(
        bin.path(),
        "post.sh",
        &format!(
            r#"cat > {}
echo '{{"hookSpecificOutput":{{"hookEventName":"PostToolUse","additionalContext":"Remember the style guide."}}}}'"#,
            log.display()
        ),
    );
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "README.md"}),
    )));
    server.push(Step::reply(Reply::text("done")));
    let mut s = spec(ToolRegistry::builtin());
    s.hooks = hooks(
        json!({"PostToolUse": [
            {"matcher": "Read", "hooks": [{"type": "command", "command": post}]},
            {"matcher": "Read", "hooks": [{"type": "command", "command": blocker}]}
        ]}),
        dir.path(),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let r = &results_of(&server.model_requests()[1])[0];
    assert_eq!(
        r.1,
        format!(
            "<tool_output tool=\"Read\">\n     1\t# Demo\n</tool_output>\n\n\
             <system-reminder>PostToolUse:Read hook additional context: Remember the style guide.</system-reminder>\n\
             <system-reminder>PostToolUse:Read hook blocking error from command: \"{blocker}\": [{blocker}]: looks risky</system-reminder>"
        )
    );
    assert!(!r.2, "the tool ran fine; the hook only adds feedback");
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_response"], "     1\t# Demo\n");
    assert!(input["duration_ms"].is_u64());
}

#[tokio::test]
async fn a_blocking_stop_hook_re_prompts_the_model_within_its_bound() {
    let dir = project();
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("stop.log");
    let stop = script(
        bin.path(),
        "stop.sh",
        &format!(
            r#"input=$(cat)
case "$input" in *'"stop_hook_active":true'*) echo true >> {log} ;; *) echo false >> {log} ;; esac
echo '{{"decision":"block","reason":"run the tests first"}}'"#,
            log = log.display()
        ),
    );
    let server = FakeServer::start().await;
    for i in 0..12 {
        server.push(Step::reply(Reply::text(format!("answer {i}"))));
    }
    let mut s = spec(ToolRegistry::builtin());
    s.hooks = hooks(
        json!({"Stop": [{"hooks": [{"type": "command", "command": stop}]}]}),
        dir.path(),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let reqs = server.model_requests();
    assert_eq!(reqs.len() as u32, 1 + MAX_STOP_BLOCKS);
    for r in &reqs[1..] {
        assert_eq!(last_user_text(r), "Stop hook feedback: run the tests first");
    }
    assert_eq!(out.final_text, format!("answer {MAX_STOP_BLOCKS}"));
    let active: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(active.len() as u32, MAX_STOP_BLOCKS + 1);
    assert_eq!(active[0], "false");
    assert!(active[1..].iter().all(|a| a == "true"), "{active:?}");
}

#[tokio::test]
async fn a_stop_hook_can_end_the_run_and_ask_once() {
    let dir = project();
    let bin = tempfile::tempdir().unwrap();
    let stop = script(
        bin.path(),
        "stop.sh",
        r#"input=$(cat)
case "$input" in
  *'"stop_hook_active":true'*) echo '{"continue":false,"stopReason":"enough"}' ;;
  *) echo '{"decision":"block","reason":"one more look"}' ;;
esac"#,
    );
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::text("first")));
    server.push(Step::reply(Reply::text("second")));
    let mut s = spec(ToolRegistry::builtin());
    s.hooks = hooks(
        json!({"Stop": [{"hooks": [{"type": "command", "command": stop}]}]}),
        dir.path(),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::HookStopped("enough".into()));
    assert_eq!(out.all_text, ["first", "second"]);
}

#[tokio::test]
async fn a_hanging_hook_is_killed_at_its_timeout_and_the_run_goes_on() {
    let dir = project();
    let bin = tempfile::tempdir().unwrap();
    let marker = format!("{}.{}", 5000 + std::process::id() % 1000, 31);
    let hang = script(
        bin.path(),
        "hang.sh",
        &format!("sleep {marker} & sleep {marker}; wait"),
    );
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "README.md"}),
    )));
    server.push(Step::reply(Reply::text("done")));
    let mut s = spec(ToolRegistry::builtin());
    s.hooks = hooks(
        json!({"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": hang, "timeout": 0.5}]}]}),
        dir.path(),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let mut sink = MemoryTranscript::default();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut sink,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let r = &tool_results(&server, 1)[0];
    assert_eq!(
        (r.1.as_str(), r.2),
        (
            "<tool_output tool=\"Read\">\n     1\t# Demo\n</tool_output>",
            false
        ),
        "the tool ran as if no hook"
    );
    assert!(sink.items.iter().any(|i| matches!(i,
        TranscriptItem::Hook { effect, .. } if effect.contains("timed out after 0.5 s and was killed"))));
    kit::assert_no_process_with_arg(&marker).await;
}

#[tokio::test]
async fn a_stop_hook_can_send_a_structured_answer_back_once() {
    let dir = project();
    let bin = tempfile::tempdir().unwrap();
    let stop = script(
        bin.path(),
        "stop.sh",
        r#"input=$(cat)
case "$input" in
  *'"stop_hook_active":true'*) exit 0 ;;
  *) echo '{"decision":"block","reason":"cite a line"}' ;;
esac"#,
    );
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_use(
        "StructuredOutput",
        json!({"ok": true}),
    )));
    server.push(Step::reply(Reply::tool_use(
        "StructuredOutput",
        json!({"ok": true, "line": 3}),
    )));
    let mut s = spec(ToolRegistry::builtin());
    s.output = Some(
        crit_agent::StructuredOutput::new(json!({"type": "object", "required": ["ok"]})).unwrap(),
    );
    s.hooks = hooks(
        json!({"Stop": [{"hooks": [{"type": "command", "command": stop}]}]}),
        dir.path(),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    assert_eq!(out.structured, Some(json!({"ok": true, "line": 3})));
    let r = &tool_results(&server, 1)[0];
    assert_eq!(
        (r.1.as_str(), r.2),
        ("Stop hook feedback: cite a line", true)
    );
}
