//! What Claude Code waits for on every prompt and every status-line refresh:
//! the `UserPromptSubmit` hook's decision on an event without `!!!` (and
//! with it), and the status line's read of its state file. Each must be a
//! tiny part of the 5 ms budget the whole process has (process start-up is
//! measured with hyperfine, see `benches/claude-code-hooks.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::SystemTime;

use crit_claude_code::event;
use crit_claude_code::state::{SessionState, Status, Subject};
use crit_claude_code::status;
use criterion::{Criterion, criterion_group, criterion_main};

/// An event as Claude Code 2.1 sends it, with a prompt of a few lines.
fn input(prompt: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": "28cc4a1e-9f0b-4d1c-8a51-1234567890ab",
        "transcript_path": "/home/u/.claude/projects/-home-u-project/28cc4a1e-9f0b-4d1c-8a51-1234567890ab.jsonl",
        "cwd": "/home/u/project",
        "prompt_id": "6504c3b2-1111-4222-8333-944455556666",
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    })
    .to_string()
    .into_bytes()
}

fn bench(c: &mut Criterion) {
    let text = "Refactor the settings page so the browser config section is its own component.\n"
        .repeat(8);
    let plain = input(&text);
    let bang = input(&format!("{text}!!!"));
    c.bench_function("decide: prompt without !!!", |b| {
        b.iter(|| event::decide(black_box(&plain)))
    });
    c.bench_function("decide: prompt with !!!", |b| {
        b.iter(|| event::decide(black_box(&bang)))
    });

    let dir = tempfile::tempdir().unwrap();
    let state = SessionState::new(
        dir.path().to_path_buf(),
        "28cc4a1e-9f0b-4d1c-8a51-1234567890ab",
    );
    let now = crit_core::timestamp::unix_secs(SystemTime::now());
    state
        .set_status(&Status {
            subject: Subject::Prompt,
            running: false,
            reviewers: 4,
            findings: 4,
            failed: None,
            at: now,
        })
        .unwrap();
    c.bench_function("status line: read the state, render the line", |b| {
        b.iter(|| status::line(black_box(&state).status().as_ref(), now))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
