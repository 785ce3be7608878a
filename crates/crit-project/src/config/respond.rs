//! `respond:` in `.crit/config.yaml`: how crit answers in its threads on a
//! pull or merge request. Read, like every project setting, from the
//! trusted revision (the base in CI), so a change cannot lift its own limit
//! or silence the answers to the commands it got; flags override.
//!
//! ```yaml
//! respond:
//!   max_answers_per_hour: 3   # per thread
//!   others: reply             # a command from someone without write access: reply | silent
//! ```

use crit_llm::Sourced;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::setting;
use crate::error::FileError;

/// Most answers crit gives in one thread in an hour, when nothing says.
pub const DEFAULT_MAX_ANSWERS_PER_HOUR: u32 = 3;

/// What a command from someone without write access gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Others {
    /// One short answer saying who may use it.
    #[default]
    Reply,
    /// Nothing.
    Silent,
}

impl Others {
    pub const WORDS: [&'static str; 2] = ["reply", "silent"];

    pub fn parse(word: &str) -> Option<Others> {
        match word {
            "reply" => Some(Others::Reply),
            "silent" => Some(Others::Silent),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Others::Reply => "reply",
            Others::Silent => "silent",
        }
    }
}

/// The `respond:` values one source set (a file, or the flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RespondConfig {
    pub max_answers_per_hour: Option<Sourced<u32>>,
    pub others: Option<Sourced<Others>>,
}

impl RespondConfig {
    /// Values set in `later` replace these.
    pub(super) fn overlay(&mut self, later: RespondConfig) {
        if later.max_answers_per_hour.is_some() {
            self.max_answers_per_hour = later.max_answers_per_hour;
        }
        if later.others.is_some() {
            self.others = later.others;
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRespond {
    max_answers_per_hour: Option<Spanned<u32>>,
    others: Option<Spanned<String>>,
}

impl RawRespond {
    pub(super) fn parse(self, file: &str) -> Result<RespondConfig, FileError> {
        let others = match &self.others {
            Some(o) => match Others::parse(&o.value) {
                Some(v) => Some(setting(file, o, v)),
                None => {
                    return Err(FileError::at(
                        file,
                        o.referenced.line(),
                        o.referenced.column(),
                        format!(
                            "unknown respond.others `{}`; expected one of {}",
                            o.value,
                            Others::WORDS.join(", ")
                        ),
                    ));
                }
            },
            None => None,
        };
        if let Some(n) = &self.max_answers_per_hour
            && n.value == 0
        {
            return Err(FileError::at(
                file,
                n.referenced.line(),
                n.referenced.column(),
                "respond.max_answers_per_hour takes 1 or more (to answer nothing, leave the comment commands out of CI)",
            ));
        }
        Ok(RespondConfig {
            max_answers_per_hour: self
                .max_answers_per_hour
                .map(|n| setting(file, &n, n.value)),
            others,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Config;
    use super::*;

    #[test]
    fn respond_parses_with_provenance_and_refuses_the_odd_value() {
        let c = Config::parse(
            "model: x\nrespond:\n  max_answers_per_hour: 5\n  others: silent\n",
            "c.yaml",
        )
        .unwrap();
        assert_eq!(
            c.respond.max_answers_per_hour,
            Some(Sourced::explicit(5, "c.yaml:3"))
        );
        assert_eq!(c.respond.others.unwrap().value, Others::Silent);
        let e = Config::parse("respond:\n  others: shout\n", "c.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("c.yaml:2:11: unknown respond.others `shout`"),
            "{e}"
        );
        assert!(
            Config::parse("respond:\n  max_answers_per_hour: 0\n", "c.yaml")
                .unwrap_err()
                .to_string()
                .contains("1 or more")
        );
        assert!(Config::parse("respond:\n  limit: 2\n", "c.yaml").is_err());
    }
}
