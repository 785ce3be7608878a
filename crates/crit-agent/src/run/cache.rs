//! Prompt-cache breakpoints on every model call of a run.
//!
//! A request's prefix (tools, then system, then messages) is cached up to each
//! breakpoint, and a later request reads the longest cached prefix it shares.
//! The caller marks what a panel shares (the last tool, the end of the system
//! prompt, the work in the first message); this module adds the rolling
//! breakpoint: the last block of the conversation, so each turn reads every
//! earlier turn (the diff, every tool result) from the cache instead of paying
//! for it again. The API finds an earlier entry only within 20 blocks before a
//! breakpoint, so a turn that adds more (many tool calls at once) also marks
//! where the previous request ended.
//!
//! A breakpoint is kept only where the prefix before it reaches the model's
//! cacheable minimum (the lowest known one when the model's is not known):
//! one below it caches nothing and costs one of the four slots. At most four
//! are allowed: over that, the tools' goes first (the system prompt's covers
//! them), then the earliest; the conversation's last one stays.

use crit_llm::{Message, ModelRequest};

/// The API's limit of breakpoints per request.
const MAX_BREAKPOINTS: usize = 4;
/// How far back (in blocks) the API looks from a breakpoint for an earlier
/// cache entry; a little under its 20, so an estimate never falls short.
const LOOKBACK_BLOCKS: usize = 18;

/// Where a breakpoint sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Tools,
    System(usize),
    /// Message index, block index.
    Message(usize, usize),
}

/// Adds the rolling breakpoint to `req` (when `rolling`) and keeps the total
/// within the API's limit. `min_tokens`: the model's cacheable minimum.
pub(super) fn place_breakpoints(req: &mut ModelRequest, rolling: bool, min_tokens: u64) {
    if rolling {
        if let Some(last) = last_block(&req.messages) {
            mark(req, last);
        }
        // The previous request ended after the message before the last
        // assistant turn: mark it too when it is out of the lookback's reach.
        if req.messages.len() >= 3 {
            let prev = req.messages.len() - 3;
            let between: usize = req.messages[prev + 1..]
                .iter()
                .map(|m| m.content.len())
                .sum();
            if between > LOOKBACK_BLOCKS
                && let Some(n) = req.messages[prev].content.len().checked_sub(1)
            {
                mark(req, Slot::Message(prev, n));
            }
        }
    }
    let mut slots = breakpoints(req);
    // Under the model's minimum a breakpoint caches nothing: only where it can hit.
    slots.retain(|&(slot, tokens)| {
        let hits = tokens >= min_tokens;
        if !hits {
            unmark(req, slot);
        }
        hits
    });
    while slots.len() > MAX_BREAKPOINTS {
        let Some(drop) = least_useful(req, &slots) else {
            break;
        };
        unmark(req, slots[drop].0);
        slots.remove(drop);
    }
}

fn last_block(messages: &[Message]) -> Option<Slot> {
    let i = messages.len().checked_sub(1)?;
    let j = messages[i].content.len().checked_sub(1)?;
    Some(Slot::Message(i, j))
}

fn mark(req: &mut ModelRequest, slot: Slot) {
    if let Slot::Message(i, j) = slot {
        // A block that cannot carry a breakpoint (a thinking block) is left as is.
        req.messages[i].content[j].set_cache_breakpoint(true);
    }
}

fn unmark(req: &mut ModelRequest, slot: Slot) {
    match slot {
        Slot::Tools => req.cache_tools = false,
        Slot::System(i) => req.system[i].cache = false,
        Slot::Message(i, j) => {
            req.messages[i].content[j].set_cache_breakpoint(false);
        }
    }
}

/// Every breakpoint in prefix order, with the estimated tokens up to it.
fn breakpoints(req: &ModelRequest) -> Vec<(Slot, u64)> {
    let mut out = Vec::new();
    let mut tokens: u64 = req
        .tools
        .iter()
        .map(|t| (t.name.len() + t.description.len() + t.input_schema.to_string().len()) as u64)
        .sum::<u64>()
        .div_ceil(4);
    if req.cache_tools && !req.tools.is_empty() {
        out.push((Slot::Tools, tokens));
    }
    for (i, b) in req.system.iter().enumerate() {
        tokens += (b.text.len() as u64).div_ceil(4);
        if b.cache {
            out.push((Slot::System(i), tokens));
        }
    }
    for (i, m) in req.messages.iter().enumerate() {
        for (j, b) in m.content.iter().enumerate() {
            tokens += b.estimated_tokens();
            if b.is_cache_breakpoint() {
                out.push((Slot::Message(i, j), tokens));
            }
        }
    }
    out
}

/// The breakpoint to give up first; never the conversation's last one.
fn least_useful(req: &ModelRequest, slots: &[(Slot, u64)]) -> Option<usize> {
    let keep = slots.len().checked_sub(1)?;
    let candidates = || (0..keep).map(|i| (i, slots[i]));
    let system_marked = req.system.iter().any(|b| b.cache);
    candidates()
        .find(|(_, (s, _))| *s == Slot::Tools && system_marked)
        .or_else(|| candidates().next())
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_llm::{Block, Role, SystemBlock, ToolSpec};
    use serde_json::json;

    fn marks(req: &ModelRequest) -> Vec<Slot> {
        breakpoints(req).into_iter().map(|(s, _)| s).collect()
    }

    fn request(turns: usize, calls_per_turn: usize) -> ModelRequest {
        let mut r = ModelRequest::new("m", 100);
        r.tools = vec![ToolSpec {
            name: "Read".into(),
            description: "d".repeat(8000),
            input_schema: json!({}),
            strict: false,
        }];
        r.cache_tools = true;
        r.system = vec![SystemBlock::cached("s".repeat(40_000))];
        r.messages = vec![Message {
            role: Role::User,
            content: vec![Block::cached_text("diff"), Block::text("review it")],
        }];
        for t in 0..turns {
            let calls = (0..calls_per_turn)
                .map(|c| Block::ToolUse {
                    id: format!("{t}-{c}"),
                    name: "Read".into(),
                    input: json!({}),
                })
                .collect();
            r.messages.push(Message::assistant(calls));
            let results = (0..calls_per_turn)
                .map(|c| Block::ToolResult {
                    tool_use_id: format!("{t}-{c}"),
                    content: "x".repeat(4000),
                    is_error: false,
                    cache: false,
                })
                .collect();
            r.messages.push(Message {
                role: Role::User,
                content: results,
            });
        }
        r
    }

    #[test]
    fn the_conversation_end_is_always_marked_and_the_limit_holds() {
        let mut r = request(0, 0);
        place_breakpoints(&mut r, true, 1024);
        // Tools, system, the work, and the prompt as the conversation's end.
        assert_eq!(
            marks(&r),
            [
                Slot::Tools,
                Slot::System(0),
                Slot::Message(0, 0),
                Slot::Message(0, 1)
            ]
        );
        let mut r = request(3, 2);
        place_breakpoints(&mut r, true, 1024);
        let m = marks(&r);
        assert!(m.len() <= MAX_BREAKPOINTS, "{m:?}");
        assert_eq!(m.last(), Some(&Slot::Message(6, 1)));
    }

    #[test]
    fn a_turn_past_the_lookback_also_marks_where_the_last_request_ended() {
        let mut r = request(2, 12);
        place_breakpoints(&mut r, true, 1024);
        let m = marks(&r);
        assert!(m.contains(&Slot::Message(2, 11)), "{m:?}");
        assert_eq!(m.last(), Some(&Slot::Message(4, 11)));
        assert!(m.len() <= MAX_BREAKPOINTS);
        // Five marks: the tools' is given up first, the system prompt's covers it.
        assert!(!m.contains(&Slot::Tools), "{m:?}");
    }

    #[test]
    fn a_mark_below_the_minimum_is_never_sent() {
        // The tools alone (≈2,000 tokens) are under a 4,096-token minimum;
        // the system prompt (≈10,000) is over it.
        let mut r = request(0, 0);
        place_breakpoints(&mut r, true, 4096);
        let m = marks(&r);
        assert!(!m.contains(&Slot::Tools), "{m:?}");
        assert!(m.contains(&Slot::System(0)), "{m:?}");
        // A model with a minimum above the whole request: no mark at all.
        let mut r = request(0, 0);
        place_breakpoints(&mut r, true, 1_000_000);
        assert_eq!(marks(&r), []);
        assert!(!r.cache_tools);
    }

    #[test]
    fn marks_below_the_minimum_go_first() {
        let mut r = request(1, 1);
        r.system = vec![SystemBlock::cached("short")];
        r.tools.clear();
        r.messages[0].content = vec![
            Block::cached_text("d".repeat(40_000)),
            Block::cached_text("x"),
            Block::text("review it"),
        ];
        // A fifth mark, to force a choice.
        r.messages[1].content.push(Block::cached_text("note"));
        place_breakpoints(&mut r, true, 4096);
        let m = marks(&r);
        assert!(!m.contains(&Slot::System(0)), "{m:?}");
        assert!(m.contains(&Slot::Message(0, 0)), "{m:?}");
    }

    #[test]
    fn without_rolling_the_callers_marks_stay() {
        let mut r = request(2, 1);
        place_breakpoints(&mut r, false, 1024);
        assert_eq!(
            marks(&r),
            [Slot::Tools, Slot::System(0), Slot::Message(0, 0)]
        );
    }
}
