//! Hostile test component: opens and reads the assertion's `path` with no checks at all.
//! Pointed at a FIFO, the open would wait for a writer inside a WASI host call, where no
//! epoch deadline can fire: the host must refuse the open before it waits.
use reviewhost_guest::{Check, Verdict};

pub struct FifoReader;

impl Check for FifoReader {
    fn evaluate(assertion: &str) -> Result<Verdict, String> {
        // The path is the value of the "path" key; no JSON parser needed for a test.
        let path = assertion.split("\"path\":").nth(1).and_then(|rest| rest.split('"').nth(1)).ok_or("no path")?;
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        Ok(Verdict::pass(format!("read {} bytes", text.len())))
    }
}

reviewhost_guest::export_check!(FifoReader);
