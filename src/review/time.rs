//! RFC 3339 UTC timestamps with milliseconds, e.g. `2026-11-29T23:17:11.123Z`.
//!
//! Hand-written (civil-from-days) because the runtime dependencies exclude a date crate.
//! The fixed-width form also sorts lexically in time order.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as an RFC 3339 UTC timestamp with milliseconds.
pub fn now() -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    format_millis(i64::try_from(ms).unwrap_or(i64::MAX))
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
    fn format_millis_known_instants_match() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(format_millis(1_795_994_231_123), "2026-11-29T23:17:11.123Z");
        assert_eq!(format_millis(4_107_542_399_999), "2100-02-28T23:59:59.999Z");
    }

    #[test]
    fn now_has_rfc3339_millisecond_shape() {
        let n = now();
        assert_eq!(n.len(), 24);
        assert!(n.ends_with('Z') && n.as_bytes()[10] == b'T');
    }
}
