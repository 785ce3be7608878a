//! Fixtures: a change, the review results of its runs, a clock that waits
//! without sleeping, and posters pointed at the stand-ins.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crit_core::{Dismissed, Finding, Location, ReviewResult, Severity, Verdict};
use crit_llm::Secret;
use crit_post::{
    GithubContext, GithubPoster, GitlabContext, GitlabPoster, Pacer, Patience, PostOptions, Sleep,
};
use crit_testkit::{
    ChangedFile, GithubConfig, GithubServer, GitlabConfig, GitlabServer, MergeRequestSpec, PullSpec,
};

pub const HEAD: &str = "1111111111111111111111111111111111111111";
pub const HEAD2: &str = "2222222222222222222222222222222222222222";

/// `src/lib.rs`: lines 10-14 added after context lines 8-9; 15-16 context
/// (old lines 10-11).
pub const LIB_PATCH: &str = "@@ -8,4 +8,9 @@ impl Config {\n     pub fn port(&self) -> u16 {\n         let v = self.get(\"port\");\n+        let n = v.unwrap();\n+        let p = n.parse().unwrap();\n+        let q = p;\n+        let r = 8080;\n+        q\n     }\n }";

/// After the fix: the unwraps are gone.
pub const LIB_PATCH_FIXED: &str = "@@ -8,4 +8,9 @@ impl Config {\n     pub fn port(&self) -> u16 {\n         let v = self.get(\"port\");\n+        let n = v?;\n+        let p = n.parse()?;\n+        let q = p;\n+        let r = 8080;\n+        q\n     }\n }";

pub fn files(patch: &str) -> Vec<ChangedFile> {
    vec![
        ChangedFile::modified("src/lib.rs", patch),
        ChangedFile::added("src/util.rs", &"fn util() {}\n".repeat(30)),
    ]
}

pub fn unwrap_finding() -> Finding {
    Finding::new(
        "[P1] Unchecked unwrap on user input",
        Severity::P1,
        "correctness",
    )
    .with_body("A missing or malformed `port` panics the server.")
    .with_location(Location::lines("src/lib.rs", 10, 11))
    .with_suggestion("        let n = v?;\n        let p = n.parse()?;\n")
}

pub fn magic_finding() -> Finding {
    Finding::new("Magic number", Severity::P2, "style")
        .with_body("Name the default port.")
        .with_location(Location::lines("src/lib.rs", 13, 13))
}

pub fn outside_diff_finding() -> Finding {
    Finding::new("Config is never validated", Severity::P1, "architecture")
        .with_body("Nothing checks the whole config at startup.")
        .with_location(Location::lines("src/lib.rs", 40, 44))
}

pub fn general_finding() -> Finding {
    Finding::new("No tests for the new parsing", Severity::P3, "tests")
}

/// The first run's result: two findings on the diff, one beside it, one
/// general, one dismissed.
pub fn first_result() -> ReviewResult {
    let mut r = ReviewResult::new("code", Verdict::Fail);
    r.summary = "The new port parsing panics on bad input.".into();
    r.findings = vec![
        unwrap_finding(),
        magic_finding(),
        outside_diff_finding(),
        general_finding(),
    ];
    r.dismissed = vec![Dismissed {
        finding: Finding::new("Port may overflow", Severity::P2, "correctness"),
        cause: "not_confirmed".into(),
        reason: "u16 parsing rejects it".into(),
        proof: String::new(),
    }];
    r.cost_usd = Some(0.0421);
    r.apply_gate(crit_core::FailOn::default());
    r
}

/// After the fix: the unwrap finding is gone.
pub fn fixed_result() -> ReviewResult {
    let mut r = first_result();
    r.findings.remove(0);
    r.verdict = Verdict::Concerns;
    r
}

/// A clock that never sleeps: each wait is recorded and moves it on.
#[derive(Debug)]
pub struct TestClock {
    pub now: Mutex<SystemTime>,
    pub slept: Mutex<Vec<Duration>>,
}

impl TestClock {
    pub fn at(secs: u64) -> Arc<Self> {
        Arc::new(TestClock {
            now: Mutex::new(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)),
            slept: Mutex::new(Vec::new()),
        })
    }

    pub fn slept(&self) -> Vec<Duration> {
        self.slept.lock().unwrap().clone()
    }
}

impl Pacer for TestClock {
    fn now(&self) -> SystemTime {
        *self.now.lock().unwrap()
    }

    fn sleep(&self, wait: Duration) -> Sleep<'_> {
        self.slept.lock().unwrap().push(wait);
        *self.now.lock().unwrap() += wait;
        Box::pin(std::future::ready(()))
    }
}

/// Options without GitHub's pause between writes, so recorded waits are
/// only the ones a test provokes.
pub fn options() -> PostOptions {
    PostOptions {
        patience: Some(Patience {
            min_write_interval: Duration::ZERO,
            ..Patience::github()
        }),
        ..PostOptions::default()
    }
}

pub fn github_server(cfg: GithubConfig) -> GithubServer {
    let s = GithubServer::start(cfg);
    s.add_pull(PullSpec {
        number: 7,
        title: "Read the port from the config".into(),
        body: Some("This reads the port.\n\nCloses the port ticket.".into()),
        head_sha: HEAD.into(),
        base_sha: "0000000000000000000000000000000000000000".into(),
        files: files(LIB_PATCH),
    });
    s
}

pub fn github_ctx(s: &GithubServer, token: &str) -> GithubContext {
    GithubContext {
        api_url: s.url(),
        graphql_url: s.graphql_url(),
        owner: "octo-org".into(),
        repo: "hello-world".into(),
        number: 7,
        head_sha: Some(HEAD.into()),
        token: Secret::new(token),
        token_source: "GITHUB_TOKEN".into(),
    }
}

pub fn github(s: &GithubServer, clock: &Arc<TestClock>, options: PostOptions) -> GithubPoster {
    let ctx = github_ctx(s, &GithubConfig::default().token);
    GithubPoster::with_pacer(ctx, options, clock.clone()).unwrap()
}

pub fn gitlab_server(cfg: GitlabConfig) -> GitlabServer {
    let s = GitlabServer::start(cfg);
    s.add_merge_request(MergeRequestSpec {
        iid: 3,
        title: "Read the port from the config".into(),
        description: "This reads the port.".into(),
        base_sha: "0000000000000000000000000000000000000000".into(),
        start_sha: "0000000000000000000000000000000000000000".into(),
        head_sha: HEAD.into(),
        files: files(LIB_PATCH),
    });
    s
}

pub fn gitlab_ctx(s: &GitlabServer, token: &str) -> GitlabContext {
    GitlabContext {
        api_url: s.api_url(),
        project: "4242".into(),
        iid: 3,
        head_sha: None,
        token: Secret::new(token),
        token_source: "GITLAB_TOKEN".into(),
    }
}

pub fn gitlab(s: &GitlabServer, clock: &Arc<TestClock>, options: PostOptions) -> GitlabPoster {
    let ctx = gitlab_ctx(s, &GitlabConfig::default().token);
    GitlabPoster::with_pacer(ctx, options, clock.clone()).unwrap()
}

/// `METHOD path` of each request, in order.
pub fn calls(requests: &[crit_testkit::ForgeRequest]) -> Vec<String> {
    requests
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}
