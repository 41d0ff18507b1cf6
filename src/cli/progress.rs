//! The progress bar of `reviewhost run`, and the spinner of a compile that takes a while.

use std::io::IsTerminal;
use std::time::Duration;

use reviewhost::report::inert;

/// A progress bar on stderr, shown only on a terminal, outside CI, and only once a run
/// has taken more than a moment (a fast run prints nothing extra).
pub struct Progress {
    bar: indicatif::ProgressBar,
    done: Option<std::sync::mpsc::Sender<()>>,
    reveal: Option<std::thread::JoinHandle<()>>,
}

/// How long a run goes before its progress bar appears.
const PROGRESS_DELAY: Duration = Duration::from_millis(300);

/// How long a compile goes before `reviewhost test` says it is under way.
const COMPILE_DELAY: Duration = Duration::from_secs(1);

impl Progress {
    /// The progress bar of a run of assertions.
    pub fn start(wanted: bool) -> Progress {
        Progress::shown(wanted, "{spinner} [{elapsed}] {bar:30} {pos}/{len} assertions{msg}", PROGRESS_DELAY)
    }

    /// A spinner that appears once a compile has taken more than [`COMPILE_DELAY`]: for
    /// commands with no assertions to count (`reviewhost test`).
    pub fn spinner(wanted: bool) -> Progress {
        Progress::shown(wanted, "{spinner} [{elapsed}]{msg}", COMPILE_DELAY)
    }

    fn shown(wanted: bool, template: &str, delay: Duration) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        if !wanted || ci || dumb || !std::io::stderr().is_terminal() {
            return Progress { bar, done: None, reveal: None };
        }
        bar.set_style(indicatif::ProgressStyle::with_template(template).expect("a valid template"));
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let shown = bar.clone();
        let reveal = std::thread::spawn(move || {
            if finished.recv_timeout(delay) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
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

    /// What the sandbox calls as compiles start and end ([`Sandbox::on_compile`]): the
    /// bar says which component is compiling. The name comes from an assertions file, so
    /// it is shown [`inert`].
    ///
    /// [`Sandbox::on_compile`]: reviewhost::sandbox::Sandbox::on_compile
    pub fn compile_observer(&self) -> impl Fn(&str, bool) + Send + Sync + 'static {
        let bar = self.bar.clone();
        let under_way = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        move |name, started| {
            use std::sync::atomic::Ordering::SeqCst;
            match started {
                true => {
                    under_way.fetch_add(1, SeqCst);
                    bar.set_message(format!(" · compiling {} (once; cached afterwards)", inert(name)));
                }
                false => {
                    if under_way.fetch_sub(1, SeqCst) == 1 {
                        bar.set_message("");
                    }
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The bar names the component while any compile is under way, escaped, and says
    /// nothing once the last one ends.
    #[test]
    fn the_bar_names_what_is_compiling_until_the_last_compile_ends() {
        let progress = Progress::spinner(false);
        let observe = progress.compile_observer();
        observe("checks/a.wasm", true);
        assert_eq!(progress.bar.message(), " · compiling checks/a.wasm (once; cached afterwards)");
        observe("evil\u{1b}[2J.wasm", true);
        assert!(progress.bar.message().contains("evil\\x1b[2J.wasm"), "{}", progress.bar.message());
        observe("checks/a.wasm", false);
        assert!(!progress.bar.message().is_empty(), "one compile is still under way");
        observe("evil\u{1b}[2J.wasm", false);
        assert_eq!(progress.bar.message(), "");
        progress.finish();
    }
}
