//! `crit learn [--since 90d] [--min 3] [--write | --post FORGE]`: learnings
//! proposed from the team's feedback, as a patch to `.crit/learnings.yaml` on
//! stdout, written through the confined writer, or opened as a pull or merge
//! request (`learn_post.rs`).

use std::path::Path;
use std::time::SystemTime;

use anyhow::anyhow;
use crit_bench::learn::{Proposal, patch, propose};
use crit_bench::stats::{Period, days};
use crit_core::{Dest, Printable};
use crit_os::write::Root;
use crit_project::learnings::{LEARNINGS_FILE, Learnings, with_added};

use crate::cli::{CommonArgs, LearnArgs};
use crate::commands::{learn_post, learn_words};
use crate::exit::{CliError, Code};

/// The learnings file read, at most this big.
const MAX_FILE: u64 = 1024 * 1024;

pub fn run(common: &CommonArgs, args: &LearnArgs) -> Result<Code, CliError> {
    let until = match &args.until {
        Some(d) => days::parse_date(d.trim()).ok_or_else(|| {
            CliError::usage(anyhow!("--until {d}: expected a date such as 2026-02-24"))
        })?,
        None => days::of_secs(crit_core::timestamp::unix_secs(SystemTime::now())),
    };
    let period = Period::parse(&args.since, until).map_err(|e| CliError::usage(anyhow!(e)))?;
    let env = common.env.clone();
    let feedback = crit_review::session::feedback_dir(&env).ok_or_else(|| {
        CliError::usage(anyhow!(
            "cannot tell where the feedback log is: set XDG_STATE_HOME or HOME"
        ))
    })?;
    let dir = common.cwd.clone().unwrap_or_else(|| ".".into());
    let dir = dir
        .canonicalize()
        .map_err(|e| CliError::usage(anyhow!("{}: {e}", dir.display())))?;
    let root = crit_project::paths::project_root_in(&dir, env.get("HOME").map(Path::new));
    let root = root.canonicalize().unwrap_or(root);
    let repo = crit_review::session::path_hash(&root.display().to_string());
    let project = Root::open(&root)
        .map_err(|e| CliError::could_not_run(anyhow!("{}: {e}", root.display())))?;
    // Posting proposes a change to the default branch, so it starts from
    // that branch's file, not the working tree's.
    let forge = match args.post {
        Some(kind) => Some(learn_post::Forge::open(
            kind,
            args.token_env.as_deref(),
            &env,
        )?),
        None => None,
    };
    let before = match &forge {
        Some(f) => f.before()?,
        None => read_existing(&project)?,
    };
    let existing = Learnings::parse(&before, LEARNINGS_FILE)
        .map_err(|e| CliError::usage(anyhow!("{e}; fix it before adding learnings")))?;
    let mut proposals = propose(&feedback, &period, &repo, args.min, &existing);
    learn_words::word_all(common, &env, &root, &mut proposals)?;
    let added: Vec<_> = proposals.iter().map(|p| p.learning.clone()).collect();
    let after = match added.is_empty() {
        true => before.clone(),
        false => with_added(&before, &added).ok_or_else(|| {
            CliError::usage(anyhow!("{LEARNINGS_FILE} does not parse; fix it first"))
        })?,
    };
    let patch = patch(&before, &after);
    if common.json {
        let doc = serde_json::json!({ "proposals": proposals, "patch": patch });
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| CliError::could_not_run(anyhow!("writing JSON: {e}")))?;
        println!("{}", crit_core::printable::json_document(text));
    }
    if proposals.is_empty() {
        eprintln!(
            "No learnings to propose: no reviewer's rule was disputed or marked 👎 {} times in the same files from {} to {}.",
            args.min,
            days::date(period.since),
            days::date(period.until)
        );
        return Ok(Code::Ok);
    }
    for p in &proposals {
        eprintln!("{}", summary(p));
    }
    if let Some(f) = &forge {
        f.propose(&after, &proposals, common.quiet)?;
    } else if args.write {
        project
            .create_dir_all(".crit", 0o755)
            .and_then(|()| project.write_atomic(LEARNINGS_FILE, after.as_bytes()))
            .map_err(|e| CliError::could_not_run(anyhow!("writing {LEARNINGS_FILE}: {e}")))?;
        eprintln!(
            "Wrote {} learning{} to {LEARNINGS_FILE}; they apply to reviews once merged to the base branch.",
            added.len(),
            if added.len() == 1 { "" } else { "s" }
        );
    } else if !common.json {
        print!("{}", Printable::new(&patch, Dest::Terminal));
    }
    Ok(Code::Ok)
}

/// The learnings file as it is in the working tree; empty when there is none.
fn read_existing(project: &Root) -> Result<String, CliError> {
    let limits = crit_os::read::InputLimits {
        max_bytes: MAX_FILE,
    };
    match project.read_to_string(LEARNINGS_FILE, limits) {
        Ok(text) => Ok(text),
        Err(e) if e.is_not_found() => Ok(String::new()),
        Err(e) => Err(CliError::could_not_run(anyhow!("{LEARNINGS_FILE}: {e}"))),
    }
}

/// One line about a proposal, for stderr.
pub(super) fn summary(p: &Proposal) -> String {
    let s = &p.learning.scope;
    let mut what = vec![];
    if let Some(r) = &s.reviewer {
        what.push(format!("reviewer {r}"));
    }
    if let Some(r) = &s.rule {
        what.push(format!("rule {r}"));
    }
    if !s.paths.is_empty() {
        what.push(s.paths.join(", "));
    }
    let mut line = format!(
        "Proposed {}: {} ({} disputed or 👎, {} 👍)",
        p.learning.id,
        what.join(", "),
        p.against,
        p.for_it
    );
    if p.screened > 0 {
        line.push_str(&format!(
            "; {} repl{} left unquoted: addressed to the reviewer",
            p.screened,
            if p.screened == 1 { "y" } else { "ies" }
        ));
    }
    Printable::line(&line, Dest::Terminal).into_string()
}
