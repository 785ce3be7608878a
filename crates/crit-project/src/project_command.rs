//! The project's own commands a reviewer's Bash may run (`project_commands`
//! in a trusted config: `npm run lint`, `composer lint:php`), beyond the
//! read-only programs it always may. Each is a program named as on `PATH`
//! and its first arguments, in plain words: the model's command runs when it
//! is one of these, followed only by files of the project.

/// Why a configured line is not a project command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandLineError {
    #[error("empty: give a program and its arguments, e.g. `npm run lint`")]
    Empty,
    #[error("name the program as it is found on PATH (no path, no variable)")]
    NotOnPath,
    #[error("`{0}`: plain words only (letters, digits and _-.:@+,=/); no shell syntax or quotes")]
    NotPlain(String),
}

/// The words of one configured command line, or why it cannot be one.
pub fn words(line: &str) -> Result<Vec<String>, CommandLineError> {
    let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let Some(program) = words.first() else {
        return Err(CommandLineError::Empty);
    };
    if program.contains('/') || program.contains('=') {
        return Err(CommandLineError::NotOnPath);
    }
    let plain = |w: &String| {
        w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.:@+,=/".contains(c))
    };
    if let Some(w) = words.iter().find(|w| !plain(w)) {
        return Err(CommandLineError::NotPlain(w.clone()));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_command_lines_only() {
        assert_eq!(words("npm run lint").unwrap(), ["npm", "run", "lint"]);
        assert_eq!(
            words(" composer  lint:php ").unwrap(),
            ["composer", "lint:php"]
        );
        for bad in [
            "",
            "  ",
            "./lint",
            "/usr/bin/npm run",
            "A=1 npm",
            "npm run lint; rm -rf x",
            "npm $(x)",
            "npm 'run'",
        ] {
            assert!(words(bad).is_err(), "{bad:?}");
        }
    }
}
