//! What the Bash tool sets up once per agent context (and its clones): the
//! kernel sandbox its processes run in, where the repository is, and the
//! config-derived overrides git needs. Made at the first Bash call and kept for
//! the review: the checkout does not change under a read-only reviewer, so each
//! git call afterwards costs one process.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crit_os::env::Env;

use crate::confine::Roots;
use crate::context::ToolContext;
use crate::git_hardening::{CONFIG_QUERY, GIT_ENV, HARDENING, RepoConfig};
use crate::git_layout::{self, GitLayout};
use crate::process::{Ended, Spawn, spawn_capture_in};
use crate::sandbox::{Sandbox, SandboxRules};

use super::policy::ALLOWED_PROGRAMS;

/// Time the config query may take.
const QUERY_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(crate) struct BashSession {
    /// The spawner every command goes through, or why it could not start.
    pub sandbox: Result<Sandbox, SetupError>,
    /// How git runs here, or why it does not.
    pub git: Result<GitSetup, SetupError>,
}

/// Why Bash, or git under it, cannot run here; `Display` is what the model reads.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum SetupError {
    /// The kernel sandbox could not be set up (its own message).
    #[error("{0}")]
    Sandbox(String),
    #[error("cannot start the tool sandbox: {0}")]
    SandboxThread(String),
    /// No repository git may be pointed at (`refused: …` when one points elsewhere).
    #[error(transparent)]
    Layout(#[from] crit_os::git::layout::GitLayoutError),
    #[error("cannot run `git`: {0}")]
    GitSpawn(String),
    #[error("cannot read this repository's config: {0}")]
    GitConfig(String),
}

impl SetupError {
    /// The error already says git is refused here (a repository pointer elsewhere).
    pub(crate) fn is_refusal(&self) -> bool {
        matches!(
            self,
            SetupError::Layout(crit_os::git::layout::GitLayoutError::Elsewhere { .. })
        )
    }
}

#[derive(Debug)]
pub(crate) struct GitSetup {
    pub layout: GitLayout,
    /// Between [`HARDENING`] and the subcommand: the explicit repository,
    /// the model-only overrides, and the repository's filter overrides.
    pub global_args: Vec<String>,
    /// Why `git blame` is refused here, if it is.
    pub blame_refused: Option<String>,
}

impl BashSession {
    pub(crate) async fn start(cx: &ToolContext) -> BashSession {
        let layout = git_layout::discover(cx.root());
        let rules = rules(
            &cx.roots,
            layout.as_ref().ok(),
            &cx.env,
            &cx.project_commands,
        );
        let sandbox = match tokio::task::spawn_blocking(move || Sandbox::start(rules)).await {
            Ok(Ok(s)) => {
                tracing::info!(status = %s.status(), "tool sandbox");
                Ok(s)
            }
            Ok(Err(e)) => Err(SetupError::Sandbox(e.to_string())),
            Err(e) => Err(SetupError::SandboxThread(e.to_string())),
        };
        let git = match (layout, &sandbox) {
            (Err(e), _) => Err(e.into()),
            (Ok(_), Err(e)) => Err(e.clone()),
            (Ok(layout), Ok(sandbox)) => git_setup(layout, sandbox, cx).await,
        };
        BashSession { sandbox, git }
    }
}

/// The project roots and the repository read-only, the system directories and
/// the allowed programs (the project's commands' too) executable, nothing else.
fn rules(
    roots: &Roots,
    layout: Option<&GitLayout>,
    env: &Env,
    project: &[Vec<String>],
) -> SandboxRules {
    let mut rules = SandboxRules::system();
    for r in roots.all() {
        rules = rules.read(r);
    }
    if let Some(l) = layout {
        rules = rules.read(l.readable_dir());
    }
    let path = child_path(roots, env.get("PATH"));
    let programs = ALLOWED_PROGRAMS
        .iter()
        .copied()
        .chain(project.iter().filter_map(|c| c.first().map(String::as_str)));
    for program in programs {
        let found = std::env::split_paths(&path)
            .map(|d| d.join(program))
            .find_map(|p| p.canonicalize().ok().filter(|c| c.is_file()));
        if let Some(bin) = found
            && !rules.may_execute(&bin)
        {
            rules = rules.exec(bin);
        }
    }
    rules
}

async fn git_setup(
    layout: GitLayout,
    sandbox: &Sandbox,
    cx: &ToolContext,
) -> Result<GitSetup, SetupError> {
    let mut global_args: Vec<String> = layout.args().into();
    // Only protected config (command line) may name safe directories; the
    // user's global config is not read here, and the repository is the one
    // under review, with everything that could run switched off.
    global_args.extend([
        "-c".into(),
        format!("safe.directory={}", layout.work_tree.display()),
    ]);
    for (k, v) in MODEL_OVERRIDES {
        global_args.extend(["-c".into(), format!("{k}={v}")]);
    }
    let mut argv: Vec<String> = HARDENING.iter().map(|s| s.to_string()).collect();
    argv.extend(global_args.iter().cloned());
    argv.extend(CONFIG_QUERY.iter().map(|s| s.to_string()));
    let out = spawn_capture_in(
        Spawn {
            program: "git",
            args: &argv,
            cwd: cx.root(),
            env: child_env(&cx.roots, &cx.env),
            clear_env: true,
            stdin: None,
            timeout: QUERY_TIMEOUT,
            caps: (256 * 1024, 16 * 1024),
            cancel: &cx.cancel,
        },
        sandbox,
    )
    .await
    .map_err(|e| SetupError::GitSpawn(e.to_string()))?;
    // `git config --get-regexp` exits 1 when nothing matches.
    let ok = matches!(&out.ended, Ended::Exited(s) if matches!(s.code(), Some(0 | 1)));
    if !ok {
        return Err(SetupError::GitConfig(
            out.stderr.render().trim().to_string(),
        ));
    }
    let config = RepoConfig::parse(&out.stdout.render());
    global_args.extend(config.overrides());
    let blame_refused = config
        .blame_ignore_files()
        .find(|f| f.starts_with('~') || cx.roots.resolve(f).is_err())
        .map(|f| {
            format!(
                "refused: this repository's config sets `blame.ignoreRevsFile` to `{f}`, \
                 outside the project; git reads that file whatever crit passes, so `git blame` \
                 does not run here. `git log -L START,END:FILE` shows a range's history"
            )
        });
    Ok(GitSetup {
        layout,
        global_args,
        blame_refused,
    })
}

/// `-c` settings for the model's git only (the review's own git keeps the
/// user's): no attribute or exclude files from anywhere but the work tree.
const MODEL_OVERRIDES: &[(&str, &str)] = &[
    ("core.attributesFile", "/dev/null"),
    ("core.excludesFile", "/dev/null"),
];

/// The child's whole environment: PATH (absolute entries outside the project, so
/// a repo cannot plant its own `git`), LANG, and git's: no user or system
/// config at all (`GIT_CONFIG_GLOBAL=/dev/null`), plus [`GIT_ENV`]. No HOME:
/// nothing the tools run should look there.
pub(super) fn child_env(roots: &Roots, from: &Env) -> Vec<(OsString, OsString)> {
    let mut env = vec![(OsString::from("PATH"), child_path(roots, from.get("PATH")))];
    if let Some(v) = from.get("LANG") {
        env.push(("LANG".into(), v.into()));
    }
    env.push(("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()));
    for (k, v) in GIT_ENV {
        env.push(((*k).into(), (*v).into()));
    }
    env
}

fn child_path(roots: &Roots, path: Option<&str>) -> OsString {
    let path = path.unwrap_or("/usr/local/bin:/usr/bin:/bin");
    let safe: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|p| p.is_absolute() && !roots.all().any(|r| p.starts_with(r)))
        .collect();
    std::env::join_paths(safe).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_path_drops_relative_and_in_project_entries() {
        let dir = tempfile::TempDir::new().unwrap();
        let roots = Roots::new(dir.path(), &[]).unwrap();
        let planted = roots.root().join("bin");
        let path = std::env::join_paths([
            std::path::PathBuf::from("/usr/bin"),
            ".".into(),
            planted,
            "bin".into(),
            "/bin".into(),
        ])
        .unwrap();
        let from = Env::new()
            .with("PATH", path.to_string_lossy())
            .with("LANG", "C.UTF-8");
        let env = child_env(&roots, &from);
        let (_, path) = env.iter().find(|(k, _)| k == "PATH").unwrap();
        assert_eq!(path, "/usr/bin:/bin");
        let keys: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert!(
            keys.iter()
                .all(|k| ["PATH", "LANG", "PAGER"].contains(&k.as_str()) || k.starts_with("GIT_")),
            "{keys:?}"
        );
        assert!(
            env.iter()
                .any(|(k, v)| k == "GIT_CONFIG_GLOBAL" && v == "/dev/null")
        );
        // LANG comes from the environment handed down, not this process's.
        assert!(env.iter().any(|(k, v)| k == "LANG" && v == "C.UTF-8"));
        assert!(
            env.iter()
                .any(|(k, v)| k == "GIT_LITERAL_PATHSPECS" && v == "1")
        );
    }
}
