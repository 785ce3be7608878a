//! Project context: which convention files reviewers get, in what order, which
//! rules apply, how the budget is kept, and that the block is byte-stable.

use std::path::{Path, PathBuf};

use crit_project::context::{
    ContextError, ContextOptions, OmitCause, Omitted, ProjectContext, SectionKind, UnderReview,
    discover, project_root_in,
};

/// A project in a temporary directory, built from `(path, text)` pairs.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        write(dir.path(), path, text);
    }
    dir
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn discover_in(root: &Path, cwd: &str, under: UnderReview<'_>, budget: usize) -> ProjectContext {
    discover(
        root,
        &root.join(cwd),
        under,
        &ContextOptions {
            token_budget: budget,
        },
    )
    .unwrap()
}

fn everything(root: &Path) -> ProjectContext {
    discover_in(root, "", UnderReview::Everything, 16_000)
}

fn files(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

fn omitted<'a>(ctx: &'a ProjectContext, path: &str) -> &'a Omitted {
    ctx.omitted
        .iter()
        .find(|o| o.path == path)
        .unwrap_or_else(|| panic!("{path} not omitted: {:?}", ctx.omitted))
}

fn laravel() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crit-project/fixtures/context/laravel")
}

#[test]
fn memory_files_go_from_root_to_cwd_and_skip_siblings() {
    let dir = project(&[
        ("CLAUDE.md", "root claude"),
        (".claude/CLAUDE.md", "root dot-claude"),
        ("CLAUDE.local.md", "root local"),
        ("AGENTS.md", "root agents"),
        ("a/CLAUDE.md", "a claude"),
        ("a/b/AGENTS.md", "a/b agents"),
        ("a/b/c/CLAUDE.md", "below cwd"),
        ("sibling/CLAUDE.md", "sibling"),
        ("a/sibling/CLAUDE.md", "a's other child"),
    ]);
    let ctx = discover_in(dir.path(), "a/b", UnderReview::Everything, 16_000);
    assert_eq!(
        ctx.files(),
        [
            "CLAUDE.md",
            ".claude/CLAUDE.md",
            "CLAUDE.local.md",
            "AGENTS.md",
            "a/CLAUDE.md",
            "a/b/AGENTS.md"
        ]
    );
    assert!(ctx.sections.iter().all(|s| s.kind == SectionKind::Memory));
    assert_eq!(ctx.sections[2].text, "root local");
    assert!(ctx.omitted.is_empty(), "{:?}", ctx.omitted);

    let at_root = everything(dir.path());
    assert_eq!(at_root.files().len(), 4, "{:?}", at_root.files());
}

#[test]
fn an_agents_md_that_repeats_claude_md_is_given_once() {
    let dir = project(&[
        ("CLAUDE.md", "Use tabs.\n"),
        ("AGENTS.md", "\nUse tabs.\n\n"),
    ]);
    let ctx = everything(dir.path());
    assert_eq!(ctx.files(), ["CLAUDE.md"]);
    let o = omitted(&ctx, "AGENTS.md");
    assert_eq!(o.cause, OmitCause::Duplicate);
    assert_eq!(o.reason, "the same text as CLAUDE.md");
}

fn rules_project() -> tempfile::TempDir {
    project(&[
        (".claude/rules/always.md", "# Always\nApplies everywhere.\n"),
        (
            ".claude/rules/api.md",
            "---\npaths:\n  - \"src/api/**\"\n---\n\n# API\nVersion every route.\n",
        ),
        (
            ".claude/rules/frontend/ts.md",
            "---\npaths: web/**/*.{ts,tsx}, web/**/*.vue\n---\nStrict TypeScript.\n",
        ),
        (
            ".claude/rules/cursor.mdc.md",
            "---\ndescription: Cursor-style\nglobs: **/*.sql\nalwaysApply: false\n---\nNo SELECT *.\n",
        ),
        (".claude/rules/notes.txt", "not a rule"),
    ])
}

#[test]
fn rules_apply_by_paths_comma_string_and_globs() {
    let dir = rules_project();
    let under = files(&["src/api/users.rs", "web/app/App.tsx"]);
    let ctx = discover_in(dir.path(), "", UnderReview::Files(&under), 16_000);
    assert_eq!(
        ctx.files(),
        [
            ".claude/rules/always.md",
            ".claude/rules/api.md",
            ".claude/rules/frontend/ts.md"
        ]
    );
    let api = &ctx.sections[1];
    assert_eq!(api.kind, SectionKind::Rule);
    assert_eq!(
        api.text, "# API\nVersion every route.",
        "frontmatter stripped"
    );
    assert_eq!(api.applies_to, ["src/api/**"]);
    assert_eq!(
        ctx.sections[2].applies_to,
        ["web/**/*.{ts,tsx}", "web/**/*.vue"]
    );
    let sql = omitted(&ctx, ".claude/rules/cursor.mdc.md");
    assert_eq!(sql.cause, OmitCause::NoMatch);
    assert_eq!(sql.reason, "paths: **/*.sql matches no file under review");
    assert!(ctx.render().contains(
        "\n<file path=\".claude/rules/api.md\" applies-to=\"src/api/**\">\n# API\nVersion every route.\n</file>\n"
    ));

    // `./`, `\` and absolute paths inside the root are understood too.
    let absolute = dir.path().join("src/api/users.rs").display().to_string();
    for spelling in [
        absolute.as_str(),
        "./src/api/users.rs",
        "src\\api\\users.rs",
    ] {
        let under = files(&[spelling]);
        let ctx = discover_in(dir.path(), "", UnderReview::Files(&under), 16_000);
        assert!(ctx.files().contains(&".claude/rules/api.md"), "{spelling}");
    }

    let sql_only = files(&["db/migrations/001.sql"]);
    let ctx = discover_in(dir.path(), "", UnderReview::Files(&sql_only), 16_000);
    assert_eq!(
        ctx.files(),
        [".claude/rules/always.md", ".claude/rules/cursor.mdc.md"]
    );
    assert_eq!(
        omitted(&ctx, ".claude/rules/api.md").reason,
        "paths: src/api/** matches no file under review"
    );
    assert_eq!(
        omitted(&ctx, ".claude/rules/frontend/ts.md").reason,
        "paths: web/**/*.{ts,tsx}, web/**/*.vue matches no file under review"
    );
}

#[test]
fn a_survey_includes_every_rule_and_globs_do_not_cross_directories() {
    let dir = rules_project();
    let ctx = everything(dir.path());
    assert_eq!(ctx.files().len(), 4);
    assert!(ctx.omitted.is_empty(), "{:?}", ctx.omitted);

    let dir = project(&[(
        ".claude/rules/top.md",
        "---\npaths: \"*.rs\"\n---\nTop-level only.\n",
    )]);
    let nested = files(&["src/main.rs"]);
    let ctx = discover_in(dir.path(), "", UnderReview::Files(&nested), 16_000);
    assert!(ctx.is_empty(), "`*` must not match `/`");
    assert_eq!(ctx.render(), "");
    let top = files(&["build.rs"]);
    assert!(!discover_in(dir.path(), "", UnderReview::Files(&top), 16_000).is_empty());
}

#[test]
fn a_malformed_rule_is_left_out_with_its_location() {
    let dir = project(&[
        (
            ".claude/rules/bad.md",
            "---\ntitle: API\npaths: [\"src/**\"\n---\nbody\n",
        ),
        (".claude/rules/unclosed.md", "---\npaths: src/**\n\nbody\n"),
        (".claude/rules/number.md", "---\npaths: 42\n---\nbody\n"),
        (".claude/rules/good.md", "Good rule.\n"),
    ]);
    let ctx = everything(dir.path());
    assert_eq!(ctx.files(), [".claude/rules/good.md"]);
    let bad = omitted(&ctx, ".claude/rules/bad.md");
    assert_eq!(bad.cause, OmitCause::Invalid);
    assert_eq!(
        bad.reason,
        ".claude/rules/bad.md:3:8: invalid frontmatter: unclosed bracket '['"
    );
    assert_eq!(
        omitted(&ctx, ".claude/rules/unclosed.md").reason,
        ".claude/rules/unclosed.md:1:1: the frontmatter opened by `---` on line 1 is never closed; end it with a line `---`"
    );
    assert!(
        omitted(&ctx, ".claude/rules/number.md")
            .reason
            .starts_with(".claude/rules/number.md:2:8: expected a list of globs")
    );
}

#[test]
fn unreadable_and_non_utf8_files_are_skipped_not_errors() {
    let dir = project(&[("AGENTS.md", "fine")]);
    std::fs::write(dir.path().join("CLAUDE.md"), b"caf\xe9\n").unwrap();
    let ctx = everything(dir.path());
    assert_eq!(ctx.files(), ["AGENTS.md"]);
    let o = omitted(&ctx, "CLAUDE.md");
    assert_eq!(o.cause, OmitCause::Unreadable);
    assert_eq!(o.reason, "not UTF-8 text (invalid byte at offset 3)");
}

/// `n` lines of prose, about `n * 40` bytes.
fn prose(label: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{label} convention number {i:04} says this.\n"))
        .collect()
}

#[test]
fn over_budget_drops_scoped_rules_most_specific_first() {
    let dir = project(&[
        ("CLAUDE.md", &prose("memory", 20)),
        (
            ".claude/rules/broad.md",
            &format!("---\npaths: \"**/*.rs\"\n---\n{}", prose("broad", 20)),
        ),
        (
            ".claude/rules/narrow.md",
            &format!("---\npaths: src/api/v1/**\n---\n{}", prose("narrow", 20)),
        ),
        (".claude/rules/always.md", &prose("always", 5)),
    ]);
    let under = files(&["src/api/v1/users.rs"]);
    let full = discover_in(dir.path(), "", UnderReview::Files(&under), 16_000);
    assert_eq!(full.files().len(), 4);
    // Room for everything but one scoped rule.
    let budget = full.tokens - 100;
    let ctx = discover_in(dir.path(), "", UnderReview::Files(&under), budget);
    assert_eq!(
        ctx.files(),
        [
            "CLAUDE.md",
            ".claude/rules/always.md",
            ".claude/rules/broad.md"
        ]
    );
    let narrow = omitted(&ctx, ".claude/rules/narrow.md");
    assert_eq!(narrow.cause, OmitCause::Budget);
    let narrow_tokens = prose("narrow", 20).trim_end().len().div_ceil(4);
    assert_eq!(
        narrow.reason,
        format!("over the token budget ({narrow_tokens} tokens)")
    );
    assert!(ctx.tokens <= budget, "{} > {budget}", ctx.tokens);
    assert_eq!(ctx.tokens, ctx.render().len().div_ceil(4));
    assert!(ctx.render().ends_with(
        "\nLeft out to fit the context budget: .claude/rules/narrow.md. Read them if the work touches what they cover.\n"
    ));
    assert!(ctx.sections.iter().all(|s| !s.truncated));
}

#[test]
fn still_over_budget_truncates_the_largest_memory_file() {
    let dir = project(&[
        ("CLAUDE.md", &prose("root", 400)),
        ("AGENTS.md", &prose("agents", 10)),
        (
            ".claude/rules/api.md",
            &format!("---\npaths: src/**\n---\n{}", prose("api", 10)),
        ),
    ]);
    let under = files(&["src/lib.rs"]);
    let ctx = discover_in(dir.path(), "", UnderReview::Files(&under), 1_000);
    assert_eq!(ctx.files(), ["CLAUDE.md", "AGENTS.md"]);
    assert!(ctx.tokens <= 1_000 && ctx.tokens > 950, "{}", ctx.tokens);
    let claude = &ctx.sections[0];
    assert!(claude.truncated);
    assert!(!ctx.sections[1].truncated);
    let marker = claude.text.lines().last().unwrap();
    assert!(
        marker.starts_with("[… truncated by crit: ")
            && marker.ends_with(" tokens over the context budget]"),
        "{marker}"
    );
    let kept = claude.text.lines().rev().nth(2).unwrap();
    assert!(
        kept.ends_with("says this."),
        "cut at a line boundary: {kept}"
    );
    let o = omitted(&ctx, "CLAUDE.md");
    assert_eq!(o.cause, OmitCause::Truncated);
    assert!(
        o.reason.starts_with("truncated: ")
            && o.reason
                .ends_with(" tokens left out to fit the token budget")
    );
    let n: String = marker.chars().filter(char::is_ascii_digit).collect();
    assert!(
        o.reason.contains(&format!(" {} of its", with_commas(&n))),
        "{} vs {marker}",
        o.reason
    );
    assert_eq!(
        omitted(&ctx, ".claude/rules/api.md").cause,
        OmitCause::Budget
    );
}

fn with_commas(digits: &str) -> String {
    let n: usize = digits.parse().unwrap();
    if n >= 1000 {
        format!("{},{:03}", n / 1000, n % 1000)
    } else {
        n.to_string()
    }
}

#[test]
fn a_tiny_budget_leaves_out_everything_and_says_so() {
    let dir = project(&[
        ("CLAUDE.md", &prose("root", 40)),
        ("AGENTS.md", &prose("a", 40)),
    ]);
    let ctx = discover_in(dir.path(), "", UnderReview::Everything, 10);
    assert!(ctx.sections.is_empty());
    assert_eq!(omitted(&ctx, "CLAUDE.md").cause, OmitCause::Budget);
    assert_eq!(omitted(&ctx, "AGENTS.md").cause, OmitCause::Budget);
    assert!(
        ctx.render()
            .contains("Left out to fit the context budget: ")
    );
    assert!(!ctx.is_empty());
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_are_ignored() {
    use std::os::unix::fs::symlink;
    let outside = project(&[
        ("secret.md", "outside text"),
        ("rules/leak.md", "outside rule"),
    ]);
    let dir = project(&[
        ("CLAUDE.md", "inside"),
        ("docs/conventions.md", "linked inside"),
    ]);
    let root = dir.path();
    symlink(outside.path().join("secret.md"), root.join("AGENTS.md")).unwrap();
    symlink(
        root.join("docs/conventions.md"),
        root.join("CLAUDE.local.md"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join(".claude/rules")).unwrap();
    symlink(
        outside.path().join("rules"),
        root.join(".claude/rules/shared"),
    )
    .unwrap();
    symlink(
        outside.path().join("secret.md"),
        root.join(".claude/rules/secret.md"),
    )
    .unwrap();
    symlink(root.join(".claude/rules"), root.join(".claude/rules/loop")).unwrap();
    write(root, ".claude/rules/own.md", "own rule");

    let ctx = everything(root);
    assert_eq!(
        ctx.files(),
        ["CLAUDE.md", "CLAUDE.local.md", ".claude/rules/own.md"]
    );
    assert!(!ctx.render().contains("outside"));
    for path in [
        "AGENTS.md",
        ".claude/rules/shared",
        ".claude/rules/secret.md",
    ] {
        let o = omitted(&ctx, path);
        assert_eq!(o.cause, OmitCause::OutsideRoot, "{path}");
        assert_eq!(
            o.reason,
            "a symlink to outside the project root; crit reads only files inside it"
        );
    }
}

#[test]
fn the_render_is_byte_identical_across_runs_and_checkouts() {
    let under = files(&["app/Http/Controllers/UserController.php"]);
    let a = discover_in(&laravel(), "app/Http", UnderReview::Files(&under), 16_000);
    let b = discover_in(&laravel(), "app/Http", UnderReview::Files(&under), 16_000);
    assert_eq!(a, b);
    assert_eq!(a.render(), b.render());

    // The same files elsewhere render the same bytes: no absolute paths.
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&laravel(), copy.path());
    let c = discover_in(copy.path(), "app/Http", UnderReview::Files(&under), 16_000);
    assert_eq!(a.render(), c.render());
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_realistic_render() {
    let under = files(&[
        "app/Http/Controllers/UserController.php",
        "resources/js/components/UserList.vue",
    ]);
    let ctx = discover_in(&laravel(), "app/Http", UnderReview::Files(&under), 16_000);
    assert_eq!(
        omitted(&ctx, ".claude/rules/testing.md").reason,
        "paths: tests/**/*.php matches no file under review"
    );
    insta::assert_snapshot!("laravel_render", ctx.render());
}

#[test]
fn the_root_is_the_git_repository_root() {
    let dir = project(&[("CLAUDE.md", "root"), ("pkg/sub/AGENTS.md", "deep")]);
    let nested = dir.path().join("pkg/sub");
    assert_eq!(
        project_root_in(&nested, None),
        nested,
        "no repository: cwd is the root"
    );
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(project_root_in(&nested, None), dir.path());
    let ctx = discover_in(
        &project_root_in(&nested, None),
        "pkg/sub",
        UnderReview::Everything,
        16_000,
    );
    assert_eq!(ctx.files(), ["CLAUDE.md", "pkg/sub/AGENTS.md"]);

    // A worktree or submodule has a `.git` file.
    std::fs::write(nested.join(".git"), "gitdir: /elsewhere\n").unwrap();
    assert_eq!(project_root_in(&nested, None), nested);
}

/// A home directory kept in git (dotfiles) is not the project of the
/// directories under it: the reviewer's tools would reach `~/.ssh`.
#[test]
fn a_home_kept_in_git_is_never_the_root_of_a_project_below_it() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().canonicalize().unwrap();
    std::fs::create_dir_all(h.join(".git")).unwrap();
    std::fs::create_dir_all(h.join(".ssh")).unwrap();
    let proj = h.join("code/app/src");
    std::fs::create_dir_all(&proj).unwrap();
    // No repository of its own: the directory is its own root, not the home.
    assert_eq!(project_root_in(&proj, Some(&h)), proj);
    // A repository of its own below the home is found as usual.
    std::fs::create_dir_all(h.join("code/app/.git")).unwrap();
    assert_eq!(project_root_in(&proj, Some(&h)), h.join("code/app"));
    // Run in the home itself, the home is the project.
    assert_eq!(project_root_in(&h, Some(&h)), h);
    // A repository above the home (a whole-disk one) is off limits too.
    let above = tempfile::tempdir().unwrap();
    let a = above.path().canonicalize().unwrap();
    std::fs::create_dir_all(a.join(".git")).unwrap();
    let inner_home = a.join("home/me");
    let work = inner_home.join("work");
    std::fs::create_dir_all(&work).unwrap();
    assert_eq!(project_root_in(&work, Some(&inner_home)), work);
}

#[test]
fn a_cwd_outside_the_root_is_an_error() {
    let root = project(&[("CLAUDE.md", "x")]);
    let other = tempfile::tempdir().unwrap();
    let err = discover(
        root.path(),
        other.path(),
        UnderReview::Everything,
        &ContextOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ContextError::CwdOutsideRoot { .. }));
    assert!(err.to_string().contains("is not inside the project root"));
    let missing = discover(
        &root.path().join("nope"),
        root.path(),
        UnderReview::Everything,
        &ContextOptions::default(),
    )
    .unwrap_err();
    assert!(
        missing.to_string().contains("cannot open the directory"),
        "{missing}"
    );
}

#[test]
fn every_budget_is_kept_and_cuts_stay_on_char_boundaries() {
    let wide: String = (0..120)
        .map(|i| format!("規約 {i}: 関数は短く保つ — ünïcödé\n"))
        .collect();
    let dir = project(&[
        ("CLAUDE.md", &wide),
        ("AGENTS.md", &prose("agents", 30)),
        (
            ".claude/rules/always.md",
            &wide.lines().take(60).collect::<Vec<_>>().join("\n"),
        ),
        (
            ".claude/rules/api.md",
            &format!("---\npaths: src/**\n---\n{wide}"),
        ),
    ]);
    let under = files(&["src/x.rs"]);
    let full = discover_in(dir.path(), "", UnderReview::Files(&under), 1_000_000).tokens;
    for budget in (0..=full + 10).step_by(7) {
        let ctx = discover_in(dir.path(), "", UnderReview::Files(&under), budget);
        assert_eq!(ctx.tokens, ctx.render().len().div_ceil(4));
        if !ctx.sections.is_empty() {
            assert!(ctx.tokens <= budget, "{} > {budget}", ctx.tokens);
        }
        for s in ctx.sections.iter().filter(|s| s.truncated) {
            assert!(s.text.ends_with(" tokens over the context budget]"));
            assert!(s.text.len() > 256);
        }
    }
}
