//! The turn loop.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use crit_core::Usage;
use crit_llm::{
    Block, LlmError, Message, Model, ModelRequest, ModelResponse, Role, StopReason, ToolSpec,
};
use tokio_util::sync::CancellationToken;

use super::answer::{Answers, Checked, NoTools, Owed};
use super::execute::{Call, Done, Exec, execute};
use super::stop::{StopVerdict, on_stop};
use super::task::TaskCtx;
use super::{AgentSpec, LimitHit, RunLimits, RunOutcome, RunStatus};
use crate::context::ToolContext;
use crate::hooks::Who;
use crate::structured::TOOL_NAME;
use crate::subagent::{SubAgentOutcome, task_tool_spec};
use crate::transcript::{SharedSink, ToolCallRecord, TranscriptItem, TranscriptSink};

/// Run `spec` on `model` with the tools confined by `cx`, recording to `sink`.
/// Never panics and never returns an error: how the run ended is in the outcome.
pub async fn run_agent(
    model: &dyn Model,
    spec: &AgentSpec,
    cx: &ToolContext,
    sink: &mut dyn TranscriptSink,
    cancel: CancellationToken,
) -> RunOutcome {
    run_boxed(model, spec, cx, sink, cancel, Who::default()).await
}

/// The run as a boxed future: a Task call runs a sub-agent through here, and
/// the box is what lets the loop recurse.
pub(super) fn run_boxed<'a>(
    model: &'a dyn Model,
    spec: &'a AgentSpec,
    cx: &'a ToolContext,
    sink: &'a mut dyn TranscriptSink,
    cancel: CancellationToken,
    who: Who,
) -> Pin<Box<dyn Future<Output = RunOutcome> + Send + 'a>> {
    Box::pin(run_inner(model, spec, cx, sink, cancel, who))
}

async fn run_inner(
    model: &dyn Model,
    spec: &AgentSpec,
    cx: &ToolContext,
    sink: &mut dyn TranscriptSink,
    cancel: CancellationToken,
    who: Who,
) -> RunOutcome {
    let mut run = Run::new(spec, who);
    sink.record(&TranscriptItem::Start {
        agent: spec.name.clone(),
        model: spec.model.clone(),
        system: spec
            .system
            .iter()
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n"),
        prompt: match spec.shared_prompt.is_empty() {
            true => spec.prompt.clone(),
            false => format!("{}\n\n{}", spec.shared_prompt, spec.prompt),
        },
        tools: run.tool_specs.iter().map(|t| t.name.clone()).collect(),
    });
    let status = run.drive(model, cx, sink, &cancel).await;
    run.finish(status, sink)
}

/// The state of one run.
struct Run<'a> {
    spec: &'a AgentSpec,
    tool_specs: Vec<ToolSpec>,
    messages: Vec<Message>,
    usage: Usage,
    cost_usd: f64,
    /// The first model (its own or a sub-agent's) that answered without a
    /// known price: the run's cost is then unknown.
    unpriced_model: Option<String>,
    turns: u32,
    texts: Vec<String>,
    structured: Option<serde_json::Value>,
    last_stop: Option<crit_llm::StopReason>,
    model_name: String,
    start: Instant,
    deadline: Option<Instant>,
    answers: Answers,
    who: Who,
    sub_agents: Vec<SubAgentOutcome>,
    /// How many times Stop hooks sent the model back to work.
    stop_blocks: u32,
}

impl<'a> Run<'a> {
    fn new(spec: &'a AgentSpec, who: Who) -> Self {
        let start = Instant::now();
        let mut tool_specs: Vec<ToolSpec> = spec
            .tools
            .tools()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema(),
                strict: false,
            })
            .collect();
        if !spec.sub_agents.is_empty() && who.agent_id.is_none() {
            tool_specs.push(task_tool_spec(&spec.sub_agents, &spec.tools));
        }
        if let Some(out) = &spec.output {
            tool_specs.push(out.tool_spec());
        }
        Run {
            spec,
            tool_specs,
            messages: vec![spec.first_message()],
            usage: Usage::default(),
            cost_usd: 0.0,
            unpriced_model: None,
            turns: 0,
            texts: Vec::new(),
            structured: None,
            last_stop: None,
            model_name: spec.model.clone(),
            start,
            deadline: spec.limits.timeout.map(|t| start + t),
            answers: Answers::default(),
            who,
            sub_agents: Vec::new(),
            stop_blocks: 0,
        }
    }

    /// What the tool calls and hooks of this turn run with.
    fn exec<'e, 's>(
        &'e self,
        model: &'e dyn Model,
        cx: &'e ToolContext,
        sink: &'e SharedSink<'s>,
        cancel: &'e CancellationToken,
    ) -> Exec<'e, 's> {
        let spec = self.spec;
        let tasks = (!spec.sub_agents.is_empty() && self.who.agent_id.is_none()).then(|| TaskCtx {
            model,
            parent: spec,
            limits: self.remaining_limits(),
        });
        Exec {
            tools: &spec.tools,
            cx,
            hooks: &spec.hooks,
            who: &self.who,
            agent: &spec.name,
            turn: self.turns,
            sink,
            cancel,
            tasks,
        }
    }

    /// What is left of this run's limits, for a sub-agent starting now. Its
    /// tokens and cost go on the shared meter, so it gets the same budget
    /// caps, held against everything spent so far.
    fn remaining_limits(&self) -> RunLimits {
        let l = &self.spec.limits;
        RunLimits {
            max_turns: l.max_turns,
            timeout: self
                .deadline
                .map(|d| d.saturating_duration_since(Instant::now())),
            max_tokens: l.max_tokens,
            max_budget_usd: l.max_budget_usd,
        }
    }

    /// Stop (or SubagentStop) hooks before the run ends: `Some` feedback sends
    /// the model back to work; `Err` is a hook ending the run.
    async fn stop_hooks(
        &mut self,
        model: &dyn Model,
        cx: &ToolContext,
        sink: &mut dyn TranscriptSink,
        cancel: &CancellationToken,
        last_message: String,
    ) -> Result<Option<String>, RunStatus> {
        if self.spec.hooks.is_empty() {
            return Ok(None);
        }
        let shared = SharedSink::new(sink);
        let verdict = on_stop(
            &self.exec(model, cx, &shared, cancel),
            self.stop_blocks,
            last_message,
        )
        .await;
        match verdict {
            StopVerdict::Proceed => Ok(None),
            StopVerdict::Reprompt(text) => {
                self.stop_blocks += 1;
                Ok(Some(text))
            }
            StopVerdict::End(why) => Err(RunStatus::HookStopped(why)),
        }
    }

    async fn drive(
        &mut self,
        model: &dyn Model,
        cx: &ToolContext,
        sink: &mut dyn TranscriptSink,
        cancel: &CancellationToken,
    ) -> RunStatus {
        loop {
            if let Some(hit) = self.limit_before_turn() {
                return RunStatus::Incomplete(hit);
            }
            let resp = match self.call_model(model, cancel).await {
                Ok(resp) => resp,
                Err(status) => return status,
            };
            self.turns += 1;
            let calls = self.record_turn(&resp, sink);
            let refused = resp.stop_reason == Some(StopReason::Refusal);
            let said = resp.text();
            self.messages.push(Message::assistant(resp.content));
            if refused {
                // Whatever else the turn holds (an answer, tool calls) is not taken.
                return RunStatus::Refused(said.trim().to_string());
            }
            if calls.is_empty() {
                let text_answer = self.spec.output.is_some()
                    && self
                        .spec
                        .text_answer
                        .as_ref()
                        .is_some_and(|a| a.accepts(&said));
                if self.spec.output.is_none() || text_answer {
                    let last = self.texts.last().cloned().unwrap_or_default();
                    match self.stop_hooks(model, cx, sink, cancel, last).await {
                        Ok(Some(feedback)) => {
                            self.messages.push(Message::user_text(feedback));
                            continue;
                        }
                        Ok(None) => {}
                        Err(status) => return status,
                    }
                }
                if text_answer {
                    return RunStatus::Completed;
                }
                match self.answers.without_tools(self.spec.output.is_some()) {
                    NoTools::End(status) => return status,
                    NoTools::Remind(nudge) => {
                        self.messages.push(Message::user_text(nudge));
                        continue;
                    }
                }
            }
            let mut results: Vec<Owed> = Vec::with_capacity(calls.len());
            let (output_calls, tool_calls): (Vec<&Call>, Vec<&Call>) =
                calls.iter().partition(|c| self.is_output_call(c));
            if let (Some(out), false) = (&self.spec.output, output_calls.is_empty()) {
                match self.answers.check(out, &output_calls, &mut results) {
                    Checked::Retry => {}
                    Checked::End(status) => return status,
                    Checked::Accepted { value, call_id } => {
                        let answer = value.to_string();
                        self.structured = Some(value);
                        match self.stop_hooks(model, cx, sink, cancel, answer).await {
                            // The answer is not taken: the feedback is its tool result.
                            Ok(Some(feedback)) => {
                                self.structured = None;
                                results.push((call_id, feedback, true));
                            }
                            Ok(None) => return RunStatus::Completed,
                            Err(stopped) => return stopped,
                        }
                    }
                }
            }
            let max = self.spec.turn_limits.max_tool_calls;
            let (now, over) = tool_calls.split_at(tool_calls.len().min(max));
            let now: Vec<Call> = now.iter().map(|c| (*c).clone()).collect();
            for c in over {
                let why = format!(
                    "Not run: a turn may make at most {max} tool calls and this one made {}. Make fewer calls at a time.",
                    tool_calls.len()
                );
                self.record_result(sink, c, &why, true, 0);
                results.push((c.id.clone(), why, true));
            }
            let (done, ended) = self.run_calls(&now, model, cx, sink, cancel).await;
            let mut stop_run = None;
            for (call, d) in now.iter().zip(done) {
                self.record_result(
                    sink,
                    call,
                    &d.output.content,
                    d.output.is_error,
                    d.duration_ms,
                );
                if let Some(sub) = d.sub {
                    self.usage += sub.usage;
                    self.cost_usd += sub.cost_usd;
                    if self.unpriced_model.is_none() {
                        self.unpriced_model.clone_from(&sub.unpriced_model);
                    }
                    self.sub_agents.push(sub);
                }
                if stop_run.is_none() {
                    stop_run = d.stop_run;
                }
                results.push((call.id.clone(), d.output.content, d.output.is_error));
            }
            if let Some(status) = ended {
                return status;
            }
            // Results go back in the order the model made the calls.
            results.sort_by_key(|(id, ..)| calls.iter().position(|c| &c.id == id));
            let content = results
                .into_iter()
                .map(|(tool_use_id, content, is_error)| Block::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    cache: false,
                })
                .collect();
            self.messages.push(Message {
                role: Role::User,
                content,
            });
            if let Some(why) = stop_run {
                return RunStatus::HookStopped(why);
            }
        }
    }

    /// Runs one turn's tool calls. On cancel or at the deadline the calls are
    /// told to stop (tools and hooks kill their process groups) and get
    /// `wind_down` to do it before they are dropped; the run then ends with
    /// the status returned, keeping what the calls finished with (sub-agents'
    /// outcomes included) when they wound down in time.
    async fn run_calls(
        &self,
        calls: &[Call],
        model: &dyn Model,
        cx: &ToolContext,
        sink: &mut dyn TranscriptSink,
        cancel: &CancellationToken,
    ) -> (Vec<Done>, Option<RunStatus>) {
        let stop_tools = cx.cancel.child_token();
        let tool_cx = cx.clone().with_cancel(stop_tools.clone());
        let stop_turn = cancel.child_token();
        // The calls share the sink (sub-agents write to it as they run).
        let shared = SharedSink::new(sink);
        let ex = self.exec(model, &tool_cx, &shared, &stop_turn);
        let work = execute(calls, &ex, self.spec.turn_limits.concurrency);
        tokio::pin!(work);
        let ended = tokio::select! {
            biased;
            () = cancel.cancelled() => RunStatus::Cancelled,
            () = sleep_until(self.deadline) => RunStatus::Incomplete(self.timeout_hit()),
            done = &mut work => return (done, None),
        };
        stop_tools.cancel();
        stop_turn.cancel();
        let done = tokio::time::timeout(self.spec.turn_limits.wind_down, &mut work)
            .await
            .unwrap_or_default();
        (done, Some(ended))
    }

    fn record_result(
        &self,
        sink: &mut dyn TranscriptSink,
        call: &Call,
        content: &str,
        is_error: bool,
        duration_ms: u64,
    ) {
        sink.record(&TranscriptItem::ToolResult {
            agent: self.spec.name.clone(),
            turn: self.turns,
            id: call.id.clone(),
            name: call.name.clone(),
            content: content.to_string(),
            is_error,
            duration_ms,
        });
    }

    fn is_output_call(&self, c: &Call) -> bool {
        self.spec.output.is_some() && c.name == TOOL_NAME
    }

    fn limit_before_turn(&self) -> Option<LimitHit> {
        let l = &self.spec.limits;
        if let Some(max) = l.max_turns
            && self.turns >= max
        {
            return Some(LimitHit::MaxTurns(max));
        }
        let spend = &self.spec.spend;
        if let Some(limit) = l.max_tokens
            && spend.tokens() >= limit
        {
            return Some(LimitHit::Tokens {
                used: spend.tokens(),
                limit,
            });
        }
        if let Some(limit_usd) = l.max_budget_usd
            && spend.usd() >= limit_usd
        {
            return Some(LimitHit::Budget {
                spent_usd: spend.usd(),
                limit_usd,
            });
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(self.timeout_hit());
        }
        None
    }

    fn timeout_hit(&self) -> LimitHit {
        LimitHit::Timeout(self.spec.limits.timeout.unwrap_or(Duration::ZERO))
    }

    async fn call_model(
        &self,
        model: &dyn Model,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, RunStatus> {
        let mut req = ModelRequest::new(self.spec.model.clone(), self.spec.max_output_tokens);
        req.system = self.spec.system.clone();
        req.messages = self.messages.clone();
        req.tools = self.tool_specs.clone();
        req.cache_tools = !req.tools.is_empty();
        super::cache::place_breakpoints(
            &mut req,
            self.spec.cache_conversation,
            crit_llm::pricing::breakpoint_min_tokens(&self.spec.model),
        );
        let call_cancel = cancel.child_token();
        // Dropping the call (deadline or cancel) drops the HTTP request or kills the
        // child; the child token tells the backend too.
        let _guard = call_cancel.clone().drop_guard();
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(RunStatus::Cancelled),
            () = sleep_until(self.deadline) => Err(RunStatus::Incomplete(self.timeout_hit())),
            res = model.complete(&req, call_cancel.clone()) => res.map_err(|e| match e {
                LlmError::Cancelled => RunStatus::Cancelled,
                other => RunStatus::Failed(other),
            }),
        }
    }

    fn record_turn(&mut self, resp: &ModelResponse, sink: &mut dyn TranscriptSink) -> Vec<Call> {
        self.usage += resp.usage;
        self.cost_usd += resp.cost.usd;
        if !resp.cost.priced && !resp.usage.is_zero() && self.unpriced_model.is_none() {
            self.unpriced_model = Some(match resp.model.is_empty() {
                true => self.spec.model.clone(),
                false => resp.model.clone(),
            });
        }
        self.spec.spend.add(&resp.usage, resp.cost.usd);
        self.last_stop.clone_from(&resp.stop_reason);
        if !resp.model.is_empty() {
            self.model_name.clone_from(&resp.model);
        }
        let text = resp.text();
        if !text.is_empty() {
            self.texts.push(text.clone());
        }
        let calls: Vec<Call> = resp
            .tool_calls()
            .map(|(id, name, input)| Call {
                id: id.to_string(),
                name: name.to_string(),
                input: input.clone(),
                input_error: resp.tool_input_error(id).map(str::to_string),
            })
            .collect();
        let agent = self.spec.name.clone();
        sink.record(&TranscriptItem::Assistant {
            agent: agent.clone(),
            turn: self.turns,
            text,
            tool_calls: calls
                .iter()
                .map(|c| ToolCallRecord {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    input: c.input.clone(),
                })
                .collect(),
        });
        sink.record(&TranscriptItem::Usage {
            agent,
            turn: self.turns,
            usage: resp.usage,
            total: self.usage,
            cost_usd: resp.cost.usd,
            total_cost_usd: self.cost_usd,
        });
        calls
    }

    fn finish(mut self, status: RunStatus, sink: &mut dyn TranscriptSink) -> RunOutcome {
        let rejected_answer = match &status {
            RunStatus::NoValidOutput(_) => self.answers.take_rejected(),
            _ => None,
        };
        if let RunStatus::Incomplete(hit) = &status {
            sink.record(&TranscriptItem::LimitHit {
                agent: self.spec.name.clone(),
                limit: hit.name().into(),
                detail: hit.to_string(),
            });
        }
        let duration = self.start.elapsed();
        sink.record(&TranscriptItem::End {
            agent: self.spec.name.clone(),
            status: status.name().into(),
            turns: self.turns,
            usage: self.usage,
            cost_usd: self.cost_usd,
            duration_ms: duration.as_millis() as u64,
        });
        RunOutcome {
            status,
            final_text: self.texts.last().cloned().unwrap_or_default(),
            all_text: self.texts,
            structured: self.structured,
            usage: self.usage,
            cost_usd: self.cost_usd,
            unpriced_model: self.unpriced_model,
            turns: self.turns,
            duration,
            last_stop: self.last_stop,
            model: self.model_name,
            sub_agents: self.sub_agents,
            rejected_answer,
        }
    }
}

/// Sleep until `deadline`, or forever when there is none.
async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d.into()).await,
        None => std::future::pending().await,
    }
}
