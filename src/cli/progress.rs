//! The progress bar of `reviewhost run`.

use std::io::IsTerminal;
use std::time::Duration;

/// A progress bar on stderr, shown only on a terminal, outside CI, and only once a run
/// has taken more than a moment (a fast run prints nothing extra).
pub struct Progress {
    bar: indicatif::ProgressBar,
    done: Option<std::sync::mpsc::Sender<()>>,
    reveal: Option<std::thread::JoinHandle<()>>,
}

/// How long a run goes before its progress bar appears.
const PROGRESS_DELAY: Duration = Duration::from_millis(300);

impl Progress {
    pub fn start(wanted: bool) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        if !wanted || ci || dumb || !std::io::stderr().is_terminal() {
            return Progress { bar, done: None, reveal: None };
        }
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} assertions")
                .expect("a valid template"),
        );
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let shown = bar.clone();
        let reveal = std::thread::spawn(move || {
            if finished.recv_timeout(PROGRESS_DELAY) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(100));
            }
        });
        Progress { bar, done: Some(done), reveal: Some(reveal) }
    }

    /// What the run calls as assertions finish.
    pub fn observer(&self) -> impl Fn(usize, usize) + Send + Sync + 'static {
        let bar = self.bar.clone();
        move |finished, total| {
            bar.set_length(total as u64);
            bar.inc(finished as u64);
        }
    }

    pub fn finish(mut self) {
        drop(self.done.take());
        if let Some(reveal) = self.reveal.take() {
            let _ = reveal.join();
        }
        self.bar.finish_and_clear();
    }
}
