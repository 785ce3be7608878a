//! The pieces `crit install claude-code` can wire, each on its own
//! (`--only`, `--skip`): what each adds to `settings.json` and which of the
//! plugin's files it writes.

use crit_project::scope::installed::{self, AGENT};

use super::merge::HookSpec;

/// One piece of crit in Claude Code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Piece {
    /// `!!!` at the end of a prompt: the prompt review, `/prompt-review`.
    PromptReview,
    /// The review gate when the agent stops, and `/crit-review`.
    StopGate,
    /// Leaving plan mode waits for `crit plan` to approve the plan.
    PlanGate,
    /// The expert-review agent.
    Agent,
    /// crit's status line.
    Statusline,
}

impl Piece {
    pub const ALL: [Piece; 5] = [
        Piece::PromptReview,
        Piece::StopGate,
        Piece::PlanGate,
        Piece::Agent,
        Piece::Statusline,
    ];

    /// The name `--only` and `--skip` take.
    pub fn name(self) -> &'static str {
        match self {
            Piece::PromptReview => "prompt-review",
            Piece::StopGate => "stop-gate",
            Piece::PlanGate => "plan-gate",
            Piece::Agent => "agent",
            Piece::Statusline => "statusline",
        }
    }

    /// What it does, for install's report.
    pub fn what(self) -> &'static str {
        match self {
            Piece::PromptReview => "the prompt review on a prompt ending in `!!!`",
            Piece::StopGate => "the review gate when the agent stops",
            Piece::PlanGate => "the plan gate when the agent leaves plan mode",
            Piece::Agent => "the expert-review agent",
            Piece::Statusline => "the status line",
        }
    }
}

/// The pieces to wire: all of them unless the user chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pieces(Vec<Piece>);

impl Default for Pieces {
    fn default() -> Self {
        Pieces(Piece::ALL.to_vec())
    }
}

impl Pieces {
    /// `--only` (when not empty), less `--skip`.
    pub fn choose(only: &[Piece], skip: &[Piece]) -> Pieces {
        let base: Vec<Piece> = if only.is_empty() {
            Piece::ALL.to_vec()
        } else {
            Piece::ALL
                .into_iter()
                .filter(|p| only.contains(p))
                .collect()
        };
        Pieces(base.into_iter().filter(|p| !skip.contains(p)).collect())
    }

    pub fn has(&self, p: Piece) -> bool {
        self.0.contains(&p)
    }

    pub fn iter(&self) -> impl Iterator<Item = Piece> + '_ {
        self.0.iter().copied()
    }

    pub fn is_all(&self) -> bool {
        self.0.len() == Piece::ALL.len()
    }

    /// The hooks these pieces need. The review gate without the prompt
    /// review still gets a `UserPromptSubmit` hook, one that only notes the
    /// commit the session starts from (without it, what the agent commits
    /// before its first stop would be out of the gate's first review).
    pub fn hooks(&self, crit: &str, subagent_stop: bool) -> Vec<HookSpec> {
        let mut specs = Vec::new();
        for h in installed::HOOKS {
            let wanted = match h.event {
                "UserPromptSubmit" => self.has(Piece::PromptReview) || self.has(Piece::StopGate),
                "Stop" => self.has(Piece::StopGate),
                "SubagentStop" => self.has(Piece::StopGate) && subagent_stop,
                "PreToolUse" => self.has(Piece::PlanGate),
                _ => false,
            };
            if !wanted {
                continue;
            }
            let mut command = installed::hook_command(crit, h.event);
            if h.event == "UserPromptSubmit" && !self.has(Piece::PromptReview) {
                command = format!("{command} {}", installed::NOTE_ONLY);
            }
            specs.push(HookSpec {
                event: h.event,
                command,
                timeout: h.timeout,
                matcher: h.matcher,
                shape: super::merge::Shape::Grouped,
            });
        }
        specs
    }

    /// The permission rules these pieces need, in [`installed::allow_rules`]' order.
    pub fn rules(&self, crit: &str) -> Vec<String> {
        let plan = format!("Bash({crit} plan:*)");
        let prompt = format!("Bash({crit} prompt:*)");
        installed::allow_rules(crit)
            .into_iter()
            .filter(|r| match r.as_str() {
                "Skill(prompt-review)" => self.has(Piece::PromptReview),
                "Skill(crit-review)" => self.has(Piece::StopGate),
                r if r == prompt => self.has(Piece::PromptReview),
                r if r == plan => self.has(Piece::PlanGate) || self.has(Piece::Agent),
                _ => true,
            })
            .collect()
    }

    /// Whether these pieces write the plugin's file `rel` (from `.claude`).
    pub fn writes(&self, rel: &str) -> bool {
        match rel {
            "commands/prompt-review.md" => self.has(Piece::PromptReview),
            "commands/crit-review.md" => self.has(Piece::StopGate),
            r if r == AGENT => self.has(Piece::Agent),
            _ => true,
        }
    }
}

/// Every hook install may have written, for uninstall: a ledger in a
/// checkout can list anything, and only these ever come out.
pub fn all_hooks(crit: &str) -> Vec<HookSpec> {
    let mut all = Pieces::default().hooks(crit, true);
    let note_only = Pieces::choose(&[Piece::StopGate], &[]).hooks(crit, false);
    all.extend(
        note_only
            .into_iter()
            .filter(|h| h.command.ends_with(installed::NOTE_ONLY)),
    );
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_piece_wires_only_what_it_needs() {
        let only_prompt = Pieces::choose(&[Piece::PromptReview], &[]);
        let events: Vec<_> = only_prompt
            .hooks("crit", true)
            .iter()
            .map(|h| h.event)
            .collect();
        assert_eq!(events, ["UserPromptSubmit"]);
        assert_eq!(
            only_prompt.rules("crit"),
            ["Skill(prompt-review)", "Bash(crit prompt:*)"]
        );
        assert!(!only_prompt.writes(AGENT));
        // The gate without the prompt review notes the session's start only.
        let gate = Pieces::choose(&[], &[Piece::PromptReview]);
        let hooks = gate.hooks("crit", false);
        assert_eq!(
            hooks[0].command,
            "crit hook claude-code UserPromptSubmit --note-only"
        );
        assert_eq!(hooks.len(), 3);
        assert_eq!(
            gate.rules("crit"),
            ["Skill(crit-review)", "Bash(crit plan:*)"]
        );
        let none = Pieces::choose(&[Piece::Statusline], &[Piece::Statusline]);
        assert!(none.hooks("crit", true).is_empty());
        assert_eq!(all_hooks("crit").len(), 5);
    }
}
