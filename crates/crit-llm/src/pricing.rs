//! Model aliases and list prices, from one data file (`data/models.json`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crit_core::Usage;
use serde::Deserialize;

use crate::protocol::Cost;

const MODELS_JSON: &str = include_str!("../data/models.json");

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Rates {
    pub input: f64,
    pub output: f64,
    pub cache_write: f64,
    pub cache_read: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LongContext {
    /// Above this many input tokens (cached or not), every token costs the higher rates.
    pub threshold: u64,
    #[serde(flatten)]
    pub rates: Rates,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ModelInfo {
    #[serde(flatten)]
    pub rates: Rates,
    #[serde(default)]
    pub structured_output: bool,
    #[serde(default)]
    pub long_context: Option<LongContext>,
    /// The shortest prefix the model writes to its prompt cache, in tokens,
    /// when a source states it.
    #[serde(default)]
    pub cache_min_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub struct ModelTable {
    pub aliases: BTreeMap<String, String>,
    pub models: BTreeMap<String, ModelInfo>,
    /// Assumed for a model whose minimum is not known.
    #[serde(default = "highest_known_minimum")]
    pub default_cache_min_tokens: u64,
}

fn highest_known_minimum() -> u64 {
    4096
}

/// The built-in table. Parsing a file compiled into the binary can only fail if the
/// file is broken, which the tests catch; an empty table is the safe fallback.
pub fn table() -> &'static ModelTable {
    // Immutable once built: a cache of a constant, not shared mutable state.
    static TABLE: OnceLock<ModelTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(MODELS_JSON).unwrap_or_else(|e| {
            tracing::error!(error = %e, "data/models.json is invalid");
            ModelTable {
                aliases: BTreeMap::new(),
                models: BTreeMap::new(),
                default_cache_min_tokens: highest_known_minimum(),
            }
        })
    })
}

/// `opus` → `claude-opus-5-5`; anything else unchanged.
pub fn resolve_alias(model: &str) -> String {
    table()
        .aliases
        .get(model)
        .cloned()
        .unwrap_or_else(|| model.to_string())
}

/// The table entry for a model id or alias; a dated id (`…-20251001`) matches its base.
pub fn lookup(model: &str) -> Option<&'static ModelInfo> {
    let id = resolve_alias(model);
    let t = table();
    if let Some(info) = t.models.get(&id) {
        return Some(info);
    }
    let (base, suffix) = id.rsplit_once('-')?;
    if suffix.len() == 8 && suffix.bytes().all(|b| b.is_ascii_digit()) {
        return t.models.get(base);
    }
    None
}

/// Checks a model name for Anthropic's API or the Claude Code CLI: an alias
/// or id crit knows, or a full `claude-…` id (a newer model, priced as
/// unknown). Anything else is a typo the API would refuse after crit had
/// started: the error names the nearest known name and lists them all.
pub fn check_claude_model(model: &str) -> Result<(), UnknownModel> {
    if model.is_empty() || lookup(model).is_some() || model.starts_with("claude-") {
        return Ok(());
    }
    let t = table();
    let aliases: Vec<&str> = t.aliases.keys().map(String::as_str).collect();
    let ids: Vec<&str> = t.models.keys().map(String::as_str).collect();
    let nearest = aliases
        .iter()
        .chain(ids.iter())
        .min_by_key(|k| edit_distance(model, k))
        .filter(|k| edit_distance(model, k) <= 2)
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    Err(UnknownModel {
        model: model.to_string(),
        nearest,
        aliases: aliases.join(", "),
        ids: ids.join(", "),
    })
}

/// A model name for Anthropic's API or the Claude Code CLI that crit does
/// not know and that is no full `claude-…` id: most likely a typo.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "unknown model `{model}`{nearest}: known are the aliases {aliases} and the ids {ids}; a full \
     `claude-…` id crit does not know yet is passed on as given, its price unknown"
)]
pub struct UnknownModel {
    pub model: String,
    /// ` (did you mean `…`?)`, or empty.
    nearest: String,
    aliases: String,
    ids: String,
}

/// Levenshtein distance, for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The shortest prefix `model` caches, in tokens: the table's figure, else
/// the highest known minimum (a breakpoint placed below it would cache
/// nothing and say nothing).
pub fn cache_min_tokens(model: &str) -> u64 {
    lookup(model)
        .and_then(|m| m.cache_min_tokens)
        .unwrap_or(table().default_cache_min_tokens)
}

/// The prefix below which a cache breakpoint on `model` surely caches
/// nothing: the table's figure, else the lowest known minimum. A mark that
/// may hit costs one of four slots at most; one that cannot, a slot for
/// nothing, so only a known minimum rules a mark out.
pub fn breakpoint_min_tokens(model: &str) -> u64 {
    lookup(model)
        .and_then(|m| m.cache_min_tokens)
        .unwrap_or_else(|| {
            table()
                .models
                .values()
                .filter_map(|m| m.cache_min_tokens)
                .min()
                .unwrap_or(0)
        })
}

/// What `usage` cost on `model`. An unknown model costs 0 with `priced:
/// false`; the review says so once (its cost is then `null`), not every call.
pub fn cost(model: &str, usage: &Usage) -> Cost {
    let Some(info) = lookup(model) else {
        return Cost {
            usd: 0.0,
            priced: false,
        };
    };
    let rates = match &info.long_context {
        Some(lc) if usage.total_input() > lc.threshold => lc.rates,
        _ => info.rates,
    };
    let per = |tokens: u64, rate: f64| tokens as f64 * rate / 1_000_000.0;
    Cost {
        usd: per(usage.input_tokens, rates.input)
            + per(usage.output_tokens, rates.output)
            + per(usage.cache_write_tokens, rates.cache_write)
            + per(usage.cache_read_tokens, rates.cache_read),
        priced: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(i: u64, o: u64, cw: u64, cr: u64) -> Usage {
        Usage {
            input_tokens: i,
            output_tokens: o,
            cache_write_tokens: cw,
            cache_read_tokens: cr,
        }
    }

    #[test]
    fn table_parses_and_aliases_resolve() {
        assert!(table().models.len() >= 10);
        assert_eq!(resolve_alias("opus"), "claude-opus-5-5");
        assert_eq!(resolve_alias("sonnet"), "claude-sonnet-5-5");
        assert_eq!(resolve_alias("haiku"), "claude-haiku-5-5");
        assert_eq!(resolve_alias("gpt-x"), "gpt-x");
        for (alias, id) in &table().aliases {
            assert!(table().models.contains_key(id), "{alias} → {id} unpriced");
        }
        // Cache rates follow the documented multipliers (Claude 3 Haiku's
        // were published as $0.30 and $0.03 per MTok).
        for (id, m) in &table().models {
            let r = m.rates;
            let (write, read) = match id.as_str() {
                "claude-3-haiku" => (1.2, 0.12),
                _ => (1.25, 0.1),
            };
            assert!((r.cache_write - write * r.input).abs() < 1e-9, "{id}");
            assert!((r.cache_read - read * r.input).abs() < 1e-9, "{id}");
        }
    }

    #[test]
    fn cache_minimums_come_from_the_table_or_the_safe_default() {
        assert_eq!(cache_min_tokens("claude-sonnet-4-5-20250929"), 1024);
        assert_eq!(cache_min_tokens("claude-haiku-4-5"), 4096);
        assert_eq!(cache_min_tokens("claude-opus-5"), 512);
        // Unpublished (the 5.5 models) and unknown models: the highest known.
        assert_eq!(cache_min_tokens("opus"), table().default_cache_min_tokens);
        assert_eq!(cache_min_tokens("llama3.1:8b"), 4096);
        // A breakpoint is left out only below a minimum the table knows.
        assert_eq!(breakpoint_min_tokens("claude-haiku-4-5"), 4096);
        assert_eq!(breakpoint_min_tokens("sonnet"), 512);
        assert_eq!(breakpoint_min_tokens("llama3.1:8b"), 512);
        for (id, m) in &table().models {
            if let Some(n) = m.cache_min_tokens {
                assert!((512..=4096).contains(&n), "{id}: {n}");
            }
        }
    }

    #[test]
    fn costs() {
        // opus 5.5: $4 in, $20 out, $5 write, $0.40 read per MTok.
        let c = cost("opus", &usage(1_000_000, 100_000, 200_000, 500_000));
        assert!(c.priced);
        assert!((c.usd - (4.0 + 2.0 + 1.0 + 0.2)).abs() < 1e-9, "{}", c.usd);
        let dated = cost("claude-haiku-4-5-20251001", &usage(1_000_000, 0, 0, 0));
        assert!((dated.usd - 1.0).abs() < 1e-9);
    }

    #[test]
    fn every_current_and_recent_claude_id_has_a_price() {
        for id in [
            // Reldo's default model.
            "claude-sonnet-4-20250514",
            "claude-sonnet-4-0",
            "claude-opus-4-20250514",
            "claude-opus-4-1-20250805",
            "claude-opus-4-0",
            "claude-sonnet-4-5-20250929",
            "claude-haiku-4-5-20251001",
            "claude-3-7-sonnet-20250219",
            "claude-3-7-sonnet-latest",
            "claude-3-5-sonnet-20241022",
            "claude-3-5-sonnet-20240620",
            "claude-3-5-haiku-20241022",
            "claude-3-5-haiku-latest",
            "claude-3-opus-20240229",
            "claude-3-haiku-20240307",
            "opus",
            "sonnet",
            "haiku",
        ] {
            assert!(cost(id, &usage(1, 1, 0, 0)).priced, "{id} has no price");
        }
        let s4 = cost(
            "claude-sonnet-4-20250514",
            &usage(1_000_000, 1_000_000, 0, 0),
        );
        assert!((s4.usd - 18.0).abs() < 1e-9, "{}", s4.usd);
    }

    #[test]
    fn haiku_long_context_tier() {
        let small = cost("haiku", &usage(100_000, 1_000_000, 0, 0));
        assert!((small.usd - (0.01 + 0.5)).abs() < 1e-9, "{}", small.usd);
        // 60K uncached + 50K cache read = 110K input: the higher tier for everything.
        let big = cost("haiku", &usage(60_000, 1_000_000, 0, 50_000));
        assert!(
            (big.usd - (0.06 * 0.5 + 2.5 + 0.05 * 0.05)).abs() < 1e-9,
            "{}",
            big.usd
        );
    }

    #[test]
    fn unknown_model_is_free_but_flagged() {
        let c = cost("llama3.1:8b", &usage(10, 10, 0, 0));
        assert_eq!(
            c,
            Cost {
                usd: 0.0,
                priced: false
            }
        );
    }
}
