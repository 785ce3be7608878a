//! A prompt cache the way the Anthropic Messages API keeps one, for tests
//! that measure what crit's cache breakpoints save: when switched on
//! ([`crate::FakeServer::simulate_prompt_cache`]), every answer's usage is
//! computed from the request instead of the script.
//!
//! The request is read as a sequence of blocks in prefix order (each tool,
//! each system block, each message's content blocks), each worth
//! `ceil(bytes / 4)` tokens of its JSON without `cache_control`. A block with
//! `cache_control` (or the last block, for a top-level `cache_control`) is a
//! breakpoint. As the API does: a breakpoint reads the longest earlier entry
//! found at it or up to 20 blocks before it; the prefix up to the last
//! breakpoint is written when it reaches the model's minimum and was not
//! read; every breakpoint at or over the minimum becomes an entry; the rest
//! is `input_tokens`. Entries are per model and never expire.

use std::collections::HashSet;

use serde_json::Value;

use crate::reply::Usage;

/// How far back from a breakpoint an earlier entry is found.
const LOOKBACK: usize = 20;

#[derive(Debug)]
pub(crate) struct PromptCache {
    min_tokens: u64,
    entries: HashSet<u64>,
}

impl PromptCache {
    pub(crate) fn new(min_tokens: u64) -> Self {
        PromptCache {
            min_tokens,
            entries: HashSet::new(),
        }
    }

    /// The usage of `body` (an Anthropic request), with `output` tokens out;
    /// records its entries.
    pub(crate) fn account(&mut self, body: &Value, output: u64) -> Usage {
        let blocks = prefix_blocks(body);
        let mut hash = Fnv::new();
        hash.write(
            body.get("model")
                .and_then(Value::as_str)
                .unwrap_or("")
                .as_bytes(),
        );
        let mut total = 0u64;
        let mut cumulative = Vec::with_capacity(blocks.len());
        let mut breakpoints = Vec::new();
        for (i, (json, marked)) in blocks.iter().enumerate() {
            hash.write(json.as_bytes());
            total += (json.len() as u64).div_ceil(4);
            cumulative.push((hash.0, total));
            if *marked {
                breakpoints.push(i);
            }
        }
        if body.get("cache_control").is_some() && !blocks.is_empty() {
            breakpoints.push(blocks.len() - 1);
        }
        let mut read = 0;
        for &b in &breakpoints {
            for &(h, tokens) in &cumulative[b.saturating_sub(LOOKBACK)..=b] {
                if self.entries.contains(&h) {
                    read = read.max(tokens);
                }
            }
        }
        let mut write = 0;
        if let Some(&last) = breakpoints.iter().max() {
            let (_, tokens) = cumulative[last];
            if tokens >= self.min_tokens && tokens > read {
                write = tokens - read;
            }
        }
        for &b in &breakpoints {
            let (h, tokens) = cumulative[b];
            if tokens >= self.min_tokens {
                self.entries.insert(h);
            }
        }
        Usage {
            input: total - read - write,
            output,
            cache_write: write,
            cache_read: read,
        }
    }
}

/// The usage of each of `bodies` (Anthropic requests, in order) through a
/// fresh cache with `min_tokens` as its minimum, one output token each: for
/// measuring what a change to the breakpoints saves on recorded requests.
pub fn replay(bodies: &[Value], min_tokens: u64) -> Vec<Usage> {
    let mut cache = PromptCache::new(min_tokens);
    bodies.iter().map(|b| cache.account(b, 1)).collect()
}

/// Tokens (as this cache counts them) of `body`'s tools and system blocks up
/// to the last system block with a breakpoint: the prefix a panel shares.
pub fn system_prefix_tokens(body: &Value) -> u64 {
    let mut blocks: Vec<&Value> = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let tools = blocks.len();
    blocks.extend(
        body.get("system")
            .and_then(Value::as_array)
            .into_iter()
            .flatten(),
    );
    let end = blocks
        .iter()
        .rposition(|b| b.get("cache_control").is_some())
        .filter(|i| *i >= tools)
        .map_or(blocks.len(), |i| i + 1);
    blocks[..end]
        .iter()
        .map(|b| {
            let mut b = (*b).clone();
            if let Some(o) = b.as_object_mut() {
                o.remove("cache_control");
            }
            (b.to_string().len() as u64).div_ceil(4)
        })
        .sum()
}

/// Each block of the prefix as canonical-enough JSON (serde_json keeps the
/// request's key order), and whether it carries a breakpoint.
fn prefix_blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |v: &Value| {
        let mut v = v.clone();
        let marked = match v.as_object_mut() {
            Some(o) => o.remove("cache_control").is_some(),
            None => false,
        };
        out.push((v.to_string(), marked));
    };
    for t in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        push(t);
    }
    match body.get("system") {
        Some(Value::Array(blocks)) => blocks.iter().for_each(&mut push),
        Some(s @ Value::String(_)) => push(s),
        _ => {}
    }
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match m.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().for_each(&mut push),
            Some(other) => push(other),
            None => {}
        }
    }
    out
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // A separator, so block boundaries count.
        self.0 ^= 0xff;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(n: usize, cached: bool) -> Value {
        let mut b = json!({"type": "text", "text": "x".repeat(n)});
        if cached {
            b["cache_control"] = json!({"type": "ephemeral"});
        }
        b
    }

    #[test]
    fn writes_then_reads_the_marked_prefix_and_respects_the_minimum() {
        let mut c = PromptCache::new(1024);
        let body = |extra: usize| {
            json!({"model": "m", "system": [text(8000, true)],
                   "messages": [{"role": "user", "content": [text(400 + extra, false)]}]})
        };
        let first = c.account(&body(0), 5);
        assert!(
            first.cache_write > 2000 && first.cache_read == 0,
            "{first:?}"
        );
        let second = c.account(&body(40), 5);
        assert_eq!(
            (second.cache_write, second.cache_read),
            (0, first.cache_write)
        );
        assert_eq!(second.input, first.input + 10);
        // Under the minimum: nothing is written, everything is input.
        let mut small = PromptCache::new(4096);
        let u = small.account(&body(0), 5);
        assert_eq!((u.cache_write, u.cache_read), (0, 0));
        assert_eq!(u.input, first.input + first.cache_write);
    }

    #[test]
    fn an_earlier_entry_is_found_only_within_the_lookback() {
        let mut c = PromptCache::new(10);
        let mut content = vec![text(100, true)];
        let body = |content: &Vec<Value>| json!({"model": "m", "messages": [{"role": "user", "content": content}]});
        c.account(&body(&content), 1);
        content[0] = text(100, false);
        for _ in 0..25 {
            content.push(text(100, false));
        }
        let last = content.len() - 1;
        content[last]["cache_control"] = json!({"type": "ephemeral"});
        let u = c.account(&body(&content), 1);
        assert_eq!(u.cache_read, 0, "26 blocks back is out of reach");
    }
}
