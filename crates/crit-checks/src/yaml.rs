//! YAML parsing with errors as `file:line:column: message`.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::error::CheckError;

/// Parse `text` (the contents of `path`). A document with nothing but comments
/// and blank lines parses as `T::default()`.
pub(crate) fn parse<T: DeserializeOwned + Default>(
    path: &Path,
    text: &str,
) -> Result<T, CheckError> {
    if is_blank_document(text) {
        return Ok(T::default());
    }
    serde_saphyr::from_str::<T>(text).map_err(|e| malformed(path, &e))
}

pub(crate) fn malformed(path: &Path, e: &serde_saphyr::Error) -> CheckError {
    let (line, column) = e
        .location()
        .map_or((1, 1), |l| (l.line().max(1), l.column().max(1)));
    let mut message = e.without_snippet().to_string();
    // The location is already in front; drop the library's own suffix.
    if let Some(i) = message.rfind(" at line ") {
        message.truncate(i);
    }
    CheckError::Malformed {
        path: path.to_path_buf(),
        line,
        column,
        message,
    }
}

fn is_blank_document(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, serde::Deserialize)]
    struct Doc {
        #[serde(default)]
        n: u32,
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let err = parse::<Doc>(Path::new("x.yaml"), "# c\nn: [\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("x.yaml:2:"), "{msg}");
        assert!(!msg.contains(" at line "), "{msg}");
    }

    #[test]
    fn comment_only_documents_are_empty() {
        assert_eq!(parse::<Doc>(Path::new("x"), "# nothing\n\n").unwrap().n, 0);
        assert_eq!(parse::<Doc>(Path::new("x"), "").unwrap().n, 0);
    }
}
