//! The persona's voice on the checks' questions and rejections
//! (expert-review's "Persona Usage"): with a model, the persona says why the
//! finding matters in its own words, shown as `[As NAME]: …` on one escaped
//! line; without one, or when it cannot answer, the checks' own words stand
//! (`[Checks for NAME]: …`) and a warning says why.

use std::path::Path;

use crate::machine::{Answer, Asker, Question};
use crate::panel::{Panel, VoiceKind, VoiceRequest};

/// Where the plan is, for the persona to be told.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlanAt<'a> {
    pub(crate) plan_path: &'a Path,
    pub(crate) project_root: &'a Path,
}

/// An [`Asker`] that has the persona word each question before it is asked.
pub(crate) struct VoicedAsker<'a> {
    pub(crate) inner: &'a mut dyn Asker,
    pub(crate) panel: &'a mut dyn Panel,
    pub(crate) at: PlanAt<'a>,
    /// The last question as the persona worded it (the one a run that
    /// stops on it keeps).
    pub(crate) last: Option<Question>,
    pub(crate) warnings: Vec<String>,
}

impl Asker for VoicedAsker<'_> {
    fn ask(&mut self, question: &Question) -> Option<Answer> {
        let req = VoiceRequest {
            kind: VoiceKind::Question,
            persona: &question.persona,
            check_id: &question.check_id,
            pattern: &question.pattern,
            reason: &question.reason,
            line: question.line,
            line_text: &question.line_text,
            plan_path: self.at.plan_path,
            project_root: self.at.project_root,
        };
        let mut asked = question.clone();
        // An answer given up front: nobody reads the question.
        let voice = match self.inner.has_answer(&question.check_id) {
            true => None,
            false => self.panel.voice(&req),
        };
        match voice {
            Some(Ok(words)) => asked.text = in_voice(question, &words),
            Some(Err(why)) => self.warnings.push(format!(
                "{} could not word the question about `{}` ({why}); the checks' words stand",
                question.persona, question.check_id
            )),
            None => {}
        }
        let answer = self.inner.ask(&asked);
        self.last = Some(asked);
        answer
    }

    fn unused(&self) -> Vec<String> {
        self.inner.unused()
    }

    fn has_answer(&self, check_id: &str) -> bool {
        self.inner.has_answer(check_id)
    }

    fn resolve_ids(&mut self, known: &[String]) -> Vec<String> {
        self.inner.resolve_ids(known)
    }
}

/// The model's words on one line: no line breaks, no runs of blanks.
pub(crate) fn one_line(words: &str) -> String {
    words.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The checks' question as the persona asks it: `[As NAME]: Pattern '…'
/// found. REASON. WORDS It appears on line N: "…".`
fn in_voice(q: &Question, words: &str) -> String {
    let prefix = format!("[Checks for {}]: ", q.persona);
    let rest = q.text.strip_prefix(&prefix).unwrap_or(&q.text);
    let (head, tail) = match rest.find(" It appears on line ") {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    format!("[As {}]: {head} {}{tail}", q.persona, one_line(words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::AnswerOption;

    #[test]
    fn the_persona_s_words_go_after_the_reason_on_one_line() {
        let q = Question {
            check_id: "judgment".into(),
            pattern: "ambiguous thing".into(),
            reason: "Requires human judgment".into(),
            persona: "Ada".into(),
            line: 7,
            line_text: "The ambiguous thing stays.".into(),
            text: "[Checks for Ada]: Pattern 'ambiguous thing' found. Requires human judgment. It appears on line 7: \"The ambiguous thing stays.\".".into(),
            header: "Review",
            options: [AnswerOption { label: "a", description: "b" }; 2],
        };
        assert_eq!(
            in_voice(&q, "An unnamed thing\nis a bug   later."),
            "[As Ada]: Pattern 'ambiguous thing' found. Requires human judgment. An unnamed thing is a bug later. It appears on line 7: \"The ambiguous thing stays.\"."
        );
    }
}
