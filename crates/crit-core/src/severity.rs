//! The one severity scale. Every original tool's scale maps onto it in [`crate::scale`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How much a finding matters. Ordered from most to least severe, so `P0 < P1`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Severity {
    /// Blocker: must not merge or ship.
    P0,
    /// Major: should block until fixed.
    P1,
    /// Should fix, but need not block.
    P2,
    /// Nit.
    P3,
    /// A positive or neutral note; never blocks.
    #[serde(rename = "info")]
    Info,
}

impl Severity {
    /// All values, most severe first.
    pub const ALL: [Severity; 5] = [Self::P0, Self::P1, Self::P2, Self::P3, Self::Info];

    /// The severity of a P0–P3 priority number; `None` outside 0..=3.
    pub fn from_priority(priority: u64) -> Option<Self> {
        match priority {
            0 => Some(Self::P0),
            1 => Some(Self::P1),
            2 => Some(Self::P2),
            3 => Some(Self::P3),
            _ => None,
        }
    }

    /// The P0–P3 number, or `None` for `Info`.
    pub fn priority(self) -> Option<u8> {
        match self {
            Self::P0 => Some(0),
            Self::P1 => Some(1),
            Self::P2 => Some(2),
            Self::P3 => Some(3),
            Self::Info => None,
        }
    }

    /// Short code as it appears in output: `P0`…`P3`, `info`.
    pub fn code(self) -> &'static str {
        match self {
            Self::P0 => "P0",
            Self::P1 => "P1",
            Self::P2 => "P2",
            Self::P3 => "P3",
            Self::Info => "info",
        }
    }

    /// What the level means, in words.
    pub fn label(self) -> &'static str {
        match self {
            Self::P0 => "blocker",
            Self::P1 => "major",
            Self::P2 => "should fix",
            Self::P3 => "nit",
            Self::Info => "info",
        }
    }

    /// True when `self` is as severe as `threshold` or more.
    pub fn at_least(self, threshold: Severity) -> bool {
        self <= threshold
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordering_puts_blockers_first() {
        assert!(Severity::P0 < Severity::P1);
        assert!(Severity::P3 < Severity::Info);
        assert!(Severity::P0.at_least(Severity::P1));
        assert!(!Severity::P2.at_least(Severity::P1));
    }

    #[test]
    fn priority_round_trips() {
        for p in 0..4u64 {
            let s = Severity::from_priority(p).unwrap();
            assert_eq!(u64::from(s.priority().unwrap()), p);
        }
        assert_eq!(Severity::from_priority(4), None);
        assert_eq!(Severity::Info.priority(), None);
    }

    #[test]
    fn serializes_as_codes() {
        let json = serde_json::to_string(&Severity::ALL).unwrap();
        assert_eq!(json, r#"["P0","P1","P2","P3","info"]"#);
    }
}
