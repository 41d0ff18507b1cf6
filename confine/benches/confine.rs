//! What confinement costs per invocation: the median wall time of `true` run confined
//! (every layer: prlimit, unshare, the scratch tmpfs and overlay, bubblewrap) against
//! `true` run directly. `cargo bench -p reviewhost-confine`.

use std::path::Path;
use std::time::{Duration, Instant};

use reviewhost_confine::{Confinement, Ended, Job, Limits};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let confinement = match Confinement::probe() {
        Ok(confinement) => confinement,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let root = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .tempdir()
        .expect("a root");
    let tru = Path::new("/bin/true");
    let job = Job {
        program: tru,
        args: &[],
        root: root.path(),
        cwd: "",
        stdin: b"",
        env: &[],
        read_only: &[],
        limits: Limits::default(),
    };
    const RUNS: usize = 41;
    let confined: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let began = Instant::now();
            let out = confinement.run(&job).expect("runs");
            assert_eq!(out.ended, Ended::Exited(0));
            began.elapsed()
        })
        .collect();
    let direct: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let began = Instant::now();
            assert!(std::process::Command::new(tru).status().expect("runs").success());
            began.elapsed()
        })
        .collect();
    println!("true, median of {RUNS}: confined {:?}, direct {:?}", median(confined), median(direct));
}
