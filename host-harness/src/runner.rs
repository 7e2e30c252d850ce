//! `palisade test`: find case files, run each through a backend, report (text, JSON or JUnit),
//! and `--bless` failing cases.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde_json::{Value, json};
use similar::TextDiff;

use crate::backend::Backend;
use crate::case::{self, Case, Outcome};
use crate::documents;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
    Junit,
}

/// The result of one case file.
#[derive(Debug, Clone)]
pub struct CaseReport {
    pub file: PathBuf,
    pub name: String,
    pub passed: bool,
    /// Why it failed: a load error, or the unified diff of expect vs observed.
    pub failure: Option<String>,
    pub diff: Option<String>,
    pub blessed: bool,
    /// Whether `--bless` could write this outcome (a module error cannot be blessed).
    pub blessable: bool,
    pub elapsed: Duration,
}

#[derive(Debug, Clone, Default)]
pub struct Report {
    pub backend: String,
    pub cases: Vec<CaseReport>,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.passed).count()
    }
    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed()
    }
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }
}

/// Collects the case files under the given paths: files as given, directories walked
/// recursively (sorted), keeping YAML files that look like cases.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            anyhow::bail!("`{}` does not exist", p.display());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read directory `{}`", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == "yaml" || e == "yml")
        {
            // Bundles, webhook configurations and the like live next to cases: skip them.
            let is_case = documents::read_documents(&path)
                .map(|docs| docs.len() == 1 && docs.first().is_some_and(Case::looks_like_case))
                // A file that does not parse is reported, not skipped.
                .unwrap_or(true);
            if is_case {
                out.push(path);
            }
        }
    }
    Ok(())
}

/// Runs one case file.
pub fn run_file(file: &Path, backend: &dyn Backend, bless: bool) -> CaseReport {
    let started = Instant::now();
    let fallback_name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let case = match Case::load(file) {
        Ok(c) => c,
        Err(e) => {
            return CaseReport {
                file: file.to_path_buf(),
                name: fallback_name,
                passed: false,
                failure: Some(format!("cannot load the case: {e:#}")),
                diff: None,
                blessed: false,
                blessable: false,
                elapsed: started.elapsed(),
            };
        }
    };
    let outcome = case.run(backend);
    let check_reason = !case::WITHOUT_STATUS_REASON.contains(&backend.name());
    let verdict = case::judge_with(&case, &outcome, check_reason);
    let mut report = CaseReport {
        file: file.to_path_buf(),
        name: case.name.clone(),
        passed: verdict.passed,
        failure: None,
        diff: None,
        blessed: false,
        blessable: verdict.blessed.is_some(),
        elapsed: started.elapsed(),
    };
    if verdict.passed {
        return report;
    }
    let diff = TextDiff::from_lines(&verdict.expected_text, &verdict.actual_text)
        .unified_diff()
        .context_radius(10)
        .header("expected", "actual")
        .to_string();
    report.diff = Some(diff);
    report.failure = Some(match &outcome {
        Outcome::Error(e) => e.clone(),
        _ => "the outcome differs from `expect`".into(),
    });
    if bless && let Some(new_expect) = &verdict.blessed {
        match bless_file(file, new_expect) {
            Ok(()) => {
                report.blessed = true;
                report.passed = true;
            }
            Err(e) => report.failure = Some(format!("cannot bless: {e:#}")),
        }
    }
    report
}

fn bless_file(file: &Path, expect: &Value) -> Result<()> {
    let text = std::fs::read_to_string(file)?;
    let updated = case::rewrite_expect(&text, expect);
    // Never write a file that no longer parses as the same case.
    let docs = documents::parse_documents(&updated)?;
    let doc = docs
        .first()
        .context("the rewritten case holds no document")?;
    Case::from_value(file, doc)?;
    std::fs::write(file, updated)?;
    Ok(())
}

/// Runs every case file and returns the report.
pub fn run_all(files: &[PathBuf], backend: &dyn Backend, bless: bool) -> Report {
    Report {
        backend: backend.name().to_string(),
        cases: files.iter().map(|f| run_file(f, backend, bless)).collect(),
    }
}

fn display_path(p: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    cwd.and_then(|c| p.strip_prefix(c).ok().map(|r| r.display().to_string()))
        .unwrap_or_else(|| p.display().to_string())
}

/// The human report: one line per case, diffs under failures, the summary last.
pub fn render_text(report: &Report) -> String {
    let mut out = String::new();
    for c in &report.cases {
        let mark = if c.blessed {
            "BLESSED"
        } else if c.passed {
            "ok     "
        } else {
            "FAIL   "
        };
        let _ = writeln!(
            out,
            "{mark} {} ({}) [{}, {} ms]",
            display_path(&c.file),
            c.name,
            report.backend,
            c.elapsed.as_millis()
        );
        if !c.passed || c.blessed {
            if let Some(f) = &c.failure
                && !c.blessed
            {
                let _ = writeln!(out, "        {f}");
            }
            if let Some(d) = &c.diff {
                for line in d.lines() {
                    let _ = writeln!(out, "        {line}");
                }
            }
            if !c.passed && c.diff.is_some() && c.blessable {
                let _ = writeln!(
                    out,
                    "        to accept the actual outcome: palisade test --bless {}",
                    display_path(&c.file)
                );
            }
        }
    }
    out.push_str(&report.summary());
    out.push('\n');
    out
}

pub fn render_json(report: &Report) -> String {
    let cases: Vec<Value> = report
        .cases
        .iter()
        .map(|c| {
            json!({
                "file": display_path(&c.file),
                "name": c.name,
                "backend": report.backend,
                "passed": c.passed,
                "blessed": c.blessed,
                "failure": c.failure,
                "diff": c.diff,
                "millis": c.elapsed.as_millis() as u64,
            })
        })
        .collect();
    let doc = json!({ "backend": report.backend, "passed": report.passed(), "failed": report.failed(), "cases": cases });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' && c != '\r' => {}
            c => out.push(c),
        }
    }
    out
}

pub fn render_junit(report: &Report) -> String {
    let total: f64 = report.cases.iter().map(|c| c.elapsed.as_secs_f64()).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites tests=\"{}\" failures=\"{}\" time=\"{total:.3}\">",
        report.cases.len(),
        report.failed()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"palisade ({})\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{total:.3}\">",
        xml_escape(&report.backend),
        report.cases.len(),
        report.failed()
    );
    for c in &report.cases {
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            xml_escape(&display_path(&c.file)),
            xml_escape(&c.name),
            c.elapsed.as_secs_f64()
        );
        if c.passed {
            out.push_str("/>\n");
        } else {
            out.push_str(">\n");
            let _ = writeln!(
                out,
                "      <failure message=\"{}\">{}</failure>",
                xml_escape(c.failure.as_deref().unwrap_or("failed")),
                xml_escape(c.diff.as_deref().unwrap_or(""))
            );
            out.push_str("    </testcase>\n");
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Text => render_text(report),
        Format::Json => render_json(report),
        Format::Junit => render_junit(report),
    }
}
