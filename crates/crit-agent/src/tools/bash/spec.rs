//! Argument allow-lists for the plain programs (cat, head, tail, wc, ls, pwd, grep,
//! rg). Every option must be listed; anything else is refused. Allow-lists, not
//! deny-lists, so GNU long-option abbreviations (`--files0` for `--files0-from`)
//! cannot slip through: an abbreviation is simply not on the list.

use crate::confine::Roots;

use super::policy::BashPolicyError;

/// What a program accepts.
pub(super) struct Spec {
    pub name: &'static str,
    /// Short options without a value (bundling allowed: `-la`).
    pub flags: &'static str,
    /// Short options taking a value, attached (`-n5`) or next (`-n 5`).
    pub valued: &'static str,
    /// Short options whose value is a file the program reads (confined).
    pub path_valued: &'static str,
    /// Long options without a value (an attached `=value` is tolerated).
    pub long: &'static [&'static str],
    /// Long options taking a value (`--x=v` or `--x v`).
    pub long_valued: &'static [&'static str],
    /// Long options whose value is a file the program reads (confined).
    pub long_path: &'static [&'static str],
    /// How operands are treated.
    pub operands: Operands,
    /// Long options after which no pattern is expected, so every operand is a
    /// path (`rg --files DIR`).
    pub no_pattern: &'static [&'static str],
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Operands {
    /// Every operand is a path, confined.
    Paths,
    /// The first operand is a pattern unless `-e`/`-f` (or long forms) gave one;
    /// the rest are paths (grep, rg).
    PatternThenPaths,
    /// No operands accepted.
    None,
}

/// Options that supply the pattern, so every operand is a path.
const PATTERN_OPTIONS: &[&str] = &["-e", "-f", "--regexp", "--file"];

/// Checks `args` (without the program name) against `spec`; returns the
/// files and directories the command reads (its path operands and the values
/// of its path options).
pub(super) fn check(
    spec: &Spec,
    args: &[String],
    roots: &Roots,
) -> Result<Vec<String>, BashPolicyError> {
    let mut operands: Vec<&str> = Vec::new();
    let mut reads: Vec<String> = Vec::new();
    let mut pattern_given = false;
    let mut i = 0;
    let mut only_operands = false;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if only_operands || arg == "-" || !arg.starts_with('-') {
            operands.push(arg);
            continue;
        }
        if arg == "--" {
            only_operands = true;
            continue;
        }
        if arg
            .strip_prefix("--")
            .is_some_and(|long| spec.no_pattern.contains(&long))
        {
            pattern_given = true;
        }
        let valued = if let Some(long) = arg.strip_prefix("--") {
            check_long(spec, long, args.get(i), roots)?
        } else {
            check_short(spec, arg, args.get(i), roots)?
        };
        if let Some(v) = valued {
            // Judged by the option that took the value, not by how the
            // argument starts: in `-rne x` the pattern comes from `-e`.
            pattern_given |= PATTERN_OPTIONS.contains(&v.option.as_str());
            i += usize::from(v.took_next);
            reads.extend(v.path);
        }
    }
    let paths = match spec.operands {
        Operands::None if !operands.is_empty() => {
            return Err(BashPolicyError::Argument {
                program: spec.name.to_string(),
                arg: operands[0].to_string(),
                why: "this program takes no operands".to_string(),
            });
        }
        Operands::None => &[][..],
        Operands::Paths => &operands[..],
        Operands::PatternThenPaths => {
            let skip = usize::from(!pattern_given);
            operands.get(skip..).unwrap_or(&[])
        }
    };
    confine_all(paths, roots)?;
    reads.extend(paths.iter().map(|p| p.to_string()));
    Ok(reads)
}

fn confine_all(paths: &[&str], roots: &Roots) -> Result<(), BashPolicyError> {
    for p in paths {
        confine_path(p, roots)?;
    }
    Ok(())
}

/// A path argument must stay inside the roots (`-` is stdin, which is empty).
pub(super) fn confine_path(p: &str, roots: &Roots) -> Result<(), BashPolicyError> {
    if p == "-" {
        return Ok(());
    }
    roots.resolve(p).map(|_| ()).map_err(BashPolicyError::Path)
}

/// An option that took a value: which one, and whether the value was the next
/// argument.
struct Valued {
    option: String,
    took_next: bool,
    /// The value, when it names a file the program reads.
    path: Option<String>,
}

fn check_long(
    spec: &Spec,
    long: &str,
    next: Option<&String>,
    roots: &Roots,
) -> Result<Option<Valued>, BashPolicyError> {
    let (name, value) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    if spec.long.contains(&name) {
        return Ok(None);
    }
    let is_path = spec.long_path.contains(&name);
    if !is_path && !spec.long_valued.contains(&name) {
        return Err(not_allowed(spec, &format!("--{name}")));
    }
    let (value, consumed) = match (value, next) {
        (Some(v), _) => (v, false),
        (None, Some(n)) => (n.as_str(), true),
        (None, None) => return Err(missing_value(spec, &format!("--{name}"))),
    };
    if is_path {
        confine_path(value, roots)?;
    }
    Ok(Some(Valued {
        option: format!("--{name}"),
        took_next: consumed,
        path: is_path.then(|| value.to_string()),
    }))
}

fn check_short(
    spec: &Spec,
    arg: &str,
    next: Option<&String>,
    roots: &Roots,
) -> Result<Option<Valued>, BashPolicyError> {
    for (idx, c) in arg.char_indices().skip(1) {
        if spec.flags.contains(c) {
            continue;
        }
        let is_path = spec.path_valued.contains(c);
        if !is_path && !spec.valued.contains(c) {
            return Err(not_allowed(spec, &format!("-{c}")));
        }
        let rest = &arg[idx + c.len_utf8()..];
        let (value, consumed) = if !rest.is_empty() {
            (rest, false)
        } else if let Some(n) = next {
            (n.as_str(), true)
        } else {
            return Err(missing_value(spec, &format!("-{c}")));
        };
        if is_path {
            confine_path(value, roots)?;
        }
        return Ok(Some(Valued {
            option: format!("-{c}"),
            took_next: consumed,
            path: is_path.then(|| value.to_string()),
        }));
    }
    Ok(None)
}

fn not_allowed(spec: &Spec, option: &str) -> BashPolicyError {
    BashPolicyError::Argument {
        program: spec.name.to_string(),
        arg: option.to_string(),
        why: "this option is not on the read-only allow-list".to_string(),
    }
}

fn missing_value(spec: &Spec, option: &str) -> BashPolicyError {
    BashPolicyError::Argument {
        program: spec.name.to_string(),
        arg: option.to_string(),
        why: "this option needs a value".to_string(),
    }
}

pub(super) const CAT: Spec = Spec {
    name: "cat",
    flags: "AbeEnstTuv",
    valued: "",
    path_valued: "",
    long: &[
        "show-all",
        "number-nonblank",
        "show-ends",
        "number",
        "squeeze-blank",
        "show-tabs",
        "show-nonprinting",
    ],
    long_valued: &[],
    long_path: &[],
    operands: Operands::Paths,
    no_pattern: &[],
};

pub(super) const HEAD: Spec = Spec {
    name: "head",
    flags: concat!("qvz", "0123456789"),
    valued: "nc",
    path_valued: "",
    long: &["quiet", "silent", "verbose", "zero-terminated"],
    long_valued: &["lines", "bytes"],
    long_path: &[],
    operands: Operands::Paths,
    no_pattern: &[],
};

pub(super) const TAIL: Spec = Spec {
    name: "tail",
    flags: concat!("fFqvz", "0123456789"),
    valued: "ncs",
    path_valued: "",
    long: &[
        "follow",
        "retry",
        "quiet",
        "silent",
        "verbose",
        "zero-terminated",
    ],
    long_valued: &["lines", "bytes", "sleep-interval", "max-unchanged-stats"],
    long_path: &[],
    operands: Operands::Paths,
    no_pattern: &[],
};

pub(super) const WC: Spec = Spec {
    name: "wc",
    flags: "clmwL",
    valued: "",
    path_valued: "",
    long: &["bytes", "chars", "lines", "words", "max-line-length"],
    long_valued: &["total"],
    long_path: &[],
    operands: Operands::Paths,
    no_pattern: &[],
};

/// No `-L`/`--dereference`: with `-R` it would list directories behind symlinks.
pub(super) const LS: Spec = Spec {
    name: "ls",
    flags: "aAbBcCdfFgGhHiklmnNopqQrRsStuUvxXZ1",
    valued: "IwT",
    path_valued: "",
    long: &[
        "all",
        "almost-all",
        "author",
        "escape",
        "directory",
        "dired",
        "classify",
        "file-type",
        "full-time",
        "group-directories-first",
        "no-group",
        "human-readable",
        "si",
        "inode",
        "kibibytes",
        "literal",
        "numeric-uid-gid",
        "hide-control-chars",
        "show-control-chars",
        "quote-name",
        "reverse",
        "recursive",
        "size",
        "context",
        "zero",
    ],
    long_valued: &[
        "block-size",
        "color",
        "format",
        "hide",
        "hyperlink",
        "indicator-style",
        "ignore",
        "quoting-style",
        "sort",
        "time",
        "time-style",
        "tabsize",
        "width",
    ],
    long_path: &[],
    operands: Operands::Paths,
    no_pattern: &[],
};

pub(super) const PWD: Spec = Spec {
    name: "pwd",
    flags: "LP",
    valued: "",
    path_valued: "",
    long: &["logical", "physical"],
    long_valued: &[],
    long_path: &[],
    operands: Operands::None,
    no_pattern: &[],
};

/// GNU grep. No `-R`/`--dereference-recursive` (follows symlinks out of the root).
pub(super) const GREP: Spec = Spec {
    name: "grep",
    flags: concat!("abcEFGHhiIlLnoPqrsTUvVwxyzZ", "0123456789"),
    valued: "ABCdDem",
    path_valued: "f",
    long: &[
        "extended-regexp",
        "fixed-strings",
        "basic-regexp",
        "perl-regexp",
        "ignore-case",
        "no-ignore-case",
        "word-regexp",
        "line-regexp",
        "null-data",
        "no-messages",
        "invert-match",
        "version",
        "byte-offset",
        "line-number",
        "no-line-number",
        "line-buffered",
        "with-filename",
        "no-filename",
        "only-matching",
        "quiet",
        "silent",
        "text",
        "count",
        "files-with-matches",
        "files-without-match",
        "null",
        "initial-tab",
        "recursive",
        "binary",
    ],
    long_valued: &[
        "regexp",
        "max-count",
        "after-context",
        "before-context",
        "context",
        "include",
        "exclude",
        "exclude-dir",
        "binary-files",
        "directories",
        "devices",
        "color",
        "colour",
        "label",
        "group-separator",
    ],
    long_path: &["file", "exclude-from"],
    operands: Operands::PatternThenPaths,
    no_pattern: &[],
};

/// ripgrep. No `--pre`/`--pre-glob` (run a program per file), `-z`/`--search-zip`
/// (runs decompressors), `-L`/`--follow`, `--hostname-bin` (runs a program).
/// With `--files` or `--type-list` there is no pattern: every operand is a
/// directory to list, confined like any path.
pub(super) const RG: Spec = Spec {
    name: "rg",
    flags: concat!("cFHhiIlnNopqsSuUvVwx", "0123456789"),
    valued: "ABCegtTmMjEr",
    path_valued: "f",
    long: &[
        "fixed-strings",
        "ignore-case",
        "smart-case",
        "case-sensitive",
        "word-regexp",
        "line-regexp",
        "invert-match",
        "count",
        "count-matches",
        "files",
        "files-with-matches",
        "files-without-match",
        "line-number",
        "no-line-number",
        "no-heading",
        "heading",
        "with-filename",
        "no-filename",
        "only-matching",
        "hidden",
        "no-ignore",
        "no-ignore-vcs",
        "no-ignore-parent",
        "no-ignore-dot",
        "no-ignore-global",
        "no-ignore-exclude",
        "multiline",
        "multiline-dotall",
        "pcre2",
        "json",
        "stats",
        "vimgrep",
        "column",
        "no-column",
        "byte-offset",
        "trim",
        "text",
        "null",
        "null-data",
        "quiet",
        "unrestricted",
        "no-messages",
        "type-list",
        "passthru",
        "binary",
        "no-config",
        "crlf",
        "one-file-system",
        "files-without-match",
        "invert-match",
        "sort-files",
    ],
    long_valued: &[
        "regexp",
        "glob",
        "iglob",
        "type",
        "type-not",
        "type-add",
        "max-count",
        "max-columns",
        "context",
        "after-context",
        "before-context",
        "sort",
        "sortr",
        "replace",
        "max-depth",
        "max-filesize",
        "threads",
        "encoding",
        "color",
        "colors",
        "engine",
        "path-separator",
        "context-separator",
        "field-match-separator",
        "field-context-separator",
    ],
    long_path: &["file", "ignore-file"],
    operands: Operands::PatternThenPaths,
    no_pattern: &["files", "type-list"],
};
