//! Answering ASKING: answers given up front (`--answer ID=...`), and a prompt
//! on a terminal.

use std::io::{BufRead, Write};

use crate::machine::{Answer, Asker, Question};

/// Why an `--answer` spec does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerSpecError {
    #[error("--answer {0}: expected CHECK_ID=approve|abort|TEXT")]
    NoEquals(String),
    #[error("--answer {0}: the check id is empty")]
    EmptyId(String),
}

/// Answers given before the run, each used at most once.
#[derive(Debug, Clone, Default)]
pub struct AnswerBook {
    answers: Vec<(String, Answer, bool)>,
}

impl AnswerBook {
    /// Parse `CHECK_ID=approve|abort|TEXT` specs.
    pub fn parse(specs: &[String]) -> Result<AnswerBook, AnswerSpecError> {
        let mut answers = Vec::new();
        for spec in specs {
            let Some((id, value)) = spec.split_once('=') else {
                return Err(AnswerSpecError::NoEquals(spec.clone()));
            };
            let id = id.trim();
            if id.is_empty() {
                return Err(AnswerSpecError::EmptyId(spec.clone()));
            }
            answers.push((id.to_string(), Answer::parse(value), false));
        }
        Ok(AnswerBook { answers })
    }

    /// The first unused answer for `check_id`.
    pub fn take(&mut self, check_id: &str) -> Option<Answer> {
        let slot = self
            .answers
            .iter_mut()
            .find(|(id, _, used)| id == check_id && !used)?;
        slot.2 = true;
        Some(slot.1.clone())
    }

    /// Check ids of answers no question asked for.
    pub fn unused(&self) -> Vec<String> {
        self.answers
            .iter()
            .filter(|(_, _, used)| !used)
            .map(|(id, _, _)| id.clone())
            .collect()
    }
}

impl AnswerBook {
    /// Answers under an id no check has, matched to the one check whose id
    /// ends with `_{id}` (the rows of the user's own `~/.claude/CLAUDE.md`
    /// are `user_anti_pattern_N`, so `anti_pattern_N` without a project row
    /// of that name means the user's). One note per answer matched.
    pub fn resolve(&mut self, known: &[String]) -> Vec<String> {
        let mut notes = Vec::new();
        for (id, _, used) in &mut self.answers {
            if *used || known.iter().any(|k| k == id) {
                continue;
            }
            let suffix = format!("_{id}");
            let matching: Vec<&String> = known.iter().filter(|k| k.ends_with(&suffix)).collect();
            if let [only] = matching[..] {
                notes.push(format!(
                    "--answer {id}=…: no check is named {id}; it was taken as the answer to {only}, the one check whose name ends so"
                ));
                *id = only.clone();
            }
        }
        notes
    }
}

impl Asker for AnswerBook {
    fn ask(&mut self, question: &Question) -> Option<Answer> {
        self.take(&question.check_id)
    }

    fn has_answer(&self, check_id: &str) -> bool {
        self.answers
            .iter()
            .any(|(id, _, used)| id == check_id && !used)
    }

    fn unused(&self) -> Vec<String> {
        AnswerBook::unused(self)
    }

    fn resolve_ids(&mut self, known: &[String]) -> Vec<String> {
        self.resolve(known)
    }
}

/// Asks on a terminal (after consulting the answer book). End of input leaves
/// the question pending.
#[derive(Debug)]
pub struct PromptAsker<R, W> {
    pub book: AnswerBook,
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> PromptAsker<R, W> {
    pub fn new(book: AnswerBook, input: R, output: W) -> Self {
        PromptAsker {
            book,
            input,
            output,
        }
    }

    fn prompt(&mut self, q: &Question) -> std::io::Result<Option<Answer>> {
        // The plan's line and the persona's words: one escaped line.
        let text =
            crit_core::printable::Printable::line(&q.text, crit_core::printable::Dest::Terminal);
        writeln!(self.output, "\n{}: {text}", q.header)?;
        for (n, o) in q.options.iter().enumerate() {
            writeln!(self.output, "  {}) {} — {}", n + 1, o.label, o.description)?;
        }
        writeln!(
            self.output,
            "  or type the text that replaces line {}",
            q.line
        )?;
        loop {
            write!(self.output, "> ")?;
            self.output.flush()?;
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                return Ok(None);
            }
            let answer = line.trim_end_matches(['\n', '\r']);
            match answer.trim() {
                "" => continue,
                "1" => return Ok(Some(Answer::Approve)),
                "2" => return Ok(Some(Answer::Abort)),
                _ => return Ok(Some(Answer::parse(answer))),
            }
        }
    }
}

impl<R: BufRead, W: Write> Asker for PromptAsker<R, W> {
    fn unused(&self) -> Vec<String> {
        self.book.unused()
    }

    fn has_answer(&self, check_id: &str) -> bool {
        self.book.has_answer(check_id)
    }

    fn ask(&mut self, question: &Question) -> Option<Answer> {
        if let Some(a) = self.book.take(&question.check_id) {
            return Some(a);
        }
        self.prompt(question).unwrap_or_else(|e| {
            tracing::warn!("cannot ask on the terminal: {e}");
            None
        })
    }

    fn resolve_ids(&mut self, known: &[String]) -> Vec<String> {
        self.book.resolve(known)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::AnswerOption;

    fn q(id: &str) -> Question {
        Question {
            check_id: id.into(),
            pattern: "eval(".into(),
            reason: "r".into(),
            persona: "P".into(),
            line: 1,
            line_text: "eval(x)".into(),
            text: "[Checks for P]: Pattern 'eval(' found. r".into(),
            header: "Review",
            options: [
                AnswerOption {
                    label: "Approve this instance",
                    description: "a",
                },
                AnswerOption {
                    label: "Abort review",
                    description: "b",
                },
            ],
        }
    }

    #[test]
    fn answer_book_uses_each_answer_once() {
        let mut b = AnswerBook::parse(&[
            "a=approve".into(),
            "b=abort".into(),
            "c=JSON.parse(x)".into(),
            "z=approve".into(),
        ])
        .unwrap();
        assert_eq!(b.ask(&q("a")), Some(Answer::Approve));
        assert_eq!(b.ask(&q("a")), None);
        assert_eq!(b.ask(&q("b")), Some(Answer::Abort));
        assert_eq!(
            b.ask(&q("c")),
            Some(Answer::Replace("JSON.parse(x)".into()))
        );
        assert_eq!(b.unused(), vec!["z".to_string()]);
        assert!(AnswerBook::parse(&["noequals".into()]).is_err());
        assert!(AnswerBook::parse(&["=x".into()]).is_err());
        // Only the first `=` splits: replacement text may contain more.
        let mut b = AnswerBook::parse(&["k=a = b".into()]).unwrap();
        assert_eq!(b.take("k"), Some(Answer::Replace("a = b".into())));
    }

    #[test]
    fn an_answer_names_the_one_check_whose_id_ends_with_it() {
        let known = ["anti_pattern_2", "user_anti_pattern_1", "no_eval"].map(String::from);
        let mut b = AnswerBook::parse(&[
            "anti_pattern_1=approve".into(),
            "anti_pattern_2=abort".into(),
            "eval=approve".into(),
        ])
        .unwrap();
        let notes = b.resolve(&known);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("taken as the answer to user_anti_pattern_1"),
            "{notes:?}"
        );
        assert_eq!(b.take("user_anti_pattern_1"), Some(Answer::Approve));
        // An exact id stays the answer to its own check.
        assert_eq!(b.take("anti_pattern_2"), Some(Answer::Abort));
        // `eval` matches `no_eval` only: taken for it.
        assert_eq!(b.take("no_eval"), Some(Answer::Approve));
        // Two candidates: neither is guessed.
        let known = ["user_anti_pattern_1", "x_anti_pattern_1"].map(String::from);
        let mut b = AnswerBook::parse(&["anti_pattern_1=approve".into()]).unwrap();
        assert!(b.resolve(&known).is_empty());
        assert_eq!(b.unused(), ["anti_pattern_1"]);
    }

    #[test]
    fn prompt_reads_numbers_words_and_text() {
        for (input, want) in [
            ("1\n", Some(Answer::Approve)),
            ("2\n", Some(Answer::Abort)),
            ("\nabort\n", Some(Answer::Abort)),
            (
                "JSON.parse(x)\n",
                Some(Answer::Replace("JSON.parse(x)".into())),
            ),
            ("", None),
        ] {
            let mut out = Vec::new();
            let mut a = PromptAsker::new(AnswerBook::default(), input.as_bytes(), &mut out);
            assert_eq!(a.ask(&q("x")), want, "{input:?}");
            let shown = String::from_utf8(out).unwrap();
            assert!(
                shown.contains("Review: [Checks for P]: Pattern 'eval(' found. r"),
                "{shown}"
            );
            assert!(shown.contains("1) Approve this instance"), "{shown}");
        }
    }
}
