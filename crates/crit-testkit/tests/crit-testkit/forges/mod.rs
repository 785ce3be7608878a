//! The GitHub and GitLab stand-ins, seen through plain reqwest: the
//! documented shapes, state between requests, validation a client can trip,
//! pagination, scripted faults, and the record of what was sent.

mod conversation;
mod github;
mod gitlab;

use serde_json::Value;

pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder().build().unwrap()
}

/// Status, headers (lower-case names) and JSON body (or the text as a
/// string) of one answer.
pub struct Got {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Got {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

pub async fn send(req: reqwest::RequestBuilder) -> Got {
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Got {
        status,
        headers,
        body,
    }
}

/// Two hunks: lines 1-4 of the new file (2 and 3 added, 1 and 4 context),
/// then 20-22 (21 added).
pub const PATCH: &str = "@@ -1,2 +1,4 @@\n fn main() {\n+    let a = 1;\n+    let b = 2;\n }\n@@ -18,2 +20,3 @@ fn other()\n x\n+y\n z";
