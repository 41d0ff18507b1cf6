//! `--format` and `--output` of `reviewhost run`: which report goes where.

use std::path::PathBuf;

use reviewhost::report::Format;

/// Where each report of a run goes.
pub struct Reports {
    /// The one report on stdout.
    pub stdout: Format,
    /// Reports written to files.
    pub files: Vec<(Format, PathBuf)>,
}

impl Reports {
    /// Pairs each `--output` with the `--format` before it on the command line. Formats
    /// without an output go to stdout (at most one); when every format has a file, stdout
    /// gets the text report.
    pub fn of(format: &[Format], output: &[PathBuf], matches: &clap::ArgMatches) -> anyhow::Result<Reports> {
        let format_at: Vec<usize> = matches.indices_of("format").map(Iterator::collect).unwrap_or_default();
        let output_at: Vec<usize> = matches.indices_of("output").map(Iterator::collect).unwrap_or_default();
        let mut paths: Vec<Option<PathBuf>> = vec![None; format.len()];
        for (path, at) in output.iter().zip(output_at) {
            let owner = format_at.iter().rposition(|&f| f < at).filter(|&i| paths[i].is_none()).ok_or_else(|| {
                anyhow::anyhow!(
                    "--output {} has no --format before it to write (e.g. --format junit --output {})",
                    path.display(),
                    path.display()
                )
            })?;
            let dir = reviewhost::write::parent_dir(path);
            anyhow::ensure!(
                dir.is_dir(),
                "--output {}: the directory {} does not exist",
                path.display(),
                dir.display()
            );
            paths[owner] = Some(path.clone());
        }
        let mut on_stdout = Vec::new();
        let mut files = Vec::new();
        for (format, path) in format.iter().zip(paths) {
            match path {
                Some(path) => files.push((*format, path)),
                None => on_stdout.push(*format),
            }
        }
        anyhow::ensure!(
            on_stdout.len() <= 1,
            "only one report can go to stdout, and --format {} and --format {} both would: \
         give the others an --output PATH",
            on_stdout[0].name(),
            on_stdout[1].name()
        );
        Ok(Reports { stdout: on_stdout.first().copied().unwrap_or(Format::Text), files })
    }
}
