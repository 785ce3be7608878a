//! `crit config`: the effective settings of each review kind as the review
//! will use them, and where each value came from (flag, environment, which
//! file and line, auto-detection, default); whose rules apply (and in CI,
//! the base of the change), and the project settings ignored because they are
//! not trusted. Every value comes from `crit_project`, as the reviews' do.

use crit_llm::{Env, SelectionRow};
use crit_project::trust::{ProjectRules, ci};
use crit_project::{Kind, Project};
use serde_json::json;

use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::output::{json_printable, printable_line, printable_value};

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    crate::runner::init_logging(common);
    let env = common.env.clone();
    let project = backend::project(common, &env)?;
    project.rules().release_warnings();
    let mut kinds = Vec::new();
    for kind in Kind::ALL {
        let mut rows = backend::settings(&project, kind)?.rows();
        // Whose rules apply is the project's, shown once below.
        rows.retain(|r| r.key != "rules");
        kinds.push((kind, rows));
    }
    let rules = rules_rows(&project);
    let gate = stop_gate_rows(&project, &env);
    if common.json {
        let doc = json!({
            "kinds": kinds.iter().map(|(k, rows)| json!({"kind": k.name(), "settings": rows})).collect::<Vec<_>>(),
            "rules": rules,
            "stop_gate": {"settings": gate},
        });
        println!("{}", json_printable(&doc));
        return Ok(Code::Ok);
    }
    let all = kinds.iter().flat_map(|(_, r)| r).chain(&rules).chain(&gate);
    let width = all
        .clone()
        .map(|r| printable_line(&r.key).chars().count())
        .max()
        .unwrap_or(0);
    let vwidth = all
        .map(|r| printable_value(&r.value).chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    let mut out = String::new();
    for (kind, rows) in &kinds {
        out.push_str(&format!("{}\n", kind.name()));
        for r in rows {
            out.push_str(&line(r, width, vwidth));
        }
        out.push('\n');
    }
    out.push_str("project\n");
    for r in &rules {
        out.push_str(&line(r, width, vwidth));
    }
    out.push_str(&format!("\n{STOP_GATE}\n"));
    for r in &gate {
        out.push_str(&line(r, width, vwidth));
    }
    print!("{out}");
    Ok(Code::Ok)
}

const STOP_GATE: &str =
    "Claude Code's Stop gate (the code review, with the project's settings as committed)";

/// The settings Claude Code's Stop gate reviews with: the project's files
/// at HEAD (in a session, at the commit the session began at), never the
/// working tree's, with the user's own config, flags and environment over
/// them. Each row says where its value came from.
fn stop_gate_rows(project: &Project, env: &Env) -> Vec<SelectionRow> {
    let gate = ProjectRules::committed(project.root(), env)
        .map_err(|e| e.to_string())
        .and_then(|rules| {
            Project::with_rules(
                project.cwd().to_path_buf(),
                project.root().to_path_buf(),
                std::sync::Arc::new(rules),
                project.explicit().clone(),
                env.clone(),
            )
            .map_err(|e| e.to_string())
        });
    let settings = gate.and_then(|g| {
        // What the gate ignores of the working tree is the rows' business,
        // not a warning here.
        g.settings(Kind::Code).map_err(|e| e.to_string())
    });
    match settings {
        Ok(s) => s.rows(),
        Err(why) => vec![row("rules", "(unreadable)", &why)],
    }
}

/// `  key  value  (source)`, every part as printable text on the row's one
/// line (a project file may hold anything: escape sequences, line breaks).
fn line(r: &SelectionRow, width: usize, vwidth: usize) -> String {
    format!(
        "  {:<width$}  {:<vwidth$}  ({})\n",
        printable_line(&r.key),
        printable_value(&r.value),
        printable_line(&r.source)
    )
}

/// Where the project's rules come from, the base of the change in CI, and
/// each setting ignored.
fn rules_rows(project: &Project) -> Vec<SelectionRow> {
    let rules: &ProjectRules = project.rules();
    let (value, source) = rules.describe();
    let mut rows = vec![
        row(
            "root",
            &project.root().display().to_string(),
            "the nearest repository",
        ),
        row("rules", &value, &source),
    ];
    if let Some(c) = rules.ci() {
        rows.push(match ci::review_base(rules.root(), c, project.env()) {
            Ok(Some(b)) => row(
                "base",
                &b.label(),
                &format!("{}: {}", c.ci.name(), b.from),
            ),
            Ok(None) => row(
                "base",
                "(none)",
                &format!(
                    "{}: no pull or merge request and no upstream; `crit review code` surveys the project",
                    c.ci.name()
                ),
            ),
            Err(why) => row("base", "(not found)", &why.to_string()),
        });
    }
    for asked in rules.asked().into_iter().filter(|a| !a.allowed) {
        let s = &asked.setting;
        rows.push(row(
            &s.key,
            &format!("{} (ignored)", s.value),
            &format!("{}: {}", s.at(), rules.why_ignored()),
        ));
    }
    rows
}

fn row(key: &str, value: &str, source: &str) -> SelectionRow {
    SelectionRow {
        key: key.to_string(),
        value: value.to_string(),
        source: source.to_string(),
    }
}
