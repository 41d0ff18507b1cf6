//! stdout, honouring the reader's limit ([`reviewhost_tool::Io::stdout_limit`]): past
//! it, once what was kept is not blank and holds [`reviewhost_tool::KEPT_LINES`] lines,
//! further output is dropped while the program runs on to its real exit status.

/// Whether output is being dropped, and when to decide again.
pub struct Output {
    /// Output length at which to decide whether to drop: the reader's limit, then twice
    /// the length at each decision not to, so that a blank output is not rescanned per
    /// line.
    check_at: usize,
    /// Sticky: nothing more is appended.
    dropping: bool,
}

impl Output {
    pub fn new(stdout_limit: usize) -> Output {
        Output { check_at: stdout_limit, dropping: false }
    }

    pub fn write(&mut self, out: &mut Vec<u8>, bytes: &[u8]) {
        if !self.dropping && out.len() >= self.check_at {
            self.dropping = out.iter().filter(|b| **b == b'\n').count() >= reviewhost_tool::KEPT_LINES
                && !String::from_utf8_lossy(out).trim().is_empty();
            self.check_at = out.len().saturating_mul(2);
        }
        if !self.dropping {
            out.extend_from_slice(bytes);
        }
    }
}
