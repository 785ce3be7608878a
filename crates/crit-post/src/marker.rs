//! The hidden markers that let a later run find what crit posted before:
//! the summary, and each finding's comment with its key (the finding's
//! fingerprint). A marker counts only as the first line of a comment crit's
//! own account wrote; model text is escaped, so it cannot write one.

/// What a comment's first line says it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Marker {
    /// The summary, and what it recorded for later runs.
    Summary(Recorded),
    Finding {
        key: String,
        resolved: bool,
    },
}

/// What a summary's marker records for later runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// The account that wrote it, as it recorded itself (a GitHub App's
    /// installation token cannot ask who it is).
    pub by: Option<String>,
    /// The commit the review it summarizes reviewed.
    pub head: Option<String>,
    /// Where that review started when it reviewed only the commits since
    /// an earlier one (`from..head`); `None`: the whole change.
    pub from: Option<String>,
}

impl Recorded {
    /// The review it records, when it records the head reviewed.
    pub(crate) fn last_review(self) -> Option<crate::since::LastReview> {
        Some(crate::since::LastReview {
            head: self.head?,
            from: self.from,
        })
    }
}

/// Markers of one poster: plain, or with a scope (so two kinds of review on
/// the same pull request keep apart).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Markers {
    scope: Option<String>,
}

impl Markers {
    /// `scope` is kept to `[A-Za-z0-9._-]`, at most 64 characters.
    pub(crate) fn new(scope: Option<&str>) -> Self {
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

    #[cfg(test)]
    pub(crate) fn summary(&self) -> String {
        format!("<!-- {}summary -->", self.prefix())
    }

    /// The summary's marker recording `r` (each field only when it fits a
    /// marker: an account's name, a full commit id).
    pub(crate) fn summary_with(&self, r: &Recorded) -> String {
        let mut fields = String::new();
        if let Some(l) = r.by.as_deref().filter(|l| login_ok(l)) {
            fields.push_str(&format!(" by={l}"));
        }
        if let Some(h) = r.head.as_deref().filter(|h| crate::revision::is_sha(h)) {
            fields.push_str(&format!(" head={}", h.to_ascii_lowercase()));
            if let Some(f) = r.from.as_deref().filter(|f| crate::revision::is_sha(f)) {
                fields.push_str(&format!(" from={}", f.to_ascii_lowercase()));
            }
        }
        format!("<!-- {}summary{fields} -->", self.prefix())
    }

    pub(crate) fn finding(&self, key: &str, resolved: bool) -> String {
        let state = if resolved { " resolved" } else { "" };
        format!("<!-- {}finding {key}{state} -->", self.prefix())
    }

    pub(crate) fn describe_start(&self) -> String {
        format!("<!-- {}description:start -->", self.prefix())
    }

    pub(crate) fn describe_end(&self) -> String {
        format!("<!-- {}description:end -->", self.prefix())
    }

    /// The marker on the first line of `body`, if it is one of this
    /// poster's.
    pub(crate) fn read(&self, body: &str) -> Option<Marker> {
        let first = body.split('\n').next()?.trim_end_matches('\r').trim();
        let inner = first.strip_prefix("<!-- ")?.strip_suffix(" -->")?;
        let rest = inner.strip_prefix(&self.prefix())?;
        if let Some(fields) = rest.strip_prefix("summary") {
            return summary_fields(fields).map(Marker::Summary);
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

/// ` by=LOGIN head=SHA from=SHA`, each at most once, in any order; any
/// other word makes it no marker of crit's.
fn summary_fields(fields: &str) -> Option<Recorded> {
    let mut r = Recorded::default();
    if !fields.is_empty() && !fields.starts_with(' ') {
        return None;
    }
    for word in fields.split(' ').filter(|w| !w.is_empty()) {
        let (key, value) = word.split_once('=')?;
        let slot = match key {
            "by" if login_ok(value) => &mut r.by,
            "head" | "from" if crate::revision::is_sha(value) => match key {
                "head" => &mut r.head,
                _ => &mut r.from,
            },
            _ => return None,
        };
        if slot.replace(value.to_string()).is_some() {
            return None;
        }
    }
    Some(r)
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
            Some(Marker::Summary(Recorded::default()))
        );
        let by = |l: &str| Recorded {
            by: Some(l.into()),
            ..Recorded::default()
        };
        let written = m.summary_with(&by("crit-app[bot]"));
        assert_eq!(written, "<!-- crit:summary by=crit-app[bot] -->");
        assert_eq!(m.read(&written), Some(Marker::Summary(by("crit-app[bot]"))));
        assert_eq!(m.summary_with(&by("a b")), m.summary());
        assert_eq!(m.read("<!-- crit:summary by=x y -->"), None);
        assert_eq!(m.read("<!-- crit:summary by= -->"), None);
        assert_eq!(m.read("<!-- crit:summaryx -->"), None);
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
    fn the_reviewed_range_round_trips() {
        let m = Markers::default();
        let (h, f) = ("a".repeat(40), "B".repeat(40));
        let r = Recorded {
            by: Some("crit-app[bot]".into()),
            head: Some(h.clone()),
            from: Some(f.clone()),
        };
        let written = m.summary_with(&r);
        assert_eq!(
            written,
            format!(
                "<!-- crit:summary by=crit-app[bot] head={h} from={} -->",
                "b".repeat(40)
            )
        );
        let read = m.read(&written);
        assert_eq!(
            read,
            Some(Marker::Summary(Recorded {
                from: Some("b".repeat(40)),
                ..r.clone()
            }))
        );
        // Not a commit id, twice, or a field crit does not write: no marker.
        assert_eq!(m.read("<!-- crit:summary head=abc -->"), None);
        assert_eq!(
            m.read(&format!("<!-- crit:summary head={h} head={h} -->")),
            None
        );
        assert_eq!(m.read(&format!("<!-- crit:summary at={h} -->")), None);
        // A start without a head is not written.
        let from_only = Recorded {
            from: Some(f),
            ..Recorded::default()
        };
        assert_eq!(m.summary_with(&from_only), m.summary());
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
