//! Record and replay: [`Recorder`] wraps any model and writes each exchange as a
//! readable JSON cassette; [`Replay`] answers from those cassettes, matching on the
//! normalized request.
//!
//! A cassette is `DIR/<key>.json` (`<key>-2.json`, … for repeats of the same
//! request, replayed in order), where `key` is a stable hash (FNV-1a 64 over the
//! request as canonical JSON, keys sorted). Since requests are normalized, a
//! cassette recorded against one backend replays for any. Secrets are redacted
//! in what is written and in what the key is computed from, so redaction never
//! breaks a replay.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crit_core::redact::Redactor;

use crate::error::LlmError;
use crate::model::{EventStream, Model, stream_of};
use crate::protocol::{Capabilities, ModelEvent, ModelRequest, ModelResponse};

pub const CASSETTE_VERSION: u32 = 1;

/// One recorded exchange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cassette {
    pub crit_cassette: u32,
    pub key: String,
    /// The backend it was recorded against (for people; not matched on).
    pub backend: String,
    pub request: ModelRequest,
    pub response: ModelResponse,
}

/// The stable key of a request: of the request as its cassette holds it, with
/// secrets redacted, so a secret never decides whether a cassette matches.
pub fn request_key(req: &ModelRequest) -> String {
    let mut v = serde_json::to_value(req).unwrap_or(Value::Null);
    Redactor::process().redact_json(&mut v);
    let mut s = String::new();
    canonical(&v, &mut s);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// JSON with object keys sorted, whatever map order serde_json was built with.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let sorted: BTreeMap<&String, &Value> = m.iter().collect();
            out.push('{');
            for (i, (k, v)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Wraps a model and records every completed exchange into a directory.
pub struct Recorder {
    inner: Arc<dyn Model>,
    dir: PathBuf,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("inner", &self.inner.name())
            .field("dir", &self.dir)
            .finish()
    }
}

impl Recorder {
    pub fn new(inner: Arc<dyn Model>, dir: impl Into<PathBuf>) -> Result<Self, LlmError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|e| LlmError::Replay {
            message: format!("cannot create {}: {e}", dir.display()),
        })?;
        Ok(Recorder { inner, dir })
    }
}

fn write_cassette(dir: &Path, c: &Cassette) -> Result<PathBuf, LlmError> {
    let fs = |e: crit_os::write::FsError| LlmError::Replay {
        message: format!("cannot write a cassette in {}: {e}", dir.display()),
    };
    let encode = |e: serde_json::Error| LlmError::Replay {
        message: format!("cannot encode a cassette: {e}"),
    };
    // Cassettes are shared and committed: no secret goes in one.
    let mut value = serde_json::to_value(c).map_err(encode)?;
    Redactor::process().redact_json(&mut value);
    let text = serde_json::to_string_pretty(&value).map_err(encode)? + "\n";
    // The directory may be a checkout's: the confined writer creates each
    // cassette as a new file whole (temp file, then link), never follows a
    // symlink planted under a cassette's name, and never overwrites one.
    let root = crit_os::write::Root::open(dir).map_err(fs)?;
    for n in 1..=MAX_SAME_KEY {
        let name = if n == 1 {
            format!("{}.json", c.key)
        } else {
            format!("{}-{n}.json", c.key)
        };
        if root.create_new(&name, text.as_bytes(), 0o644).map_err(fs)? {
            return Ok(dir.join(name));
        }
    }
    Err(LlmError::Replay {
        message: format!(
            "{} already holds {MAX_SAME_KEY} cassettes of this exchange ({}.json…); clear it",
            dir.display(),
            c.key
        ),
    })
}

/// Recordings of one identical exchange kept side by side at most.
const MAX_SAME_KEY: u32 = 1000;

impl Model for Recorder {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn headroom(&self) -> Option<crate::ratelimit::Headroom> {
        self.inner.headroom()
    }

    fn stream<'a>(
        &'a self,
        req: &'a ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(async move {
            let inner = self.inner.stream(req, cancel).await?;
            let mut acc = ModelResponse::default();
            let mut pending = Some(Cassette {
                crit_cassette: CASSETTE_VERSION,
                key: request_key(req),
                backend: self.inner.name().to_string(),
                request: req.clone(),
                response: ModelResponse::default(),
            });
            let dir = self.dir.clone();
            let stream = inner.map(move |item| {
                let ev = item?;
                acc.apply(ev.clone());
                if matches!(ev, ModelEvent::MessageEnd { .. })
                    && let Some(mut c) = pending.take()
                {
                    c.response = std::mem::take(&mut acc);
                    let path = write_cassette(&dir, &c)?;
                    tracing::debug!(path = %path.display(), "recorded a cassette");
                }
                Ok(ev)
            });
            Ok(Box::pin(stream) as EventStream)
        })
    }
}

/// Answers from recorded cassettes.
#[derive(Debug)]
pub struct Replay {
    dir: PathBuf,
    /// Per key: (file, cassette) in recording order.
    cassettes: BTreeMap<String, Vec<(PathBuf, Cassette)>>,
    /// How many times each key was served (repeats advance, the last one sticks).
    served: Mutex<BTreeMap<String, usize>>,
}

impl Replay {
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, LlmError> {
        let dir = dir.into();
        let err = |m: String| LlmError::Replay { message: m };
        let entries = std::fs::read_dir(&dir).map_err(|e| {
            err(format!(
                "cannot read the cassette directory {}: {e}",
                dir.display()
            ))
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        // `<key>-2.json` after `<key>.json`, then `-10` after `-9`.
        files.sort_by_key(|p| {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            match stem.split_once('-') {
                Some((k, n)) => (k.to_string(), n.parse::<u32>().unwrap_or(u32::MAX)),
                None => (stem, 1),
            }
        });
        let mut cassettes: BTreeMap<String, Vec<(PathBuf, Cassette)>> = BTreeMap::new();
        for f in files {
            let text = std::fs::read_to_string(&f)
                .map_err(|e| err(format!("cannot read {}: {e}", f.display())))?;
            let c: Cassette = serde_json::from_str(&text)
                .map_err(|e| err(format!("{} is not a crit cassette: {e}", f.display())))?;
            // Re-key from the request itself, so a hand-edited request still matches.
            cassettes
                .entry(request_key(&c.request))
                .or_default()
                .push((f, c));
        }
        Ok(Replay {
            dir,
            cassettes,
            served: Mutex::new(BTreeMap::new()),
        })
    }

    /// The recorded response for `req`, or an error naming the closest cassette.
    pub fn lookup(&self, req: &ModelRequest) -> Result<ModelResponse, LlmError> {
        let key = request_key(req);
        let Some(list) = self.cassettes.get(&key) else {
            return Err(self.mismatch(req, &key));
        };
        let mut served = self.served.lock().unwrap_or_else(|p| p.into_inner());
        let n = served.entry(key).or_insert(0);
        let (_, c) = &list[(*n).min(list.len() - 1)];
        *n += 1;
        Ok(c.response.clone())
    }

    fn mismatch(&self, req: &ModelRequest, key: &str) -> LlmError {
        let want = serde_json::to_value(req).unwrap_or(Value::Null);
        let closest = self
            .cassettes
            .values()
            .flatten()
            .map(|(path, c)| {
                let have = serde_json::to_value(&c.request).unwrap_or(Value::Null);
                let mut diffs = Vec::new();
                diff("$", &have, &want, &mut diffs);
                (diffs, path)
            })
            .min_by_key(|(d, _)| d.len());
        let message = match closest {
            None => format!(
                "no cassette matches this request (key {key}): {} holds no cassettes",
                self.dir.display()
            ),
            Some((diffs, path)) => {
                let first = diffs.first().map_or_else(String::new, |d| {
                    format!(
                        "at {}: recorded {}, requested {}",
                        d.path,
                        preview(&d.recorded),
                        preview(&d.requested)
                    )
                });
                format!(
                    "no cassette matches this request (key {key}) in {}; the closest is {}, which differs {first}{}",
                    self.dir.display(),
                    path.display(),
                    match diffs.len() {
                        0 | 1 => String::new(),
                        n => format!(" (and in {} more places)", n - 1),
                    }
                )
            }
        };
        LlmError::Replay { message }
    }
}

struct Difference {
    path: String,
    recorded: Option<Value>,
    requested: Option<Value>,
}

/// Every leaf path where `a` (recorded) and `b` (requested) differ, in order.
fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<Difference>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => diff(&p, va, vb, out),
                    (va, vb) => out.push(Difference {
                        path: p,
                        recorded: va.cloned(),
                        requested: vb.cloned(),
                    }),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let p = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(va), Some(vb)) => diff(&p, va, vb, out),
                    (va, vb) => out.push(Difference {
                        path: p,
                        recorded: va.cloned(),
                        requested: vb.cloned(),
                    }),
                }
            }
        }
        _ if a == b => {}
        _ => out.push(Difference {
            path: path.to_string(),
            recorded: Some(a.clone()),
            requested: Some(b.clone()),
        }),
    }
}

fn preview(v: &Option<Value>) -> String {
    match v {
        None => "(nothing)".into(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 80 {
                format!("{}…", s.chars().take(80).collect::<String>())
            } else {
                s
            }
        }
    }
}

impl Model for Replay {
    fn name(&self) -> &str {
        "replay"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::HTTP_MODEL
    }

    fn stream<'a>(
        &'a self,
        req: &'a ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(LlmError::Cancelled);
            }
            Ok(stream_of(self.lookup(req)?.to_events()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_stable_and_sensitive() {
        let a = ModelRequest::new("opus", 10).user("x");
        let b = ModelRequest::new("opus", 10).user("y");
        assert_eq!(request_key(&a), request_key(&a.clone()));
        assert_ne!(request_key(&a), request_key(&b));
        assert_eq!(request_key(&a).len(), 16);
    }

    #[test]
    fn canonical_sorts_keys() {
        let v: Value =
            serde_json::from_str(r#"{"b":1,"a":{"d":[1,{"z":1,"y":2}],"c":"é"}}"#).unwrap();
        let mut s = String::new();
        canonical(&v, &mut s);
        assert_eq!(s, r#"{"a":{"c":"é","d":[1,{"y":2,"z":1}]},"b":1}"#);
    }
}
