//! The hidden markers that let a later run find what crit posted before:
//! the summary, and each finding's comment with its key (the finding's
//! fingerprint). A marker counts only as the first line of a comment crit's
//! own account wrote; model text is escaped, so it cannot write one.

/// What a comment's first line says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Marker {
    /// The summary; `by` is the account that wrote it, as it recorded
    /// itself (a GitHub App's installation token cannot ask who it is).
    Summary {
        by: Option<String>,
    },
    Finding {
        key: String,
        resolved: bool,
    },
}

/// Markers of one poster: plain, or with a scope (so two kinds of review on
/// the same pull request keep apart).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Markers {
    scope: Option<String>,
}

impl Markers {
    /// `scope` is kept to `[A-Za-z0-9._-]`, at most 64 characters.
    pub fn new(scope: Option<&str>) -> Self {
        let scope = scope
            .map(|s| {
                s.chars()
                    .filter(|c| c.is_ascii_alphanumeric() || "._-".contains(*c))
                    .take(64)
                    .collect::<String>()
            })
            .filter(|s| !s.is_empty());
        Markers { scope }
    }

    fn prefix(&self) -> String {
        match &self.scope {
            Some(s) => format!("crit:{s}:"),
            None => "crit:".to_string(),
        }
    }

    pub fn summary(&self) -> String {
        format!("<!-- {}summary -->", self.prefix())
    }

    /// The summary's marker recording the account that posts it (when that
    /// account's name fits a marker).
    pub fn summary_by(&self, login: Option<&str>) -> String {
        match login.filter(|l| login_ok(l)) {
            Some(l) => format!("<!-- {}summary by={l} -->", self.prefix()),
            None => self.summary(),
        }
    }

    pub fn finding(&self, key: &str, resolved: bool) -> String {
        let state = if resolved { " resolved" } else { "" };
        format!("<!-- {}finding {key}{state} -->", self.prefix())
    }

    pub fn describe_start(&self) -> String {
        format!("<!-- {}description:start -->", self.prefix())
    }

    pub fn describe_end(&self) -> String {
        format!("<!-- {}description:end -->", self.prefix())
    }

    /// The marker on the first line of `body`, if it is one of this
    /// poster's.
    pub fn read(&self, body: &str) -> Option<Marker> {
        let first = body.split('\n').next()?.trim_end_matches('\r').trim();
        let inner = first.strip_prefix("<!-- ")?.strip_suffix(" -->")?;
        let rest = inner.strip_prefix(&self.prefix())?;
        if rest == "summary" {
            return Some(Marker::Summary { by: None });
        }
        if let Some(login) = rest.strip_prefix("summary by=") {
            return login_ok(login).then(|| Marker::Summary {
                by: Some(login.to_string()),
            });
        }
        let mut words = rest.strip_prefix("finding ")?.split(' ');
        let key = words.next().filter(|k| key_ok(k))?.to_string();
        let resolved = match (words.next(), words.next()) {
            (None, _) => false,
            (Some("resolved"), None) => true,
            _ => return None,
        };
        Some(Marker::Finding { key, resolved })
    }
}

/// A forge account's name: letters, digits, `-`, `_`, `.`, and GitHub's
/// `[bot]` suffix.
fn login_ok(l: &str) -> bool {
    let name = l.strip_suffix("[bot]").unwrap_or(l);
    !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

fn key_ok(k: &str) -> bool {
    !k.is_empty() && k.len() <= 80 && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip_on_the_first_line_only() {
        let m = Markers::default();
        assert_eq!(m.summary(), "<!-- crit:summary -->");
        assert_eq!(
            m.read("<!-- crit:summary -->\r\n## x"),
            Some(Marker::Summary { by: None })
        );
        let by = m.summary_by(Some("crit-app[bot]"));
        assert_eq!(by, "<!-- crit:summary by=crit-app[bot] -->");
        assert_eq!(
            m.read(&by),
            Some(Marker::Summary {
                by: Some("crit-app[bot]".into())
            })
        );
        assert_eq!(m.summary_by(Some("a b")), m.summary());
        assert_eq!(m.read("<!-- crit:summary by=x y -->"), None);
        assert_eq!(m.read("<!-- crit:summary by= -->"), None);
        let body = format!("{}\nbody", m.finding("ab12-2", false));
        assert_eq!(
            m.read(&body),
            Some(Marker::Finding {
                key: "ab12-2".into(),
                resolved: false
            })
        );
        assert_eq!(
            m.read(&m.finding("ab12", true)),
            Some(Marker::Finding {
                key: "ab12".into(),
                resolved: true
            })
        );
        assert_eq!(m.read("hello\n<!-- crit:summary -->"), None);
        assert_eq!(m.read("<!-- crit:finding a b -->"), None);
        assert_eq!(m.read("<!-- crit:finding <x> -->"), None);
        assert_eq!(m.read(""), None);
    }

    #[test]
    fn scopes_keep_apart() {
        let a = Markers::new(Some("security"));
        let plain = Markers::default();
        assert_eq!(a.summary(), "<!-- crit:security:summary -->");
        assert_eq!(plain.read(&a.summary()), None);
        assert_eq!(a.read(&plain.summary()), None);
        assert_eq!(
            Markers::new(Some("a b<c>")).summary(),
            "<!-- crit:abc:summary -->"
        );
        assert_eq!(Markers::new(Some("<>")), Markers::default());
    }
}
