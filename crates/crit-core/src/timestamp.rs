//! UTC timestamps in RFC 3339 without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as `2026-11-21T13:05:09Z`.
pub fn now_rfc3339() -> String {
    rfc3339(unix_secs(SystemTime::now()))
}

/// Whole seconds since the Unix epoch (0 for a time before it).
pub fn unix_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Seconds since the Unix epoch as an RFC 3339 UTC time.
pub fn rfc3339(unix_secs: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(unix_secs);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// Compact form for directory names: `20261121T130509Z`.
pub fn compact(unix_secs: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(unix_secs);
    format!("{y:04}{m:02}{d:02}T{hh:02}{mm:02}{ss:02}Z")
}

/// Date only: `2026-11-21`.
pub fn date(unix_secs: u64) -> String {
    let (y, m, d, ..) = civil(unix_secs);
    format!("{y:04}-{m:02}-{d:02}")
}

// Howard Hinnant's days-from-civil inverse; exact for the proleptic Gregorian calendar.
fn civil(unix_secs: u64) -> (i64, u32, u32, u64, u64, u64) {
    let days = (unix_secs / 86_400) as i64;
    let rem = unix_secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3_600, rem % 3_600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_266_309), "2026-11-21T13:05:09Z");
        assert_eq!(compact(0), "19700101T000000Z");
        assert_eq!(date(951_782_400), "2000-02-29");
    }
}
