//! Stable finding fingerprints.
//!
//! The same problem must keep the same id across runs, so suppressions and
//! baselines hold while lines shift. The id is derived from the *normalized*
//! title, the path and the rule id — never the line number or the wording of the
//! body, which models vary from run to run.
//!
//! Normalizing: lower-case; a leading severity tag such as `[P1]` or `P1:` dropped;
//! line references (`line 42`, `L42`, `:42`) and bare numbers dropped; everything
//! that is not a letter or digit collapsed to one space. The hash is 64-bit FNV-1a,
//! chosen because it is specified, tiny and identical on every platform and Rust
//! version (std's hasher is not).

/// The fingerprint of a finding, as 16 lower-case hex digits.
pub fn of(title: &str, path: Option<&str>, rule_id: Option<&str>) -> String {
    let mut h = Fnv1a::new();
    h.write(normalize_title(title).as_bytes());
    h.write(&[0]);
    h.write(normalize_path(path.unwrap_or("")).as_bytes());
    h.write(&[0]);
    h.write(rule_id.unwrap_or("").trim().to_lowercase().as_bytes());
    format!("{:016x}", h.0)
}

/// The title as the fingerprint sees it.
pub fn normalize_title(title: &str) -> String {
    let lower = title.trim().to_lowercase();
    let without_tag = strip_severity_tag(&lower);
    let mut words: Vec<String> = Vec::new();
    let mut drop_next_number = false;
    for raw in without_tag.split(|c: char| !c.is_alphanumeric()) {
        if raw.is_empty() {
            continue;
        }
        let is_number = raw.chars().all(|c| c.is_ascii_digit());
        let is_line_ref =
            raw.len() > 1 && raw.starts_with('l') && raw[1..].chars().all(|c| c.is_ascii_digit());
        if is_number || is_line_ref {
            drop_next_number = false;
            continue;
        }
        if raw == "line" || raw == "lines" {
            drop_next_number = true;
            continue;
        }
        if drop_next_number {
            drop_next_number = false;
        }
        words.push(raw.to_string());
    }
    words.join(" ")
}

fn strip_severity_tag(title: &str) -> &str {
    let t = title.trim_start();
    for open in ['[', '('] {
        if let Some(rest) = t.strip_prefix(open) {
            let close = if open == '[' { ']' } else { ')' };
            if let Some(end) = rest.find(close) {
                let tag = &rest[..end];
                if is_severity_word(tag) {
                    return rest[end + 1..].trim_start_matches([':', ' ', '-']);
                }
            }
        }
    }
    if let Some((tag, rest)) = t.split_once(':')
        && is_severity_word(tag)
    {
        return rest.trim_start();
    }
    t
}

fn is_severity_word(tag: &str) -> bool {
    matches!(
        tag.trim(),
        "p0" | "p1"
            | "p2"
            | "p3"
            | "pass"
            | "concern"
            | "fail"
            | "blocker"
            | "major"
            | "minor"
            | "nit"
            | "info"
    )
}

fn normalize_path(path: &str) -> String {
    let p = path.trim().replace('\\', "/");
    p.trim_start_matches("./").to_string()
}

struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_drops_tags_numbers_and_punctuation() {
        assert_eq!(
            normalize_title("[P1] Off-by-one in  parse_range()"),
            "off by one in parse range"
        );
        assert_eq!(
            normalize_title("P2: Missing check on line 42"),
            "missing check on"
        );
        assert_eq!(normalize_title("Missing check (L42)"), "missing check");
        assert_eq!(
            normalize_title("[FAIL] Überprüfung fehlt"),
            "überprüfung fehlt"
        );
    }

    #[test]
    fn stable_value() {
        // Pinned (cross-checked with an independent FNV-1a): changing it breaks users' suppressions.
        assert_eq!(
            of("Unchecked unwrap", Some("src/a.rs"), None),
            of("[P0] unchecked UNWRAP", Some("./src/a.rs"), None)
        );
        assert_eq!(of("x", None, None).len(), 16);
        assert_eq!(
            of("Unchecked unwrap", Some("src/a.rs"), None),
            "048d9bf20785d1db"
        );
    }

    #[test]
    fn rule_and_path_matter() {
        assert_ne!(of("t", Some("a"), None), of("t", Some("b"), None));
        assert_ne!(
            of("t", Some("a"), Some("r1")),
            of("t", Some("a"), Some("r2"))
        );
    }
}
