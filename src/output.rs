//! Where and how a result is written, and the gate that sets the exit code.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use crit_core::ReviewResult;
use crit_core::printable::{Dest, Printable};
use crit_core::redact::Redactor;
use crit_core::render::compat::Compat;
use crit_core::render::{self, Format, RenderOptions};
use crit_core::terminal::sanitize;
use crit_llm::Env;

use crate::cli::{ColorArg, CommonArgs, FormatChoice};
use crate::exit::CliError;

/// The resolved output: format, destination, colors.
#[derive(Debug)]
pub struct OutputPlan {
    pub format: Format,
    /// `--compat`: the original tool's JSON instead of `format`.
    pub compat: Option<Compat>,
    pub dest: Option<PathBuf>,
    pub color: bool,
}

impl OutputPlan {
    /// Resolve `--format`, `--json`, `--compat`, the review templates'
    /// `--output terminal|json|file PATH` (with `--compat`, its JSON goes to
    /// stdout or PATH), `--out` and `--color`.
    pub fn from_common(common: &CommonArgs) -> Result<Self, CliError> {
        let mut dest = common.out.clone();
        let output = match &common.output {
            Some(output) => Some(output_mode(output, &mut dest)?),
            None => None,
        };
        let format = if common.json || common.compat.is_some() {
            // The review templates' `--output json` and `--output file PATH`
            // go with `--compat squadron`: their `to_dict()`, to stdout or PATH.
            if common.compat.is_some() && output == Some(Format::Terminal) {
                return Err(CliError::usage(anyhow!(
                    "--output terminal shows the report for people and --compat prints the original tool's JSON; use one"
                )));
            }
            Format::Json
        } else if let Some(choice) = common.format {
            match choice {
                FormatChoice::Output(f) => f,
                FormatChoice::MartianCandidates => {
                    return Err(CliError::usage(anyhow!(
                        "--format martian-candidates is what crit bench export writes; a review has its own formats"
                    )));
                }
            }
        } else {
            output.unwrap_or(Format::Terminal)
        };
        let color = match common.color {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                format == Format::Terminal && dest.is_none() && auto_color(&common.env)
            }
        };
        Ok(OutputPlan {
            format,
            compat: common.compat,
            dest,
            color,
        })
    }

    /// Render `result` and write it out.
    pub fn emit(&self, result: &ReviewResult) -> Result<(), CliError> {
        let options = RenderOptions {
            color: self.color,
            ..RenderOptions::default()
        };
        // Nothing crit prints or saves holds a secret, whatever a reviewer quoted:
        // redacted field by field before a format escapes them (JSON, workflow
        // commands, XML), then in the rendered text.
        let redacted = redacted(result);
        let result = redacted.as_ref().unwrap_or(result);
        let text = match self.compat {
            Some(c) => render::compat::render(result, c),
            None => render::render(result, self.format, &options),
        };
        let text = Redactor::process().redact_str(&text);
        // The terminal renderer sanitizes field by field (its colours are
        // escapes); markdown has none of its own.
        let text = match self.format {
            Format::Markdown if self.dest.is_none() => sanitize(&text).into_owned(),
            _ => text.into_owned(),
        };
        self.write_out(&text)
    }

    /// Whether this is the plain terminal report (no `--format`, `--json`,
    /// `--compat` other than terminal).
    pub fn is_terminal(&self) -> bool {
        self.format == Format::Terminal && self.compat.is_none()
    }

    /// `text` from a model (a `crit run` answer) as it is printed: secrets
    /// redacted; control characters removed at a terminal.
    pub fn emit_text(&self, text: &str) -> Result<(), CliError> {
        let mut text = Redactor::process().redact_str(text).into_owned();
        if self.dest.is_none() {
            text = sanitize(&text).into_owned();
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        self.write_out(&text)
    }

    fn write_out(&self, text: &str) -> Result<(), CliError> {
        match &self.dest {
            Some(path) => write_file(path, text).map_err(CliError::could_not_run),
            None => {
                let mut out = std::io::stdout().lock();
                // A closed pipe (`crit … | head`) is not an error worth reporting.
                match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                        Err(CliError::could_not_run(anyhow!("writing to stdout: {e}")))
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}

/// The review templates' `--output terminal|json|file PATH`: its format,
/// and PATH into `dest`.
fn output_mode(output: &[String], dest: &mut Option<PathBuf>) -> Result<Format, CliError> {
    match output {
        [mode] if mode == "terminal" => Ok(Format::Terminal),
        [mode] if mode == "json" => Ok(Format::Json),
        [mode, path] if mode == "file" => {
            if dest.is_some() {
                return Err(CliError::usage(anyhow!(
                    "--output file PATH and --out PATH both name a destination; use one"
                )));
            }
            *dest = Some(PathBuf::from(path));
            Ok(Format::Json)
        }
        [mode] if mode == "file" => Err(CliError::usage(anyhow!(
            "--output file needs a path: --output file PATH"
        ))),
        other => Err(CliError::usage(anyhow!(
            "--output {}: expected `terminal`, `json` or `file PATH`",
            other.join(" ")
        ))),
    }
}

/// `result` with every secret in its text replaced; `None` when it holds none.
fn redacted(result: &ReviewResult) -> Option<ReviewResult> {
    let mut value = serde_json::to_value(result).ok()?;
    if Redactor::process().redact_json(&mut value) == 0 {
        return None;
    }
    serde_json::from_value(value).ok()
}

/// Text that came from a model or a file, as crit prints it on a terminal:
/// secrets redacted, control characters removed.
pub fn printable(text: &str) -> String {
    sanitize(&Redactor::process().redact_str(text)).into_owned()
}

/// A name, path or value from a model, a repository or a config file, shown
/// inline: [`printable`] on one line, so it cannot start a line of its own
/// (a table row, a workflow command).
pub fn printable_line(text: &str) -> String {
    Printable::line(&Redactor::process().redact_str(text), Dest::Terminal).into_string()
}

/// A setting's value as the user decides on it (`crit trust`, `crit
/// config`): secrets redacted, on one line, every control character (line
/// breaks and tabs too) shown as `<U+XXXX>`.
pub fn printable_value(text: &str) -> String {
    Printable::exact_line(&Redactor::process().redact_str(text), Dest::Terminal).into_string()
}

/// How stderr is read: a CI job's log (when `CI` is set and stderr is not a
/// terminal), where each line is escaped as GitHub's runner reads workflow
/// commands back; else a terminal.
pub fn stderr_dest(env: &Env) -> Dest {
    let ci = env
        .non_empty("CI")
        .is_some_and(|v| v != "false" && v != "0");
    if ci && !std::io::stderr().is_terminal() {
        Dest::CiLog
    } else {
        Dest::Terminal
    }
}

/// One line for stderr holding model, repository or config text (a progress
/// event, a warning): secrets redacted, on one line, escaped for
/// `dest` (see [`stderr_dest`]).
pub fn stderr_line(dest: Dest, text: &str) -> String {
    Printable::line(&Redactor::process().redact_str(text), dest).into_string()
}

/// A JSON document crit prints that holds model, repository or config text:
/// secrets redacted, then [`crit_core::printable::json_document`].
pub fn json_printable(value: &serde_json::Value) -> String {
    let mut value = value.clone();
    Redactor::process().redact_json(&mut value);
    crit_core::printable::json_document(serde_json::to_string_pretty(&value).unwrap_or_default())
}

/// Writes `text` to a path the user typed (`--out`): created with its
/// directories, a regular file replaced atomically through crit-os.
pub fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    // A regular file is replaced atomically: a full disk leaves the old one
    // whole and no temp file. Devices and pipes (/dev/stdout) are written as is.
    let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
    if special {
        std::fs::write(path, text)
    } else {
        crit_core::files::write_atomic(path, text.as_bytes())
    }
    .with_context(|| format!("writing {}", path.display()))
}

/// Colors when stdout is a terminal, `NO_COLOR` is unset or empty, and the
/// terminal is not `dumb`.
fn auto_color(env: &Env) -> bool {
    color_allowed(env) && std::io::stdout().is_terminal()
}

fn color_allowed(env: &Env) -> bool {
    env.non_empty("NO_COLOR").is_none() && env.get("TERM") != Some("dumb")
}

/// Whether diagnostics on stderr are coloured: `--color` decides, and `auto`
/// means stderr is a terminal (not piped or captured) and colours are allowed.
pub fn stderr_color(common: &CommonArgs) -> bool {
    match common.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => color_allowed(&common.env) && std::io::stderr().is_terminal(),
    }
}
