//! The approval step at a terminal: `Proceed with the refined prompt? (yes /
//! no / edit)`. `edit` opens `$VISUAL` (else `$EDITOR`, else `vi`) on the
//! refined prompt; what the editor saves is the prompt that goes on.

use std::io::{BufRead, Write};

use crit_llm::Env;
use crit_prompt::Decision;

const QUESTION: &str = "Proceed with the refined prompt? (yes / no / edit) ";

/// Asks until it gets an answer; end of input keeps the original.
pub fn ask(refined: &str, env: &Env) -> Decision {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        eprint!("{QUESTION}");
        let _ = std::io::stderr().flush();
        let Some(Ok(answer)) = lines.next() else {
            eprintln!();
            return Decision::Reject;
        };
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Decision::Approve,
            "n" | "no" => return Decision::Reject,
            "e" | "edit" => match edit(refined, env) {
                Ok(text) if text == refined => return Decision::Approve,
                Ok(text) if text.trim().is_empty() => {
                    eprintln!("crit: the edited prompt is empty; answer again");
                }
                Ok(text) => return Decision::Edit(text),
                Err(e) => eprintln!("crit: {}", crate::output::printable(&e.to_string())),
            },
            _ => eprintln!("Answer yes, no or edit."),
        }
    }
}

/// The editor's command line: `$VISUAL`, else `$EDITOR`, else `vi`, split as
/// a shell would split it (no shell runs it).
fn editor_command(env: &Env) -> Result<Vec<String>, String> {
    let raw = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| env.get(v).filter(|s| !s.trim().is_empty()))
        .map(str::to_string)
        .unwrap_or_else(|| "vi".into());
    shlex::split(&raw)
        .filter(|w| !w.is_empty())
        .ok_or_else(|| format!("cannot parse the editor command `{raw}`"))
}

fn edit(refined: &str, env: &Env) -> Result<String, String> {
    let mut file = tempfile::Builder::new()
        .prefix("crit-prompt-")
        .suffix(".md")
        .tempfile()
        .map_err(|e| format!("cannot create a file to edit: {e}"))?;
    file.write_all(refined.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("cannot write the file to edit: {e}"))?;
    let argv = editor_command(env)?;
    let status = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .arg(file.path())
        .status()
        .map_err(|e| format!("cannot start the editor `{}`: {e}", argv[0]))?;
    if !status.success() {
        return Err(format!("the editor `{}` exited with {status}", argv[0]));
    }
    std::fs::read_to_string(file.path()).map_err(|e| format!("cannot read the edited prompt: {e}"))
}
