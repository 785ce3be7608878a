//! `crit completions SHELL` and `crit man [--dir DIR]`, from the command tree
//! in `cli.rs` with `crit review`'s templates as subcommands (the built-in
//! ones and those of the project in the current directory), each with its
//! own flags; a subcommand's shared flags are only those it uses.

use std::io::Write;
use std::path::Path;

use anyhow::anyhow;
use clap_complete::Shell;

use crate::exit::{CliError, Code};

/// What completions and man pages document, from the current directory.
fn documented(env: &crit_os::Env) -> clap::Command {
    crate::cli::documented(super::review::documented(Path::new("."), env))
}

pub fn completions(shell: Shell, install: bool, env: &crit_os::Env) -> Result<Code, CliError> {
    let mut cmd = documented(env);
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "crit", &mut out);
    if !install {
        return write_stdout(&out);
    }
    let path = install_path(shell, env)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::could_not_run(anyhow!("{}: {e}", dir.display())))?;
    }
    crit_core::files::write_atomic(&path, &out)
        .map_err(|e| CliError::could_not_run(anyhow!("writing {}: {e}", path.display())))?;
    println!("{}", path.display());
    Ok(Code::Ok)
}

/// Where a shell loads a user's completions from with no setup: bash's
/// bash-completion and fish read these directories on their own.
fn install_path(shell: Shell, env: &crit_os::Env) -> Result<std::path::PathBuf, CliError> {
    use crit_os::dirs::{Base, base_dir};
    let under = |base: Base, path: &str| {
        base_dir(env, base)
            .map(|dir| dir.join(path))
            .ok_or_else(|| CliError::usage(anyhow!("HOME is not set (or not an absolute path)")))
    };
    match shell {
        Shell::Bash => under(Base::Data, "bash-completion/completions/crit"),
        Shell::Fish => under(Base::Config, "fish/completions/crit.fish"),
        other => Err(CliError::usage(anyhow!(
            "--install knows where bash and fish read completions; for {other}, write `crit completions {other}` into a directory your shell reads (zsh: one on $fpath, as _crit)"
        ))),
    }
}

pub fn man(dir: Option<&Path>, env: &crit_os::Env) -> Result<Code, CliError> {
    let cmd = documented(env);
    match dir {
        Some(dir) => {
            let write =
                |e: std::io::Error| CliError::could_not_run(anyhow!("{}: {e}", dir.display()));
            std::fs::create_dir_all(dir).map_err(write)?;
            let review = cmd.find_subcommand("review").cloned();
            clap_mangen::generate_to(cmd, dir).map_err(write)?;
            if let Some(review) = review {
                let mut page = Vec::new();
                review_page(review, &mut page).map_err(write)?;
                crit_core::files::write_atomic(&dir.join("crit-review.1"), &page).map_err(write)?;
            }
            Ok(Code::Ok)
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .map_err(|e| CliError::could_not_run(anyhow!("rendering the man page: {e}")))?;
            write_stdout(&out)
        }
    }
}

/// crit-review(1): the page of `crit review`, then each template's own
/// options (`crit review code`'s --diff, --uncommitted, --filter, --shard, …)
/// as a section of their own; the shared flags are listed once.
fn review_page(review: clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let review = review
        .name("crit-review")
        .bin_name("crit review")
        .disable_help_subcommand(true);
    clap_mangen::Man::new(review.clone()).render(out)?;
    let shared: Vec<String> = review
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    for sub in review.get_subcommands().filter(|s| s.get_name() != "list") {
        let name = sub.get_name().to_string();
        let mut own = sub.clone().bin_name(format!("crit review {name}"));
        for id in &shared {
            own = own.mut_arg(id.as_str(), |a| a.hide(true));
        }
        let mut section = Vec::new();
        clap_mangen::Man::new(own).render_options_section(&mut section)?;
        let section = String::from_utf8_lossy(&section).replace(".SH ", ".SS ");
        let about = sub
            .get_about()
            .map(|a| a.to_string())
            .unwrap_or_default()
            .replace('\\', "\\\\");
        writeln!(out, ".SH \"CRIT REVIEW {}\"", name.to_uppercase())?;
        writeln!(out, "{about}")?;
        out.extend_from_slice(section.as_bytes());
    }
    Ok(())
}

fn write_stdout(bytes: &[u8]) -> Result<Code, CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::could_not_run(anyhow!("writing to stdout: {e}")))
        }
        _ => Ok(Code::Ok),
    }
}
