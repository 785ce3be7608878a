//! Stand-ins for the GitHub and GitLab REST APIs on `127.0.0.1`: the
//! documented shapes (field names, status codes, JSON nesting, pagination
//! headers), state kept between requests (reviews, comments, notes,
//! descriptions), every request recorded with its credential left out, the
//! raw bytes of every connection kept, and faults scripted (rate limits,
//! missing permission, server errors).
//!
//! A request is answered in this order: a wrong or missing token is 401; a
//! scripted [`Fault`] that matches is answered (and used up); a token
//! without access to the repository is 404, a read-only one 403 on any
//! write; then the route.

pub mod github;
pub mod gitlab;
mod http;
mod hunks;
mod repo;

pub(crate) use http::{Answer, Call, Paging, decode, page, parse_query, timestamp};

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

use crate::listen::{Running, Wire};
use crate::server::lock;

/// Whether a request carried the token the server expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenSeen {
    Expected,
    Wrong,
    Missing,
}

/// What the server's token may do in the repository or project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read and write (a workflow token with `pull-requests: write`, a
    /// Developer's token).
    Write,
    /// Read only: every write is 403 (a fork's pull request, a Reporter).
    Read,
    /// Cannot see it: 404 for everything under it.
    None,
}

/// One request the server answered.
#[derive(Debug, Clone)]
pub struct ForgeRequest {
    /// Arrival order, from 0.
    pub seq: u64,
    pub method: String,
    /// Without the query string.
    pub path: String,
    pub query: Option<String>,
    /// Names lower-case; the credential headers (`authorization`,
    /// `private-token`, `job-token`) are left out: see `token`.
    pub headers: BTreeMap<String, String>,
    pub token: TokenSeen,
    /// The body as JSON; `Value::Null` when empty, a string when not JSON.
    pub body: Value,
    /// Bytes of the request body and of the response body.
    pub request_bytes: usize,
    pub response_bytes: usize,
    pub status: u16,
}

impl ForgeRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// True for anything but GET and HEAD.
    pub fn is_write(&self) -> bool {
        !matches!(self.method.as_str(), "GET" | "HEAD")
    }
}

/// A scripted failure: answers the matching requests instead of the route,
/// as many times as asked (once by default).
#[derive(Debug, Clone)]
pub struct Fault {
    method: Option<String>,
    path_contains: Option<String>,
    times: usize,
    kind: FaultKind,
}

#[derive(Debug, Clone)]
pub(crate) enum FaultKind {
    /// GitHub: 403 secondary rate limit; GitLab: 429. With `retry-after`
    /// when `Some`.
    RateLimit {
        retry_after: Option<u64>,
    },
    /// The primary limit spent: remaining 0 and the reset time (Unix seconds).
    RateLimitUntil {
        reset_at: u64,
    },
    Forbidden,
    NotFound,
    ServerError(u16),
    /// The route does the work, then the answer is this 5xx.
    ServerErrorAfter(u16),
    /// Answered by the route, with a `Link` `rel="next"` to this URL.
    NextLink(String),
    /// The forge's "cannot place this comment" answer (GitHub 422, GitLab 400).
    Invalid,
}

impl Fault {
    fn new(kind: FaultKind) -> Self {
        Fault {
            method: None,
            path_contains: None,
            times: 1,
            kind,
        }
    }

    /// A rate limit with `retry-after: SECS` (GitHub's secondary limit is a
    /// 403, GitLab's a 429).
    pub fn rate_limit(retry_after_secs: u64) -> Self {
        Self::new(FaultKind::RateLimit {
            retry_after: Some(retry_after_secs),
        })
    }

    /// GitHub's secondary rate limit without `retry-after` (the client is to
    /// wait at least a minute).
    pub fn secondary_rate_limit() -> Self {
        Self::new(FaultKind::RateLimit { retry_after: None })
    }

    /// The primary rate limit spent until `reset_at` (Unix seconds).
    pub fn rate_limit_until(reset_at: u64) -> Self {
        Self::new(FaultKind::RateLimitUntil { reset_at })
    }

    /// 403: the token may not do this.
    pub fn forbidden() -> Self {
        Self::new(FaultKind::Forbidden)
    }

    /// 404.
    pub fn not_found() -> Self {
        Self::new(FaultKind::NotFound)
    }

    /// The forge's answer to a comment it cannot place: GitHub's 422 "Line
    /// could not be resolved", GitLab's 400 about the line code.
    pub fn invalid() -> Self {
        Self::new(FaultKind::Invalid)
    }

    /// A 5xx with the forge's error body.
    pub fn server_error(status: u16) -> Self {
        Self::new(FaultKind::ServerError(status))
    }

    /// A 5xx after the request was done (a gateway that gave up on a write
    /// that went through): the client cannot tell it from one that did not.
    pub fn server_error_after(status: u16) -> Self {
        Self::new(FaultKind::ServerErrorAfter(status))
    }

    /// The normal answer, whose `Link` header sends the client's next page
    /// request to `url` (another host: a client must not follow it with its
    /// token).
    pub fn next_link(url: impl Into<String>) -> Self {
        Self::new(FaultKind::NextLink(url.into()))
    }

    /// Only requests with this method.
    pub fn on(mut self, method: &str, path_contains: &str) -> Self {
        self.method = Some(method.to_ascii_uppercase());
        self.path_contains = Some(path_contains.to_string());
        self
    }

    /// Answer this many matching requests.
    pub fn times(mut self, n: usize) -> Self {
        self.times = n;
        self
    }

    fn matches(&self, method: &str, path: &str) -> bool {
        self.times > 0
            && self.method.as_deref().is_none_or(|m| m == method)
            && self
                .path_contains
                .as_deref()
                .is_none_or(|p| path.contains(p))
    }
}

/// One file of a pull or merge request's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: String,
    /// The path before a rename.
    pub previous_path: Option<String>,
    /// `added`, `modified`, `removed` or `renamed`.
    pub status: String,
    /// The unified diff's hunks (`@@ -a,b +c,d @@` and the lines); `None`
    /// for a binary or too large file, which has no lines to comment on.
    pub patch: Option<String>,
}

impl ChangedFile {
    /// A modified file with this patch.
    pub fn modified(path: impl Into<String>, patch: impl Into<String>) -> Self {
        ChangedFile {
            path: path.into(),
            previous_path: None,
            status: "modified".into(),
            patch: Some(patch.into()),
        }
    }

    /// A new file holding `text`: one hunk adding every line.
    pub fn added(path: impl Into<String>, text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut patch = format!("@@ -0,0 +1,{} @@", lines.len());
        for l in &lines {
            patch.push_str("\n+");
            patch.push_str(l);
        }
        ChangedFile {
            path: path.into(),
            previous_path: None,
            status: "added".into(),
            patch: Some(patch),
        }
    }

    /// Lines added and removed, from the patch.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let shown = self.patch.as_deref().map(hunks::shown).unwrap_or_default();
        let added = shown.iter().filter(|s| s.old.is_none()).count();
        let removed = shown.iter().filter(|s| s.new.is_none()).count();
        (added, removed)
    }
}

/// What differs between the two forges around their routes.
pub(crate) trait Forge: Send + 'static {
    /// The token a request carries.
    fn token(headers: &axum::http::HeaderMap) -> Option<String>;
    fn unauthorized() -> Answer;
    fn forbidden() -> Answer;
    fn not_found() -> Answer;
    fn fault(kind: &FaultKind) -> Answer;
    /// Whether `path` is under the repository or project (and so subject to
    /// [`Access`]).
    fn scoped(&self, path: &str) -> bool;
    fn route(&mut self, call: &Call, base: &str, access: Access) -> Answer;
}

/// Credential headers, left out of the record.
const CREDENTIALS: [&str; 3] = ["authorization", "private-token", "job-token"];

/// A forge's state with the server's bookkeeping around it.
pub(crate) struct Desk<F> {
    pub forge: Mutex<F>,
    token: String,
    access: Mutex<Access>,
    faults: Mutex<Vec<Fault>>,
    records: Mutex<Vec<ForgeRequest>>,
    seq: AtomicU64,
    base: String,
}

impl<F: Forge> Desk<F> {
    fn answer(&self, call: &Call, token: TokenSeen) -> Answer {
        if token != TokenSeen::Expected {
            return F::unauthorized();
        }
        let fault = {
            let mut faults = lock(&self.faults);
            faults
                .iter_mut()
                .find(|f| f.matches(&call.method, &call.path))
                .map(|f| {
                    f.times -= 1;
                    f.kind.clone()
                })
        };
        let mut forge = lock(&self.forge);
        let access = *lock(&self.access);
        if forge.scoped(&call.path) {
            match access {
                Access::None => return F::not_found(),
                Access::Read if call.method != "GET" => return F::forbidden(),
                _ => {}
            }
        }
        match fault {
            Some(FaultKind::NextLink(url)) => {
                let mut a = forge.route(call, &self.base, access);
                a.headers.retain(|(n, _)| !n.eq_ignore_ascii_case("link"));
                a.header("link", format!("<{url}>; rel=\"next\""))
            }
            Some(FaultKind::ServerErrorAfter(status)) => {
                let _ = forge.route(call, &self.base, access);
                F::fault(&FaultKind::ServerError(status))
            }
            Some(kind) => F::fault(&kind),
            None => forge.route(call, &self.base, access),
        }
    }
}

/// The running server and its desk; what the public server types hold.
pub(crate) struct Served<F> {
    pub running: Running,
    pub desk: Arc<Desk<F>>,
}

impl<F: Forge> Served<F> {
    pub fn start(token: &str, access: Access, make: impl FnOnce(&str) -> F) -> Self {
        let listener = match crate::listen::bind() {
            Ok(l) => l,
            Err(e) => panic!("crit-testkit: cannot bind a port for the forge stand-in: {e}"),
        };
        let base = match listener.local_addr() {
            Ok(a) => format!("http://{a}"),
            Err(e) => panic!("crit-testkit: no local address: {e}"),
        };
        let desk = Arc::new(Desk {
            forge: Mutex::new(make(&base)),
            token: token.to_string(),
            access: Mutex::new(access),
            faults: Mutex::new(Vec::new()),
            records: Mutex::new(Vec::new()),
            seq: AtomicU64::new(0),
            base,
        });
        let app = axum::Router::new()
            .fallback(handle::<F>)
            .with_state(Arc::clone(&desk));
        match crate::listen::serve(listener, app, "crit-testkit-forge") {
            Ok(running) => Served { running, desk },
            Err(e) => panic!("crit-testkit: cannot start the forge stand-in: {e}"),
        }
    }

    pub fn url(&self) -> String {
        self.desk.base.clone()
    }

    pub fn fail(&self, fault: Fault) {
        lock(&self.desk.faults).push(fault);
    }

    pub fn set_access(&self, access: Access) {
        *lock(&self.desk.access) = access;
    }

    pub fn requests(&self) -> Vec<ForgeRequest> {
        let mut all = lock(&self.desk.records).clone();
        all.sort_by_key(|r| r.seq);
        all
    }

    pub fn wire(&self) -> &Wire {
        &self.running.wire
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut F) -> T) -> T {
        f(&mut lock(&self.desk.forge))
    }
}

async fn handle<F: Forge>(State(desk): State<Arc<Desk<F>>>, req: Request) -> Response {
    let seq = desk.seq.fetch_add(1, Ordering::SeqCst);
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024 * 1024)
        .await
        .unwrap_or_default();
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    let body = if raw.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&raw).unwrap_or(Value::String(raw))
    };
    let token = match F::token(&parts.headers) {
        None => TokenSeen::Missing,
        Some(t) if t == desk.token => TokenSeen::Expected,
        Some(_) => TokenSeen::Wrong,
    };
    let mut headers = BTreeMap::new();
    for (name, value) in &parts.headers {
        if CREDENTIALS.contains(&name.as_str()) {
            continue;
        }
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers
            .entry(name.as_str().to_string())
            .and_modify(|v: &mut String| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let call = Call {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parse_query(parts.uri.query().unwrap_or("")),
        body,
    };
    let answer = desk.answer(&call, token);
    let (text, content_type) = match (&answer.text, &answer.body) {
        (Some(t), _) => (t.clone(), "text/plain"),
        (None, Value::Null) => (String::new(), "application/json; charset=utf-8"),
        (None, body) => (body.to_string(), "application/json; charset=utf-8"),
    };
    lock(&desk.records).push(ForgeRequest {
        seq,
        method: call.method,
        path: call.path,
        query: parts.uri.query().map(str::to_string),
        headers,
        token,
        body: call.body,
        request_bytes: bytes.len(),
        response_bytes: text.len(),
        status: answer.status,
    });
    let mut response = Response::new(axum::body::Body::from(text));
    *response.status_mut() = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let out = response.headers_mut();
    out.insert("content-type", HeaderValue::from_static(content_type));
    for (name, value) in answer.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            out.append(n, v);
        }
    }
    response
}
