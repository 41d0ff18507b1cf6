//! The limits every check runs under, and the store-side limiter that enforces them.
//!
//! Wasmtime's defaults are unlimited; each limit here is set on purpose and has a
//! hostile test (`tests/all/limits.rs`).

use std::fmt;
use std::time::Duration;

use wasmtime::ResourceLimiter;

/// Per-check limits. The defaults suit a CI job: generous for honest checks, small enough
/// that a hostile one cannot hurt the runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time for instantiation plus evaluation. Default 10 s. Enforced by an
    /// epoch deadline inside wasm, and by a watchdog for time spent blocked in a host call.
    pub timeout: Duration,
    /// Linear memory, summed over the check's memories. Default 256 MiB.
    pub memory: u64,
    /// Bytes a check may write to stdout and to stderr, each. Default 1 MiB. Past it, the
    /// check's writes fail.
    pub output: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { timeout: Duration::from_secs(10), memory: 256 * MIB, output: MIB as usize }
    }
}

pub(crate) const MIB: u64 = 1024 * 1024;

/// Elements a check's tables may hold. Rust components use a few hundred; the cap stops
/// a guest from making the host allocate table storage without bound.
pub(crate) const MAX_TABLE_ELEMENTS: usize = 100_000;
/// Core instances, tables and memories per store. A check is one component; these caps
/// are far above what a real one needs (a Rust component has 1 memory, a handful of
/// instances and tables).
pub(crate) const MAX_INSTANCES: usize = 64;
pub(crate) const MAX_TABLES: usize = 64;
pub(crate) const MAX_MEMORIES: usize = 4;
/// Handles (open files, streams, pollables) a check may hold at once in the WASI
/// resource table. Walking a tree holds a few per directory level.
pub(crate) const MAX_RESOURCES: usize = 16_384;
/// Bytes of randomness per `get-random-bytes` call.
pub(crate) const MAX_RANDOM_BYTES: u64 = 1024 * 1024;

/// Enforces [`Limits::memory`] and the table/instance caps, and remembers which limit
/// refused a request so the error can say so (a Rust guest whose allocation fails
/// aborts with a bare `unreachable` trap).
#[derive(Debug)]
pub(crate) struct Limiter {
    memory_limit: u64,
    memory_in_use: u64,
    pub(crate) hit: Option<LimitHit>,
}

/// A limit that refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitHit {
    Memory,
    Table,
}

impl Limiter {
    pub(crate) fn new(memory_limit: u64) -> Self {
        Limiter { memory_limit, memory_in_use: 0, hit: None }
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        let total = self.memory_in_use - current as u64 + desired as u64;
        if total > self.memory_limit {
            self.hit = Some(LimitHit::Memory);
            return Ok(false);
        }
        self.memory_in_use = total;
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > MAX_TABLE_ELEMENTS {
            self.hit = Some(LimitHit::Table);
            return Ok(false);
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        MAX_INSTANCES
    }

    fn tables(&self) -> usize {
        MAX_TABLES
    }

    fn memories(&self) -> usize {
        MAX_MEMORIES
    }
}

/// A byte count for messages: "256 MiB", "1.5 KiB", "12 bytes".
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = [("GiB", MIB * 1024), ("MiB", MIB), ("KiB", 1024)];
        for (name, size) in units {
            if self.0 >= size {
                let value = self.0 as f64 / size as f64;
                return if value.fract() == 0.0 { write!(f, "{value} {name}") } else { write!(f, "{value:.1} {name}") };
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

/// A duration for messages: "10 s", "1.5 s", "250 ms".
pub struct Seconds(pub Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms < 1000 {
            write!(f, "{ms} ms")
        } else if ms.is_multiple_of(1000) {
            write!(f, "{} s", ms / 1000)
        } else {
            write!(f, "{:.1} s", self.0.as_secs_f64())
        }
    }
}

/// Parses a memory size: a number with an optional unit `K`, `M`, `G` (binary, with or
/// without `iB`/`B`); a bare number is MiB. "256", "256M", "256MiB", "1 GiB".
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().map_err(|_| format!("'{text}' is not a size (try 256MiB or 1GiB)"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "m" | "mb" | "mib" => MIB,
        "k" | "kb" | "kib" => 1024,
        "g" | "gb" | "gib" => MIB * 1024,
        _ => return Err(format!("'{text}': unknown unit '{}' (use KiB, MiB or GiB)", unit.trim())),
    };
    let bytes = number.checked_mul(scale).ok_or_else(|| format!("'{text}' is too large"))?;
    if bytes < MIB {
        return Err(format!("'{text}' is below the 1 MiB minimum a check needs"));
    }
    Ok(bytes)
}

/// Parses a timeout: "10s", "500ms", "2m", or a bare number of seconds.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let duration = match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => Duration::from_secs_f64(secs),
        Ok(_) => return Err(format!("'{text}' must be a positive duration")),
        Err(_) => humantime::parse_duration(text)
            .map_err(|e| format!("'{text}' is not a duration ({e}; try 10s or 500ms)"))?,
    };
    if duration.is_zero() {
        return Err(format!("'{text}' must be a positive duration"));
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_parse() {
        assert_eq!(parse_memory("256").unwrap(), 256 * MIB);
        assert_eq!(parse_memory("256MiB").unwrap(), 256 * MIB);
        assert_eq!(parse_memory("1 GiB").unwrap(), 1024 * MIB);
        assert_eq!(parse_memory("2048K").unwrap(), 2 * MIB);
        assert!(parse_memory("12 parsecs").unwrap_err().contains("unknown unit"));
        assert!(parse_memory("1K").unwrap_err().contains("minimum"));
        assert!(parse_memory("lots").is_err());
    }

    #[test]
    fn timeouts_parse() {
        assert_eq!(parse_timeout("10").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_timeout("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_timeout("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_timeout("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_timeout("0").is_err());
        assert!(parse_timeout("-1").is_err());
        assert!(parse_timeout("soon").is_err());
    }

    #[test]
    fn messages_format_units() {
        assert_eq!(Bytes(256 * MIB).to_string(), "256 MiB");
        assert_eq!(Bytes(1536).to_string(), "1.5 KiB");
        assert_eq!(Seconds(Duration::from_secs(10)).to_string(), "10 s");
        assert_eq!(Seconds(Duration::from_millis(250)).to_string(), "250 ms");
    }

    #[test]
    fn limiter_counts_all_memories_and_records_the_hit() {
        let mut limiter = Limiter::new(10 * MIB);
        assert!(limiter.memory_growing(0, (6 * MIB) as usize, None).unwrap());
        assert!(!limiter.memory_growing(0, (6 * MIB) as usize, None).unwrap());
        assert_eq!(limiter.hit, Some(LimitHit::Memory));
        assert!(limiter.memory_growing((6 * MIB) as usize, (10 * MIB) as usize, None).unwrap());
    }
}
