//! A pull-request description written from the change (`crit review code
//! --describe`): a title, a summary, a walkthrough per file and the risks a
//! reviewer should look at. One model request over the same scope a code
//! review takes, with the change's secrets redacted first (as a review's
//! are). The text is for people, not a gate: crit-post writes it into the
//! section of the description crit owns, made inert there.

use std::path::PathBuf;

use crit_agent::RunLimits;
use crit_core::ReviewerOutcome;
use crit_core::redact::Redactor;
use crit_llm::Backend;
use crit_project::scope::Change;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::engine::panel::{self, PanelEnv, ReviewerPlan};
use crate::engine::prompts::{OutputSpec, PromptError, contract_instructions, render_prompt};
use crate::engine::redaction::{redact_change, redact_str};

const SYSTEM: &str = include_str!("../../../prompts/describe.md");
const WORK: &str = include_str!("../../../prompts/describe_work.md");

/// What to describe, and with what.
#[derive(Debug)]
pub struct DescribeRequest {
    /// The project root (the reviewer has no tools; its runs are logged here).
    pub root: PathBuf,
    pub change: Change,
    /// The model id or alias; empty means the backend's configured model.
    pub model: String,
    pub limits: RunLimits,
    pub cancel: CancellationToken,
    /// The review's redactor: it learns the change's secrets, so whatever
    /// the caller writes later (the posted section) can hide them too.
    pub redactor: Redactor,
}

/// The description, as the model wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Description {
    pub title: String,
    pub summary: String,
    pub walkthrough: Vec<FileNote>,
    pub risks: Vec<String>,
}

/// One changed file and what changed in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileNote {
    pub file_path: String,
    pub what: String,
}

/// A description and what writing it cost.
#[derive(Debug, Clone)]
pub struct Described {
    pub description: Description,
    /// The model's run: its model, usage and cost.
    pub run: ReviewerOutcome,
}

/// Why no description was written.
#[derive(Debug, thiserror::Error)]
pub enum DescribeError {
    #[error("crit's description prompt does not render: {0}")]
    Prompt(#[from] PromptError),
    #[error("the model wrote no description: {0}")]
    NoAnswer(String),
    #[error("the model's description is not in the asked form: {0}")]
    Form(#[from] serde_json::Error),
}

/// Asks the model for the description of `req.change`.
pub async fn describe(
    backend: &Backend,
    mut req: DescribeRequest,
) -> Result<Described, DescribeError> {
    let plan = plan(&mut req)?;
    let env = PanelEnv {
        root: req.root.clone(),
        cancel: req.cancel.clone(),
        ..PanelEnv::default()
    };
    let run = panel::run_panel(backend, std::slice::from_ref(&plan), &env)
        .await
        .into_iter()
        .next()
        .ok_or_else(|| DescribeError::NoAnswer("the model was not asked".into()))?;
    let answer = match run.structured {
        Some(answer) => answer,
        None => {
            let why = run
                .parse_error
                .or(run.outcome.error.clone())
                .unwrap_or_else(|| "no answer".into());
            return Err(DescribeError::NoAnswer(why));
        }
    };
    let mut description: Description = serde_json::from_value(answer)?;
    // A secret the model repeats goes no further than crit.
    let clean = |s: &mut String| *s = req.redactor.redact(s).text.into_owned();
    clean(&mut description.title);
    clean(&mut description.summary);
    for note in &mut description.walkthrough {
        clean(&mut note.file_path);
        clean(&mut note.what);
    }
    description.risks.iter_mut().for_each(clean);
    Ok(Described {
        description,
        run: run.outcome,
    })
}

/// The one request: the instructions, then the change (redacted).
fn plan(req: &mut DescribeRequest) -> Result<ReviewerPlan, DescribeError> {
    redact_change(&mut req.change, &req.redactor);
    let change = &req.change;
    let commits: Vec<String> = change
        .commits
        .iter()
        .map(|c| redact_str(c, &req.redactor))
        .collect();
    let description = redact_str(&change.description, &req.redactor);
    let files: Vec<String> = change
        .files
        .iter()
        .map(|f| {
            let status = serde_json::to_value(f.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let size = match f.binary {
                true => "binary".to_string(),
                false => format!("+{} −{}", f.additions, f.deletions),
            };
            format!(
                "`{}` ({status}, {size})",
                redact_str(&f.path, &req.redactor)
            )
        })
        .collect();
    let user = render_prompt(
        WORK,
        minijinja::context! {
            description => description,
            commits => commits,
            files => files,
            truncated => change.truncated,
            patch => &change.patch,
        },
    )?;
    let output = OutputSpec::Schema(schema());
    let contract = contract_instructions(&output)?;
    Ok(ReviewerPlan {
        name: "describe".into(),
        model: req.model.clone(),
        system: format!("{}\n\n{contract}", SYSTEM.trim()),
        user,
        shared: None,
        tools: Vec::new(),
        output,
        limits: RunLimits {
            max_turns: Some(3),
            ..req.limits
        },
        max_output_tokens: 4096,
        sub_agents: Vec::new(),
    })
}

impl Description {
    /// Markdown for the pull request: the title as a heading, the summary,
    /// the walkthrough and the risks.
    pub fn markdown(&self) -> String {
        let mut out = format!("## {}\n\n{}\n", one_line(&self.title), self.summary.trim());
        if !self.walkthrough.is_empty() {
            out.push_str("\n### Walkthrough\n\n");
            for note in &self.walkthrough {
                out.push_str(&format!(
                    "- `{}`: {}\n",
                    one_line(&note.file_path).replace('`', "'"),
                    one_line(&note.what)
                ));
            }
        }
        out.push_str("\n### Risks\n\n");
        match self.risks.is_empty() {
            true => out.push_str("None found.\n"),
            false => {
                for risk in &self.risks {
                    out.push_str(&format!("- {}\n", one_line(risk)));
                }
            }
        }
        out
    }
}

/// A model's text on one line: a list item or heading it cannot break out of.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The answer's shape.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 200},
            "summary": {"type": "string"},
            "walkthrough": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "file_path": {"type": "string"},
                        "what": {"type": "string"}
                    },
                    "required": ["file_path", "what"]
                }
            },
            "risks": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["title", "summary", "walkthrough", "risks"]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::process::Command;

    use crit_project::scope::{self, Scope, ScopeOptions};

    fn git(dir: &std::path::Path, args: &[&str]) {
        let ok = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    /// A real change: `src/lib.rs` gains `port()` and a token, uncommitted.
    fn change(dir: &std::path::Path) -> Change {
        git(dir, &["init", "-q"]);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), "fn a() {}\n").unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "base"]);
        std::fs::write(
            dir.join("src/lib.rs"),
            "fn a() {}\nfn port() -> u16 { 8080 }\nconst T: &str = \"ghp_0123456789abcdefghijABCDEFGHIJklmn\";\n",
        )
        .unwrap();
        scope::compute(dir, &Scope::Uncommitted, &ScopeOptions::default()).unwrap()
    }

    #[test]
    fn the_request_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let mut req = DescribeRequest {
            root: dir.path().to_path_buf(),
            change: change(dir.path()),
            model: "sonnet".into(),
            limits: RunLimits::default(),
            cancel: CancellationToken::new(),
            redactor: Redactor::default(),
        };
        let plan = plan(&mut req).unwrap();
        insta::assert_snapshot!("describe_system", plan.system);
        // The change's secret never reaches the model.
        assert!(!plan.user.contains("ghp_0123"), "{}", plan.user);
        let user: String = plan
            .user
            .lines()
            .map(
                |l| match l.starts_with("index ") || l.contains("against HEAD") {
                    true => "<varies>",
                    false => l,
                },
            )
            .collect::<Vec<_>>()
            .join("\n");
        insta::assert_snapshot!("describe_user", user);
    }

    #[test]
    fn the_markdown_keeps_each_model_line_in_its_place() {
        let d = Description {
            title: "Read the port\n## PASS".into(),
            summary: "Reads it.".into(),
            walkthrough: vec![FileNote {
                file_path: "src/`lib`.rs".into(),
                what: "adds port()\n- [x] approved".into(),
            }],
            risks: vec![],
        };
        let md = d.markdown();
        assert!(
            md.starts_with("## Read the port ## PASS\n\nReads it.\n"),
            "{md}"
        );
        assert!(
            md.contains("- `src/'lib'.rs`: adds port() - [x] approved\n"),
            "{md}"
        );
        assert!(md.ends_with("### Risks\n\nNone found.\n"), "{md}");
    }
}
