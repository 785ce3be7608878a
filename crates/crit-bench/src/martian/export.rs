//! `crit bench export CORPUS RESULTS --format martian-candidates`: crit's
//! findings in the benchmark's `candidates.json` shape, so the benchmark's
//! own judge step can score crit with no crit code in the loop.
//!
//! The shape (`results/{judge model}/candidates.json` in the benchmark):
//! `{PR URL: {TOOL: [{"text", "path", "line", "source"}]}}`, the URL being the
//! golden comments file's `url`. The benchmark's judge reads only `text`.
//! One candidate per finding (`source: "finding"`, with its file and line),
//! or, with `--extract`, the benchmark's extraction step over all of crit's
//! comments on the pull request (`source: "extracted"`, no file or line).

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::Corpus;
use crate::report::CaseCandidate;

/// One candidate issue, as `candidates.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CandidateEntry {
    pub text: String,
    pub path: Option<String>,
    pub line: Option<u64>,
    pub source: String,
}

/// The whole file: pull request URL → tool → candidates.
pub type Candidates = BTreeMap<String, BTreeMap<String, Vec<CandidateEntry>>>;

/// Why an export could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{}: {reason}", path.display())]
    Results { path: PathBuf, reason: String },
    #[error("{case}: {reason}")]
    Extract { case: String, reason: String },
}

/// The parts of a saved `crit bench --json` report an export reads.
#[derive(Debug, Deserialize)]
pub struct Results {
    pub configurations: Vec<ResultsConfig>,
}

#[derive(Debug, Deserialize)]
pub struct ResultsConfig {
    pub name: String,
    pub cases: Vec<ResultsCase>,
}

#[derive(Debug, Deserialize)]
pub struct ResultsCase {
    pub name: String,
    #[serde(default)]
    pub url: Option<String>,
    /// `null` for a case whose review never ran: it is left out, as a tool
    /// with no review of a pull request is.
    #[serde(default)]
    pub verdict: Option<serde_json::Value>,
    #[serde(default)]
    pub candidates: Vec<CaseCandidate>,
}

impl Results {
    /// A saved report, read.
    pub fn load(path: &std::path::Path) -> Result<Results, ExportError> {
        let fail = |reason: String| ExportError::Results {
            path: path.to_path_buf(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| {
            fail(format!(
                "not a `crit bench --json` report ({e}); save one with crit bench CORPUS --json --out FILE"
            ))
        })
    }
}

/// The tool name a configuration is exported under: `tool` alone for a
/// single configuration, `tool-NAME` for each of several.
pub fn tool_name(tool: &str, config: &str, configs: usize) -> String {
    match configs {
        1 => tool.to_string(),
        _ => format!("{tool}-{config}"),
    }
}

/// A case's pull request URL as the benchmark keys it: the golden
/// comments' `url`, else the one the report recorded.
fn url_of(corpus: &Corpus, case: &ResultsCase) -> Option<String> {
    corpus
        .cases
        .iter()
        .find(|c| c.name == case.name)
        .map(|c| c.golden.url.clone())
        .filter(|u| !u.is_empty())
        .or_else(|| case.url.clone())
}

/// One candidate per finding, for every case that was reviewed.
/// `extracted`, when given, replaces a case's candidates (by configuration
/// and case name) with the extraction step's issues.
pub fn candidates(
    corpus: &Corpus,
    results: &Results,
    tool: &str,
    extracted: &BTreeMap<(String, String), Vec<String>>,
) -> Candidates {
    let mut out = Candidates::new();
    let n = results.configurations.len();
    for config in &results.configurations {
        let name = tool_name(tool, &config.name, n);
        for case in config.cases.iter().filter(|c| c.verdict.is_some()) {
            let Some(url) = url_of(corpus, case) else {
                continue;
            };
            let list = match extracted.get(&(config.name.clone(), case.name.clone())) {
                Some(issues) => issues
                    .iter()
                    .map(|t| CandidateEntry {
                        text: t.clone(),
                        path: None,
                        line: None,
                        source: "extracted".into(),
                    })
                    .collect(),
                None => case
                    .candidates
                    .iter()
                    .map(|c| CandidateEntry {
                        text: c.text.clone(),
                        path: c.path.clone(),
                        line: c.line,
                        source: "finding".into(),
                    })
                    .collect(),
            };
            out.entry(url).or_default().insert(name.clone(), list);
        }
    }
    out
}
