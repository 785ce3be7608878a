#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! The restricted Bash policy, checked without running anything: hostile command
//! lines are refused with a message that says why; allowed ones get the exact argv
//! (git with its hardening in front).
use crate::common;

use common::Fixture;
use crit_agent::tools::check_command;

#[test]
fn hostile_commands_are_refused_with_a_reason() {
    let f = Fixture::new();
    f.write("src/lib.rs", "x\n");
    common::symlink(std::path::Path::new("/etc"), &f.root().join("etc_link"));
    let outside = f.outside().join("secret.txt").display().to_string();
    let cases: Vec<(String, &str)> = [
        ("git status; rm -rf /", "`;` (a command list)"),
        ("git status && rm -rf .", "`&`"),
        ("git status || curl http://x", "`|`"),
        ("git log | sh", "`|` (a pipe"),
        ("cat $(echo /etc/passwd)", "`$(` (command substitution)"),
        ("cat `echo /etc/passwd`", "a backtick"),
        ("echo \"$(id)\"", "`$(` (command substitution)"),
        ("git log > /tmp/x", "`>` (an output redirection)"),
        ("git log >> /tmp/x", "`>` (an output redirection)"),
        ("cat < /etc/passwd", "`<` (an input redirection)"),
        ("git status &", "`&`"),
        ("git status\nrm -rf .", "a newline"),
        ("git status\\\nrm -rf .", "a newline"),
        ("git log '\n'", "a newline"),
        ("git log \u{1b}[31m", "a control character"),
        ("cat $HOME/.ssh/id_rsa", "`$` (variable expansion)"),
        ("cat ${HOME}/x", "`${`"),
        ("ls *", "an unquoted glob"),
        ("cat ~/.bashrc", "`~` (home directory expansion)"),
        ("(git status)", "a parenthesis"),
        (
            "git -c core.pager=sh log",
            "git options before the subcommand",
        ),
        ("git -c alias.x=!sh x", "git options before the subcommand"),
        ("git -C / log", "git options before the subcommand"),
        (
            "git --git-dir=/elsewhere/.git log",
            "git options before the subcommand",
        ),
        (
            "git --work-tree=/ status",
            "git options before the subcommand",
        ),
        (
            "git --exec-path=/tmp status",
            "git options before the subcommand",
        ),
        ("git diff --output=/tmp/x", "it writes a file"),
        ("git log -p --output=/tmp/x", "it writes a file"),
        ("git diff --ext-diff", "it can run another program"),
        ("git diff --textconv", "it can run another program"),
        ("git log --textc", "it can run another program"),
        ("git show --ext-diff HEAD", "it can run another program"),
        (
            "git diff --no-index /etc/passwd x",
            "it can read outside the project",
        ),
        ("git grep -O vim pattern", "can run another program"),
        (
            "git grep --open-files-in-pager=vim x",
            "it can run another program",
        ),
        ("git grep -nOvim x", "can run another program"),
        ("git log --help", "it can run another program"),
        (
            "git log --show-signature",
            "not allowed in this read-only tool",
        ),
        (
            "git diff --submodule=diff",
            "not allowed in this read-only tool",
        ),
        (
            "git status --ignore-submodules=none",
            "not allowed in this read-only tool",
        ),
        (
            "git cat-file --filters HEAD:x",
            "accepts only `-p`, `-t`, `-s` or `-e`",
        ),
        (
            "git cat-file --textconv HEAD:x",
            "accepts only `-p`, `-t`, `-s` or `-e`",
        ),
        ("git config core.pager sh", "`git config` is not allowed"),
        ("git push origin main", "`git push` is not allowed"),
        ("git commit -m x", "`git commit` is not allowed"),
        ("git checkout -- .", "`git checkout` is not allowed"),
        ("git reset --hard", "`git reset` is not allowed"),
        ("git clean -fdx", "`git clean` is not allowed"),
        ("git fetch", "`git fetch` is not allowed"),
        ("git branch evil", "creates a ref"),
        ("git branch -D main", "allowed only for listing"),
        ("git tag v9", "creates a ref"),
        ("git tag -d v1", "allowed only for listing"),
        (
            "git blame --contents /etc/passwd src/lib.rs",
            "outside the project root",
        ),
        (
            "git blame --conte=/etc/passwd src/lib.rs",
            "abbreviates `--contents`",
        ),
        (
            "git blame --ignore-revs-file=/etc/passwd src/lib.rs",
            "outside the project root",
        ),
        ("git diff -O/etc/passwd", "outside the project root"),
        (
            "git blame -S /etc/passwd src/lib.rs",
            "outside the project root",
        ),
        ("git ls-files -X /etc/passwd", "outside the project root"),
        ("git grep -f /etc/passwd", "outside the project root"),
        (
            "git grep --file=/etc/passwd",
            "abbreviates `--files-with-matches`",
        ),
        (
            "git diff --no-ind /etc/passwd x",
            "it can read outside the project",
        ),
        (
            "git ls-files --exclude-from=/etc/passwd",
            "outside the project root",
        ),
        ("git log -- /etc/passwd", "outside the project root"),
        ("git show HEAD -- ../x", "outside the project root"),
        ("git shortlog -sn /etc/passwd", "outside the project root"),
        ("git -p log", "git options before the subcommand"),
        (
            "git grep --no-index root",
            "it can read outside the project",
        ),
        (
            "git rev-parse --resolve-git-dir /elsewhere/.git",
            "it can read outside the project",
        ),
        (
            "git log --no-ignore-submodules",
            "not allowed in this read-only tool",
        ),
        ("git whatchanged", "`git whatchanged` is not allowed"),
        (
            "git update-index --refresh",
            "`git update-index` is not allowed",
        ),
        ("rm -rf /", "`rm` is not allowed"),
        ("curl http://example.invalid", "`curl` is not allowed"),
        ("sh -c id", "`sh` is not allowed"),
        ("bash", "`bash` is not allowed"),
        ("python3 -c 'print(1)'", "`python3` is not allowed"),
        ("env X=1 git status", "`env` is not allowed"),
        ("X=1 git status", "sets an environment variable"),
        ("GIT_DIR=/elsewhere git log", "sets an environment variable"),
        ("/usr/bin/git status", "not as a path"),
        ("./git status", "not as a path"),
        ("find . -exec rm {} ;", "`;` (a command list)"),
        ("find . -exec rm '{}' '+'", "it runs other programs"),
        ("find . -execdir id '+'", "it runs other programs"),
        ("find . -delete", "it writes or deletes files"),
        ("find . -ok rm '{}' '+'", "it runs other programs"),
        ("find . -fprint /tmp/x", "it writes or deletes files"),
        ("find . -fprintf /tmp/x %p", "it writes or deletes files"),
        ("find -L . -name x", "following symlinks"),
        ("find / -name passwd", "outside the project root"),
        ("find . -newer /etc/passwd", "outside the project root"),
        ("cat /etc/passwd", "outside the project root"),
        ("cat ../../../../etc/passwd", "outside the project root"),
        ("cat etc_link/passwd", "outside the project root"),
        ("head -n 5 /etc/shadow", "outside the project root"),
        ("ls /", "outside the project root"),
        ("ls -L .", "not on the read-only allow-list"),
        (
            "wc --files0-from=/etc/passwd",
            "not on the read-only allow-list",
        ),
        ("grep -R root .", "not on the read-only allow-list"),
        ("grep root /etc/passwd", "outside the project root"),
        ("grep -rne root /etc", "outside the project root"),
        ("grep -r --regexp=root /etc", "outside the project root"),
        ("grep -rie root -- /etc", "outside the project root"),
        ("rg -ie root /etc", "outside the project root"),
        ("grep -r root etc_link", "outside the project root"),
        ("grep -f /etc/passwd src/lib.rs", "outside the project root"),
        ("rg --pre=sh x", "not on the read-only allow-list"),
        ("rg --pre sh x", "not on the read-only allow-list"),
        ("rg -z x", "not on the read-only allow-list"),
        ("rg --follow x", "not on the read-only allow-list"),
        ("rg --hostname-bin=sh x", "not on the read-only allow-list"),
        ("git status -v", "textconv"),
        ("git status --verbose", "textconv"),
        ("git status --verb", "textconv"),
        ("git status -sv", "textconv"),
        ("git describe --dirty", "write the index"),
        ("git describe --always --di", "write the index"),
        ("git describe --broken", "write the index"),
        ("git log --remerge-diff", "temporary objects"),
        ("git show --remerge HEAD", "temporary objects"),
        ("git log --diff-merges=remerge -p", "temporary objects"),
        ("git log --diff-merges=r -p", "temporary objects"),
        ("git log --diff-merges r -p", "attached with `=`"),
        ("git log -L1,2:/etc/passwd", "outside the project root"),
        (
            "git log -L 1,2:../../../../etc/passwd",
            "outside the project root",
        ),
        ("git log -L:main:/etc/passwd", "outside the project root"),
        ("git log -L:a:../../../../x:y", "outside the project root"),
        ("rg --files /etc", "outside the project root"),
        ("rg --files -- /etc", "outside the project root"),
        ("rg --hidden --files etc_link", "outside the project root"),
        ("rg --type-list /etc", "outside the project root"),
        ("git log 'unbalanced", "unbalanced quote"),
        ("", "empty command"),
    ]
    .into_iter()
    .map(|(c, w)| (c.to_string(), w))
    .chain([(format!("cat {outside}"), "outside the project root")])
    .collect();
    assert!(cases.len() >= 30);
    for (cmd, want) in &cases {
        match check_command(cmd, &f.cx.roots) {
            Ok(ok) => panic!("`{cmd}` was allowed: {ok:?}"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains(want), "`{cmd}`: {msg}");
                assert!(
                    msg.starts_with("refused") || msg.starts_with("empty"),
                    "`{cmd}`: {msg}"
                );
            }
        }
    }
}

#[test]
fn allowed_commands_get_the_expected_argv() {
    let f = Fixture::new();
    f.write("src/lib.rs", "x\n");
    let hardening = crit_agent::tools::GIT_HARDENING.join(" ");
    let cases: &[(&str, &str)] = &[
        ("git status", "status --ignore-submodules=all"),
        (
            "git --no-pager log --oneline -n 5",
            "log --no-ext-diff --no-textconv --ignore-submodules=all --oneline -n 5",
        ),
        (
            "git diff HEAD~1..HEAD -- src/lib.rs",
            "diff --no-ext-diff --no-textconv --ignore-submodules=all HEAD~1..HEAD -- src/lib.rs",
        ),
        (
            "git show HEAD:src/lib.rs",
            "show --no-ext-diff --no-textconv --ignore-submodules=all HEAD:src/lib.rs",
        ),
        (
            "git log --grep 'a|b' --format='%h %s'",
            "log --no-ext-diff --no-textconv --ignore-submodules=all --grep a|b --format=%h %s",
        ),
        (
            "git blame -L 1,2 src/lib.rs",
            "blame --no-textconv -L 1,2 src/lib.rs",
        ),
        (
            "git grep -n -e foo -- '*.rs'",
            "grep --no-textconv -n -e foo -- *.rs",
        ),
        (
            "git diff --text --stat",
            "diff --no-ext-diff --no-textconv --ignore-submodules=all --text --stat",
        ),
        (
            "git log --follow -- src/lib.rs",
            "log --no-ext-diff --no-textconv --ignore-submodules=all --follow -- src/lib.rs",
        ),
        ("git cat-file -p HEAD", "cat-file -p HEAD"),
        ("git branch --list 'feat/*'", "branch --list feat/*"),
        ("git branch -a --contains HEAD", "branch -a --contains HEAD"),
        (
            "git tag -l --sort -creatordate",
            "tag -l --sort -creatordate",
        ),
        ("git rev-parse --show-toplevel", "rev-parse --show-toplevel"),
        ("git merge-base main HEAD", "merge-base main HEAD"),
        ("git shortlog -sn HEAD", "shortlog -sn HEAD"),
        (
            "git status -uno --porcelain=v2",
            "status --ignore-submodules=all -uno --porcelain=v2",
        ),
        (
            "git log -L 1,2:src/lib.rs",
            "log --no-ext-diff --no-textconv --ignore-submodules=all -L 1,2:src/lib.rs",
        ),
        (
            "git log --diff-merges=first-parent -p",
            "log --no-ext-diff --no-textconv --ignore-submodules=all --diff-merges=first-parent -p",
        ),
        ("git describe --always --tags", "describe --always --tags"),
    ];
    for (cmd, want) in cases {
        let c = check_command(cmd, &f.cx.roots).unwrap_or_else(|e| panic!("`{cmd}`: {e}"));
        assert_eq!(c.program, "git");
        assert_eq!(c.args.join(" "), format!("{hardening} {want}"), "`{cmd}`");
    }
    let plain: &[(&str, &[&str])] = &[
        ("ls -la src", &["-la", "src"]),
        ("cat src/lib.rs", &["src/lib.rs"]),
        ("head -n 20 src/lib.rs", &["-n", "20", "src/lib.rs"]),
        ("tail -5 src/lib.rs", &["-5", "src/lib.rs"]),
        ("wc -l src/lib.rs", &["-l", "src/lib.rs"]),
        ("pwd", &[]),
        ("echo 'hello; world'", &["hello; world"]),
        (
            "find . -name '*.rs' -type f",
            &[".", "-name", "*.rs", "-type", "f"],
        ),
        (
            "find src \\( -name a -o -name b \\) -print",
            &["src", "(", "-name", "a", "-o", "-name", "b", ")", "-print"],
        ),
        ("grep -rn 'fn main' src", &["-rn", "fn main", "src"]),
        (
            "grep -e /etc/passwd src/lib.rs",
            &["-e", "/etc/passwd", "src/lib.rs"],
        ),
        ("rg -n --type rust 'a|b'", &["-n", "--type", "rust", "a|b"]),
        ("rg --files src", &["--files", "src"]),
    ];
    for (cmd, want) in plain {
        let c = check_command(cmd, &f.cx.roots).unwrap_or_else(|e| panic!("`{cmd}`: {e}"));
        assert_eq!(c.args, *want, "`{cmd}`");
    }
}

/// Options outside a subcommand's allow-list are refused, whatever their
/// form: made-up future options, dangerous ones (exact, abbreviated, negated,
/// glued to a value), and real options of another subcommand. The message
/// names the option, says why when the option is known to be dangerous, and
/// points at the allowed spelling when there is one.
#[test]
fn unlisted_git_options_are_refused_naming_the_option() {
    let f = Fixture::new();
    f.write("src/lib.rs", "x\n");
    // (command, the option as the message names it, what the message says)
    let cases: &[(&str, &str, &str)] = &[
        // Made up: what a future git could add.
        (
            "git log --exec-helper=x",
            "--exec-helper",
            "not among the read-only options",
        ),
        (
            "git diff --exec-helper x",
            "--exec-helper",
            "not among the read-only options",
        ),
        (
            "git show --pretty-printer=cat HEAD",
            "--pretty-printer",
            "not among the read-only options",
        ),
        (
            "git log --format-helper=sh",
            "--format-helper",
            "not among the read-only options",
        ),
        (
            "git diff --color-program=cat",
            "--color-program",
            "not among the read-only options",
        ),
        (
            "git grep --pager=less -e x",
            "--pager",
            "not among the read-only options",
        ),
        (
            "git blame --run=sh src/lib.rs",
            "--run",
            "not among the read-only options",
        ),
        (
            "git status --hook=sh",
            "--hook",
            "not among the read-only options",
        ),
        (
            "git ls-files --from-file=/etc/passwd",
            "--from-file",
            "not among the read-only options",
        ),
        (
            "git shortlog --mailmap-file=x HEAD",
            "--mailmap-file",
            "not among the read-only options",
        ),
        (
            "git describe --exec=sh",
            "--exec",
            "can run another program",
        ),
        (
            "git merge-base --exec-path=/tmp HEAD HEAD",
            "--exec-path",
            "can run another program",
        ),
        (
            "git log --EXT-DIFF",
            "--EXT-DIFF",
            "not among the read-only options",
        ),
        ("git log -Q", "-Q", "not among the read-only options"),
        ("git log -pQ", "-Q", "not among the read-only options"),
        ("git status -x", "-x", "not among the read-only options"),
        // Dangerous, exact, abbreviated, negated, glued.
        ("git log --output=/tmp/x", "--output", "it writes a file"),
        (
            "git log --out=/tmp/x",
            "a form of `--output`",
            "it writes a file",
        ),
        (
            "git diff --outp /tmp/x",
            "a form of `--output`",
            "it writes a file",
        ),
        (
            "git show --ext-diff=x HEAD",
            "--ext-diff",
            "can run another program",
        ),
        (
            "git diff --ext-d",
            "a form of `--ext-diff`",
            "can run another program",
        ),
        ("git diff --no-ext", "`--no-ext-diff`", "spell it out"),
        (
            "git log --textconv",
            "--textconv",
            "can run another program",
        ),
        (
            "git show --textconv=yes HEAD",
            "--textconv",
            "can run another program",
        ),
        ("git log --no-textconv=x", "--no-textconv", "takes no value"),
        (
            "git grep --open=vim -e x",
            "--open",
            "can run another program",
        ),
        (
            "git grep --no-in -e x",
            "--no-in",
            "read outside the project",
        ),
        (
            "git diff --no-index a b",
            "--no-index",
            "read outside the project",
        ),
        (
            "git log --show-sig",
            "--show-sig",
            "not allowed in this read-only tool",
        ),
        (
            "git log --no-show-signature",
            "a form of `--show-signature`",
            "not allowed",
        ),
        (
            "git status --ignore-sub=none",
            "--ignore-sub",
            "not allowed",
        ),
        ("git log --submodule=log", "--submodule", "not allowed"),
        (
            "git ls-files --recurse-submodules",
            "--recurse-submodules",
            "not allowed",
        ),
        ("git diff-tree --stdin", "--stdin", "not allowed"),
        (
            "git show --attr-source=HEAD HEAD",
            "--attr-source",
            "not allowed",
        ),
        (
            "git rev-parse --git-dir",
            "--git-dir",
            "read outside the project",
        ),
        (
            "git rev-parse --git-path x",
            "--git-path",
            "not among the read-only options",
        ),
        (
            "git rev-parse --default HEAD",
            "--default",
            "not among the read-only options",
        ),
        (
            "git ls-files --with-tree=HEAD",
            "--with-tree",
            "not among the read-only options",
        ),
        (
            "git ls-files -X/etc/passwd",
            "/etc/passwd",
            "outside the project root",
        ),
        ("git describe --dirty=-x", "--dirty", "write the index"),
        // An optional value is attached only: the next word is an operand,
        // confined like any path.
        (
            "git log --pretty /etc/passwd",
            "/etc/passwd",
            "outside the project root",
        ),
        (
            "git diff --stat ../../../../etc/passwd",
            "etc/passwd",
            "outside the project root",
        ),
        (
            "git blame -M /etc/passwd",
            "/etc/passwd",
            "outside the project root",
        ),
        ("git status -sv", "-sv", "textconv"),
        // Abbreviations and misspellings of allowed options.
        ("git log --onelin", "`--oneline`", "spell it out"),
        (
            "git log --one-line",
            "--one-line",
            "did you mean `--oneline`?",
        ),
        (
            "git blame --porc src/lib.rs",
            "`--porcelain`",
            "spell it out",
        ),
        ("git status --shor", "`--short`", "spell it out"),
        (
            "git log --name-",
            "`--name-only` or `--name-status`",
            "spell it out",
        ),
        ("git log --full-dif", "`--full-diff`", "spell it out"),
        // Allowed options given the wrong way.
        ("git log --format %h", "--format", "attached with `=`"),
        ("git log --oneline=yes", "--oneline", "takes no value"),
        ("git status --short=x", "--short", "takes no value"),
        (
            "git log --since",
            "--since",
            "needs a value, e.g. `--since=2.weeks`",
        ),
        ("git log -n", "-n", "needs a value"),
        ("git grep -e", "-e", "needs a value"),
        // Real options, of another subcommand.
        (
            "git diff --oneline",
            "--oneline",
            "it is allowed for `git log`, `git show`",
        ),
        (
            "git status --cached",
            "--cached",
            "it is allowed for `git diff`",
        ),
        (
            "git grep --stat -e x",
            "--stat",
            "not among the read-only options",
        ),
        (
            "git blame --name-only src/lib.rs",
            "--name-only",
            "not among the read-only options",
        ),
        (
            "git describe --stat",
            "--stat",
            "not among the read-only options",
        ),
        ("git status -5", "-5", "not among the read-only options"),
    ];
    assert!(cases.len() >= 30);
    for (cmd, names, want) in cases {
        match check_command(cmd, &f.cx.roots) {
            Ok(ok) => panic!("`{cmd}` was allowed: {ok:?}"),
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("refused"), "`{cmd}`: {msg}");
                assert!(msg.contains(names), "`{cmd}` does not name {names}: {msg}");
                assert!(msg.contains(want), "`{cmd}`: {msg}");
                if std::env::var_os("CRIT_TEST_SHOW").is_some() {
                    eprintln!("{cmd}\n  {msg}");
                }
            }
        }
    }
}

/// The commands a reviewer runs all the time pass unchanged.
#[test]
fn common_review_commands_pass_unchanged() {
    let f = Fixture::new();
    f.write("src/lib.rs", "x\n");
    let hardening = crit_agent::tools::GIT_HARDENING.join(" ");
    let diffy = "--no-ext-diff --no-textconv --ignore-submodules=all";
    let cases: &[(&str, &str)] = &[
        (
            "git log --oneline -n 5 --stat",
            "log {D} --oneline -n 5 --stat",
        ),
        ("git diff --stat main...HEAD", "diff {D} --stat main...HEAD"),
        ("git show --name-only HEAD", "show {D} --name-only HEAD"),
        (
            "git log -5 --graph --decorate --all",
            "log {D} -5 --graph --decorate --all",
        ),
        (
            "git log --since '2 weeks ago' --author Ann --no-merges",
            "log {D} --since 2 weeks ago --author Ann --no-merges",
        ),
        (
            "git log --pretty=format:'%h %an %s' --date=short -S needle",
            "log {D} --pretty=format:%h %an %s --date=short -S needle",
        ),
        (
            "git log -G'fn \\w+' -p -- src",
            "log {D} -Gfn \\w+ -p -- src",
        ),
        (
            "git log --follow --first-parent -- src/lib.rs",
            "log {D} --follow --first-parent -- src/lib.rs",
        ),
        (
            "git log --diff-filter=D --summary",
            "log {D} --diff-filter=D --summary",
        ),
        (
            "git show -s --format=%B HEAD~1",
            "show {D} -s --format=%B HEAD~1",
        ),
        (
            "git show --stat --oneline -M HEAD",
            "show {D} --stat --oneline -M HEAD",
        ),
        (
            "git diff --cached -U10 --word-diff",
            "diff {D} --cached -U10 --word-diff",
        ),
        (
            "git diff --staged --name-status -w",
            "diff {D} --staged --name-status -w",
        ),
        (
            "git diff --histogram --ignore-blank-lines -W --color=never HEAD~1",
            "diff {D} --histogram --ignore-blank-lines -W --color=never HEAD~1",
        ),
        (
            "git diff --numstat --find-renames=40% main",
            "diff {D} --numstat --find-renames=40% main",
        ),
        (
            "git diff-tree -r --name-status HEAD",
            "diff-tree {D} -r --name-status HEAD",
        ),
        (
            "git grep -n -i -w -C 2 -e needle",
            "grep --no-textconv -n -i -w -C 2 -e needle",
        ),
        (
            "git grep -lc -E 'a|b' -- src",
            "grep --no-textconv -lc -E a|b -- src",
        ),
        (
            "git grep --cached -F -3 needle",
            "grep --no-textconv --cached -F -3 needle",
        ),
        (
            "git blame -w -M -C --porcelain -L 1,1 src/lib.rs",
            "blame --no-textconv -w -M -C --porcelain -L 1,1 src/lib.rs",
        ),
        (
            "git blame -e -s src/lib.rs",
            "blame --no-textconv -e -s src/lib.rs",
        ),
        (
            "git status -sb --ignored",
            "status --ignore-submodules=all -sb --ignored",
        ),
        (
            "git status --porcelain=v1 --branch",
            "status --ignore-submodules=all --porcelain=v1 --branch",
        ),
        (
            "git ls-files --others --exclude-standard -z",
            "ls-files --others --exclude-standard -z",
        ),
        (
            "git shortlog -sne --since=1.year HEAD",
            "shortlog -sne --since=1.year HEAD",
        ),
        (
            "git rev-parse --abbrev-ref HEAD",
            "rev-parse --abbrev-ref HEAD",
        ),
        ("git rev-parse --short HEAD", "rev-parse --short HEAD"),
        (
            "git merge-base --is-ancestor main HEAD",
            "merge-base --is-ancestor main HEAD",
        ),
        (
            "git describe --tags --abbrev=0",
            "describe --tags --abbrev=0",
        ),
    ];
    for (cmd, want) in cases {
        let want = want.replace("{D}", diffy);
        let c = check_command(cmd, &f.cx.roots).unwrap_or_else(|e| panic!("`{cmd}`: {e}"));
        assert_eq!(c.args.join(" "), format!("{hardening} {want}"), "`{cmd}`");
    }
}
