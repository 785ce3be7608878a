//! The report for people: the configurations side by side, then each one's
//! scores per severity and per case. Names and reasons come from the corpus,
//! the configuration files and the models, so every one of them is printed
//! through crit's printable type.

use crit_core::{Dest, Printable};

use crate::judge::JudgeStyle;
use crate::report::{
    BenchReport, CaseReport, CaseStatus, ConfigReport, JudgeSpend, Scoring, Spend,
};
use crate::score::Score;

/// The whole report as a terminal table.
pub fn terminal(r: &BenchReport) -> String {
    let style = match r.judge.style {
        JudgeStyle::Crit => "",
        JudgeStyle::Martian => "the benchmark's judge, ",
    };
    let mut out = format!(
        "corpus {} ({} case{}); judge {} ({}{}), prompt {}\n\n",
        text(&r.corpus),
        r.cases,
        plural(r.cases),
        text(&r.judge.model),
        style,
        text(&r.judge.source),
        r.judge.prompt_version
    );
    let both = r.configurations.iter().any(|c| c.scoring.len() > 1);
    let mut rows = vec![head(&[
        "configuration",
        "model",
        "precision",
        "recall",
        "f1",
        "tp",
        "fp",
        "fn",
        "cases",
        "tokens",
        "cost",
        "time",
    ])];
    if both {
        rows[0].insert(2, "scoring".into());
    }
    for c in &r.configurations {
        for (i, block) in c.scoring.iter().enumerate() {
            let first = i == 0;
            let mut row = match first {
                true => vec![text(&c.name), text(&c.settings.model)],
                false => vec![String::new(), String::new()],
            };
            if both {
                row.push(scoring(block.scoring).into());
            }
            row.extend(score_cells(&block.overall));
            row.push(format!(
                "{}/{}",
                block.cases_scored,
                c.cases_complete + c.cases_incomplete
            ));
            if first {
                row.push(tokens(&c.review, &c.judge));
                row.push(cost(&c.review, &c.judge));
                row.push(seconds(c.duration_ms));
            }
            rows.push(row);
        }
    }
    out.push_str(&table(&rows));
    if both {
        out.push_str(
            "\nstrict: crit's one-to-one matching (a finding serves one golden comment); cases the judge could not fully decide are left out.\n\
             martian: the benchmark leaderboard's arithmetic (a finding may be the best match of several golden comments; false positives counted by distinct text; an undecided pair is no match; cases without golden comments are left out).\n",
        );
    }
    for c in &r.configurations {
        out.push('\n');
        out.push_str(&config(c));
    }
    out
}

fn config(c: &ConfigReport) -> String {
    let mut out = format!("{}\n", text(&c.name));
    if !c.by_severity.is_empty() {
        let mut rows = vec![head(&[
            "severity",
            "precision",
            "recall",
            "f1",
            "tp",
            "fp",
            "fn",
        ])];
        for l in &c.by_severity {
            let mut row = vec![l.severity.as_str().to_string()];
            row.extend(score_cells(&l.score));
            rows.push(row);
        }
        out.push_str(&indent(&table(&rows)));
        out.push('\n');
    }
    let mut rows = vec![head(&[
        "case",
        "status",
        "golden",
        "findings",
        "precision",
        "recall",
        "f1",
        "tp",
        "fp",
        "fn",
        "cost",
        "time",
    ])];
    let martian = c.scoring.iter().any(|b| b.scoring == Scoring::Martian);
    if martian {
        rows[0].insert(10, "martian tp/fp/fn".into());
    }
    let mut reasons = Vec::new();
    for case in &c.cases {
        let status = match case.status {
            CaseStatus::Complete => "complete",
            CaseStatus::Incomplete => "INCOMPLETE",
        };
        let mut row = vec![
            text(&case.name),
            status.into(),
            case.golden.to_string(),
            case.findings.to_string(),
        ];
        match &case.score {
            Some(s) => row.extend(score_cells(s)),
            None => row.extend(std::iter::repeat_n("-".to_string(), 6)),
        }
        if martian {
            row.push(
                case.martian
                    .map_or_else(|| "-".into(), |m| format!("{}/{}/{}", m.tp, m.fp, m.fn_)),
            );
        }
        row.push(case_cost(case));
        row.push(seconds(case.review.duration_ms));
        rows.push(row);
        if let Some(why) = &case.reason {
            reasons.push(format!("{}: {}", text(&case.name), text(why)));
        }
    }
    out.push_str(&indent(&table(&rows)));
    for r in reasons {
        out.push_str(&format!("  {r}\n"));
    }
    out
}

fn scoring(s: Scoring) -> &'static str {
    match s {
        Scoring::Strict => "strict",
        Scoring::Martian => "martian",
    }
}

fn score_cells(s: &Score) -> Vec<String> {
    vec![
        ratio(s.precision),
        ratio(s.recall),
        ratio(s.f1),
        s.tp.to_string(),
        s.fp.to_string(),
        s.fn_.to_string(),
    ]
}

/// Text a corpus, a configuration or a model wrote, on one line.
fn text(s: &str) -> String {
    Printable::line(s, Dest::Terminal).into_string()
}

fn head(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

fn tokens(review: &Spend, judge: &JudgeSpend) -> String {
    let n = review.usage.total() + judge.usage.total();
    match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1e3),
        n => n.to_string(),
    }
}

/// A case's cost: `unknown` when its review never ran.
pub(crate) fn case_cost(case: &CaseReport) -> String {
    cost(&case.review, &case.judge)
}

fn cost(review: &Spend, judge: &JudgeSpend) -> String {
    match crit_core::usage::add_cost(review.cost_usd, judge.cost_usd) {
        Some(usd) => format!("${usd:.4}"),
        None => "unknown".into(),
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1}s", ms as f64 / 1000.0)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Left-aligned columns two spaces apart.
pub(crate) fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("  {l}\n")).collect()
}
