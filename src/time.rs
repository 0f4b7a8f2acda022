//! RFC 3339 UTC timestamps with milliseconds, e.g. `2026-11-29T23:17:11.123Z`.
//!
//! Hand-written (civil-from-days) because the runtime dependencies exclude a date crate.
//! The fixed-width form also sorts lexically in time order.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as an RFC 3339 UTC timestamp with milliseconds.
pub fn now() -> String {
    format_millis(now_millis())
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_millis() -> i64 {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Formats milliseconds since the Unix epoch.
pub fn format_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

/// The later of `now` and `created_at`, as a record's new `updated_at`: a record whose
/// `created_at` came from a clock ahead of this one (another machine, an import) must never
/// get `updated_at < created_at`, which an import refuses. Both are the fixed-width form, so
/// they compare as strings.
pub fn updated_after(now: String, created_at: &str) -> String {
    if created_at > now.as_str() {
        created_at.to_string()
    } else {
        now
    }
}

/// A replacement's `updated_at`: `now`, or the millisecond after `not_before` when `now` is
/// not later (the same millisecond, a clock behind), so a replaced record's `updated_at` is
/// always later than its `created_at`: a recall page leaves out an `updated_at` equal to its
/// `created_at`, which then says "never replaced". A `not_before` this module did not write
/// is kept as [`updated_after`] keeps it.
pub fn updated_strictly_after(now: String, not_before: &str) -> String {
    if now.as_str() > not_before {
        return now;
    }
    match millis_of(not_before) {
        // Never past the last instant there is (`9999-12-31T23:59:59.999Z`): year 10000 has
        // no timestamp, and an event dated with it could never be imported or synced.
        Some(ms) => Some(format_millis(ms.saturating_add(1)))
            .filter(|next| is_timestamp(next))
            .unwrap_or_else(|| not_before.to_string()),
        None => updated_after(now, not_before),
    }
}

/// The millisecond after `at` ([`updated_strictly_after`] with no clock): the time of a
/// version made of two others (the engineer's verdicts of one kept in the other), which
/// depends on the two alone, so every clone that makes it writes the same one.
pub fn millisecond_after(at: &str) -> String {
    updated_strictly_after(at.to_string(), at)
}

/// Milliseconds since the Unix epoch of a timestamp in this module's form.
fn millis_of(s: &str) -> Option<i64> {
    if !is_timestamp(s) {
        return None;
    }
    let num = |from: usize, to: usize| s.get(from..to).and_then(|p| p.parse::<i64>().ok());
    let (y, m, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    // Howard Hinnant's days_from_civil, the inverse of `civil_from_days`.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + num(11, 13)? * 3600 + num(14, 16)? * 60 + num(17, 19)?;
    Some(secs * 1000 + num(20, 23)?)
}

/// True for the fixed-width form this module writes, `YYYY-MM-DDTHH:MM:SS.mmmZ`, naming a
/// real instant: month 01-12, a day that month has (leap years included), hour 00-23,
/// minute and second 00-59. `9999-99-99T99:99:99.999Z` has the shape but is no time, and
/// as a string it would beat every later edit.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let shaped = b.len() == 24
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'.',
            23 => c == b'Z',
            _ => c.is_ascii_digit(),
        });
    if !shaped {
        return false;
    }
    let num = |from: usize, to: usize| -> i64 {
        b.get(from..to)
            .unwrap_or_default()
            .iter()
            .fold(0, |n, &c| n * 10 + i64::from(c - b'0'))
    };
    let (year, month, day) = (num(0, 4), num(5, 7), num(8, 10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day) && num(11, 13) < 24 && num(14, 16) < 60 && num(17, 19) < 60
}

/// Howard Hinnant's algorithm: days since 1970-01-01 to (year, month, day).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updated_strictly_after_is_later_than_not_before() {
        for ms in [0, 951_782_399_999, 1_795_994_231_123, 4_107_542_399_999] {
            let t = format_millis(ms);
            assert_eq!(millis_of(&t), Some(ms), "{t}");
            assert_eq!(updated_strictly_after(t.clone(), &t), format_millis(ms + 1));
            assert_eq!(
                updated_strictly_after(format_millis(ms + 5), &t),
                format_millis(ms + 5)
            );
            assert_eq!(
                updated_strictly_after(format_millis(ms - 5), &t),
                format_millis(ms + 1)
            );
        }
    }

    #[test]
    fn format_millis_known_instants_match() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(format_millis(1_795_994_231_123), "2026-11-29T23:17:11.123Z");
        assert_eq!(format_millis(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn is_timestamp_accepts_real_instants_only() {
        for good in [
            "2026-07-28T09:15:02.123Z",
            "2000-02-29T23:59:59.999Z",
            "2024-02-29T00:00:00.000Z",
            "0000-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.999Z",
        ] {
            assert!(is_timestamp(good), "{good}");
        }
        for bad in [
            "9999-99-99T99:99:99.999Z",
            "2026-13-01T00:00:00.000Z",
            "2026-00-01T00:00:00.000Z",
            "2026-04-31T00:00:00.000Z",
            "2026-01-00T00:00:00.000Z",
            "1900-02-29T00:00:00.000Z",
            "2026-02-29T00:00:00.000Z",
            "2026-01-01T24:00:00.000Z",
            "2026-01-01T00:60:00.000Z",
            "2026-01-01T00:00:60.000Z",
            "2026-07-28T09:15:02Z",
            "2026-07-28T09:15:02.123+00:00",
            "2026-07-28 09:15:02.123Z",
            "",
        ] {
            assert!(!is_timestamp(bad), "{bad}");
        }
    }

    #[test]
    fn updated_after_never_goes_before_created_at() {
        let now = "2026-01-01T00:00:00.000Z".to_string();
        assert_eq!(
            updated_after(now.clone(), "2099-01-01T00:00:00.000Z"),
            "2099-01-01T00:00:00.000Z"
        );
        assert_eq!(updated_after(now.clone(), "2025-01-01T00:00:00.000Z"), now);
    }

    #[test]
    fn now_has_rfc3339_millisecond_shape() {
        let n = now();
        assert_eq!(n.len(), 24);
        assert!(n.ends_with('Z') && n.as_bytes()[10] == b'T');
    }
}
