//! A benchmark configuration (`--config FILE`): what to change about the code
//! review for one column of the comparison — its model, the second look,
//! consensus, the diff filter, a findings cap, the template. Everything it
//! does not name is the review's own setting (flags, environment, config
//! files), so two files that differ in one key measure that key.
//!
//! ```yaml
//! name: sonnet-verified      # default: the file's name without .yaml
//! model: sonnet
//! verify: all                # off | blocking | all
//! verify_model: haiku
//! consensus: majority        # any | majority | all
//! filter: added              # added | diff_context | file | nofilter
//! max_findings: 20
//! template: code             # a code review template (default: code)
//! allow_partial: false
//! ```

use std::path::Path;

use crit_project::FileError;
use crit_project::scope::FilterMode;
use serde::{Deserialize, Serialize};
use serde_saphyr::Spanned;

use crit_review::panel::Consensus;
use crit_review::template::VerifyMode;

/// One configuration of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchConfig {
    pub name: String,
    /// The file it came from (`None`: the review's settings as they are).
    pub file: Option<String>,
    pub model: Option<String>,
    #[serde(serialize_with = "display_opt")]
    pub verify: Option<VerifyMode>,
    pub verify_model: Option<String>,
    #[serde(serialize_with = "display_opt")]
    pub consensus: Option<Consensus>,
    #[serde(serialize_with = "display_opt")]
    pub filter: Option<FilterMode>,
    pub max_findings: Option<usize>,
    pub template: String,
    pub allow_partial: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            name: "default".into(),
            file: None,
            model: None,
            verify: None,
            verify_model: None,
            consensus: None,
            filter: None,
            max_findings: None,
            template: "code".into(),
            allow_partial: false,
        }
    }
}

fn display_opt<T: std::fmt::Display, S: serde::Serializer>(
    v: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_str(&v.to_string()),
        None => s.serialize_none(),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    name: Option<String>,
    model: Option<String>,
    verify: Option<Spanned<String>>,
    verify_model: Option<String>,
    consensus: Option<Spanned<String>>,
    filter: Option<Spanned<String>>,
    max_findings: Option<usize>,
    template: Option<String>,
    allow_partial: Option<bool>,
}

impl BenchConfig {
    /// Parses `text`, the file `path`; errors name file, line and column.
    pub fn parse(text: &str, path: &Path) -> Result<BenchConfig, FileError> {
        let file = path.display().to_string();
        let raw: Raw = match text.trim().is_empty() {
            true => Raw::default(),
            false => serde_saphyr::from_str(text).map_err(|e| FileError::from_yaml(&file, &e))?,
        };
        let word = |s: &Spanned<String>, e: String| {
            FileError::at(&file, s.referenced.line(), s.referenced.column(), e)
        };
        let verify = match &raw.verify {
            Some(v) => Some(
                v.value
                    .parse::<VerifyMode>()
                    .map_err(|e| word(v, e.to_string()))?,
            ),
            None => None,
        };
        let consensus = match &raw.consensus {
            Some(c) => Some(
                c.value
                    .parse::<Consensus>()
                    .map_err(|e| word(c, e.to_string()))?,
            ),
            None => None,
        };
        let filter = match &raw.filter {
            Some(f) => Some(
                f.value
                    .parse::<FilterMode>()
                    .map_err(|e| word(f, e.to_string()))?,
            ),
            None => None,
        };
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "config".into());
        Ok(BenchConfig {
            name: raw.name.filter(|n| !n.trim().is_empty()).unwrap_or(stem),
            file: Some(file.clone()),
            model: raw.model.filter(|m| !m.trim().is_empty()),
            verify,
            verify_model: raw.verify_model.filter(|m| !m.trim().is_empty()),
            consensus,
            filter,
            max_findings: raw.max_findings,
            template: raw.template.unwrap_or_else(|| "code".into()),
            allow_partial: raw.allow_partial.unwrap_or(false),
        })
    }

    /// Reads and parses the file at `path`.
    pub fn load(path: &Path) -> Result<BenchConfig, FileError> {
        let text = crit_core::files::read_to_string(path).map_err(|source| FileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        BenchConfig::parse(&text, path)
    }
}

/// Configurations named alike get `-2`, `-3`… so every column of the
/// comparison has a name of its own.
pub fn distinct_names(configs: &mut [BenchConfig]) {
    let mut seen: Vec<String> = Vec::new();
    for c in configs.iter_mut() {
        let mut name = c.name.clone();
        let mut n = 2;
        while seen.contains(&name) {
            name = format!("{}-{n}", c.name);
            n += 1;
        }
        seen.push(name.clone());
        c.name = name;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses_and_a_bad_word_names_its_line() {
        let c = BenchConfig::parse(
            "model: haiku\nverify: all\nconsensus: majority\nfilter: added\nmax_findings: 3\n",
            Path::new("/x/fast.yaml"),
        )
        .unwrap();
        assert_eq!(c.name, "fast");
        assert_eq!(c.model.as_deref(), Some("haiku"));
        assert_eq!(c.verify, Some(VerifyMode::All));
        assert_eq!(c.consensus, Some(Consensus::Majority));
        assert_eq!(c.filter, Some(FilterMode::Added));
        assert_eq!(c.max_findings, Some(3));
        let e = BenchConfig::parse("model: a\nverify: maybe\n", Path::new("b.yaml")).unwrap_err();
        assert!(e.to_string().starts_with("b.yaml:2:"), "{e}");
        let e = BenchConfig::parse("modle: a\n", Path::new("b.yaml")).unwrap_err();
        assert!(e.to_string().contains("b.yaml:1"), "{e}");
    }

    #[test]
    fn names_are_made_distinct() {
        let mut v = vec![BenchConfig::default(), BenchConfig::default()];
        distinct_names(&mut v);
        assert_eq!(v[0].name, "default");
        assert_eq!(v[1].name, "default-2");
    }
}
