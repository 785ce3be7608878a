//! Task sub-agents through the loop against crit-testkit: concurrency seen by the
//! server, usage and cost rolled up, depth 1, transcripts and hook identities.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::kit;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crit_agent::hooks::{HookFuture, HookInput};
use crit_agent::transcript::{MemoryTranscript, NoTranscript, TranscriptItem};
use crit_agent::{
    Hook, HookEvent, HookResponse, Hooks, RunStatus, SubAgentDef, ToolContext, ToolRegistry,
    run_agent,
};
use crit_core::Usage;
use crit_llm::SystemBlock;
use crit_testkit::{FakeServer, Reply, Step};
use kit::{MODEL, model, project, results_of, spec, system_has, tool_names};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const SECURITY: &str = "You are SECURITY-REVIEWER.";
const STYLE: &str = "You are STYLE-REVIEWER.";

fn defs() -> Vec<SubAgentDef> {
    vec![
        SubAgentDef {
            name: "security".into(),
            description: "Looks for security problems.".into(),
            system_prompt: SECURITY.into(),
            tools: vec!["Read".into(), "Grep".into(), "Task".into()],
            model: None,
        },
        SubAgentDef {
            name: "style".into(),
            description: "Checks naming and style.".into(),
            system_prompt: STYLE.into(),
            tools: vec!["Read".into()],
            model: Some("claude-haiku-5-5".into()),
        },
    ]
}

fn task(kind: &str, prompt: &str) -> (&'static str, serde_json::Value) {
    (
        "Task",
        json!({"description": format!("{kind} review"), "prompt": prompt, "subagent_type": kind}),
    )
}

fn lead_spec() -> crit_agent::AgentSpec {
    let mut s = spec(ToolRegistry::builtin());
    s.system = vec![SystemBlock::cached("You are the LEAD reviewer.")];
    s.sub_agents = defs();
    s
}

#[tokio::test]
async fn task_calls_run_sub_agents_in_parallel_and_roll_up_usage() {
    let dir = project();
    let server = FakeServer::start().await;
    let delay = Duration::from_millis(400);
    server.push(Step::reply(
        Reply::tool_uses(vec![
            task("security", "Check src/pool.rs for unsafe unwraps"),
            task("style", "Check naming in src/pool.rs"),
        ])
        .usage(1000, 100, 0, 0),
    ));
    server.push(
        Step::when_contains(SECURITY).reply(
            Reply::tool_use("Read", json!({"file_path": "src/pool.rs"}))
                .usage(200, 20, 0, 0)
                .delay(delay),
        ),
    );
    server.push(
        Step::when_contains(SECURITY)
            .reply(Reply::text("SECURITY: unwrap on line 3.").usage(300, 30, 0, 0)),
    );
    server.push(
        Step::when_contains(STYLE)
            .reply(Reply::text("STYLE: fine.").usage(50, 5, 0, 0).delay(delay)),
    );
    server.push(
        Step::when_contains("You are the LEAD")
            .reply(Reply::text("Done: one finding.").usage(1500, 50, 0, 0)),
    );
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let mut sink = MemoryTranscript::default();
    let out = run_agent(
        &model(&server),
        &lead_spec(),
        &cx,
        &mut sink,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    assert_eq!(out.final_text, "Done: one finding.");
    assert_eq!(out.turns, 2);

    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 5);
    let sec: Vec<_> = reqs.iter().filter(|r| system_has(r, SECURITY)).collect();
    let sty: Vec<_> = reqs.iter().filter(|r| system_has(r, STYLE)).collect();
    assert_eq!((sec.len(), sty.len()), (2, 1));
    assert!(
        sec[0].overlaps(sty[0]),
        "the two sub-agents ran concurrently"
    );

    // What each agent was offered: Task only to the lead, with the agents listed.
    let lead = &reqs[0];
    assert!(tool_names(lead).contains(&"Task".to_string()));
    let task_desc = lead.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Task")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        task_desc.contains("- security: Looks for security problems. (Tools: Read, Grep)"),
        "{task_desc}"
    );
    assert!(
        task_desc.contains("- style: Checks naming and style. (Tools: Read)"),
        "{task_desc}"
    );
    assert_eq!(tool_names(sec[0]), ["Read", "Grep"]);
    assert_eq!(tool_names(sty[0]), ["Read"]);
    assert_eq!(sec[0].body["model"], MODEL);
    assert_eq!(sty[0].body["model"], "claude-haiku-5-5");
    assert!(kit::last_user_text(sec[0]).contains("Check src/pool.rs for unsafe unwraps"));
    assert!(
        results_of(sec[1])[0].1.contains("c.unwrap()"),
        "the sub-agent's Read ran"
    );

    // The lead reads the sub-agents' answers, in call order.
    let results = results_of(&reqs[4]);
    let contents: Vec<&str> = results.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(contents, ["SECURITY: unwrap on line 3.", "STYLE: fine."]);

    // Usage and cost: the lead's two turns plus every sub-agent turn.
    assert_eq!(
        out.usage,
        Usage {
            input_tokens: 1000 + 200 + 300 + 50 + 1500,
            output_tokens: 100 + 20 + 30 + 5 + 50,
            ..Usage::default()
        }
    );
    assert_eq!(out.sub_agents.len(), 2);
    let s = out
        .sub_agents
        .iter()
        .find(|s| s.name == "security")
        .unwrap();
    assert_eq!(
        (s.turns, s.usage.input_tokens, &s.status),
        (2, 500, &RunStatus::Completed)
    );
    let sub_cost: f64 = out.sub_agents.iter().map(|s| s.cost_usd).sum();
    assert!(sub_cost > 0.0 && out.cost_usd > sub_cost);

    // The transcript has each sub-agent's items under its own name.
    let agents_started: Vec<&str> = sink
        .items
        .iter()
        .filter_map(|i| match i {
            TranscriptItem::Start { agent, .. } => Some(agent.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(agents_started.len(), 3);
    assert!(agents_started.contains(&"security") && agents_started.contains(&"style"));
    assert!(sink.items.iter().any(|i| matches!(i,
        TranscriptItem::ToolResult { agent, name, .. } if agent == "security" && name == "Read")));
    assert!(
        matches!(sink.items.last(), Some(TranscriptItem::End { agent, .. }) if agent == "reviewer")
    );
}

#[tokio::test]
async fn sub_agents_cannot_launch_agents_and_unknown_types_are_refused() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_uses(vec![
        task("security", "Look around"),
        task("nobody", "Hello"),
    ])));
    server.push(Step::when_contains(SECURITY).reply(Reply::tool_use(
        "Task",
        json!({"description": "nested", "prompt": "go deeper", "subagent_type": "style"}),
    )));
    server.push(Step::when_contains(SECURITY).reply(Reply::text("No nesting for me.")));
    server.push(Step::when_contains("You are the LEAD").reply(Reply::text("ok")));
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &lead_spec(),
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 4, "no style sub-agent ever ran");
    let sec: Vec<_> = reqs.iter().filter(|r| system_has(r, SECURITY)).collect();
    assert!(!tool_names(sec[0]).contains(&"Task".to_string()));
    let nested = &results_of(sec[1])[0];
    assert!(
        nested.2 && nested.1.contains("There is no tool named `Task`"),
        "{nested:?}"
    );
    let lead = results_of(&reqs[3]);
    assert_eq!(lead[0].1, "No nesting for me.");
    assert!(
        lead[1].2 && lead[1].1.contains("Agent type `nobody` not found"),
        "{lead:?}"
    );
    assert_eq!(out.sub_agents.len(), 1);
}

/// A library hook that records every input it sees.
struct Recorder(Arc<Mutex<Vec<HookInput>>>);

impl Hook for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn matches(&self, _event: HookEvent, _tool: Option<&str>) -> bool {
        true
    }
    fn run<'a>(&'a self, input: &'a HookInput, _cancel: &'a CancellationToken) -> HookFuture<'a> {
        self.0.lock().unwrap().push(input.clone());
        Box::pin(async { HookResponse::default() })
    }
}

#[tokio::test]
async fn hooks_inside_sub_agents_carry_agent_id_and_type_and_subagent_stop_fires() {
    let dir = project();
    let server = FakeServer::start().await;
    server.push(Step::reply(Reply::tool_uses(vec![task(
        "style",
        "Check names",
    )])));
    server.push(
        Step::when_contains(STYLE)
            .reply(Reply::tool_use("Read", json!({"file_path": "README.md"}))),
    );
    server.push(Step::when_contains(STYLE).reply(Reply::text("STYLE REPORT")));
    server.push(Step::when_contains("You are the LEAD").reply(Reply::text("LEAD DONE")));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut s = lead_spec();
    s.hooks = Hooks::new(vec![Arc::new(Recorder(seen.clone()))]).with_session("sess-1", None);
    let cx = ToolContext::new(dir.path(), &[]).unwrap();
    let out = run_agent(
        &model(&server),
        &s,
        &cx,
        &mut NoTranscript,
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.status, RunStatus::Completed);
    let seen = seen.lock().unwrap();
    let events: Vec<(HookEvent, Option<&str>, Option<&str>)> = seen
        .iter()
        .map(|i| {
            (
                i.hook_event_name,
                i.tool_name.as_deref(),
                i.agent_type.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            (HookEvent::PreToolUse, Some("Task"), None),
            (HookEvent::PreToolUse, Some("Read"), Some("style")),
            (HookEvent::PostToolUse, Some("Read"), Some("style")),
            (HookEvent::SubagentStop, None, Some("style")),
            (HookEvent::PostToolUse, Some("Task"), None),
            (HookEvent::Stop, None, None),
        ]
    );
    let sub_stop = &seen[3];
    assert_eq!(
        sub_stop.last_assistant_message.as_deref(),
        Some("STYLE REPORT")
    );
    assert_eq!(sub_stop.stop_hook_active, Some(false));
    let id = sub_stop.agent_id.as_deref().unwrap();
    assert!(id.starts_with('a') && id.len() == 17, "{id}");
    assert_eq!(seen[1].agent_id.as_deref(), Some(id));
    assert_eq!(out.sub_agents[0].agent_id, id);
    assert_eq!(seen[5].last_assistant_message.as_deref(), Some("LEAD DONE"));
    assert!(seen.iter().all(|i| i.session_id == "sess-1"));
    let task_result = seen[4].tool_response.as_ref().unwrap();
    assert_eq!(task_result, "STYLE REPORT");
}
