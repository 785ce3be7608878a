//! `crit bench CORPUS [--config FILE]…`: review quality measured on a labeled
//! corpus; `crit bench import martian DIR`: a corpus from the public
//! benchmark; `crit bench mine [--since 90d]`: precision from the audit log.
//! Settings come from `crit_project` (the code review's for the reviews,
//! `Kind::Bench` for the judge); the work is `crit_bench`'s.

use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::anyhow;
use crit_bench::stats::{Period, days};
use crit_bench::{
    self as bench, BenchConfig, BenchOptions, BenchProgress, CaseReport, CaseStatus, Configured,
    Corpus, Judge, JudgeCache,
};
use crit_llm::{Source, Sourced};
use crit_project::Kind;
use crit_review::template::{Builder, PromptSource, Registry};

use crate::backend;
use crate::cli::{
    BenchAction, BenchArgs, BenchExportArgs, BenchImportArgs, BenchJudge, BenchMineArgs,
    BenchScoring, CommonArgs,
};
use crate::exit::{CliError, Code};
use crate::output::printable;
use crate::runner;

pub fn run(common: &CommonArgs, args: BenchArgs) -> Result<Code, CliError> {
    match &args.action {
        Some(BenchAction::Import(a)) => import(common, a),
        Some(BenchAction::Mine(a)) => mine(common, a),
        Some(BenchAction::Export(a)) => export(common, a),
        None => match &args.corpus {
            Some(corpus) => measure(common, &args, corpus),
            None => Err(CliError::usage(anyhow!(
                "name a corpus: crit bench CORPUS, or crit bench import martian DIR, or crit bench mine"
            ))),
        },
    }
}

fn measure(common: &CommonArgs, args: &BenchArgs, dir: &Path) -> Result<Code, CliError> {
    runner::init_logging(common);
    let env = common.env.clone();
    let project = backend::project(common, &env)?;
    project.rules().release_warnings();
    let code = backend::settings(&project, Kind::Code)?;
    let backend = code
        .build_backend()
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    // Recorded answers would be an earlier run's findings, not this one's.
    if backend.model.name() == "replay" && !args.reuse {
        return Err(CliError::usage(anyhow!(
            "the reviews would replay recorded answers, not review the cases: pass --reuse to compare against an earlier run on purpose"
        )));
    }
    let corpus = Corpus::load(dir).map_err(CliError::usage)?;
    let registry =
        Registry::load_with(&project.template_dirs(), project.rules()).map_err(CliError::usage)?;
    let mut configs = args
        .configs
        .iter()
        .map(|p| BenchConfig::load(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::usage)?;
    if configs.is_empty() {
        configs.push(BenchConfig::default());
    }
    bench::distinct_names(&mut configs);
    let mut configured = Vec::new();
    for c in configs {
        let template = registry.get(&c.template).map_err(CliError::usage)?;
        if !matches!(template.prompt, PromptSource::Builder(Builder::Code)) {
            return Err(CliError::usage(anyhow!(
                "{}: template `{}` does not review code changes; a benchmark needs a code review template",
                c.file.as_deref().unwrap_or("the configuration"),
                c.template
            )));
        }
        let mut one = Configured::new(&project, c, template.clone(), &code);
        if args.reuse {
            one.options.hunk_cache = crit_review::review::HunkCache::at_default(&env);
        }
        configured.push(one);
    }
    let judge_model = judge_model(args, &project, &configured)?;
    let cache = match args.no_cache {
        true => None,
        false => JudgeCache::at_default(&env),
    };
    let judge = match args.judge {
        BenchJudge::Crit => Judge::new(&judge_model.value, cache, args.judge_jobs)
            .map_err(|e| CliError::could_not_run(anyhow!("the judge's prompt: {e}")))?,
        BenchJudge::Martian => Judge::martian(&judge_model.value, cache, args.judge_jobs),
    };
    let mut opts = BenchOptions {
        jobs: args.jobs,
        judge_source: judge_model.source.to_string(),
        martian_scoring: args.scoring == BenchScoring::Martian,
        ..BenchOptions::default()
    };
    if !common.quiet {
        opts.progress = Some(Arc::new(StderrCases));
    }
    let stop = runner::Stop::new();
    let report = runner::block_on(&stop, |cancel| {
        opts.cancel = cancel;
        let (backend, corpus, configured, judge, opts) =
            (&backend, &corpus, &configured, &judge, &opts);
        async move { bench::run_bench(backend, corpus, configured, judge, opts).await }
    })?;
    let text = match common.json {
        true => json(serde_json::to_value(&report))?,
        false => bench::terminal(&report),
    };
    emit(common, &text)?;
    if let Some(signal) = stop.signal() {
        return Ok(signal.code());
    }
    let incomplete = report.configurations.iter().any(|c| c.cases_incomplete > 0);
    Ok(match incomplete {
        true => Code::CouldNotRun,
        false => Code::Ok,
    })
}

/// `--judge-model`, else the judge's settings (`CRIT_JUDGE_MODEL`,
/// `models.judge`), else the strongest model the configurations use.
fn judge_model(
    args: &BenchArgs,
    project: &crit_project::Project,
    configured: &[Configured],
) -> Result<Sourced<String>, CliError> {
    if let Some(m) = &args.judge_model {
        return Ok(Sourced::explicit(m.clone(), "--judge-model"));
    }
    let set = backend::settings(project, Kind::Bench)?.model;
    if !set.value.is_empty() {
        return Ok(set);
    }
    let models: Vec<String> = configured.iter().map(Configured::model).collect();
    Ok(match bench::strongest(&models) {
        Some(i) => Sourced::new(
            models[i].clone(),
            Source::Auto("the strongest model compared: the highest list price".into()),
        ),
        // An OpenAI-compatible server's own model: the one the reviews use.
        None => Sourced::new(String::new(), Source::Auto("the backend's model".into())),
    })
}

/// One line per case on stderr as it finishes.
struct StderrCases;

impl BenchProgress for StderrCases {
    fn case_done(&self, config: &str, case: &CaseReport) {
        let what = match (&case.status, &case.score) {
            (CaseStatus::Complete, Some(s)) => format!("tp {} fp {} fn {}", s.tp, s.fp, s.fn_),
            _ => format!(
                "INCOMPLETE: {}",
                case.reason.as_deref().unwrap_or("did not finish")
            ),
        };
        eprintln!(
            "crit bench: {} {}: {}",
            printable(config),
            printable(&case.name),
            printable(&what)
        );
    }
}

fn import(common: &CommonArgs, args: &BenchImportArgs) -> Result<Code, CliError> {
    runner::init_logging(common);
    let req = bench::import::ImportRequest {
        benchmark: args.dir.clone(),
        repos: args.repos.clone(),
        out: args.corpus.clone(),
        env: common.env.clone(),
    };
    let done = bench::import::import_martian(&req).map_err(CliError::usage)?;
    let text = match common.json {
        true => json(serde_json::to_value(&done))?,
        false => {
            let mut t = format!(
                "{} case{} written to {}\n",
                done.cases.len(),
                if done.cases.len() == 1 { "" } else { "s" },
                printable(&args.corpus.join(bench::CASES_DIR).display().to_string())
            );
            for b in &done.bases {
                t.push_str(&format!(
                    "{}: base {}, {}\n",
                    printable(&b.case),
                    &b.base[..b.base.len().min(12)],
                    printable(&b.detail)
                ));
            }
            for s in &done.skipped {
                t.push_str(&format!(
                    "skipped {}: {}\n",
                    printable(&s.url),
                    printable(&s.reason)
                ));
            }
            t
        }
    };
    print!("{text}");
    // Nothing imported while pull requests were there: the user has clones to make.
    Ok(match done.cases.is_empty() && !done.skipped.is_empty() {
        true => Code::Usage,
        false => Code::Ok,
    })
}

/// `crit bench export CORPUS RESULTS --format martian-candidates`.
fn export(common: &CommonArgs, args: &BenchExportArgs) -> Result<Code, CliError> {
    use bench::martian::export::{Results, candidates};
    runner::init_logging(common);
    if common.format != Some(crate::cli::FormatChoice::MartianCandidates) {
        return Err(CliError::usage(anyhow!(
            "name the format to write: crit bench export CORPUS RESULTS --format martian-candidates"
        )));
    }
    let corpus = Corpus::load(&args.corpus).map_err(CliError::usage)?;
    let results = Results::load(&args.results).map_err(CliError::usage)?;
    let mut extracted = std::collections::BTreeMap::new();
    if args.extract {
        extracted = extract(common, &results)?;
    }
    let file = candidates(&corpus, &results, &args.tool, &extracted);
    emit(common, &json(serde_json::to_value(&file))?)?;
    Ok(Code::Ok)
}

/// The benchmark's extraction step over each reviewed case's findings.
fn extract(
    common: &CommonArgs,
    results: &bench::martian::export::Results,
) -> Result<std::collections::BTreeMap<(String, String), Vec<String>>, CliError> {
    let env = common.env.clone();
    let project = backend::project(common, &env)?;
    let settings = backend::settings(&project, Kind::Bench)?;
    let backend = settings
        .build_backend()
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    let model = common.model.clone().unwrap_or(settings.model.value.clone());
    // Each reviewed case with enough text for the benchmark to extract from;
    // the rest keep one candidate per finding.
    let work: Vec<(String, String, Vec<String>)> = results
        .configurations
        .iter()
        .flat_map(|config| {
            config
                .cases
                .iter()
                .filter(|c| c.verdict.is_some())
                .map(|case| {
                    let comments = case.candidates.iter().map(|c| c.comment.clone()).collect();
                    (config.name.clone(), case.name.clone(), comments)
                })
        })
        .filter(|(_, _, comments): &(String, String, Vec<String>)| {
            comments.join("").trim().chars().count() >= 20
        })
        .collect();
    let stop = runner::Stop::new();
    let (backend, model, work) = (&backend, &model, &work);
    let done = runner::block_on(&stop, |cancel| async move {
        let mut out = Vec::new();
        for (config, case, comments) in work {
            let (got, _) = bench::martian::ask::extract(backend, model, comments, &cancel).await;
            out.push(((config.clone(), case.clone()), got));
        }
        out
    })?;
    let mut out = std::collections::BTreeMap::new();
    for ((config, case), got) in done {
        let issues = got.map_err(|why| {
            CliError::could_not_run(anyhow!(
                "{} {}: the extraction failed after its retries: {}",
                printable(&config),
                printable(&case),
                printable(&why.to_string())
            ))
        })?;
        out.insert((config, case), issues);
    }
    Ok(out)
}

fn mine(common: &CommonArgs, args: &BenchMineArgs) -> Result<Code, CliError> {
    let until = match &args.until {
        Some(d) => days::parse_date(d.trim()).ok_or_else(|| {
            CliError::usage(anyhow!("--until {d}: expected a date such as 2026-02-24"))
        })?,
        None => days::of_secs(crit_core::timestamp::unix_secs(SystemTime::now())),
    };
    let period = Period::parse(&args.since, until).map_err(|e| CliError::usage(anyhow!(e)))?;
    let env = common.env.clone();
    let audit = crit_review::session::audit_dir(&env).ok_or_else(|| {
        CliError::usage(anyhow!(
            "cannot tell where the audit log is: set XDG_STATE_HOME or HOME"
        ))
    })?;
    let dir = common.cwd.clone().unwrap_or_else(|| ".".into());
    let dir = dir
        .canonicalize()
        .map_err(|e| CliError::usage(anyhow!("{}: {e}", dir.display())))?;
    let root = crit_project::paths::project_root_in(&dir, env.get("HOME").map(Path::new));
    let mined = bench::mine::mine(&audit, &period, &root, &env);
    let text = match common.json {
        true => json(serde_json::to_value(&mined))?,
        false => bench::mine::terminal(&mined),
    };
    emit(common, &text)?;
    Ok(Code::Ok)
}

/// A report as a JSON document, safe to print.
fn json(v: Result<serde_json::Value, serde_json::Error>) -> Result<String, CliError> {
    let text = v
        .and_then(|v| serde_json::to_string_pretty(&v))
        .map_err(|e| CliError::could_not_run(anyhow!("writing JSON: {e}")))?;
    Ok(crit_core::printable::json_document(text) + "\n")
}

/// To `--out`, else stdout.
fn emit(common: &CommonArgs, text: &str) -> Result<(), CliError> {
    match &common.out {
        Some(path) => crit_core::files::write_atomic(path, text.as_bytes())
            .map_err(|e| CliError::could_not_run(anyhow!("writing {}: {e}", path.display()))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
