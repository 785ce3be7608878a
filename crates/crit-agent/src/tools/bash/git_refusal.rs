//! Why a git option outside the allow-list of [`super::git_options`] is
//! refused, worded for the model: the danger when the option is a known one
//! (also abbreviated or negated with `no-`), the full spelling when it
//! abbreviates an allowed option, and otherwise the nearest allowed option.

use super::git_options::{self, Arity, GitOption};

/// Known long options with a reason to refuse, in any subcommand, also
/// abbreviated or negated with `no-`.
const DANGEROUS: &[(&str, Danger)] = &[
    ("output", Danger::Writes),
    ("ext-diff", Danger::Runs),
    ("textconv", Danger::Runs),
    ("exec-path", Danger::Runs),
    ("exec", Danger::Runs),
    ("open-files-in-pager", Danger::Runs),
    ("help", Danger::Runs),
    ("filters", Danger::Runs),
    ("git-dir", Danger::Leaves),
    ("work-tree", Danger::Leaves),
    ("no-index", Danger::Leaves),
    ("resolve-git-dir", Danger::Leaves),
    ("show-signature", Danger::Other),
    ("submodule", Danger::Other),
    ("ignore-submodules", Danger::Other),
    ("recurse-submodules", Danger::Other),
    ("upload-pack", Danger::Other),
    ("receive-pack", Danger::Other),
    ("paginate", Danger::Other),
    ("batch", Danger::Other),
    ("batch-check", Danger::Other),
    ("batch-command", Danger::Other),
    ("batch-all-objects", Danger::Other),
    ("config-env", Danger::Other),
    ("attr-source", Danger::Other),
    ("super-prefix", Danger::Other),
    ("namespace", Danger::Other),
    ("stdin", Danger::Other),
    ("follow-symlinks", Danger::Other),
    ("path", Danger::Other),
    ("ext-grep", Danger::Other),
];

#[derive(Clone, Copy)]
enum Danger {
    Writes,
    Runs,
    Leaves,
    Other,
}

impl Danger {
    fn why(self) -> &'static str {
        match self {
            Danger::Writes => "it writes a file",
            Danger::Runs => "it can run another program",
            Danger::Leaves => "it can read outside the project",
            Danger::Other => "it is not allowed in this read-only tool",
        }
    }
}

/// Why `--name` (without dashes, value split off) is refused for `git sub`.
pub(super) fn long(sub: &str, name: &str) -> String {
    let full = format!("--{name}");
    let spelled = abbreviates(sub, &full);
    let spell_out = |exact: bool| match spelled.as_slice() {
        [] => String::new(),
        _ if exact => String::new(),
        names => format!("; to mean {}, spell it out", or_list(names)),
    };
    if let Some(why) = specific(sub, name) {
        return format!("{why}{}", spell_out(false));
    }
    if let Some((known, danger)) = dangerous(name) {
        let exact = known == name;
        let form = if exact {
            String::new()
        } else {
            format!(" (`{full}` is a form of `--{known}`)")
        };
        return format!(
            "`git {sub}` with this option is refused{form}: {}{}",
            danger.why(),
            spell_out(exact)
        );
    }
    if !spelled.is_empty() {
        return format!(
            "`{full}` abbreviates {}; git accepts abbreviations, this tool does not (a \
             prefix can mean another option in another git version): spell it out",
            or_list(&spelled)
        );
    }
    let hint = match (nearest(sub, &full), elsewhere(sub, &full)) {
        (_, Some(others)) => format!("; it is allowed for {others}"),
        (Some(near), None) => format!("; did you mean `{near}`?"),
        (None, None) => String::new(),
    };
    format!("`{full}` is not among the read-only options this tool allows for `git {sub}`{hint}")
}

/// Why `-c` (in the bundle `arg`) is refused for `git sub`.
pub(super) fn short(sub: &str, c: char) -> String {
    match (sub, c) {
        ("status", 'v') => STATUS_VERBOSE.to_string(),
        ("grep", 'O') => "`-O` opens the matches in a pager: this option can run another \
                          program"
            .to_string(),
        _ => {
            let shorts: Vec<&str> = git_options::all(sub)
                .map(|o| o.name)
                .filter(|n| n.len() == 2)
                .collect();
            format!(
                "`-{c}` is not among the read-only options this tool allows for `git {sub}`; \
                 its short options are {}",
                shorts.join(" ")
            )
        }
    }
}

/// A listed option given the wrong way.
pub(super) fn misused(opt: &GitOption) -> String {
    let name = opt.name;
    let example = opt.example;
    match opt.arity {
        Arity::Flag | Arity::Number => format!("`{name}` takes no value"),
        Arity::Value if name.len() == 2 => {
            format!("`{name}` needs a value, e.g. `{name} {example}`")
        }
        Arity::Value => format!("`{name}` needs a value, e.g. `{name}={example}`"),
        Arity::Attached | Arity::Optional => format!(
            "give the value of `{name}` attached with `=`, e.g. `{name}={example}` (git would \
             read a separate word as a revision)"
        ),
    }
}

const STATUS_VERBOSE: &str = "`git status -v` shows the staged diff through the repository's \
                              textconv programs; use `git diff --cached`";

/// Options refused in one subcommand only (with why), also abbreviated.
fn specific(sub: &str, name: &str) -> Option<&'static str> {
    let prefix_of = |full: &str, min: usize| name.len() >= min && full.starts_with(name);
    match sub {
        "status" if prefix_of("verbose", 1) => Some(STATUS_VERBOSE),
        "describe" if prefix_of("dirty", 1) || prefix_of("broken", 1) => Some(
            "`--dirty` and `--broken` refresh and write the index; use `git status` to see \
             uncommitted changes",
        ),
        "diff" | "log" | "show" | "diff-tree" if prefix_of("remerge-diff", 3) => {
            Some("`--remerge-diff` writes temporary objects into the repository")
        }
        _ => None,
    }
}

/// The value of `--diff-merges=`: `remerge` (and its abbreviation `r`) writes.
pub(super) fn diff_merges(value: &str) -> Option<&'static str> {
    value
        .starts_with('r')
        .then_some("`--diff-merges=remerge` writes temporary objects into the repository")
}

/// The dangerous option `name` names, exactly, abbreviated, or after `no-`.
fn dangerous(name: &str) -> Option<(&'static str, Danger)> {
    let hit = |n: &str| {
        (!n.is_empty())
            .then(|| {
                DANGEROUS
                    .iter()
                    .find(|(d, _)| *d == n)
                    .or_else(|| DANGEROUS.iter().find(|(d, _)| d.starts_with(n)))
            })
            .flatten()
            .copied()
    };
    hit(name).or_else(|| name.strip_prefix("no-").and_then(hit))
}

/// The allowed long options of `sub` that `full` is a strict prefix of.
fn abbreviates(sub: &str, full: &str) -> Vec<&'static str> {
    if full.len() <= 2 {
        return Vec::new();
    }
    git_options::all(sub)
        .map(|o| o.name)
        .filter(|n| n.starts_with("--") && n.len() > full.len() && n.starts_with(full))
        .collect()
}

/// The other subcommands that allow `full` (`--oneline` given to `git diff`).
fn elsewhere(sub: &str, full: &str) -> Option<String> {
    let subs: Vec<String> = super::git::ALLOWED_SUBCOMMANDS
        .iter()
        .filter(|s| **s != sub && git_options::find(s, full).is_some())
        .map(|s| format!("`git {s}`"))
        .collect();
    (!subs.is_empty()).then(|| subs.join(", "))
}

/// The allowed long option of `sub` closest to `full`, if one is close.
fn nearest(sub: &str, full: &str) -> Option<&'static str> {
    let (best, dist) = git_options::all(sub)
        .map(|o| o.name)
        .filter(|n| n.starts_with("--"))
        .map(|n| (n, edit_distance(n, full)))
        .min_by_key(|&(_, d)| d)?;
    let len = full.len().saturating_sub(2);
    (dist <= 2 || dist * 3 <= len).then_some(best)
}

/// Levenshtein distance over bytes (option names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

fn or_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > 4 { " or another" } else { "" };
    format!("{}{more}", quoted.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("--stat", "--stat"), 0);
        assert_eq!(edit_distance("--stat", "--stats"), 1);
        assert_eq!(edit_distance("--oneline", "--one-line"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(nearest("log", "--one-line"), Some("--oneline"));
        assert_eq!(nearest("log", "--exec-helper"), None);
    }
}
