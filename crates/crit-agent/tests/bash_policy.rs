#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns
//! The restricted Bash policy, checked without running anything: hostile command
//! lines are refused with a message that says why; allowed ones get the exact argv
//! (git with its hardening in front).
mod common;

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
            "outside the project root",
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
        ("git grep --file=/etc/passwd", "outside the project root"),
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
        ("git log --diff-merges r -p", "give the format attached"),
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
