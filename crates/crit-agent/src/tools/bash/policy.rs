//! What the restricted Bash accepts. No shell ever runs: the command line is
//! scanned for shell syntax (refused, since it would not do what the model
//! expects and usually signals an attempt to chain or redirect), split with
//! shlex, and the program and each argument are checked against allow-lists.

use crate::confine::{ConfineError, Roots};

use super::git::GitCall;
use super::{git, spec};

/// Programs the tool runs. Anything else is refused.
pub const ALLOWED_PROGRAMS: &[&str] = &[
    "git", "ls", "cat", "head", "tail", "wc", "pwd", "echo", "find", "grep", "rg",
];

/// A command that passed the policy: the program and the exact argv to run it
/// with (for git, with the hardening options already in place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedCommand {
    pub program: String,
    pub args: Vec<String>,
    /// For git: what the command asks for, checked again once the repository
    /// is known.
    pub git: Option<GitCall>,
    /// For the text programs (cat, head, tail, wc, grep, rg): the files and
    /// directories named to read, as given. Empty when it reads none (or, for
    /// `grep -r` and `rg`, the current directory).
    pub reads: Vec<String>,
    /// One of the project's own commands the user's settings allow.
    pub project: bool,
}

/// Why a command was refused; `Display` is the message the model reads.
#[derive(Debug, thiserror::Error)]
pub enum BashPolicyError {
    #[error("empty command; give one read-only command such as `git status`")]
    Empty,
    #[error(
        "refused: {what} is shell syntax, and this Bash runs no shell. Run one plain command \
         per call: no pipes, lists, redirections, substitutions, variables, globs or comments. \
         Quote literal characters (`grep 'a|b' file`); find files by name with the Glob tool \
         (git takes paths literally, without globs)"
    )]
    ShellSyntax { what: &'static str },
    #[error("refused: the command has an unbalanced quote")]
    Unbalanced,
    #[error(
        "refused: `{0}` sets an environment variable; this Bash runs commands with a fixed \
         environment, so give the command alone"
    )]
    EnvAssignment(String),
    #[error("refused: give the program by name (e.g. `git`), not as a path: `{0}`")]
    ProgramPath(String),
    #[error(
        "refused: `{program}` is not allowed; this Bash only runs read-only commands: {}{}",
        ALLOWED_PROGRAMS.join(", "),
        project_list(project)
    )]
    Program {
        program: String,
        /// The project's commands that are allowed.
        project: Vec<String>,
    },
    #[error(
        "refused: `{command}` is not one of the project's commands this Bash may run ({}); each runs as listed, followed only by files of the project",
        project.join("; ")
    )]
    ProjectCommand {
        command: String,
        project: Vec<String>,
    },
    #[error("refused: `git {sub}` is not allowed; allowed git subcommands: {}", git::ALLOWED_SUBCOMMANDS.join(", "))]
    GitSubcommand { sub: String },
    #[error("refused: `{arg}` for `{program}`: {why}")]
    Argument {
        program: String,
        arg: String,
        why: String,
    },
    #[error("refused: {0}")]
    Path(ConfineError),
}

fn project_list(project: &[String]) -> String {
    match project.is_empty() {
        true => String::new(),
        false => format!("; and the project's commands: {}", project.join("; ")),
    }
}

/// Checks one command line against the policy.
pub fn check_command(command: &str, roots: &Roots) -> Result<CheckedCommand, BashPolicyError> {
    check_command_with(command, roots, &[])
}

/// [`check_command`], also allowing the project's own commands `project`
/// (each as its words): a command that starts with one of them and goes on
/// only with files inside the project.
pub(crate) fn check_command_with(
    command: &str,
    roots: &Roots,
    project: &[Vec<String>],
) -> Result<CheckedCommand, BashPolicyError> {
    if command.trim().is_empty() {
        return Err(BashPolicyError::Empty);
    }
    scan_shell_syntax(command)?;
    let words = shlex::split(command).ok_or(BashPolicyError::Unbalanced)?;
    let Some((program, args)) = words.split_first() else {
        return Err(BashPolicyError::Empty);
    };
    if program.contains('=') {
        return Err(BashPolicyError::EnvAssignment(program.clone()));
    }
    if program.contains('/') {
        return Err(BashPolicyError::ProgramPath(program.clone()));
    }
    let mut git_call = None;
    let mut reads = Vec::new();
    let args = match program.as_str() {
        "git" => {
            let (argv, call) = git::check(args, roots)?;
            git_call = Some(call);
            argv
        }
        "echo" => args.to_vec(),
        "find" => {
            check_find(args, roots)?;
            args.to_vec()
        }
        other => {
            let spec = match other {
                "ls" => &spec::LS,
                "cat" => &spec::CAT,
                "head" => &spec::HEAD,
                "tail" => &spec::TAIL,
                "wc" => &spec::WC,
                "pwd" => &spec::PWD,
                "grep" => &spec::GREP,
                "rg" => &spec::RG,
                _ => return check_project(&words, roots, project),
            };
            reads = spec::check(spec, args, roots)?;
            args.to_vec()
        }
    };
    Ok(CheckedCommand {
        program: program.clone(),
        args,
        git: git_call,
        reads,
        project: false,
    })
}

/// One of the project's commands, or the refusal that lists them.
fn check_project(
    words: &[String],
    roots: &Roots,
    project: &[Vec<String>],
) -> Result<CheckedCommand, BashPolicyError> {
    let listed: Vec<String> = project.iter().map(|c| c.join(" ")).collect();
    let same_program: Vec<&Vec<String>> = project
        .iter()
        .filter(|c| c.first() == words.first())
        .collect();
    if same_program.is_empty() {
        return Err(BashPolicyError::Program {
            program: words.first().cloned().unwrap_or_default(),
            project: listed,
        });
    }
    let refused = || BashPolicyError::ProjectCommand {
        command: words.join(" "),
        project: listed.clone(),
    };
    let Some(allowed) = same_program
        .iter()
        .filter(|c| words.starts_with(c))
        .max_by_key(|c| c.len())
    else {
        return Err(refused());
    };
    let rest = &words[allowed.len()..];
    // Only files of the project follow: no option, nothing outside it.
    for arg in rest {
        if arg.starts_with('-') || roots.resolve(arg).is_err() {
            return Err(refused());
        }
    }
    Ok(CheckedCommand {
        program: words[0].clone(),
        args: words[1..].to_vec(),
        git: None,
        reads: rest.to_vec(),
        project: true,
    })
}

/// Refuses shell syntax outside single quotes (and, for expansions, inside double
/// quotes, where a shell would still expand them).
fn scan_shell_syntax(cmd: &str) -> Result<(), BashPolicyError> {
    #[derive(PartialEq)]
    enum Q {
        None,
        Single,
        Double,
    }
    let refuse = |what| Err(BashPolicyError::ShellSyntax { what });
    let mut q = Q::None;
    let mut chars = cmd.chars().peekable();
    let mut word_start = true;
    // Checked up front so a backslash cannot hide a newline (line continuation).
    if cmd.contains(['\n', '\r']) {
        return refuse("a newline (several commands)");
    }
    if cmd.chars().any(|c| c.is_control() && c != '\t') {
        return refuse("a control character");
    }
    while let Some(c) = chars.next() {
        let at_word_start = std::mem::replace(&mut word_start, false);
        match q {
            Q::Single => {
                if c == '\'' {
                    q = Q::None;
                }
                continue;
            }
            Q::Double => match c {
                '"' => q = Q::None,
                '\\' => {
                    chars.next();
                }
                '`' => return refuse("a backtick (command substitution)"),
                '$' => check_dollar(chars.peek().copied())?,
                _ => {}
            },
            Q::None => match c {
                '\'' => q = Q::Single,
                '"' => q = Q::Double,
                '\\' => {
                    chars.next();
                }
                ' ' | '\t' => word_start = true,
                ';' => return refuse("`;` (a command list)"),
                '&' => return refuse("`&` (`&&` or a background job)"),
                '|' => return refuse("`|` (a pipe or `||`)"),
                '>' => return refuse("`>` (an output redirection)"),
                '<' => return refuse("`<` (an input redirection)"),
                '(' | ')' => return refuse("a parenthesis (a subshell); quote or escape it"),
                '`' => return refuse("a backtick (command substitution)"),
                '$' => check_dollar(chars.peek().copied())?,
                '*' | '?' | '[' => {
                    return refuse("an unquoted glob character (`*`, `?` or `[`)");
                }
                '~' if at_word_start => return refuse("`~` (home directory expansion)"),
                '#' if at_word_start => return refuse("`#` (a comment)"),
                _ => {}
            },
        }
    }
    Ok(())
}

fn check_dollar(next: Option<char>) -> Result<(), BashPolicyError> {
    match next {
        Some('(') => Err(BashPolicyError::ShellSyntax {
            what: "`$(` (command substitution)",
        }),
        Some('{') => Err(BashPolicyError::ShellSyntax {
            what: "`${` (variable expansion)",
        }),
        Some(c) if c.is_ascii_alphanumeric() || "_?!#@*$-".contains(c) => {
            Err(BashPolicyError::ShellSyntax {
                what: "`$` (variable expansion)",
            })
        }
        _ => Ok(()),
    }
}

/// find: start paths confined, expression primaries from an allow-list. Refused:
/// actions that run programs or write files, and symlink following.
fn check_find(args: &[String], roots: &Roots) -> Result<(), BashPolicyError> {
    const NO_ARG: &[&str] = &[
        "-print",
        "-print0",
        "-ls",
        "-prune",
        "-quit",
        "-true",
        "-false",
        "-empty",
        "-readable",
        "-writable",
        "-executable",
        "-nouser",
        "-nogroup",
        "-depth",
        "-d",
        "-mount",
        "-xdev",
        "-noleaf",
        "-daystart",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "!",
        "(",
        ")",
        ",",
        "-not",
        "-and",
        "-a",
        "-or",
        "-o",
    ];
    const ONE_ARG: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-regextype",
        "-type",
        "-xtype",
        "-size",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-maxdepth",
        "-mindepth",
        "-printf",
        "-lname",
        "-ilname",
        "-fstype",
        "-used",
    ];
    const PATH_ARG: &[&str] = &["-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"];
    let refuse = |arg: &str, why: &str| BashPolicyError::Argument {
        program: "find".to_string(),
        arg: arg.to_string(),
        why: why.to_string(),
    };
    let mut i = 0;
    // Leading options: -P (the default, never follow) and -H are fine; -L is not.
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-P" | "-H" => i += 1,
            "-L" | "-follow" => {
                return Err(refuse(a, "following symlinks could leave the project"));
            }
            "-D" => i += 2,
            s if s.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    while let Some(a) = args.get(i) {
        if a.starts_with('-') || a == "!" || a == "(" {
            break;
        }
        spec::confine_path(a, roots)?;
        i += 1;
    }
    while let Some(a) = args.get(i) {
        i += 1;
        let a = a.as_str();
        if NO_ARG.contains(&a) {
            continue;
        }
        let takes_path =
            PATH_ARG.contains(&a) || (a.len() == 8 && a.starts_with("-newer") && !a.ends_with('t'));
        if takes_path || ONE_ARG.contains(&a) || a.starts_with("-newer") && a.len() == 8 {
            let value = args
                .get(i)
                .ok_or_else(|| refuse(a, "this test needs a value"))?;
            if takes_path {
                spec::confine_path(value, roots)?;
            }
            i += 1;
            continue;
        }
        let why = match a {
            "-exec" | "-execdir" | "-ok" | "-okdir" => "it runs other programs",
            "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                "it writes or deletes files"
            }
            "-L" | "-follow" => "following symlinks could leave the project",
            _ => "this expression is not on the read-only allow-list",
        };
        return Err(refuse(a, why));
    }
    Ok(())
}
