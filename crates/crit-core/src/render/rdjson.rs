//! reviewdog's rdjson `DiagnosticResult`, so `reviewdog -f=rdjson` posts findings
//! as pull-request comments. Messages are Markdown [`crate::Printable`]s, since
//! reviewdog posts them as comment bodies.

use serde_json::{Value, json};

use super::{Level, RenderOptions, level, markdown, message, plain, plain_line};
use crate::{Finding, ReviewResult};

pub(super) fn render(result: &ReviewResult, options: &RenderOptions) -> String {
    let diagnostics: Vec<Value> = result
        .sorted_findings()
        .into_iter()
        .map(|f| diagnostic(f, options))
        .collect();
    let doc = json!({
        "source": {"name": options.tool_name, "url": options.tool_uri},
        "diagnostics": diagnostics,
    });
    super::pretty(&doc)
}

fn diagnostic(f: &Finding, options: &RenderOptions) -> Value {
    let severity = match level(f.severity) {
        Level::Error => "ERROR",
        Level::Warning => "WARNING",
        Level::Note => "INFO",
    };
    let mut d = json!({
        "message": markdown(&message(f)),
        "severity": severity,
        "source": {"name": plain_line(&format!("{}/{}", options.tool_name, f.reviewer))},
        "code": {"value": plain_line(&f.rule_id.clone().unwrap_or_else(|| f.severity.code().to_string()))},
        "location": {"path": plain(f.path().unwrap_or(""))},
    });
    if let Some(loc) = &f.location
        && let Some(start) = loc.start_line()
    {
        let end = loc.end_line().unwrap_or(start);
        d["location"]["range"] = json!({"start": {"line": start}, "end": {"line": end}});
        if let Some(text) = crate::suggestion::replacement(f) {
            // Line-wise (no columns): the lines are replaced whole.
            d["suggestions"] = json!([{
                "range": {"start": {"line": start}, "end": {"line": end}},
                "text": plain(&text),
            }]);
        }
    }
    d
}
