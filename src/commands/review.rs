//! `crit review list | NAME [INPUTS]`. A template's inputs become flags of its
//! own subcommand, built at run time from the template, with crit's common flags
//! taken from their one definition in `cli.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use clap::{Arg, ArgAction, Args, FromArgMatches};
use crit_llm::Env;
use crit_review::panel::Consensus;
use crit_review::review::VerifyMode;
use crit_review::template::{Registry, Template};

use crate::cli::{CommonArgs, ReviewArgs};
use crate::exit::{CliError, Code};
use crate::post::Poster;

mod answers;
mod code_flags;
mod describe;
mod fix;
mod interactive;
mod print_prompt;
mod running;
pub(crate) use running::ci_scope;
mod since;
mod spend;

use code_flags::{CodeFlags, is_code};
use running::run_review;

pub fn run(common: CommonArgs, args: &ReviewArgs) -> Result<Code, CliError> {
    let Some((name, rest)) = args.args.split_first() else {
        return Err(CliError::usage(anyhow!(
            "name a template, or `list`: crit review list"
        )));
    };
    let root = flag_value(rest, "--cwd")
        .map(PathBuf::from)
        .or_else(|| common.cwd.clone())
        .unwrap_or_else(|| Path::new(".").to_path_buf());
    let mut early = common.clone();
    early.rules_from = flag_value(rest, "--rules-from").or_else(|| common.rules_from.clone());
    let env = common.env.clone();
    let mut project = crate::backend::project_at(&root, &early, &env)?;

    let registry =
        Registry::load_with(&project.template_dirs(), project.rules()).map_err(CliError::usage)?;
    if name == "list" {
        let cmd =
            CommonArgs::augment_args(clap::Command::new("list")).about("List the review templates");
        let matches = match cmd.try_get_matches_from(
            std::iter::once("crit review list".to_string()).chain(rest.iter().cloned()),
        ) {
            Ok(m) => m,
            Err(e) => {
                let _ = e.print();
                return Ok(if e.use_stderr() {
                    Code::Usage
                } else {
                    Code::Ok
                });
            }
        };
        let later =
            CommonArgs::from_arg_matches(&matches).map_err(|e| CliError::usage(anyhow!("{e}")))?;
        let common = common.overlay(later);
        crate::runner::init_logging(&common);
        project.rules().release_warnings();
        return list(&registry, &common);
    }
    let template = registry.get(name).map_err(CliError::usage)?;
    let matches = match command_for(template).try_get_matches_from(
        std::iter::once(format!("crit review {name}")).chain(rest.iter().cloned()),
    ) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return Ok(if e.use_stderr() {
                Code::Usage
            } else {
                Code::Ok
            });
        }
    };
    let later =
        CommonArgs::from_arg_matches(&matches).map_err(|e| CliError::usage(anyhow!("{e}")))?;
    let mut given = BTreeMap::new();
    for input in template.inputs.iter().filter(|i| i.name != "cwd") {
        if let Some(v) = matches.get_one::<String>(&input.name) {
            given.insert(input.name.clone(), v.clone());
        }
    }
    // `try_get_one`: templates with no required input have no positional argument.
    if let Ok(Some(v)) = matches.try_get_one::<String>(POSITIONAL) {
        let first = template
            .required_inputs()
            .next()
            .map(|i| i.name.clone())
            .unwrap_or_default();
        if given.insert(first.clone(), v.clone()).is_some() {
            return Err(CliError::usage(anyhow!(
                "--{first} was given twice: as the first argument and as --{first}"
            )));
        }
    }
    let inputs = template.resolve_inputs(&given).map_err(CliError::usage)?;
    template
        .check_files(&inputs, &root)
        .map_err(CliError::usage)?;
    let code = CodeFlags::from_matches(template, &matches)?;
    let checks = Checks {
        verify: matches.get_one::<VerifyMode>(VERIFY).copied(),
        consensus: matches.get_one::<Consensus>(CONSENSUS).copied(),
        interactive: matches.get_flag(INTERACTIVE),
        print_prompt: matches.get_flag(PRINT_PROMPT),
        yes: matches.get_flag(YES),
    };
    let common = common.overlay(later);
    let mut explicit = crate::backend::explicit(&common)?;
    explicit.max_cost_usd = matches
        .get_one::<f64>(MAX_COST)
        .map(|v| crit_llm::Sourced::explicit(*v, "--max-cost".to_string()));
    explicit.respond = code.respond.clone();
    project.set_explicit(explicit);
    // Where to post is settled before the review spends anything.
    let poster = Poster::from_args(&code.post, &env)?;
    if let (Some(_), Some(shard)) = (&poster, code.shard) {
        return Err(CliError::usage(anyhow!(
            "--post with --shard {shard} would post one part of the review as if it were all of it; save each shard's result, fold them with `crit report merge`, and post the merged result with `crit report merged.json --post …`"
        )));
    }
    run_review(
        common,
        template,
        given,
        code,
        checks,
        &project,
        Posting {
            env: &env,
            poster: poster.as_ref(),
        },
    )
}

/// What happens to a code review's result besides being written.
#[derive(Debug, Clone, Copy)]
pub struct Posting<'a> {
    /// The environment crit started with.
    pub env: &'a Env,
    /// `--post`: where to post it.
    pub poster: Option<&'a Poster>,
}
const POSITIONAL: &str = "crit-positional-input";
const VERIFY: &str = "verify";
const CONSENSUS: &str = "consensus";

/// How findings are checked before they count, and whether follow-up
/// questions come after (any template).
#[derive(Debug, Clone, Copy, Default)]
pub struct Checks {
    pub verify: Option<VerifyMode>,
    pub consensus: Option<Consensus>,
    pub interactive: bool,
    /// `--print-prompt`: print each request instead of sending it.
    pub print_prompt: bool,
    /// `--yes`: send the review whatever its estimated cost.
    pub yes: bool,
}
const PRINT_PROMPT: &str = "print-prompt";
const MAX_COST: &str = "max-cost";
const YES: &str = "yes";
const INTERACTIVE: &str = "interactive";

/// The subcommand for one template: its inputs as `--NAME VALUE`, the first
/// required input also positional, `--print-prompt`, and crit's common flags.
fn command_for(template: &Template) -> clap::Command {
    // The shared flags first: their derive sets an `about` of its own.
    let cmd = CommonArgs::augment_args(clap::Command::new(template.name.clone()));
    template_args(cmd, template)
}

/// `crit review` as completions and man pages show it: `list` and one
/// subcommand per template (the built-in ones and the project's in `dir`),
/// each with its own flags; crit's shared flags are added by the caller.
/// A project whose templates do not load still gets the built-in ones.
pub fn documented(dir: &Path, env: &Env) -> clap::Command {
    let registry = crate::backend::project_at(dir, &CommonArgs::default(), env)
        .ok()
        .and_then(|p| Registry::load_with(&p.template_dirs(), p.rules()).ok())
        .or_else(|| Registry::load(&Default::default()).ok());
    let mut review = clap::Command::new("review")
        .about("Run a review template: `crit review list`, `crit review code`, `crit review arch DOC --against HLD`, …")
        .subcommand_required(true)
        .subcommand(clap::Command::new("list").about("List the review templates"));
    for template in registry.iter().flat_map(Registry::list) {
        review = review.subcommand(template_args(
            clap::Command::new(template.name.clone()),
            template,
        ));
    }
    review
}

/// A template's own flags and help. Its description, usage and inputs'
/// help are the template file's text, so they reach the terminal through
/// the printable type, as in `crit review list`.
fn template_args(cmd: clap::Command, template: &Template) -> clap::Command {
    use crate::output::printable_line;
    let mut cmd = cmd
        .about(printable_line(&template.description))
        .override_usage(printable_line(&template.usage()))
        .no_binary_name(false);
    if let Some(first) = template.required_inputs().next() {
        cmd = cmd.arg(
            Arg::new(POSITIONAL)
                .value_name(first.name.to_uppercase())
                .help(format!("Same as --{}", first.name))
                .index(1),
        );
    }
    for input in template.inputs.iter().filter(|i| i.name != "cwd") {
        let mut help = input.description.clone();
        if let Some(d) = &input.default {
            help.push_str(&format!(" [default: {d}]"));
        }
        let help = printable_line(&help);
        cmd = cmd.arg(
            Arg::new(input.name.clone())
                .long(input.name.clone())
                .value_name(input.name.to_uppercase())
                .help(help)
                .help_heading("Template inputs"),
        );
    }
    if is_code(template) {
        cmd = code_flags::augment(cmd);
    }
    cmd.arg(
        Arg::new(VERIFY)
            .long(VERIFY)
            .value_name("MODE")
            .value_parser(|s: &str| s.parse::<VerifyMode>())
            .help("Which findings get a second look before they count: off, blocking (P0 and P1) or all [default: the template's `verify:`, else blocking]"),
    )
    .arg(
        Arg::new(CONSENSUS)
            .long(CONSENSUS)
            .value_name("RULE")
            .value_parser(|s: &str| s.parse::<Consensus>())
            .help("For a panel: how many reviewers must report a finding for it to count: any, majority or all [default: the template's `consensus:`, else any]"),
    )
    .arg(
        Arg::new(PRINT_PROMPT)
            .long(PRINT_PROMPT)
            .action(ArgAction::SetTrue)
            .help("Print each request crit would send (system prompt, every message, tools by name), per reviewer and part, without sending any; with --json, as JSON"),
    )
    .arg(
        Arg::new(MAX_COST)
            .long(MAX_COST)
            .value_name("USD")
            .value_parser(non_negative_usd)
            .help("Send the review without asking when its estimated cost is at most USD; above it, ask at a terminal and stop elsewhere [default: `max_cost_usd` in the config, else 1]"),
    )
    .arg(
        Arg::new(YES)
            .long(YES)
            .short('y')
            .action(ArgAction::SetTrue)
            .help("Send the review whatever its estimated cost (the budget, --max-budget-usd, still caps what is spent)"),
    )
    .arg(
        Arg::new(INTERACTIVE)
            .long(INTERACTIVE)
            .short('i')
            .action(ArgAction::SetTrue)
            .help("After the review, ask the reviewer follow-up questions (one per line; empty line or EOF ends)"),
    )
}

fn non_negative_usd(s: &str) -> Result<f64, String> {
    match s.trim_start_matches('$').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not an amount in USD (e.g. 2.50)")),
    }
}

fn list(registry: &Registry, common: &CommonArgs) -> Result<Code, CliError> {
    if common.json {
        let mut items: Vec<serde_json::Value> = registry
            .list()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "description": t.description,
                    "origin": t.origin.as_str(),
                    "path": t.path.as_ref().map(|p| p.display().to_string()),
                    "inputs": t.inputs.iter().map(|i| serde_json::json!({
                        "name": i.name, "description": i.description, "required": i.required, "default": i.default,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        items.extend(registry.broken().map(|b| {
            serde_json::json!({
                "name": b.name,
                "origin": b.origin.as_str(),
                "path": b.path.display().to_string(),
                "error": b.error,
            })
        }));
        println!(
            "{}",
            crate::output::json_printable(&serde_json::Value::from(items))
        );
        return Ok(Code::Ok);
    }
    let width = registry
        .list()
        .map(|t| t.name.len())
        .chain(registry.broken().map(|b| b.name.len()))
        .max()
        .unwrap_or(0);
    let mut out = String::from("Available review templates:\n");
    for t in registry.list() {
        out.push_str(&format!(
            "  {:<width$}  {:<8}  {}\n",
            crate::output::printable_line(&t.name),
            t.origin.as_str(),
            crate::output::printable_line(&t.description)
        ));
    }
    let broken: Vec<_> = registry.broken().collect();
    if !broken.is_empty() {
        out.push_str("\nTemplates that do not load (they fail when used):\n");
        for b in broken {
            out.push_str(&format!(
                "  {:<width$}  {:<8}  error: {}\n",
                crate::output::printable_line(&b.name),
                b.origin.as_str(),
                crate::output::printable_line(&b.error)
            ));
        }
    }
    print!("{out}");
    Ok(Code::Ok)
}

/// A flag given after the template name (`--cwd DIR`, `--rules-from=REF`),
/// needed before the template's own flags can be parsed.
fn flag_value(rest: &[String], flag: &str) -> Option<String> {
    let with_eq = format!("{flag}=");
    rest.iter().enumerate().find_map(|(i, a)| {
        a.strip_prefix(&with_eq)
            .map(str::to_string)
            .or_else(|| (a == flag).then(|| rest.get(i + 1).cloned()).flatten())
    })
}
