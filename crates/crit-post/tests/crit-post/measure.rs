//! What one run costs on the wire for a 20-finding review: requests and
//! bytes, printed for the record and bounded so batching cannot regress.

use crit_core::{Finding, Location, ReviewResult, Severity, Verdict};
use crit_testkit::{GithubConfig, GitlabConfig};

use crate::support::*;

/// 20 findings: 16 on lines of the diff (4 with suggestions), 4 beside it.
fn twenty() -> ReviewResult {
    let mut r = ReviewResult::new("code", Verdict::Fail);
    r.summary = "Twenty findings of every kind.".into();
    let sev = [Severity::P0, Severity::P1, Severity::P2, Severity::P3];
    r.findings = (0..20u32)
        .map(|i| {
            let line = if i < 16 { 1 + i } else { 100 + i };
            let mut f = Finding::new(format!("Problem number {i} in the utility module"), sev[i as usize % 4], "correctness")
                .with_body("A paragraph of explanation, as a model writes one: what is wrong, why it matters, and what to do about it instead. ".repeat(3))
                .with_location(Location::lines("src/util.rs", line, line));
            if i % 4 == 0 && i < 16 {
                f = f.with_suggestion("fn util() -> Result<(), Error> { Ok(()) }");
            }
            f
        })
        .collect();
    r.cost_usd = Some(0.31);
    r
}

fn wire(connections: Vec<Vec<u8>>) -> usize {
    connections.iter().map(Vec::len).sum()
}

#[tokio::test]
async fn requests_and_bytes_of_a_twenty_finding_review() {
    let clock = TestClock::at(1_800_000_000);
    let gh = github_server(GithubConfig::default());
    let first = github(&gh, &clock, options())
        .post(&twenty())
        .await
        .unwrap();
    let first_wire = wire(gh.raw_connections());
    let second = github(&gh, &clock, options())
        .post(&twenty())
        .await
        .unwrap();
    let second_wire = wire(gh.raw_connections()) - first_wire;
    let answers: usize = gh.requests().iter().map(|r| r.response_bytes).sum();
    eprintln!(
        "GitHub, 20 findings: first run {} requests, {} B of bodies sent, {} B received, {} B on the wire in; second run {} requests, {} B sent, {} B received, {} B on the wire in ({} B of answers in both)",
        first.stats.requests,
        first.stats.bytes_sent,
        first.stats.bytes_received,
        first_wire,
        second.stats.requests,
        second.stats.bytes_sent,
        second.stats.bytes_received,
        second_wire,
        answers
    );
    assert_eq!(first.inline_posted, 16);
    assert_eq!(
        first.stats.requests, 7,
        "one review for all inline comments"
    );
    assert_eq!(second.stats.requests, 6, "lists, and the summary edited");

    let gl = gitlab_server(GitlabConfig::default());
    let first = gitlab(&gl, &clock, options())
        .post(&twenty())
        .await
        .unwrap();
    let first_wire = wire(gl.raw_connections());
    let second = gitlab(&gl, &clock, options())
        .post(&twenty())
        .await
        .unwrap();
    let second_wire = wire(gl.raw_connections()) - first_wire;
    eprintln!(
        "GitLab, 20 findings: first run {} requests, {} B sent, {} B received, {} B on the wire in; second run {} requests, {} B sent, {} B received, {} B on the wire in",
        first.stats.requests,
        first.stats.bytes_sent,
        first.stats.bytes_received,
        first_wire,
        second.stats.requests,
        second.stats.bytes_sent,
        second.stats.bytes_received,
        second_wire
    );
    assert_eq!(
        first.stats.requests,
        4 + 16 + 1,
        "GitLab has no batch: one discussion a comment"
    );
    assert_eq!(second.stats.requests, 5);
}
