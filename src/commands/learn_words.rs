//! The model words each proposed learning's rule, when a backend is
//! configured, from the replies it rests on; the scope stays the one crit
//! computed. Words the model cannot give, or that address the reviewer,
//! leave the team's own words in place, and the output says which.

use std::path::Path;

use crit_bench::learn::Proposal;
use crit_os::env::Env;
use crit_project::Kind;
use crit_review::converse::learning::{self, Draft};

use crate::cli::CommonArgs;
use crate::exit::CliError;
use crate::output::printable;
use crate::runner;

/// Words every proposal's rule with the configured model, saying on stderr
/// (unless `quiet`) whose words each rule is in.
pub fn word_all(
    common: &CommonArgs,
    env: &Env,
    root: &Path,
    proposals: &mut [Proposal],
) -> Result<(), CliError> {
    if proposals.is_empty() {
        return Ok(());
    }
    let say = |line: String| {
        if !common.quiet {
            eprintln!("{}", printable(&line));
        }
    };
    // A project whose settings do not read leaves the team's words: the
    // proposals do not need a model.
    let settings = crate::backend::project(common, env)
        .and_then(|p| crate::backend::settings(&p, Kind::Code))
        .ok();
    let chosen = settings.and_then(|s| {
        let backend = s
            .backend
            .is_ok()
            .then(|| s.build_backend().ok())
            .flatten()?;
        Some((s, backend))
    });
    let Some((settings, backend)) = chosen else {
        say("No model is configured, so the rules are in the team's own words.".into());
        return Ok(());
    };
    let model = common
        .model
        .clone()
        .unwrap_or_else(|| settings.request_model());
    let stop = runner::Stop::new();
    for p in proposals.iter_mut() {
        let s = &p.learning.scope;
        let draft = Draft {
            reviewer: s.reviewer.clone(),
            rule: s.rule.clone(),
            paths: s.paths.clone(),
            languages: s.languages.clone(),
            against: p.against,
            replies: p.replies.clone(),
        };
        let asked = runner::block_on(&stop, |cancel| {
            learning::word(&backend, &model, &draft, root.to_path_buf(), cancel)
        })?;
        match asked {
            Ok(w) => {
                p.learning.rule = w.rule;
                say(format!(
                    "{}: the rule is in the model's words.",
                    p.learning.id
                ));
            }
            Err(e) => say(format!(
                "{}: the rule stays in the team's words: {e}",
                p.learning.id
            )),
        }
    }
    Ok(())
}
