//! Shards of a review: `--shard I/N` reviews the I-th of N parts of a change,
//! so a CI matrix of N jobs reviews a big change in parallel; the results say
//! which part they cover (`inputs.shard`), and merging them checks that every
//! part is there.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// The input key under which a result records the shards it covers.
pub const INPUT_KEY: &str = "shard";

/// More parts than any CI matrix runs; past it a typo, not a plan.
pub const MAX_SHARDS: u32 = 256;

/// One part: `index` of `count`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Why a shard (`I/N`) or a set of them (`1,2/4`) does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}`: {reason}")]
pub struct ShardParseError {
    pub input: String,
    pub reason: String,
}

impl FromStr for Shard {
    type Err = ShardParseError;

    /// `I/N` with `1 <= I <= N <= 256`.
    fn from_str(s: &str) -> Result<Shard, ShardParseError> {
        let set: ShardSet = s.parse()?;
        match set.indices.len() {
            1 => Ok(Shard {
                index: set.indices.iter().next().copied().unwrap_or(1),
                count: set.count,
            }),
            _ => Err(ShardParseError {
                input: s.to_string(),
                reason: "expected one shard, I/N (e.g. 2/4)".into(),
            }),
        }
    }
}

/// The parts a (merged) result covers: `2/4`, or `1,2,4/4`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardSet {
    pub indices: BTreeSet<u32>,
    pub count: u32,
}

impl ShardSet {
    pub fn of(shard: Shard) -> ShardSet {
        ShardSet {
            indices: BTreeSet::from([shard.index]),
            count: shard.count,
        }
    }

    /// The indices of `1..=count` not covered.
    pub fn missing(&self) -> Vec<u32> {
        (1..=self.count)
            .filter(|i| !self.indices.contains(i))
            .collect()
    }
}

impl fmt::Display for ShardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.indices.iter().map(u32::to_string).collect();
        write!(f, "{}/{}", list.join(","), self.count)
    }
}

impl FromStr for ShardSet {
    type Err = ShardParseError;

    fn from_str(s: &str) -> Result<ShardSet, ShardParseError> {
        let bad = |why: &str| ShardParseError {
            input: s.to_string(),
            reason: format!("{why}; expected I/N, e.g. 2/4"),
        };
        let (list, count) = s.trim().split_once('/').ok_or_else(|| bad("no `/`"))?;
        let count: u32 = count.trim().parse().map_err(|_| bad("N is not a number"))?;
        if count == 0 || count > MAX_SHARDS {
            return Err(bad(&format!("N must be between 1 and {MAX_SHARDS}")));
        }
        let mut indices = BTreeSet::new();
        for part in list.split(',') {
            let i: u32 = part.trim().parse().map_err(|_| bad("I is not a number"))?;
            if i == 0 || i > count {
                return Err(bad("I must be between 1 and N"));
            }
            indices.insert(i);
        }
        Ok(ShardSet { indices, count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let s: Shard = "2/4".parse().unwrap();
        assert_eq!((s.index, s.count), (2, 4));
        assert_eq!(s.to_string(), "2/4");
        let set: ShardSet = "4,1, 2/4".parse().unwrap();
        assert_eq!(set.to_string(), "1,2,4/4");
        assert_eq!(set.missing(), [3]);
        for bad in ["0/4", "5/4", "1/0", "x/4", "1", "1/257", "-1/4", "1,2/4"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
