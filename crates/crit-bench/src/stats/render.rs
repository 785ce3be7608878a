//! `crit stats` for people: aligned tables, a sparkline per day.

use std::fmt::Write;

use super::{Count, Stats};
use crit_prompt::render::cost;

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// One character per value: `·` for nothing, else a bar scaled to the largest.
pub(super) fn sparkline(values: &[f64]) -> String {
    let max = values.iter().copied().fold(0.0_f64, f64::max);
    values
        .iter()
        .map(|v| {
            if *v <= 0.0 || max <= 0.0 {
                '·'
            } else {
                let i = ((v / max) * (BARS.len() - 1) as f64).round() as usize;
                BARS[i.min(BARS.len() - 1)]
            }
        })
        .collect()
}

/// `850ms`, `4.2s`, `2m05s`.
pub(super) fn duration(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1_000.0)
    } else {
        format!("{}m{:02}s", ms / 60_000, ms % 60_000 / 1_000)
    }
}

/// `950`, `2.8K`, `1.2M`.
pub(super) fn count(n: u64) -> String {
    if n < 1_000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{:.1}K", n as f64 / 1_000.0)
    } else {
        format!("{:.1}M", n as f64 / 1_000_000.0)
    }
}

/// A table: the first column left-aligned, the others right-aligned, except
/// the columns listed in `left`.
fn table(rows: &[Vec<String>], left: &[usize]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |c: usize| {
        rows.iter()
            .filter_map(|r| r.get(c))
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..cols).map(width).collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            let pad = widths[c].saturating_sub(cell.chars().count());
            if c > 0 {
                line.push_str("  ");
            }
            if c == 0 || left.contains(&c) {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The whole report.
pub fn terminal(s: &Stats) -> String {
    let mut out = format!(
        "crit stats: {} to {} ({} day{}), {} review{}\n",
        s.since,
        s.until,
        s.days.len(),
        if s.days.len() == 1 { "" } else { "s" },
        s.reviews,
        if s.reviews == 1 { "" } else { "s" }
    );
    if s.reviews == 0 {
        out.push_str("\nNo reviews in this period.\n");
        skipped(&mut out, s);
        return out;
    }
    let mut rows = vec![vec![
        "Reviews".to_string(),
        "count".into(),
        "outcomes".into(),
        "gate failed".into(),
        "p50".into(),
        "p95".into(),
        "per day".into(),
    ]];
    for k in &s.kinds {
        let mut outcomes: Vec<(&String, &usize)> = k.outcomes.iter().collect();
        outcomes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let per_day: Vec<f64> = k.per_day.iter().map(|n| *n as f64).collect();
        rows.push(vec![
            k.kind.clone(),
            k.reviews.to_string(),
            outcomes
                .iter()
                .map(|(o, n)| format!("{o} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
            if k.kind == "prompt" {
                "-".into()
            } else {
                k.gate_failures.to_string()
            },
            duration(k.duration_p50_ms),
            duration(k.duration_p95_ms),
            sparkline(&per_day),
        ]);
    }
    out.push('\n');
    out.push_str(&table(&rows, &[2, 6]));

    let sevs = ["P0", "P1", "P2", "P3", "info"];
    let mut rows = vec![
        ["Findings"]
            .iter()
            .chain(sevs.iter())
            .chain(["total"].iter())
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
    ];
    for k in s.kinds.iter().filter(|k| k.findings_total > 0) {
        let mut row = vec![k.kind.clone()];
        row.extend(
            sevs.iter()
                .map(|sev| k.findings.get(*sev).copied().unwrap_or(0).to_string()),
        );
        row.push(k.findings_total.to_string());
        rows.push(row);
    }
    if rows.len() > 1 {
        out.push('\n');
        out.push_str(&table(&rows, &[]));
    }

    if let Some(p) = s.kinds.iter().find(|k| !k.failures.is_empty()) {
        let list: Vec<String> = p.failures.iter().map(|(w, n)| format!("{w} {n}")).collect();
        let _ = writeln!(
            out,
            "\nPrompt reviews that failed open: {}",
            list.join(", ")
        );
    }

    if !s.acceptance.is_empty() {
        let mut rows = vec![vec![
            "Refined prompts, by reviewer".to_string(),
            "approved".into(),
            "edited".into(),
            "rejected".into(),
            "accepted".into(),
        ]];
        for a in &s.acceptance {
            rows.push(vec![
                a.reviewer.clone(),
                a.approved.to_string(),
                a.edited.to_string(),
                a.rejected.to_string(),
                format!("{:.0}%", a.rate * 100.0),
            ]);
        }
        out.push('\n');
        out.push_str(&table(&rows, &[]));
    }

    let mut rows = vec![vec![
        "Per day".to_string(),
        "reviews".into(),
        "tokens in".into(),
        "tokens out".into(),
        "cost".into(),
    ]];
    let (mut r, mut i, mut o, mut c) = (0, 0, 0, 0.0);
    for d in s.per_day.iter().filter(|d| d.reviews > 0) {
        rows.push(vec![
            d.date.clone(),
            d.reviews.to_string(),
            count(d.input_tokens),
            count(d.output_tokens),
            cost(d.cost_usd),
        ]);
        r += d.reviews;
        i += d.input_tokens;
        o += d.output_tokens;
        c += d.cost_usd;
    }
    let costs: Vec<f64> = s.per_day.iter().map(|d| d.cost_usd).collect();
    rows.push(vec![
        "total".into(),
        r.to_string(),
        count(i),
        count(o),
        cost(c),
    ]);
    out.push('\n');
    out.push_str(&table(&rows, &[]));
    let _ = writeln!(out, "cost per day  {}", sparkline(&costs));

    tops(&mut out, "Most frequent rules", &s.top_rules);
    tops(
        &mut out,
        "Most frequent findings (fingerprint)",
        &s.top_fingerprints,
    );
    skipped(&mut out, s);
    out
}

fn tops(out: &mut String, title: &str, items: &[Count]) {
    if items.is_empty() {
        return;
    }
    let mut rows = vec![vec![title.to_string(), "times".into()]];
    rows.extend(items.iter().map(|c| {
        vec![
            crit_core::terminal::sanitize(&c.name).into_owned(),
            c.count.to_string(),
        ]
    }));
    out.push('\n');
    out.push_str(&table(&rows, &[]));
}

fn skipped(out: &mut String, s: &Stats) {
    if s.skipped_lines > 0 {
        let _ = writeln!(
            out,
            "\n{} line{} in the audit logs could not be read and {} skipped.",
            s.skipped_lines,
            if s.skipped_lines == 1 { "" } else { "s" },
            if s.skipped_lines == 1 { "was" } else { "were" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparklines_scale_to_the_largest() {
        assert_eq!(sparkline(&[0.0, 1.0, 4.0, 8.0]), "·▂▅█");
        assert_eq!(sparkline(&[0.0, 0.0]), "··");
        assert_eq!(sparkline(&[]), "");
    }

    #[test]
    fn durations_and_counts() {
        assert_eq!(duration(850), "850ms");
        assert_eq!(duration(4_200), "4.2s");
        assert_eq!(duration(125_000), "2m05s");
        assert_eq!(count(950), "950");
        assert_eq!(count(2_800), "2.8K");
    }
}
