//! `crit learn --post github|gitlab`: the learnings opened as a pull or
//! merge request from crit's branch on the default branch. The file it
//! changes is the default branch's, read through the API; the request says
//! what each learning rests on, the team's words made inert for markdown.

use anyhow::anyhow;
use crit_bench::learn::Proposal;
use crit_os::env::Env;
use crit_post::{BaseFile, Change, ForgeKind, Repository, inert};
use crit_project::learnings::LEARNINGS_FILE;

use crate::exit::{CliError, Code};
use crate::output::printable;
use crate::runner;

/// crit's branch for learnings: always one commit on the default branch.
const BRANCH: &str = "crit/learnings";

/// The repository to propose to and its default branch's learnings.
pub struct Forge {
    repo: Repository,
    base: BaseFile,
}

impl Forge {
    /// The repository the CI environment names, and its default branch's
    /// learnings file read (exit 2 when the environment does not say where,
    /// 3 when the forge cannot be read).
    pub fn open(kind: ForgeKind, token_var: Option<&str>, env: &Env) -> Result<Self, CliError> {
        let repo = Repository::from_env(env, kind, token_var)
            .map_err(|e| CliError::usage(anyhow!("{}", printable(&e.to_string()))))?;
        let stop = runner::Stop::new();
        let base = runner::block_on(&stop, |_| repo.read(LEARNINGS_FILE))?.map_err(|e| {
            CliError::could_not_run(anyhow!(
                "reading {LEARNINGS_FILE} on {}'s default branch: {}",
                repo.place(),
                printable(&e.to_string())
            ))
        })?;
        Ok(Forge { repo, base })
    }

    /// The default branch's learnings file; empty when it has none.
    pub fn before(&self) -> Result<String, CliError> {
        Ok(self.base.text.clone().unwrap_or_default())
    }

    /// Opens or updates crit's request with `after` as the learnings file;
    /// nothing when there is nothing to propose.
    pub fn propose(
        &self,
        after: &str,
        proposals: &[Proposal],
        quiet: bool,
    ) -> Result<(), CliError> {
        if proposals.is_empty() {
            return Ok(());
        }
        let change = Change {
            branch: BRANCH.to_string(),
            path: LEARNINGS_FILE.to_string(),
            text: after.to_string(),
            title: title(proposals.len()),
            body: body(proposals),
            message: title(proposals.len()),
        };
        let stop = runner::Stop::new();
        let done =
            runner::block_on(&stop, |_| self.repo.propose(&self.base, &change))?.map_err(|e| {
                CliError::with_code(
                    Code::CouldNotRun,
                    anyhow!(
                        "proposing the learnings on {}: {}",
                        self.repo.place(),
                        printable(&e.to_string())
                    ),
                )
            })?;
        if !quiet {
            let what = self.repo.forge().request(done.number);
            let verb = match (done.created, done.branch_changed) {
                (true, _) => "Opened",
                (false, true) => "Updated",
                (false, false) => "Already up to date:",
            };
            let at = done.url.map(|u| format!(": {u}")).unwrap_or_default();
            eprintln!(
                "{}",
                printable(&format!(
                    "{verb} {what} from {BRANCH} into {}{at}. The learnings apply to reviews once it is merged.",
                    self.base.branch
                ))
            );
        }
        Ok(())
    }
}

fn title(n: usize) -> String {
    format!(
        "crit: {n} learning{} from the team's feedback",
        if n == 1 { "" } else { "s" }
    )
}

/// The request's description: what each learning rests on. Rule text and
/// scopes came from the team's replies: inert.
fn body(proposals: &[Proposal]) -> String {
    let mut out = String::from(
        "crit proposes these learnings from the team's disputes and reactions on its findings. Reviewers read them as conventions once this is merged to the default branch; until then they change nothing.\n\n",
    );
    for p in proposals {
        let l = &p.learning;
        out.push_str(&format!(
            "- {}: {} ({} disputed or 👎, {} 👍)\n",
            inert::code(&l.id),
            inert::line(&l.rule),
            p.against,
            p.for_it
        ));
        for t in &l.threads {
            out.push_str(&format!("  - {}\n", inert::line(t)));
        }
    }
    out.push_str("\nEdit the rules' words here before merging; crit updates this request on its next run only while it is open.\n");
    out
}
