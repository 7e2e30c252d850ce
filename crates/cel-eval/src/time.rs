//! Timestamps and durations (UTC, fixed offsets and the tz database's fixed zones; the IANA zones with rules are not
//! supported).

use std::fmt;

use chrono::{DateTime, Datelike, NaiveDateTime, Timelike};

use crate::error::EvalError;

const NANOS: i128 = 1_000_000_000;
/// 0001-01-01T00:00:00Z
const MIN_TS_SECS: i128 = -62_135_596_800;
/// 9999-12-31T23:59:59Z
const MAX_TS_SECS: i128 = 253_402_300_799;

// Neither type holds an `i128`: that is 16-byte aligned on wasm32 and would make every CEL value (`Value`) 32 bytes
// instead of 24, in every frame of the evaluator and every list element.

/// A point in time (UTC): seconds since the Unix epoch and the nanoseconds past them, ordered as the instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp {
    secs: i64,
    /// `0..1_000_000_000`
    sub: u32,
}

/// A signed span of time in nanoseconds: a Go `time.Duration`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Duration {
    nanos: i64,
}

/// cel-go's `errTimestampOverflow`: a timestamp outside 0001-01-01 to 9999-12-31 (common/types/overflow.go).
fn range_err() -> EvalError {
    EvalError::new("timestamp overflow")
}

impl Timestamp {
    pub fn from_nanos(nanos: i128) -> Result<Self, EvalError> {
        let secs = nanos.div_euclid(NANOS);
        if !(MIN_TS_SECS..=MAX_TS_SECS).contains(&secs) {
            return Err(range_err());
        }
        Ok(Timestamp {
            secs: i64::try_from(secs).map_err(|_| range_err())?,
            sub: u32::try_from(nanos.rem_euclid(NANOS)).map_err(|_| range_err())?,
        })
    }
    pub fn from_secs(secs: i64) -> Result<Self, EvalError> {
        Self::from_nanos(i128::from(secs) * NANOS)
    }
    pub fn nanos(&self) -> i128 {
        i128::from(self.secs) * NANOS + i128::from(self.sub)
    }
    pub fn secs(&self) -> i64 {
        self.secs
    }
    /// Parses RFC 3339 (`2006-01-02T15:04:05.999999999Z07:00`); a text that is not one is cel-go's `type conversion
    /// error from 'string' to 'google.protobuf.Timestamp'`, one outside the range its `timestamp overflow`.
    pub fn parse(s: &str) -> Result<Self, EvalError> {
        let refused = || EvalError::conversion("string", "google.protobuf.Timestamp");
        // Go's `time.Parse(time.RFC3339, …)` reads an upper-case `T` and `Z` only, and seconds below 60; chrono also
        // reads a lower-case `t` or a space, a lower-case `z` and a leap second
        let b = s.as_bytes();
        if b.get(10) != Some(&b'T') || s.ends_with('z') || b.get(17..19) == Some(b"60".as_slice()) {
            return Err(refused());
        }
        let dt = DateTime::parse_from_rfc3339(s).map_err(|_| refused())?;
        let n = i128::from(dt.timestamp()) * NANOS + i128::from(dt.timestamp_subsec_nanos());
        Self::from_nanos(n)
    }
    pub fn add(&self, d: &Duration) -> Result<Self, EvalError> {
        Self::from_nanos(self.nanos() + d.nanos())
    }
    pub fn sub(&self, d: &Duration) -> Result<Self, EvalError> {
        Self::from_nanos(self.nanos() - d.nanos())
    }
    pub fn diff(&self, other: &Timestamp) -> Result<Duration, EvalError> {
        Duration::from_nanos(self.nanos() - other.nanos())
    }
    fn utc(&self) -> Option<DateTime<chrono::Utc>> {
        DateTime::from_timestamp(self.secs, self.sub)
    }
    /// The wall clock at `offset` seconds east of UTC (any offset, as Go's `time.FixedZone` takes any).
    fn in_zone(&self, offset: i64) -> Result<NaiveDateTime, EvalError> {
        // the instant `offset` seconds later, read in UTC: the wall clock at that offset
        let shifted = self.secs.checked_add(offset).ok_or_else(range_err)?;
        DateTime::from_timestamp(shifted, self.sub)
            .map(|t| t.naive_utc())
            .ok_or_else(range_err)
    }
    /// `getFullYear`, `getMonth` … with cel-go's zero-based month/day-of-year/day-of-month, in the zone `tz` as
    /// [`zone_offset`] reads it (`minutes_checked`: cel-go v0.30's check of an offset's minutes); the zone is read
    /// first, so a bad zone is reported whatever the component (`None`: not a getter).
    pub fn component(
        &self,
        c: Option<Component>,
        tz: Option<&str>,
        minutes_checked: bool,
    ) -> Result<i64, EvalError> {
        let offset = match tz {
            None => 0,
            Some(z) => zone_offset(z, minutes_checked)?,
        };
        let t = self.in_zone(offset)?;
        let Some(c) = c else {
            return Err(EvalError::no_such_overload());
        };
        Ok(match c {
            Component::FullYear => i64::from(t.year()),
            Component::Month => i64::from(t.month0()),
            Component::DayOfYear => i64::from(t.ordinal0()),
            Component::DayOfMonth => i64::from(t.day0()),
            Component::Date => i64::from(t.day()),
            Component::DayOfWeek => i64::from(t.weekday().num_days_from_sunday()),
            Component::Hours => i64::from(t.hour()),
            Component::Minutes => i64::from(t.minute()),
            Component::Seconds => i64::from(t.second()),
            Component::Milliseconds => i64::from(t.nanosecond() / 1_000_000),
        })
    }
}

/// The getters of timestamps (all) and durations (hours to milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    FullYear,
    Month,
    DayOfYear,
    DayOfMonth,
    Date,
    DayOfWeek,
    Hours,
    Minutes,
    Seconds,
    Milliseconds,
}

impl Component {
    /// The getter `getX` names.
    pub fn from_name(name: &str) -> Option<Component> {
        Some(match name {
            "getFullYear" => Component::FullYear,
            "getMonth" => Component::Month,
            "getDayOfYear" => Component::DayOfYear,
            "getDayOfMonth" => Component::DayOfMonth,
            "getDate" => Component::Date,
            "getDayOfWeek" => Component::DayOfWeek,
            "getHours" => Component::Hours,
            "getMinutes" => Component::Minutes,
            "getSeconds" => Component::Seconds,
            "getMilliseconds" => Component::Milliseconds,
            _ => return None,
        })
    }
}

/// The offset east of UTC, in seconds, of the zone `z` of `t.getHours(z)` and the other getters, as cel-go's
/// `timeZone` (common/types/timestamp.go) reads it.
///
/// - With a `:`, a numeric offset: the hours before it and the minutes after it are read by Go's `strconv.Atoi` (a
///   sign allowed on each; any size), and the minutes are subtracted when the text starts with `-` (`-02:30` is two
///   and a half hours west). `minutes_checked` (cel-go v0.30, 783267d0): minutes outside 0 to 59 are an error.
/// - Without one, a location, as Go's `time.LoadLocation` finds it: `""` and `UTC` are UTC, `Local` the server's zone
///   (UTC here, as on a server that sets none), and the tz database's zones of a fixed offset (`GMT`, `Etc/UTC`,
///   `Etc/GMT+5`, which is five hours west …). A zone with daylight-saving rules (`America/New_York`) is not known
///   here: `unknown time zone America/New_York`, Go's words for a name it cannot find.
fn zone_offset(z: &str, minutes_checked: bool) -> Result<i64, EvalError> {
    let Some((hours, minutes)) = z.split_once(':') else {
        return fixed_zone(z).ok_or_else(|| EvalError::new(format!("unknown time zone {z}")));
    };
    let hours = go_atoi(hours)?;
    let minutes = go_atoi(minutes)?;
    if minutes_checked && !(0..=59).contains(&minutes) {
        return Err(EvalError::new(format!(
            "timezone offset minutes out of range [0, 59]: {z}"
        )));
    }
    // Go's int arithmetic, which wraps (`time.Duration(offset) * time.Minute`, then whole seconds)
    let offset = if z.starts_with('-') {
        hours.wrapping_mul(60).wrapping_sub(minutes)
    } else {
        hours.wrapping_mul(60).wrapping_add(minutes)
    };
    Ok(offset.wrapping_mul(60_000_000_000) / 1_000_000_000)
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits, within an `int` (64 bits), with its error words.
fn go_atoi(text: &str) -> Result<i64, EvalError> {
    // Rust's integer syntax is Go's here: one optional sign, then decimal digits
    text.parse::<i64>().map_err(|e| {
        let why = match e.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                "value out of range"
            }
            _ => "invalid syntax",
        };
        EvalError::new(format!("strconv.Atoi: parsing {text:?}: {why}"))
    })
}

/// The offset east of UTC, in seconds, of a location of a fixed offset Go's `time.LoadLocation` finds: UTC (`""`,
/// `UTC`, `Local` on a server that sets no zone) and the tz database's zones that never change (their names as the
/// database spells them, links included; `Etc/GMT+5` is UTC-5, POSIX's sign).
fn fixed_zone(name: &str) -> Option<i64> {
    const UTC: [&str; 20] = [
        "",
        "UTC",
        "Local",
        "GMT",
        "GMT0",
        "GMT+0",
        "GMT-0",
        "Greenwich",
        "UCT",
        "Universal",
        "Zulu",
        "Etc/GMT",
        "Etc/GMT0",
        "Etc/GMT+0",
        "Etc/GMT-0",
        "Etc/Greenwich",
        "Etc/UCT",
        "Etc/UTC",
        "Etc/Universal",
        "Etc/Zulu",
    ];
    if UTC.contains(&name) {
        return Some(0);
    }
    let hours = name.strip_prefix("Etc/GMT")?;
    let (west, n) = match hours.as_bytes().first() {
        Some(b'+') => (true, hours.get(1..)?),
        Some(b'-') => (false, hours.get(1..)?),
        _ => return None,
    };
    // the database's names: no leading zero, Etc/GMT+1 to +12 and Etc/GMT-1 to -14
    if n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = n.parse().ok()?;
    let limit = if west { 12 } else { 14 };
    (1..=limit)
        .contains(&n)
        .then_some(if west { -n * 3600 } else { n * 3600 })
}

impl fmt::Display for Timestamp {
    /// RFC 3339 in UTC with trailing zeros of the fraction trimmed, like Go's RFC3339Nano.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(t) = self.utc() else {
            return f.write_str("<invalid timestamp>");
        };
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        )?;
        let n = t.nanosecond();
        if n > 0 {
            let frac = format!("{n:09}");
            write!(f, ".{}", frac.trim_end_matches('0'))?;
        }
        f.write_str("Z")
    }
}

impl Duration {
    pub fn from_nanos(nanos: i128) -> Result<Self, EvalError> {
        // cel-go durations are Go `time.Duration`s: int64 nanoseconds
        match i64::try_from(nanos) {
            Ok(nanos) => Ok(Duration { nanos }),
            // cel-go's `errIntOverflow`: its duration arithmetic is int64 arithmetic
            Err(_) => Err(EvalError::overflow()),
        }
    }
    pub fn nanos(&self) -> i128 {
        i128::from(self.nanos)
    }
    pub fn add(&self, o: &Duration) -> Result<Self, EvalError> {
        Self::from_nanos(self.nanos() + o.nanos())
    }
    pub fn sub(&self, o: &Duration) -> Result<Self, EvalError> {
        Self::from_nanos(self.nanos() - o.nanos())
    }
    pub fn neg(&self) -> Result<Self, EvalError> {
        Self::from_nanos(-self.nanos())
    }
    /// Go `time.ParseDuration` syntax: `-1h2m3.5s`, units ns us µs ms s m h. A text that is not one, or whose value
    /// does not fit (Go: `time: invalid duration`), is cel-go's `type conversion error from 'string' to
    /// 'google.protobuf.Duration'`.
    pub fn parse(s: &str) -> Result<Self, EvalError> {
        let err = || EvalError::conversion("string", "google.protobuf.Duration");
        let mut rest = s;
        let mut neg = false;
        if let Some(r) = rest.strip_prefix('-') {
            neg = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('+') {
            rest = r;
        }
        if rest == "0" {
            return Ok(Duration { nanos: 0 });
        }
        if rest.is_empty() {
            return Err(err());
        }
        let mut total: i128 = 0;
        while !rest.is_empty() {
            let num_end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(err)?;
            let (num, tail) = rest.split_at(num_end);
            if num.is_empty() || num == "." {
                return Err(err());
            }
            let unit_end = tail
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(tail.len());
            let (unit, tail2) = tail.split_at(unit_end);
            let scale: i128 = match unit {
                "ns" => 1,
                "us" | "µs" | "μs" => 1_000,
                "ms" => 1_000_000,
                "s" => NANOS,
                "m" => 60 * NANOS,
                "h" => 3600 * NANOS,
                _ => return Err(err()),
            };
            let (int_part, frac_part) = num.split_once('.').unwrap_or((num, ""));
            let ip: i128 = if int_part.is_empty() {
                0
            } else {
                int_part.parse().map_err(|_| err())?
            };
            let mut v = ip.checked_mul(scale).ok_or_else(err)?;
            if !frac_part.is_empty() {
                let digits = frac_part.get(..frac_part.len().min(18)).unwrap_or("");
                let fp: i128 = digits.parse().map_err(|_| err())?;
                let denom = 10i128.pow(u32::try_from(digits.len()).unwrap_or(0));
                v += fp * scale / denom;
            }
            total = total.checked_add(v).ok_or_else(err)?;
            if total > i128::from(i64::MAX) + 1 {
                return Err(err());
            }
            rest = tail2;
        }
        Self::from_nanos(if neg { -total } else { total }).map_err(|_| err())
    }
    pub fn component(&self, c: Component) -> Result<i64, EvalError> {
        let v = match c {
            Component::Hours => self.nanos() / (3600 * NANOS),
            Component::Minutes => self.nanos() / (60 * NANOS),
            Component::Seconds => self.nanos() / NANOS,
            Component::Milliseconds => self.nanos() / 1_000_000,
            _ => return Err(EvalError::no_such_overload()),
        };
        i64::try_from(v).map_err(|_| EvalError::overflow())
    }
}

impl fmt::Display for Duration {
    /// Seconds with the shortest fraction, e.g. `1.5s`, as cel-go's `string(duration)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let neg = self.nanos < 0;
        let a = self.nanos.unsigned_abs();
        let secs = a / 1_000_000_000;
        let frac = a % 1_000_000_000;
        if neg {
            f.write_str("-")?;
        }
        write!(f, "{secs}")?;
        if frac > 0 {
            let s = format!("{frac:09}");
            write!(f, ".{}", s.trim_end_matches('0'))?;
        }
        f.write_str("s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cel_value_is_at_most_eight_byte_aligned() {
        // an `i128` here made every `Value` 16-byte aligned (32 bytes on wasm32, padding every frame and list)
        assert!(std::mem::align_of::<crate::Value<'static>>() <= 8);
    }

    #[test]
    fn timestamps_before_the_epoch_keep_their_nanoseconds_and_order() {
        let before = Timestamp::from_nanos(-1).unwrap();
        let epoch = Timestamp::from_nanos(0).unwrap();
        assert_eq!(before.nanos(), -1);
        assert_eq!(before.secs(), -1);
        assert!(before < epoch);
        assert!(Timestamp::from_nanos(-NANOS - 1).unwrap() < before);
        assert_eq!(before.diff(&epoch).unwrap().nanos(), -1);
        let min = Timestamp::from_nanos(MIN_TS_SECS * NANOS).unwrap();
        assert!(Timestamp::from_nanos(MIN_TS_SECS * NANOS - 1).is_err());
        assert!(min.sub(&Duration::from_nanos(1).unwrap()).is_err());
        assert!(Duration::from_nanos(i128::from(i64::MAX) + 1).is_err());
        assert_eq!(
            Duration::from_nanos(i128::from(i64::MIN)).unwrap().nanos(),
            i128::from(i64::MIN)
        );
    }
}
