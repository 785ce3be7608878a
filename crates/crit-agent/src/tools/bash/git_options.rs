//! The options the model may give each git subcommand, as data: one table per
//! family, each option with its arity and whether its value is a file git
//! reads (confined to the project). Anything not listed is refused, so an
//! option a new git release adds (one that runs a program or reads a file)
//! is refused until someone lists it.
//!
//! Names are exact. git accepts unambiguous prefixes of long options in the
//! subcommands built on its option parser (`grep`, `blame`, `status`,
//! `ls-files`, `describe`, …), but it resolves them against its own, growing
//! option list: a prefix unique among these tables could mean another option
//! to some git version. An exact name is always the option it names, so the
//! refusal of an abbreviation tells the model the full spelling instead.

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Arity {
    /// No value: `--stat`, `-p` (short flags bundle: `-pw`).
    Flag,
    /// A value attached or as the next word: `--author=A`, `--author A`,
    /// `-n5`, `-n 5`.
    Value,
    /// A value attached with `=` only: `--format=%h` (git reads a separate
    /// word as a revision or path, not as the value).
    Attached,
    /// An optional value, attached only: `--stat`, `--stat=100`, `-U`, `-U5`.
    Optional,
    /// `-<number>` (`git log -5`, `git grep -3`).
    Number,
}

/// One allowed option.
#[derive(Debug, Clone, Copy)]
pub(super) struct GitOption {
    /// With its dashes: `--stat`, `-p`; `-<number>` for [`Arity::Number`].
    pub name: &'static str,
    pub arity: Arity,
    /// The value is a file git reads: it must stay inside the project.
    pub path: bool,
    /// A value git accepts, shown when the value is missing and used by the
    /// tests that run every option through real git.
    pub example: &'static str,
}

const fn flag(name: &'static str) -> GitOption {
    GitOption {
        name,
        arity: Arity::Flag,
        path: false,
        example: "",
    }
}

const fn value(name: &'static str, example: &'static str) -> GitOption {
    GitOption {
        name,
        arity: Arity::Value,
        path: false,
        example,
    }
}

const fn attached(name: &'static str, example: &'static str) -> GitOption {
    GitOption {
        name,
        arity: Arity::Attached,
        path: false,
        example,
    }
}

const fn optional(name: &'static str, example: &'static str) -> GitOption {
    GitOption {
        name,
        arity: Arity::Optional,
        path: false,
        example,
    }
}

/// A required value naming a file git reads.
const fn path(name: &'static str, example: &'static str) -> GitOption {
    GitOption {
        name,
        arity: Arity::Value,
        path: true,
        example,
    }
}

const NUMBER: GitOption = GitOption {
    name: "-<number>",
    arity: Arity::Number,
    path: false,
    example: "3",
};

/// The tables of `sub`, or `None` when its options are checked elsewhere
/// (`cat-file`, `branch`, `tag`).
pub(super) fn tables(sub: &str) -> Option<&'static [&'static [GitOption]]> {
    Some(match sub {
        "diff" => &[DIFF, DIFF_CMD],
        "log" | "show" => &[DIFF, REV_SELECT, LOG],
        "diff-tree" => &[DIFF, DIFF_TREE],
        "grep" => &[GREP],
        "blame" => &[BLAME],
        "status" => &[STATUS],
        "ls-files" => &[LS_FILES],
        "shortlog" => &[SHORTLOG, REV_SELECT],
        "rev-parse" => &[REV_PARSE],
        "merge-base" => &[MERGE_BASE],
        "describe" => &[DESCRIBE],
        _ => return None,
    })
}

/// Every allowed option of `sub`.
pub(super) fn all(sub: &str) -> impl Iterator<Item = &'static GitOption> {
    tables(sub).unwrap_or(&[]).iter().flat_map(|t| t.iter())
}

/// The option of `sub` named exactly `name` (with dashes).
pub(super) fn find(sub: &str, name: &str) -> Option<&'static GitOption> {
    all(sub).find(|o| o.name == name)
}

/// Diff output, shared by `diff`, `log`, `show` and `diff-tree`.
const DIFF: &[GitOption] = &[
    // What to show.
    flag("-p"),
    flag("-u"),
    flag("--patch"),
    flag("-s"),
    flag("--no-patch"),
    flag("--raw"),
    flag("--patch-with-raw"),
    flag("--patch-with-stat"),
    optional("--stat", "100"),
    value("--stat-width", "80"),
    value("--stat-name-width", "40"),
    value("--stat-graph-width", "20"),
    value("--stat-count", "5"),
    flag("--numstat"),
    flag("--shortstat"),
    optional("--dirstat", "files"),
    optional("-X", "files"),
    optional("--dirstat-by-file", "10"),
    flag("--cumulative"),
    flag("--summary"),
    flag("--compact-summary"),
    flag("--name-only"),
    flag("--name-status"),
    flag("--check"),
    flag("-z"),
    flag("--full-index"),
    flag("--binary"),
    optional("--abbrev", "8"),
    flag("--no-abbrev"),
    flag("-R"),
    optional("--relative", "src"),
    flag("--no-relative"),
    flag("-a"),
    flag("--text"),
    flag("--exit-code"),
    flag("--quiet"),
    // Context and layout.
    optional("-U", "5"),
    optional("--unified", "5"),
    value("--inter-hunk-context", "3"),
    flag("-W"),
    flag("--function-context"),
    flag("--no-function-context"),
    flag("--no-prefix"),
    flag("--default-prefix"),
    value("--src-prefix", "a/"),
    value("--dst-prefix", "b/"),
    value("--line-prefix", "> "),
    value("--output-indicator-new", "+"),
    value("--output-indicator-old", "-"),
    value("--output-indicator-context", "="),
    // Words and colour.
    optional("--word-diff", "plain"),
    value("--word-diff-regex", "[a-z]+"),
    optional("--color-words", "[a-z]+"),
    optional("--color", "never"),
    flag("--no-color"),
    optional("--color-moved", "zebra"),
    flag("--no-color-moved"),
    value("--color-moved-ws", "ignore-all-space"),
    flag("--no-color-moved-ws"),
    value("--ws-error-highlight", "new"),
    // Renames, copies, rewrites.
    optional("-M", "50%"),
    optional("--find-renames", "50%"),
    flag("--no-renames"),
    optional("-C", "50%"),
    optional("--find-copies", "50%"),
    flag("--find-copies-harder"),
    optional("-B", "50%"),
    optional("--break-rewrites", "50%"),
    flag("-D"),
    flag("--irreversible-delete"),
    value("-l", "100"),
    flag("--rename-empty"),
    flag("--no-rename-empty"),
    // Algorithms and whitespace.
    flag("--minimal"),
    flag("--patience"),
    flag("--histogram"),
    value("--diff-algorithm", "histogram"),
    value("--anchored", "fn"),
    flag("--indent-heuristic"),
    flag("--no-indent-heuristic"),
    flag("-w"),
    flag("--ignore-all-space"),
    flag("-b"),
    flag("--ignore-space-change"),
    flag("--ignore-space-at-eol"),
    flag("--ignore-cr-at-eol"),
    flag("--ignore-blank-lines"),
    value("-I", "^#"),
    value("--ignore-matching-lines", "^#"),
    // Which changes.
    value("--diff-filter", "AM"),
    value("-S", "one"),
    value("-G", "one"),
    flag("--pickaxe-regex"),
    flag("--pickaxe-all"),
    value("--find-object", "HEAD"),
    path("-O", "order.txt"),
    value("--rotate-to", "src/lib.rs"),
    value("--skip-to", "src/lib.rs"),
    flag("--ita-invisible-in-index"),
    flag("--ita-visible-in-index"),
    // Already put in front of every run; harmless to repeat.
    flag("--no-ext-diff"),
    flag("--no-textconv"),
];

/// `git diff` only: what to compare.
const DIFF_CMD: &[GitOption] = &[
    flag("--cached"),
    flag("--staged"),
    flag("--merge-base"),
    flag("--base"),
    flag("--ours"),
    flag("--theirs"),
];

/// `git diff-tree` only.
const DIFF_TREE: &[GitOption] = &[
    flag("-r"),
    flag("-t"),
    flag("--root"),
    flag("--no-commit-id"),
    flag("-v"),
    flag("--always"),
    flag("-m"),
    flag("-c"),
    flag("--cc"),
    flag("--combined-all-paths"),
    flag("--merge-base"),
    optional("--pretty", "oneline"),
    attached("--format", "%h:%s"),
];

/// Which commits, for `log`, `show` and `shortlog` (long names only: the
/// short ones mean other things to `shortlog`).
const REV_SELECT: &[GitOption] = &[
    value("--max-count", "5"),
    value("--skip", "1"),
    value("--since", "2.weeks"),
    value("--after", "2.weeks"),
    value("--until", "now"),
    value("--before", "now"),
    value("--author", "Test"),
    value("--grep", "initial"),
    flag("--all-match"),
    flag("--invert-grep"),
    flag("--regexp-ignore-case"),
    flag("--basic-regexp"),
    flag("--extended-regexp"),
    flag("--fixed-strings"),
    flag("--perl-regexp"),
    flag("--merges"),
    flag("--no-merges"),
    attached("--min-parents", "0"),
    attached("--max-parents", "1"),
    flag("--no-min-parents"),
    flag("--no-max-parents"),
    flag("--first-parent"),
    flag("--exclude-first-parent-only"),
    flag("--not"),
    flag("--all"),
    optional("--branches", "main"),
    optional("--tags", "v*"),
    optional("--remotes", "origin"),
    attached("--glob", "refs/heads/*"),
    attached("--exclude", "refs/tags/*"),
    flag("--ignore-missing"),
    flag("--cherry-mark"),
    flag("--cherry-pick"),
    flag("--left-only"),
    flag("--right-only"),
    flag("--cherry"),
    optional("--ancestry-path", "HEAD"),
    flag("--simplify-by-decoration"),
    flag("--full-history"),
    flag("--dense"),
    flag("--sparse"),
    flag("--simplify-merges"),
    flag("--show-pulls"),
    optional("--no-walk", "sorted"),
    flag("--do-walk"),
    flag("--topo-order"),
    flag("--date-order"),
    flag("--author-date-order"),
    flag("--reverse"),
];

/// `log` and `show`: more selection, merges, and commit formatting.
const LOG: &[GitOption] = &[
    NUMBER,
    value("-n", "5"),
    value("--committer", "Test"),
    flag("-i"),
    flag("-E"),
    flag("-F"),
    flag("-P"),
    value("-L", "1,2:src/lib.rs"),
    flag("--follow"),
    flag("--full-diff"),
    flag("--remove-empty"),
    flag("--boundary"),
    flag("--merge"),
    flag("-g"),
    flag("--walk-reflogs"),
    // Merges.
    flag("-m"),
    flag("-c"),
    flag("--cc"),
    flag("--dd"),
    flag("--combined-all-paths"),
    flag("--no-diff-merges"),
    attached("--diff-merges", "first-parent"),
    flag("-t"),
    // Formatting.
    flag("--oneline"),
    optional("--pretty", "oneline"),
    attached("--format", "%h:%s"),
    flag("--abbrev-commit"),
    flag("--no-abbrev-commit"),
    value("--date", "iso"),
    flag("--relative-date"),
    flag("--parents"),
    flag("--children"),
    flag("--left-right"),
    flag("--graph"),
    optional("--show-linear-break", "----"),
    optional("--decorate", "short"),
    flag("--no-decorate"),
    value("--decorate-refs", "refs/heads/*"),
    value("--decorate-refs-exclude", "refs/tags/*"),
    flag("--clear-decorations"),
    flag("--source"),
    flag("--use-mailmap"),
    flag("--no-use-mailmap"),
    flag("--mailmap"),
    flag("--no-mailmap"),
    flag("--log-size"),
    optional("--notes", "commits"),
    flag("--no-notes"),
    optional("--expand-tabs", "4"),
    flag("--no-expand-tabs"),
    attached("--encoding", "UTF-8"),
];

/// `git grep`.
const GREP: &[GitOption] = &[
    // Where.
    flag("--cached"),
    flag("--untracked"),
    flag("--exclude-standard"),
    flag("--no-exclude-standard"),
    flag("-r"),
    flag("--recursive"),
    flag("--no-recursive"),
    value("--max-depth", "2"),
    // How to match.
    value("-e", "one"),
    path("-f", "patterns.txt"),
    flag("--and"),
    flag("--or"),
    flag("--not"),
    flag("--all-match"),
    flag("-v"),
    flag("--invert-match"),
    flag("-i"),
    flag("--ignore-case"),
    flag("-w"),
    flag("--word-regexp"),
    flag("-E"),
    flag("--extended-regexp"),
    flag("-G"),
    flag("--basic-regexp"),
    flag("-F"),
    flag("--fixed-strings"),
    flag("-P"),
    flag("--perl-regexp"),
    flag("-I"),
    flag("-a"),
    flag("--text"),
    flag("--no-textconv"),
    value("-m", "1"),
    value("--max-count", "1"),
    // What to print.
    flag("-n"),
    flag("--line-number"),
    flag("--column"),
    flag("-h"),
    flag("-H"),
    flag("--full-name"),
    flag("-l"),
    flag("--files-with-matches"),
    flag("--name-only"),
    flag("-L"),
    flag("--files-without-match"),
    flag("-c"),
    flag("--count"),
    flag("-o"),
    flag("--only-matching"),
    flag("-q"),
    flag("--quiet"),
    flag("-z"),
    flag("--null"),
    optional("--color", "never"),
    flag("--no-color"),
    flag("--break"),
    flag("--heading"),
    flag("-p"),
    flag("--show-function"),
    flag("-W"),
    flag("--function-context"),
    NUMBER,
    value("-A", "2"),
    value("-B", "2"),
    value("-C", "2"),
    value("--context", "2"),
    value("--after-context", "2"),
    value("--before-context", "2"),
    value("--threads", "1"),
];

/// `git blame`.
const BLAME: &[GitOption] = &[
    value("-L", "1,2"),
    optional("-M", "20"),
    optional("-C", "20"),
    flag("-w"),
    flag("-b"),
    flag("--root"),
    flag("--reverse"),
    flag("--first-parent"),
    flag("--show-stats"),
    flag("-l"),
    flag("-t"),
    flag("-f"),
    flag("--show-name"),
    flag("-n"),
    flag("--show-number"),
    flag("-p"),
    flag("--porcelain"),
    flag("--line-porcelain"),
    flag("--incremental"),
    flag("-s"),
    flag("-e"),
    flag("--show-email"),
    flag("-c"),
    flag("--score-debug"),
    flag("--minimal"),
    flag("--color-lines"),
    flag("--color-by-age"),
    flag("--no-progress"),
    optional("--abbrev", "8"),
    value("--date", "iso"),
    value("--ignore-rev", "HEAD"),
    path("--ignore-revs-file", "revs.txt"),
    path("-S", "revs.txt"),
    path("--contents", "src/lib.rs"),
    flag("--no-textconv"),
];

/// `git status`. Not `-v` (textconv) nor `--ignore-submodules` (put in
/// front of every run as `=all`).
const STATUS: &[GitOption] = &[
    flag("-s"),
    flag("--short"),
    flag("-b"),
    flag("--branch"),
    flag("--long"),
    optional("--porcelain", "v2"),
    flag("-z"),
    flag("--null"),
    optional("-u", "no"),
    optional("--untracked-files", "all"),
    optional("--ignored", "matching"),
    flag("--show-stash"),
    flag("--ahead-behind"),
    flag("--no-ahead-behind"),
    optional("--column", "always"),
    flag("--no-column"),
    flag("--renames"),
    flag("--no-renames"),
    optional("--find-renames", "50"),
];

/// `git ls-files`.
const LS_FILES: &[GitOption] = &[
    flag("-c"),
    flag("--cached"),
    flag("-d"),
    flag("--deleted"),
    flag("-m"),
    flag("--modified"),
    flag("-o"),
    flag("--others"),
    flag("-i"),
    flag("--ignored"),
    flag("-s"),
    flag("--stage"),
    flag("-k"),
    flag("--killed"),
    flag("-u"),
    flag("--unmerged"),
    flag("--resolve-undo"),
    flag("--directory"),
    flag("--no-empty-directory"),
    flag("--eol"),
    flag("-z"),
    flag("-t"),
    flag("-v"),
    flag("-f"),
    flag("--full-name"),
    flag("--error-unmatch"),
    flag("--deduplicate"),
    flag("--sparse"),
    flag("--debug"),
    optional("--abbrev", "8"),
    value("--format", "%(path)"),
    value("-x", "*.o"),
    value("--exclude", "*.o"),
    path("-X", "ignore.txt"),
    path("--exclude-from", "ignore.txt"),
    flag("--exclude-standard"),
];

/// `git shortlog` (with the long selection options of [`REV_SELECT`]).
const SHORTLOG: &[GitOption] = &[
    flag("-n"),
    flag("--numbered"),
    flag("-s"),
    flag("--summary"),
    flag("-e"),
    flag("--email"),
    flag("-c"),
    flag("--committer"),
    value("--group", "author"),
    optional("-w", "76,4,8"),
    attached("--format", "%h:%s"),
];

/// `git rev-parse`. Not `--git-dir`, `--resolve-git-dir`, `--git-path` nor
/// `--default` (a revision the enclosing-repository rules would not see).
const REV_PARSE: &[GitOption] = &[
    flag("--show-toplevel"),
    flag("--show-prefix"),
    flag("--show-cdup"),
    flag("--is-inside-work-tree"),
    flag("--is-inside-git-dir"),
    flag("--is-bare-repository"),
    flag("--is-shallow-repository"),
    optional("--show-object-format", "storage"),
    flag("--show-ref-format"),
    flag("--verify"),
    flag("-q"),
    flag("--quiet"),
    optional("--short", "8"),
    optional("--abbrev-ref", "strict"),
    flag("--symbolic"),
    flag("--symbolic-full-name"),
    flag("--revs-only"),
    flag("--no-revs"),
    flag("--flags"),
    flag("--no-flags"),
    flag("--sq"),
    flag("--not"),
    flag("--all"),
    optional("--branches", "main"),
    optional("--tags", "v*"),
    optional("--remotes", "origin"),
    attached("--glob", "refs/heads/*"),
    attached("--exclude", "refs/tags/*"),
    attached("--disambiguate", "abcd"),
    attached("--since", "2.weeks"),
    attached("--after", "2.weeks"),
    attached("--until", "now"),
    attached("--before", "now"),
];

/// `git merge-base`.
const MERGE_BASE: &[GitOption] = &[
    flag("-a"),
    flag("--all"),
    flag("--octopus"),
    flag("--independent"),
    flag("--is-ancestor"),
    flag("--fork-point"),
];

/// `git describe`. Not `--dirty` nor `--broken` (they write the index).
const DESCRIBE: &[GitOption] = &[
    flag("--all"),
    flag("--tags"),
    flag("--contains"),
    flag("--always"),
    flag("--long"),
    flag("--exact-match"),
    flag("--first-parent"),
    flag("--debug"),
    optional("--abbrev", "8"),
    value("--candidates", "5"),
    value("--match", "v*"),
    value("--exclude", "rc*"),
];

#[cfg(test)]
#[path = "git_options_tests.rs"]
mod tests;
