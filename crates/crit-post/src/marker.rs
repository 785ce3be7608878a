//! The hidden markers that let a later run find what crit posted before:
//! the summary, and each finding's comment with its key (the finding's
//! fingerprint). A marker counts only as the first line of a comment crit's
//! own account wrote; model text is escaped, so it cannot write one.

/// What a comment's first line says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Marker {
    Summary,
    Finding { key: String, resolved: bool },
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
            return Some(Marker::Summary);
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
            Some(Marker::Summary)
        );
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
