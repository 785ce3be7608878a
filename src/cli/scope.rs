//! Which of the shared flags each subcommand uses. The shared flags are defined
//! once ([`super::CommonArgs`]) and parse before or after the subcommand (`crit
//! --json review code` keeps working), but a subcommand's help lists only the
//! ones it uses, and giving one it does not use is a usage error, not a silent
//! no-op.

use clap::ArgMatches;
use clap::parser::ValueSource;

/// Every shared flag, by its id (the field name in `CommonArgs`).
const SHARED: [&str; 21] = [
    "provider",
    "model",
    "cassettes",
    "record",
    "cwd",
    "rules_from",
    "ignore",
    "format",
    "json",
    "output",
    "compat",
    "out",
    "color",
    "exit_code",
    "fail_on",
    "timeout",
    "max_turns",
    "max_budget_usd",
    "verbose",
    "quiet",
    "no_log",
];

/// The posting flags (`PostArgs`, on the commands that post) a command does
/// not use, by its path: `crit report` posts a result already made, so there
/// is no review left to narrow to the commits since the last one.
const POSTING_UNUSED: [(&str, &str); 1] = [("report", "since_last_review")];

/// Flags every command uses: how it talks to the terminal.
const EVERYWHERE: [&str; 3] = ["color", "verbose", "quiet"];

const BACKEND: [&str; 4] = ["provider", "model", "cassettes", "record"];
const PROJECT: [&str; 2] = ["cwd", "rules_from"];
const OUTPUT: [&str; 5] = ["format", "json", "output", "compat", "out"];
const GATE: [&str; 2] = ["exit_code", "fail_on"];

/// The flags a subcommand uses beyond [`EVERYWHERE`], by its path of names
/// (`report merge`). A subcommand not listed uses every shared flag.
fn uses(path: &str) -> Option<Vec<&'static str>> {
    // An orchestrator's sub-agents read what they choose: no file list to
    // leave files out of.
    if path == "run" {
        return Some(SHARED.into_iter().filter(|f| *f != "ignore").collect());
    }
    let groups: &[&[&'static str]] = match path {
        "report" | "report merge" => &[&OUTPUT, &GATE],
        "doctor" => &[&BACKEND, &PROJECT, &["json", "timeout"]],
        "config" => &[
            &BACKEND,
            &PROJECT,
            &["json", "fail_on", "timeout", "ignore"],
        ],
        "trust" => &[&["cwd", "json"]],
        // What it answers with; the review it runs takes its own flags after `--`.
        "respond" => &[&BACKEND, &PROJECT],
        "init" | "install" | "uninstall" => &[&["cwd"]],
        "stats" => &[&["format", "json", "out"]],
        "statusline" => &[],
        "plan" => &[
            &BACKEND,
            &PROJECT,
            &OUTPUT,
            &GATE,
            &["timeout", "max_budget_usd", "no_log"],
        ],
        "plan verify" => &[&["cwd"]],
        "prompt" => &[
            &BACKEND,
            &PROJECT,
            &["format", "json", "output", "out"],
            &GATE,
            &["timeout", "no_log"],
        ],
        "completions" | "man" => &[],
        "bench" => &[
            &BACKEND,
            &PROJECT,
            &["json", "out", "timeout", "max_turns", "max_budget_usd"],
        ],
        "bench import" => &[&["json"]],
        "bench export" => &[&BACKEND, &PROJECT, &["format", "out", "timeout"]],
        "bench mine" => &[&["cwd", "json", "out"]],
        "learn" => &[&["cwd", "json"]],
        _ => return None,
    };
    Some(groups.iter().flat_map(|g| g.iter().copied()).collect())
}

fn unused(path: &str) -> Vec<&'static str> {
    let mut unused: Vec<&'static str> = match uses(path) {
        None => Vec::new(),
        Some(used) => SHARED
            .into_iter()
            .filter(|id| !EVERYWHERE.contains(id) && !used.contains(id))
            .collect(),
    };
    unused.extend(posting_unused(path));
    unused
}

fn posting_unused(path: &str) -> impl Iterator<Item = &'static str> + '_ {
    POSTING_UNUSED
        .into_iter()
        .filter(move |(p, _)| *p == path)
        .map(|(_, id)| id)
}

/// Gives every subcommand the shared flags, hiding from its help the ones it
/// does not use (they still parse, so [`first_unused`] can name them). On
/// `crit` itself they parse too, before the subcommand, but only the ones
/// every command uses are listed.
///
/// A subcommand gets them when clap builds it, which parsing does only for
/// the one that runs: giving every command its flags up front cost each run
/// about a millisecond.
pub fn distribute(mut cmd: clap::Command) -> clap::Command {
    for id in SHARED.into_iter().filter(|id| !EVERYWHERE.contains(id)) {
        cmd = cmd.mut_arg(id, |a| a.hide(true));
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(&name, |s| s.defer(give));
    }
    cmd
}

/// A top-level subcommand with the shared flags, as [`distribute`] defers it.
fn give(cmd: clap::Command) -> clap::Command {
    use clap::Args;
    let shared: Vec<clap::Arg> = super::CommonArgs::augment_args(clap::Command::new("crit"))
        .get_arguments()
        .filter(|a| SHARED.contains(&a.get_id().as_str()))
        .cloned()
        .collect();
    let path = cmd.get_name().to_string();
    give_as(cmd, &path, &shared, Unused::Hidden)
}

/// What a command gets of the shared flags it does not use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unused {
    /// They parse, hidden from help, so [`first_unused`] can name them.
    Hidden,
    /// Left out: completion scripts offer hidden flags too.
    Absent,
}

fn give_as(
    mut cmd: clap::Command,
    path: &str,
    shared: &[clap::Arg],
    mode: Unused,
) -> clap::Command {
    let unused = unused(path);
    // The command's own posting flags it does not use: hidden, still parsed
    // (`first_unused` names them).
    for id in posting_unused(path) {
        cmd = cmd.mut_arg(id, |a| a.hide(true));
    }
    for arg in shared {
        let hide = unused.contains(&arg.get_id().as_str());
        // Export writes another benchmark's format, not a review's.
        let arg = match (path, arg.get_id().as_str()) {
            ("bench export", "format") => &arg
                .clone()
                .help("The format to write: martian-candidates (the benchmark's candidates.json)")
                .hide_possible_values(true),
            _ => arg,
        };
        cmd = match mode {
            Unused::Hidden => cmd.arg(arg.clone().hide(hide)),
            Unused::Absent if hide => continue,
            // Its conflicts may name flags left out; parsing keeps them.
            Unused::Absent => cmd.arg(
                arg.clone()
                    .conflicts_with(clap::builder::Resettable::<clap::Id>::Reset),
            ),
        };
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let sub_path = format!("{path} {name}");
        cmd = cmd.mut_subcommand(&name, |s| give_as(s, &sub_path, shared, mode));
    }
    cmd
}

/// The tree completions and man pages show: each command with only the
/// shared flags it uses, and `crit` itself with only those every command
/// uses, so a completion never offers a flag crit then refuses.
pub fn documented(cmd: clap::Command) -> clap::Command {
    let shared: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| SHARED.contains(&a.get_id().as_str()))
        .cloned()
        .collect();
    let mut top = clap::Command::new(cmd.get_name().to_string())
        .propagate_version(true)
        .arg_required_else_help(true);
    if let Some(v) = cmd.get_version() {
        top = top.version(v.to_string());
    }
    if let Some(a) = cmd.get_about() {
        top = top.about(a.clone());
    }
    if let Some(a) = cmd.get_after_long_help() {
        top = top.after_long_help(a.clone());
    }
    for arg in shared
        .iter()
        .filter(|a| EVERYWHERE.contains(&a.get_id().as_str()))
    {
        top = top.arg(
            arg.clone()
                .conflicts_with(clap::builder::Resettable::<clap::Id>::Reset),
        );
    }
    for sub in cmd.get_subcommands() {
        let name = sub.get_name().to_string();
        top = top.subcommand(give_as(sub.clone(), &name, &shared, Unused::Absent));
    }
    top
}

/// The matches of the subcommand that runs, and its path of names (`report merge`).
pub fn leaf(matches: &ArgMatches) -> (&ArgMatches, String) {
    let mut path = Vec::new();
    let mut leaf = matches;
    while let Some((name, sub)) = leaf.subcommand() {
        path.push(name);
        leaf = sub;
    }
    (leaf, path.join(" "))
}

/// The first shared flag given on the command line that the chosen subcommand
/// does not use, with the subcommand's path: `(--provider, "report")`.
pub fn first_unused(matches: &ArgMatches) -> Option<(String, String)> {
    let (leaf, path) = leaf(matches);
    // A posting flag is the command's own: `crit` itself has none.
    let given = |id: &&str| {
        leaf.value_source(id) == Some(ValueSource::CommandLine)
            || (SHARED.contains(id) && matches.value_source(id) == Some(ValueSource::CommandLine))
    };
    unused(&path)
        .into_iter()
        .find(given)
        .map(|id| (format!("--{}", id.replace('_', "-")), path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::CommandFactory;

    #[test]
    fn every_named_flag_is_a_shared_flag() {
        let cmd = Cli::command();
        let ids: Vec<String> = cmd
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect();
        for id in SHARED {
            assert!(ids.iter().any(|i| i == id), "{id} is not a flag");
        }
        for path in [
            "report", "doctor", "config", "trust", "init", "plan", "prompt",
        ] {
            for id in uses(path).unwrap() {
                assert!(SHARED.contains(&id), "{path}: {id}");
            }
        }
        let global = ids
            .iter()
            .filter(|i| !["help", "version"].contains(&i.as_str()));
        assert_eq!(
            global.count(),
            SHARED.len(),
            "SHARED lists every shared flag"
        );
    }
}
