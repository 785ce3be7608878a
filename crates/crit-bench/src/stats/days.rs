//! Days (UTC) as numbers since 1970-01-01, and the period `crit stats` covers.

/// Whole days, from `since` to `until`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub since: u64,
    pub until: u64,
}

impl Period {
    pub fn contains(&self, day: u64) -> bool {
        (self.since..=self.until).contains(&day)
    }

    pub fn days(&self) -> impl Iterator<Item = u64> {
        self.since..=self.until
    }

    pub fn day_count(&self) -> usize {
        usize::try_from(self.until - self.since + 1).unwrap_or(usize::MAX)
    }

    /// `since` as `7d`, `2w`, `24h` (whole days, rounded up) or a date; up to
    /// and including `until`.
    pub fn parse(since: &str, until: u64) -> Result<Period, PeriodError> {
        let s = since.trim();
        let bad = || PeriodError::Since(s.to_string());
        let first = if let Some(day) = parse_date(s) {
            day
        } else {
            let (num, unit) = s.split_at(s.len().saturating_sub(1));
            let n: u64 = num.parse().map_err(|_| bad())?;
            let days = match unit {
                "d" => n,
                "w" => n.saturating_mul(7),
                "h" => n.div_ceil(24),
                _ => return Err(bad()),
            };
            if days == 0 {
                return Err(bad());
            }
            until.saturating_sub(days - 1)
        };
        if first > until {
            return Err(PeriodError::AfterUntil {
                since: s.to_string(),
                until: date(until),
            });
        }
        Ok(Period {
            since: first,
            until,
        })
    }
}

/// A `--since` that names no period.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PeriodError {
    #[error(
        "--since {0}: expected a number of days (7d), weeks (2w) or hours (24h), or a date (2026-02-01)"
    )]
    Since(String),
    #[error("--since {since} is after --until {until}")]
    AfterUntil { since: String, until: String },
}

/// The day of a Unix time.
pub fn of_secs(unix_secs: u64) -> u64 {
    unix_secs / 86_400
}

/// `2026-02-24` for a day number.
pub fn date(day: u64) -> String {
    crit_core::timestamp::date(day.saturating_mul(86_400))
}

/// The day number of `YYYY-MM-DD` (only that exact form, from 1970 on).
pub fn parse_date(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let day = u64::try_from(days).ok()?;
    // 2026-02-31 is not a date: it must print back as itself.
    (date(day) == s).then_some(day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2000-02-29"), Some(11_016));
        let d = parse_date("2026-02-24").unwrap();
        assert_eq!(date(d), "2026-02-24");
        for bad in [
            "2026-02-30",
            "2026-13-01",
            "26-02-24",
            "2026-2-24",
            "1969-12-31",
            "2026-02-2x",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn periods() {
        let until = parse_date("2026-02-24").unwrap();
        let p = Period::parse("7d", until).unwrap();
        assert_eq!(date(p.since), "2026-02-18");
        assert_eq!(p.day_count(), 7);
        assert_eq!(Period::parse("2w", until).unwrap().day_count(), 14);
        assert_eq!(Period::parse("24h", until).unwrap().day_count(), 1);
        assert_eq!(Period::parse("25h", until).unwrap().day_count(), 2);
        assert_eq!(
            date(Period::parse("2026-02-01", until).unwrap().since),
            "2026-02-01"
        );
        for bad in ["0d", "7", "d", "7x", "2026-03-01", ""] {
            assert!(Period::parse(bad, until).is_err(), "{bad}");
        }
    }
}
