//! The zone of a timestamp's getters (`t.getHours(tz)` …) as cel-go's `timeZone` (common/types/timestamp.go) reads
//! it: a numeric offset through Go's `strconv.Atoi` (minutes subtracted after a `-`), a location through Go's
//! `time.LoadLocation` (UTC, `Local`, the tz database's fixed zones; not the zones with daylight-saving rules).
//!
//! Rows: cel-go's `common/types/timestamp_test.go` (`TestTimestampGetDayOfMonth`: `-07:00`, `+23:00`;
//! `TestTimestampGetMinutes`: `-08:30`; and 783267d0's `+00:99`, `-00:90`, `+05:-30`, refused from cel-go v0.30, in
//! approver-policy's environment; kube-apiserver's cel-go v0.27 adds them), on their timestamp 1970-01-01T02:05:06Z,
//! and Palisade's own from Go's documented behaviour.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed expectation is a test failure"
)]

use palisade_cel::{Activation, Budget, Env, Expect, Value};

/// The getter's value, or the evaluation error's text.
fn get(env: &Env, getter: &str, tz: &str) -> Result<i64, String> {
    let src = format!("timestamp('1970-01-01T02:05:06Z').{getter}('{tz}')");
    let program = env
        .compile(&src, Expect::Any)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    program
        .eval(&Activation::new(), &mut Budget::kubernetes())
        .map(|v| match v {
            Value::Int(i) => i,
            other => panic!("{src}: not an int: {other:?}"),
        })
        .map_err(|e| e.to_string())
}

fn check(env: &Env, name: &str, rows: &[(&str, &str, Result<i64, &str>)]) {
    let mut wrong = Vec::new();
    for (getter, tz, want) in rows {
        let got = get(env, getter, tz);
        let want = want.map_err(str::to_string);
        if got != want {
            wrong.push(format!("{getter}('{tz}'): got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{name}:\n{}", wrong.join("\n"));
}

/// What every environment answers alike.
const SHARED: &[(&str, &str, Result<i64, &str>)] = &[
    // cel-go's rows
    ("getDayOfMonth", "-07:00", Ok(30)),
    ("getDate", "+23:00", Ok(2)),
    ("getDayOfYear", "-07:00", Ok(364)),
    ("getMinutes", "-08:30", Ok(35)),
    // the minutes follow the sign of the text, the hours their own
    ("getHours", "-02:30", Ok(23)),
    ("getMinutes", "-02:30", Ok(35)),
    ("getHours", "+5:30", Ok(7)),
    ("getHours", "02:00", Ok(4)),
    ("getSeconds", "-00:00", Ok(6)),
    // any number of hours: Go's time.FixedZone takes any offset
    ("getHours", "+24:00", Ok(2)),
    ("getDate", "+48:00", Ok(3)),
    ("getFullYear", "-8760:00", Ok(1969)),
    // Go's strconv.Atoi
    (
        "getHours",
        "ab:00",
        Err("strconv.Atoi: parsing \"ab\": invalid syntax"),
    ),
    (
        "getHours",
        "+05:",
        Err("strconv.Atoi: parsing \"\": invalid syntax"),
    ),
    (
        "getHours",
        "+05:30:00",
        Err("strconv.Atoi: parsing \"30:00\": invalid syntax"),
    ),
    (
        "getHours",
        "99999999999999999999:00",
        Err("strconv.Atoi: parsing \"99999999999999999999\": value out of range"),
    ),
    // locations: UTC, Local (UTC on a server that sets no zone), the fixed zones of the tz database
    ("getHours", "UTC", Ok(2)),
    ("getHours", "", Ok(2)),
    ("getHours", "Local", Ok(2)),
    ("getHours", "GMT", Ok(2)),
    ("getHours", "Etc/UTC", Ok(2)),
    ("getHours", "Etc/GMT+5", Ok(21)),
    ("getHours", "Etc/GMT-14", Ok(16)),
    // what Go does not find
    ("getHours", "utc", Err("unknown time zone utc")),
    ("getHours", "Z", Err("unknown time zone Z")),
    ("getHours", "+05", Err("unknown time zone +05")),
    (
        "getHours",
        "Etc/GMT+13",
        Err("unknown time zone Etc/GMT+13"),
    ),
    (
        "getHours",
        "Etc/GMT+05",
        Err("unknown time zone Etc/GMT+05"),
    ),
    (
        "getHours",
        "America/Phoenix",
        Err("unknown time zone America/Phoenix"),
    ),
];

#[test]
fn kube_apiserver_reads_zones_as_cel_go_v0_27_and_adds_any_minutes() {
    let env = Env::admission();
    check(&env, "kube-apiserver", SHARED);
    check(
        &env,
        "kube-apiserver, minutes",
        &[
            // 02:05:06Z + 99 minutes; - 90 minutes; + 5 h - 30 min
            ("getMinutes", "+00:99", Ok(44)),
            ("getHours", "-00:90", Ok(0)),
            ("getHours", "+05:-30", Ok(6)),
            ("getMinutes", "+05:-30", Ok(35)),
        ],
    );
}

#[test]
fn approver_policy_refuses_minutes_outside_an_hour_as_cel_go_v0_30_does() {
    let env = Env::certificate_request();
    check(&env, "approver-policy", SHARED);
    check(
        &env,
        "approver-policy, minutes",
        &[
            (
                "getMinutes",
                "+00:99",
                Err("timezone offset minutes out of range [0, 59]: +00:99"),
            ),
            (
                "getMinutes",
                "-00:90",
                Err("timezone offset minutes out of range [0, 59]: -00:90"),
            ),
            (
                "getMinutes",
                "+05:-30",
                Err("timezone offset minutes out of range [0, 59]: +05:-30"),
            ),
            ("getMinutes", "-08:30", Ok(35)),
        ],
    );
}
