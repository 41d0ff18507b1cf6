//! The overviewer's clarifying questions as a person is asked them (seed 004's S03,
//! S07 step 3, D11): what they do ([`Questions`]), and each one with an id that is safe
//! to show and unique ([`questions`]), within bounds a person can answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the overviewer's clarifying questions do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Questions {
    /// A person answers each before the author revises (seed 004's S03 and D11).
    #[default]
    Ask,
    /// They keep the overviewer at REVISE and go to the author, unanswered.
    Block,
    /// They are context for the author; the overviewer's findings alone decide.
    Inform,
}

/// One of the overviewer's clarifying questions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The overviewer's id (`OQ1`), else `Q` and its position.
    pub id: String,
    pub question: String,
}

/// Most clarifying questions one overviewer answer may ask a person.
pub const MAX_QUESTIONS: usize = 20;
/// Longest clarifying question, in bytes.
pub const MAX_QUESTION_BYTES: usize = 4096;

/// Whether `id` may be shown as it is: a short word of ASCII letters, digits, `.`, `_`
/// and `-`, so that two ids never look alike and none spells a line of its own.
fn plain_id(id: &str) -> bool {
    (1..=32).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The clarifying questions of an overviewer's answer (objects with an `id` and a
/// `question` or `text`, or plain strings). An id that is not [`plain_id`] becomes `Q`
/// and the question's position, and every id is made unique; more than
/// [`MAX_QUESTIONS`], or a question over [`MAX_QUESTION_BYTES`], is an error.
pub fn questions(answer: &Value) -> Result<Vec<Question>, String> {
    let asked = answer["clarifying_questions"].as_array().map(Vec::as_slice).unwrap_or_default();
    if asked.len() > MAX_QUESTIONS {
        return Err(format!("{} clarifying questions, more than {MAX_QUESTIONS} for a person", asked.len()));
    }
    let mut out: Vec<Question> = Vec::new();
    for (n, q) in asked.iter().enumerate() {
        let text = match q {
            Value::String(text) => text.clone(),
            q => q["question"].as_str().or(q["text"].as_str()).unwrap_or("").to_string(),
        };
        if text.len() > MAX_QUESTION_BYTES {
            return Err(format!("clarifying question {} is {} bytes, over {MAX_QUESTION_BYTES}", n + 1, text.len()));
        }
        let given = q["id"].as_str().filter(|id| plain_id(id));
        let mut id = given.map_or_else(|| format!("Q{}", n + 1), String::from);
        let mut k = 1;
        while out.iter().any(|o| o.id == id) {
            k += 1;
            id = format!("{}-{k}", given.unwrap_or("Q"));
        }
        out.push(Question { id, question: text });
    }
    Ok(out)
}
