//! Every flag, defined once.

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use crit_core::FailOn;
use crit_core::render::Format;
use crit_core::render::compat::Compat;
use crit_llm::Provider;

mod bench;
mod scope;

pub use bench::*;

/// crit's command line, each subcommand's help showing only the shared flags it uses.
pub fn command() -> clap::Command {
    scope::distribute(Cli::command())
}

/// The command tree completions and man pages show: `review` with one
/// subcommand per template ([`crate::commands::review::documented`]), where
/// parsing takes a template's flags from the template at run time.
pub fn documented(review: clap::Command) -> clap::Command {
    scope::documented(Cli::command().mut_subcommand("review", |_| review))
}

/// Parses the process's arguments. The shared flags may come before or after
/// the subcommand (after wins); one the chosen subcommand does not use is
/// refused, like an unknown one.
pub fn parse() -> Result<Cli, clap::Error> {
    parse_from(std::env::args_os())
}

/// [`parse`] of these arguments (the first is the program's name).
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(args)?;
    if let Some((flag, path)) = scope::first_unused(&matches) {
        return Err(clap::Error::raw(
            clap::error::ErrorKind::UnknownArgument,
            format!(
                "{flag} does nothing for `crit {path}`; `crit {path} --help` lists the options it takes\n"
            ),
        ));
    }
    let mut cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))?;
    let (leaf, _) = scope::leaf(&matches);
    let later = CommonArgs::from_arg_matches(leaf).map_err(|e| e.format(&mut cmd))?;
    cli.common = cli.common.overlay(later);
    Ok(cli)
}

/// Reviews of code changes, design documents, task plans and prompts, by LLM
/// reviewers and a deterministic rule engine, merged into one trustworthy result.
#[derive(Debug, Parser)]
#[command(
    name = "crit",
    version,
    about,
    propagate_version = true,
    arg_required_else_help = true,
    after_help = "Run `crit --help` for the gate's levels and the exit codes.",
    after_long_help = GATE_AND_EXIT_CODES
)]
pub struct Cli {
    #[command(flatten)]
    pub common: CommonArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// What `crit --help` ends with: the one place that says what each gate level
/// fails on and what each exit code means (the README says the same).
const GATE_AND_EXIT_CODES: &str = "\
The gate (--exit-code, or --fail-on LEVEL):
  LEVEL         FAILS ON                                FOR EXAMPLE
  p0, blocker   a P0 finding, or a reviewer's FAIL      an SQL injection (P0)
  p1, major     P0 or P1 findings, or FAIL (default)    ...or an unchecked write error (P1)
  p2, minor     P0 to P2 findings, or FAIL              ...or a missing edge-case test (P2)
  p3, nit       any finding, or FAIL                    ...or a misleading name (P3)
  concerns      anything but a clean PASS               ...or CONCERNS with no findings
  never         no finding or verdict                   only a review that could not finish
  At every level, a review that could not finish fails: UNKNOWN, ERROR or
  INCOMPLETE, or an answer crit could not read. Levels take any case (P1, p1).

Exit codes:
  0    done; the gate passed, or no gate was asked for
  1    the gate failed
  2    change the command or a file: usage, configuration, a missing input
       file, no backend configured, a missing model name
  3    the review was attempted and could not run: network, authentication,
       a crash
  129, 130, 143
       SIGHUP, SIGINT (Ctrl-C) or SIGTERM stopped it; what was done is still
       printed and saved, as INCOMPLETE";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Re-render a saved ReviewResult (JSON) in any format; `crit report merge` folds several into one.
    Report(ReportCommand),
    /// Which backend and model crit would use, where each came from, and one tiny request.
    Doctor,
    /// The effective configuration and where each value came from.
    Config,
    /// Trust this project's settings that run programs, move credentials or relax the gate.
    Trust(TrustArgs),
    /// Run a review template: `crit review list`, `crit review arch DOC --against HLD`, …
    Review(ReviewArgs),
    /// Run an orchestrator that delegates to specialist reviewers (Reldo's config works as is).
    Run(RunArgs),
    /// Write a starter .crit/ (settings, a `crit run` orchestrator, three example reviewers), or Reldo's layout.
    Init(InitArgs),
    /// Check a plan: deterministic checks (expert-review's rules) in milliseconds; with a model backend configured, the persona panel too (it spends tokens).
    ///
    /// The verdict is APPROVED, REJECTED, INCOMPLETE or ERROR. The checks fix what
    /// they can in the plan file and ask about the rest (`--answer`). When a model
    /// backend is configured (`crit doctor` shows which), the personas named in the
    /// session's context.yaml then review the plan concurrently, and all must
    /// approve; each persona is one model conversation and spends tokens. Without a
    /// backend the checks alone decide, and the output says so.
    Plan(PlanArgs),
    /// Hook adapter: reads the hook's JSON on stdin, answers on stdout.
    Hook(HookArgs),
    /// Answer a comment on a GitHub pull request (run by a workflow on `issue_comment` and `pull_request_review_comment`): the `/crit` commands, questions and disputes in crit's threads.
    ///
    /// Commands (`/crit review`, `/crit describe`, `/crit ask QUESTION`,
    /// `/crit help`) are taken from people with write access to the
    /// repository. A reply in one of crit's threads that asks something is
    /// answered there; one that disputes the finding has it checked again,
    /// and the finding goes only when the check quotes the code that shows
    /// it wrong. crit answers each comment once, never a bot or itself, and
    /// records reactions and disputes in its feedback log.
    Respond(RespondArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    ///
    /// `crit review`'s templates in it are the built-in ones and those of the
    /// project in the current directory.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
        /// Write it where the shell loads it from (bash: ~/.local/share/bash-completion/completions/crit, fish: ~/.config/fish/completions/crit.fish), creating the directory.
        #[arg(long)]
        install: bool,
    },
    /// Print crit's man page, or write one page per command into DIR.
    Man {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Review a prompt before an agent runs it: specialist reviewers, a deterministic editor, a diff to approve.
    Prompt(PromptArgs),
    /// Wire crit into a coding agent: the `!!!` prompt review, the review gate before the agent stops; in Claude Code also the plan gate, slash commands, the expert-review agent, the permission rules they need, the status line.
    Install(InstallArgs),
    /// Take out of a coding agent exactly what `crit install` added.
    Uninstall(UninstallArgs),
    /// One line for Claude Code's status line (reads its JSON on stdin): the review running or just finished.
    Statusline,
    /// An MCP server over stdio: crit's reviews as tools (review_code, check_plan, review_prompt, explain_finding) for any agent that speaks MCP.
    Mcp,
    /// The history in the audit logs: reviews per kind and outcome, gate failures, findings, acceptance, cost per day.
    Stats(StatsArgs),
    /// Measure review quality: precision, recall and F1 on labeled pull requests, judged by a model as the Martian Code Review Bench does; or `crit bench mine` on your own history, with no model.
    ///
    /// A corpus is a directory `cases/NAME/`, each holding `repo/` (a git repository
    /// with both commits, checked out at the head), `case.json` (`{"base": REF,
    /// "head": REF}`) and `golden.json` (the benchmark's per-pull-request object:
    /// `pr_title`, `url`, `comments[{comment, severity}]`). crit reviews each case's
    /// base..head as `crit review code` would, then asks a judge model, once per
    /// (golden comment, finding) pair, whether they identify the same underlying
    /// issue. A finding matches at most one golden comment and a golden comment at
    /// most one finding (the most pairs possible; each comment, in corpus order,
    /// tries its findings from the judge's highest confidence down). The judge's
    /// answers are cached. A case whose review did not finish, or whose judge could
    /// not decide a pair, is INCOMPLETE: in no score, and the exit code is 3.
    Bench(BenchArgs),
    /// Propose learnings from the team's feedback on crit's findings: disputes and 👎 on the same reviewer's rule in the same files become a rule in the team's words, as a patch to .crit/learnings.yaml.
    ///
    /// Findings of one reviewer and rule, in files under one directory with one
    /// extension, that the team disputed or marked 👎 at least `--min` times (and
    /// more often than 👍) become one learning, scoped to those files, with the
    /// threads it came from. The patch is printed (apply it with `git apply`), or
    /// written with `--write`. A learning reaches reviews once it is on the base
    /// branch, as every setting that relaxes the review does.
    Learn(LearnArgs),
}

#[derive(Debug, Args)]
pub struct LearnArgs {
    /// The period of feedback: days (`90d`), weeks (`12w`), hours (`24h`), or a date (`2026-02-01`).
    #[arg(long, value_name = "PERIOD", default_value = "90d")]
    pub since: String,
    /// The last day of the period (`2026-02-24`) [default: today, UTC].
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Disputes and 👎 a learning needs, at least.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub min: usize,
    /// Write .crit/learnings.yaml instead of printing the patch.
    #[arg(long, conflicts_with = "post")]
    pub write: bool,
    /// Open a pull request (GitHub) or merge request (GitLab) with the learnings, from the branch crit/learnings on the default branch; a later run updates the same branch and request. Reads the default branch's learnings file, not the working tree's.
    #[arg(long, value_enum, ignore_case = true, value_name = "FORGE")]
    pub post: Option<crit_post::ForgeKind>,
    /// The environment variable holding the forge's token [default: GITHUB_TOKEN or GITLAB_TOKEN].
    #[arg(long, value_name = "NAME", requires = "post")]
    pub token_env: Option<String>,
}

/// Where Claude Code's settings are changed.
#[derive(Debug, Args)]
pub struct SettingsScope {
    /// The agent to wire crit into.
    #[arg(value_enum)]
    pub agent: InstallAgent,
    /// This project's agent directory (`.claude/`, `.codex/`, `.gemini/`) (the default).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Your own (`~/.claude/`, `$CODEX_HOME` or `~/.codex/`, `~/.gemini/`): every project.
    #[arg(long)]
    pub user: bool,
    /// Show what would change (a diff of settings.json, the files), change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub scope: SettingsScope,
    /// Also run the review gate when a subagent stops (SubagentStop).
    #[arg(long)]
    pub subagent_stop: bool,
    /// Wire only these pieces (comma-separated) [default: all].
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PIECES")]
    pub only: Vec<InstallPiece>,
    /// Leave these pieces out (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PIECES")]
    pub skip: Vec<InstallPiece>,
    /// Also register `crit mcp` (crit's review tools) in the agent's MCP
    /// servers: `.mcp.json`, `.codex/config.toml`, `.gemini/settings.json`,
    /// `.cursor/mcp.json`, `.github/mcp.json`, `opencode.json` (`--user`:
    /// `~/.claude.json`, `config.toml` in `$CODEX_HOME`,
    /// `~/.gemini/settings.json`, `~/.cursor/mcp.json`, `mcp-config.json` in
    /// `$COPILOT_HOME`, `~/.config/opencode/opencode.json`).
    #[arg(long)]
    pub mcp: bool,
}

/// A piece of crit in a coding agent, for `--only` and `--skip`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InstallPiece {
    /// The prompt review on a prompt ending in `!!!`.
    PromptReview,
    /// The review gate when the agent stops.
    StopGate,
    /// The plan gate when the agent leaves plan mode.
    PlanGate,
    /// The expert-review agent.
    Agent,
    /// The status line.
    Statusline,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub scope: SettingsScope,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InstallAgent {
    /// Claude Code: `.claude/settings.json`, commands, the expert-review agent.
    ClaudeCode,
    /// Codex CLI: `.codex/hooks.json` (the prompt review, the review gate).
    Codex,
    /// Gemini CLI: `.gemini/settings.json` (the prompt review, the review gate).
    Gemini,
    /// Cursor: `.cursor/hooks.json` (the review gate).
    Cursor,
    /// Copilot CLI: `.github/hooks/crit.json` (the prompt review, the review gate).
    Copilot,
    /// OpenCode: a plugin, `.opencode/plugins/crit.js` (the prompt review, the review gate).
    #[value(name = "opencode")]
    OpenCode,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The period: days (`7d`), weeks (`2w`), hours (`24h`), or a date (`2026-02-01`).
    #[arg(long, value_name = "PERIOD", default_value = "7d")]
    pub since: String,
    /// The last day of the period (`2026-02-24`) [default: today, UTC].
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
}

#[derive(Debug, Args)]
pub struct PromptArgs {
    /// The prompt (several words are joined with spaces); `-` reads it from stdin.
    #[arg(value_name = "TEXT")]
    pub text: Vec<String>,
    /// Review the prompt in FILE; a glob (`prompts/**/*.md`, quoted) reviews every match. Repeatable.
    #[arg(long = "file", value_name = "FILE")]
    pub files: Vec<String>,
    /// Take the refined prompt without asking.
    #[arg(short, long)]
    pub yes: bool,
    /// Neither use nor store cached reviews.
    #[arg(long)]
    pub no_cache: bool,
    /// Prompt files reviewed at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub jobs: usize,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// `list`, or a template name followed by its inputs (`--NAME VALUE`); the
    /// first required input may also be given as a positional argument.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "TEMPLATE [INPUTS]"
    )]
    pub args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// What to review, in your words (`-` reads it from stdin).
    #[arg(
        value_name = "PROMPT",
        required_unless_present = "prompt",
        conflicts_with = "prompt"
    )]
    pub text: Option<String>,
    /// Same as the positional PROMPT, as Reldo's command line takes it.
    #[arg(long, value_name = "PROMPT")]
    pub prompt: Option<String>,
    /// The orchestrator's config (YAML or JSON) [default: .crit/run.yaml, .claude/reldo.json or .reldo/settings.json, else built in].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Write Reldo's layout instead: .claude/reldo.json, .claude/reldo/, .reldo/.
    #[arg(long)]
    pub reldo: bool,
    /// Replace starter files that exist (without it, any existing one stops init).
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// List the settings and whether each is trusted; change nothing.
    #[arg(long, conflicts_with = "revoke")]
    pub show: bool,
    /// Forget this project's trust: its settings are ignored again.
    #[arg(long)]
    pub revoke: bool,
    /// Trust a `crit run` config only `--config` loads too (as `crit run --config FILE` finds it).
    #[arg(long, value_name = "FILE", conflicts_with = "revoke")]
    pub config: Option<PathBuf>,
    /// Trust without asking, from a script of yours: refused inside a coding agent's session.
    #[arg(long, short = 'y', conflicts_with_all = ["revoke", "show"])]
    pub yes: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ReportCommand {
    #[command(subcommand)]
    pub action: Option<ReportAction>,
    #[command(flatten)]
    pub single: Option<ReportArgs>,
    #[command(flatten)]
    pub post: PostArgs,
}

#[derive(Debug, Subcommand)]
pub enum ReportAction {
    /// Fold results into one (the shards of `crit review code --shard I/N`): findings
    /// deduplicated by fingerprint, usage and cost summed, the verdict recomputed,
    /// the gate applied once; a missing shard makes the result INCOMPLETE.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// ReviewResult JSON files, as written by `--format json`.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A ReviewResult JSON file, as written by `--format json`; `-` reads stdin.
    pub file: PathBuf,
}

// Posting a result to the pull or merge request a CI job runs for: on `crit
// review code` and `crit report FILE` (a job without write access saves the
// result, a job with it posts the result). Not a doc comment: clap would make
// it the about text of every command these flags join.
#[derive(Debug, Args, Clone, Default)]
pub struct PostArgs {
    /// Post the result to the pull request (GitHub Actions) or merge request (GitLab CI) this job runs for: findings as inline comments with suggestions, one summary edited on every run. The result is written first; a failed post exits 3.
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_name = "FORGE",
        help_heading = "Posting"
    )]
    pub post: Option<crit_post::ForgeKind>,
    /// Keep at most N inline comments open, the most severe first; the rest are listed in the summary [default: 30].
    #[arg(long, value_name = "N", requires = "post", help_heading = "Posting")]
    pub max_comments: Option<usize>,
    /// The environment variable holding the forge's token [default: GITHUB_TOKEN or GITLAB_TOKEN].
    #[arg(
        long,
        value_name = "NAME",
        requires = "post",
        conflicts_with_all = ["github_token_env", "gitlab_token_env"],
        help_heading = "Posting"
    )]
    pub token_env: Option<String>,
    /// The environment variable holding the GitHub token [default: GITHUB_TOKEN].
    #[arg(long, value_name = "NAME", requires = "post", help_heading = "Posting")]
    pub github_token_env: Option<String>,
    /// The environment variable holding the GitLab token [default: GITLAB_TOKEN].
    #[arg(long, value_name = "NAME", requires = "post", help_heading = "Posting")]
    pub gitlab_token_env: Option<String>,
    /// GitHub: the pull request to post to, when the workflow's event does not name one (a `workflow_run` job posting a saved result) [env CRIT_PULL_REQUEST].
    #[arg(long, value_name = "N", requires = "post", help_heading = "Posting")]
    pub pull_request: Option<u64>,
    /// GitHub: the account crit's comments are by, when its token cannot say (a GitHub App's token: `NAME[bot]`); crit otherwise learns it from its first comment [env CRIT_GITHUB_LOGIN].
    #[arg(
        long,
        value_name = "LOGIN",
        requires = "post",
        help_heading = "Posting"
    )]
    pub github_login: Option<String>,
    /// Review only the commits pushed since crit's last review of this pull or merge request (its summary records the commit it reviewed); after a force-push, or on the first review, the whole change. The summary says which commits each review covered.
    #[arg(long, requires = "post", help_heading = "Posting")]
    pub since_last_review: bool,
}

/// Who may command crit, and how often it answers.
#[derive(Debug, Args)]
pub struct RespondArgs {
    /// The environment variable holding the token [default: GITHUB_TOKEN].
    #[arg(long, value_name = "NAME")]
    pub github_token_env: Option<String>,
    /// The GitHub account crit posts as, when its token cannot say (an App's).
    #[arg(long, value_name = "LOGIN")]
    pub github_login: Option<String>,
    /// Most answers crit gives in one thread in an hour [default: `respond.max_answers_per_hour` in .crit/config.yaml, else 3].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_answers_per_hour: Option<u32>,
    /// A command from someone without write access: answered with one short reply saying who may use it, or left unanswered [default: `respond.others` in .crit/config.yaml, else reply].
    #[arg(long, value_enum)]
    pub others: Option<Others>,
    /// Flags for the review `/crit review` runs (after `--`), e.g. `-- --max-cost 2`.
    #[arg(last = true, value_name = "REVIEW_FLAGS")]
    pub review_flags: Vec<String>,
}

/// What a command from someone without write access gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Others {
    Reply,
    Silent,
}

impl From<Others> for crit_project::config::respond::Others {
    fn from(o: Others) -> Self {
        match o {
            Others::Reply => Self::Reply,
            Others::Silent => Self::Silent,
        }
    }
}

/// `--max-answers-per-hour` and `--others` as explicit settings.
pub fn respond_flags(
    max_answers_per_hour: Option<u32>,
    others: Option<Others>,
) -> crit_project::config::respond::RespondConfig {
    use crit_llm::Sourced;
    crit_project::config::respond::RespondConfig {
        max_answers_per_hour: max_answers_per_hour
            .map(|n| Sourced::explicit(n, "--max-answers-per-hour")),
        others: others.map(|o| Sourced::explicit(o.into(), "--others")),
    }
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PlanArgs {
    #[command(subcommand)]
    pub action: Option<PlanAction>,
    /// A session directory, a plan file (`plan.md`), or `session://ID` (~/.claude/sessions/ID).
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Answer a pending question: CHECK_ID=approve|abort|TEXT (TEXT replaces the match). Repeatable.
    #[arg(long, value_name = "CHECK_ID=ANSWER")]
    pub answer: Vec<String>,
    /// Never prompt: stop with the pending question in the output.
    #[arg(long)]
    pub non_interactive: bool,
}

#[derive(Debug, Subcommand)]
pub enum PlanAction {
    /// Exit 1 when the plan is newer than its approval marker (or was never approved).
    Verify {
        /// A session directory, a plan file, or `session://ID`.
        #[arg(value_name = "PATH")]
        path: String,
    },
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent whose hook protocol to speak.
    #[arg(value_enum)]
    pub agent: HookAgent,
    /// The hook event: UserPromptSubmit (`!!!` prompt review), Stop and
    /// SubagentStop (the review gate), PreToolUse (the plan gate).
    pub event: String,
    /// PreToolUse: the plan whose approval ExitPlanMode needs (default: the
    /// tool input's plan file, else the newest plan in the plan directories).
    #[arg(long, value_name = "PATH", env = "CRIT_PLAN")]
    pub plan: Option<String>,
    /// PreToolUse: a directory plans live in (repeatable; default
    /// ~/.claude/plans). A plan file named in the tool input counts only
    /// when it is inside one of them.
    #[arg(long = "plan-dir", value_name = "DIR")]
    pub plan_dirs: Vec<std::path::PathBuf>,
    /// UserPromptSubmit: only note where the session starts, for the review
    /// gate; no prompt review (what install wires with `--skip prompt-review`).
    #[arg(long)]
    pub note_only: bool,
    /// Stop, SubagentStop: how many times the review gate may send the agent
    /// back within one turn of the user.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub max_rounds: u32,
    /// pre-commit: flags for the review, then the files pre-commit passes.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookAgent {
    /// Claude Code: UserPromptSubmit, Stop, SubagentStop, PreToolUse.
    ClaudeCode,
    /// Codex CLI: UserPromptSubmit, Stop, SubagentStop.
    Codex,
    /// Gemini CLI: BeforeAgent (the prompt review), AfterAgent (the review gate).
    Gemini,
    /// Cursor: beforeSubmitPrompt (notes the session's start), stop (the review gate).
    Cursor,
    /// Copilot CLI: userPromptSubmitted (the prompt review), agentStop
    /// and subagentStop (the review gate).
    Copilot,
    /// OpenCode (crit's plugin calls it): chat.message (the prompt review),
    /// session.idle (the review gate).
    #[value(name = "opencode")]
    OpenCode,
    /// The pre-commit framework: events `review` (the staged change, or the
    /// pushed commits at pre-push) and `prompt` (the prompt files given).
    PreCommit,
}

/// Flags every command understands.
#[derive(Debug, Args, Clone, Default)]
pub struct CommonArgs {
    /// Model backend [default: auto; env CRIT_PROVIDER].
    #[arg(long, value_enum, ignore_case = true, help_heading = "Backend")]
    pub provider: Option<Provider>,
    /// Model name or alias: opus, sonnet, haiku, or a full id [env CRIT_MODEL].
    #[arg(long, help_heading = "Backend")]
    pub model: Option<String>,
    /// Cassettes the replay provider plays back [env CRIT_CASSETTES].
    #[arg(long, value_name = "DIR", help_heading = "Backend")]
    pub cassettes: Option<PathBuf>,
    /// Record every model exchange as a readable cassette into DIR [env CRIT_RECORD].
    #[arg(long, value_name = "DIR", help_heading = "Backend")]
    pub record: Option<PathBuf>,
    /// Work in DIR instead of the current directory.
    #[arg(long, value_name = "DIR", help_heading = "Input")]
    pub cwd: Option<PathBuf>,
    /// Read the project's settings, templates and suppressions as they are at REF (as CI does with the base branch).
    #[arg(long, value_name = "REF", help_heading = "Input")]
    pub rules_from: Option<String>,
    /// Leave the files GLOB matches (from the project root) out of the review, repeatable; each is listed in the coverage as ignored. Adds to `ignore:` in the config.
    #[arg(long, value_name = "GLOB", action = clap::ArgAction::Append, help_heading = "Input")]
    pub ignore: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, ignore_case = true, help_heading = "Output")]
    pub format: Option<FormatChoice>,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format", help_heading = "Output")]
    pub json: bool,
    /// `terminal`, `json`, or `file PATH` (JSON to PATH), as the review templates' command line takes it.
    #[arg(long, num_args = 1..=2, value_names = ["MODE", "PATH"], conflicts_with_all = ["format", "json"], help_heading = "Output")]
    pub output: Option<Vec<String>>,
    /// Print the original tool's JSON instead of crit's, for scripts written against it.
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        conflicts_with = "format",
        help_heading = "Output"
    )]
    pub compat: Option<Compat>,
    /// Write the result to PATH instead of stdout.
    #[arg(long, value_name = "PATH", help_heading = "Output")]
    pub out: Option<PathBuf>,
    /// When to color terminal output (NO_COLOR is honoured in `auto`).
    #[arg(long, value_enum, ignore_case = true, default_value_t = ColorArg::Auto, help_heading = "Output")]
    pub color: ColorArg,

    /// Exit 1 when the review does not pass its gate (default gate: --fail-on p1).
    #[arg(long, help_heading = "Gate")]
    pub exit_code: bool,
    /// What fails the gate: p0 to p3 (or blocker, major, minor, nit), concerns or never; implies --exit-code. `crit --help` shows what each level fails on.
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        hide_possible_values = true,
        help_heading = "Gate"
    )]
    pub fail_on: Option<FailOn>,

    /// Wall-clock limit for the review, in seconds.
    #[arg(long, value_name = "SECS", help_heading = "Limits")]
    pub timeout: Option<u64>,
    /// Maximum model turns per reviewer.
    #[arg(long, value_name = "N", help_heading = "Limits")]
    pub max_turns: Option<u32>,
    /// Stop when the review has cost this many US dollars.
    #[arg(long, value_name = "USD", help_heading = "Limits")]
    pub max_budget_usd: Option<f64>,

    /// More diagnostics on stderr (repeat for more).
    #[arg(short, long, action = clap::ArgAction::Count, help_heading = "Diagnostics")]
    pub verbose: u8,
    /// Only errors on stderr.
    #[arg(short, long, conflicts_with = "verbose", help_heading = "Diagnostics")]
    pub quiet: bool,
    /// Do not write session logs under .crit/sessions.
    #[arg(long, help_heading = "Diagnostics")]
    pub no_log: bool,
    /// The process's environment, read once in `main` and handed down to
    /// every command (never a flag).
    #[arg(skip)]
    pub env: crit_os::Env,
}

impl CommonArgs {
    /// These flags with the ones given in `later` (parsed after a template name)
    /// taking precedence.
    pub fn overlay(self, later: CommonArgs) -> CommonArgs {
        CommonArgs {
            provider: later.provider.or(self.provider),
            model: later.model.or(self.model),
            cassettes: later.cassettes.or(self.cassettes),
            record: later.record.or(self.record),
            cwd: later.cwd.or(self.cwd),
            rules_from: later.rules_from.or(self.rules_from),
            ignore: [self.ignore, later.ignore].concat(),
            format: later.format.or(self.format),
            json: later.json || self.json,
            output: later.output.or(self.output),
            compat: later.compat.or(self.compat),
            out: later.out.or(self.out),
            color: if later.color == ColorArg::Auto {
                self.color
            } else {
                later.color
            },
            exit_code: later.exit_code || self.exit_code,
            fail_on: later.fail_on.or(self.fail_on),
            timeout: later.timeout.or(self.timeout),
            max_turns: later.max_turns.or(self.max_turns),
            max_budget_usd: later.max_budget_usd.or(self.max_budget_usd),
            verbose: later.verbose.max(self.verbose),
            quiet: later.quiet || self.quiet,
            no_log: later.no_log || self.no_log,
            env: self.env,
        }
    }
}

/// `--format`: one of crit-core's output formats (offered as the library
/// lists them), or the file `crit bench export` writes, which shares the flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatChoice {
    Output(Format),
    /// The Martian Code Review Bench's `candidates.json`.
    MartianCandidates,
}

impl FormatChoice {
    /// The output format asked for, if any.
    pub fn output(choice: Option<FormatChoice>) -> Option<Format> {
        match choice {
            Some(FormatChoice::Output(f)) => Some(f),
            _ => None,
        }
    }
}

impl ValueEnum for FormatChoice {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::LazyLock<Vec<FormatChoice>> = std::sync::LazyLock::new(|| {
            Format::ALL
                .into_iter()
                .map(FormatChoice::Output)
                .chain([FormatChoice::MartianCandidates])
                .collect()
        });
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        match self {
            FormatChoice::Output(f) => f.to_possible_value(),
            FormatChoice::MartianCandidates => Some(
                clap::builder::PossibleValue::new("martian-candidates")
                    .help("The Martian Code Review Bench's candidates.json (`crit bench export` only)")
                    .hide(true),
            ),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColorArg {
    #[default]
    Auto,
    Always,
    Never,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
