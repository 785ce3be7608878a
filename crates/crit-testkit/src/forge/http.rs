//! The HTTP side the two stand-ins share: a request as a route sees it, an
//! answer, pagination as each forge does it, and query-string decoding.

use std::collections::BTreeMap;

use serde_json::Value;

/// A request as a forge route sees it.
pub(crate) struct Call {
    pub method: String,
    pub path: String,
    pub query: BTreeMap<String, String>,
    pub body: Value,
}

impl Call {
    pub fn segments(&self) -> Vec<&str> {
        self.path.split('/').filter(|s| !s.is_empty()).collect()
    }

    /// A parameter from the query string or the JSON body.
    pub fn param(&self, name: &str) -> Option<String> {
        self.query
            .get(name)
            .cloned()
            .or_else(|| match self.body.get(name)? {
                Value::String(s) => Some(s.clone()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
    }
}

/// A route's answer.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// A plain-text body instead (GitLab's throttle answers "Retry later").
    pub text: Option<String>,
}

impl Answer {
    pub fn json(status: u16, body: Value) -> Self {
        Answer {
            status,
            headers: Vec::new(),
            body,
            text: None,
        }
    }

    pub fn text(status: u16, text: &str) -> Self {
        Answer {
            text: Some(text.to_string()),
            ..Answer::json(status, Value::Null)
        }
    }

    pub fn header(mut self, name: &str, value: impl ToString) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// `a=1&b=x%20y` → map, percent-decoded (`+` as a space).
pub(crate) fn parse_query(q: &str) -> BTreeMap<String, String> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// Percent-decoding of a path segment or query value.
pub(crate) fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// How a forge paginates a list.
#[derive(Clone, Copy)]
pub(crate) enum Paging {
    /// `per_page` (default 30, at most 100) and `page`; a `Link` header
    /// with `next`, `last`, `first` and `prev`.
    Github,
    /// The same parameters (default 20); `x-page`, `x-per-page`,
    /// `x-next-page`, `x-prev-page`, `x-total`, `x-total-pages` and `Link`.
    Gitlab,
}

/// One page of `items` for `call`.
pub(crate) fn page(items: Vec<Value>, call: &Call, base: &str, paging: Paging) -> Answer {
    let default = match paging {
        Paging::Github => 30,
        Paging::Gitlab => 20,
    };
    let per_page = call
        .query
        .get("per_page")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
        .min(100);
    let page = call
        .query
        .get("page")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(1);
    let total = items.len();
    let pages = total.div_ceil(per_page).max(1);
    let chunk: Vec<Value> = items
        .into_iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .collect();
    let link = |n: usize| format!("{base}{}?per_page={per_page}&page={n}", call.path);
    let mut rels = Vec::new();
    if page < pages {
        rels.push(format!("<{}>; rel=\"next\"", link(page + 1)));
    }
    if page > 1 {
        rels.push(format!("<{}>; rel=\"prev\"", link(page - 1)));
    }
    rels.push(format!("<{}>; rel=\"first\"", link(1)));
    rels.push(format!("<{}>; rel=\"last\"", link(pages)));
    let mut answer = Answer::json(200, Value::Array(chunk));
    match paging {
        Paging::Github => {
            // GitHub sends no Link header when everything fits on one page.
            if pages > 1 {
                answer = answer.header("link", rels.join(", "));
            }
        }
        Paging::Gitlab => {
            let next = if page < pages {
                (page + 1).to_string()
            } else {
                String::new()
            };
            let prev = if page > 1 {
                (page - 1).to_string()
            } else {
                String::new()
            };
            answer = answer
                .header("link", rels.join(", "))
                .header("x-page", page)
                .header("x-per-page", per_page)
                .header("x-next-page", next)
                .header("x-prev-page", prev)
                .header("x-total", total)
                .header("x-total-pages", pages);
        }
    }
    answer
}

/// A made-up but stable timestamp for the `n`th event.
pub(crate) fn timestamp(n: u64) -> String {
    let secs = n % 60;
    let mins = (n / 60) % 60;
    format!("2026-01-01T00:{mins:02}:{secs:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode() {
        let q = parse_query("a=1&b=x%20y&c=a+b&d&e=%zz&f=%2");
        assert_eq!(q["a"], "1");
        assert_eq!(q["b"], "x y");
        assert_eq!(q["c"], "a b");
        assert_eq!(q["d"], "");
        assert_eq!(q["e"], "%zz");
        assert_eq!(q["f"], "%2");
        assert_eq!(decode("group%2Fproject"), "group/project");
        assert_eq!(decode("%aé%"), "%aé%");
    }
}
