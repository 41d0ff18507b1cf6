//! What confinement costs per invocation: the median wall time of `true` run under each
//! confinement this machine has, bubblewrap (every layer: prlimit, unshare, the scratch
//! tmpfs and overlay, bubblewrap) and Landlock (the ruleset, rlimits, seccomp, the
//! scratch directory, killing the process group), against `true` run directly.
//! `cargo bench -p reviewhost-confine`.

use std::path::Path;
use std::time::{Duration, Instant};

use reviewhost_confine::{Confinement, Ended, Job, Kind, Limits};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

const RUNS: usize = 41;

fn main() {
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
    let mut contenders: Vec<(String, Box<dyn Fn()>)> = Vec::new();
    for kind in Kind::ALL {
        match Confinement::probe_kind(kind) {
            Ok(confinement) => {
                let job = job.clone();
                contenders.push((
                    format!("true under {kind}"),
                    Box::new(move || {
                        let out = confinement.run(&job).expect("runs");
                        assert_eq!(out.ended, Ended::Exited(0), "{}", String::from_utf8_lossy(&out.stderr));
                    }),
                ));
            }
            Err(e) => println!("{kind}: skipped: {e}"),
        }
    }
    contenders.push((
        "true run directly".into(),
        Box::new(|| assert!(std::process::Command::new(tru).status().expect("runs").success())),
    ));
    // In turn, so that a busy moment of the machine weighs on every contender alike.
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contenders.len()];
    for _ in 0..RUNS {
        for ((_, run), times) in contenders.iter().zip(&mut times) {
            let began = Instant::now();
            run();
            times.push(began.elapsed());
        }
    }
    for ((name, _), times) in contenders.iter().zip(times) {
        println!("{name}, median of {RUNS}: {:?}", median(times));
    }
}
