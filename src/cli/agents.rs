//! `reviewhost agents`: the agent definitions a review would use, and their sources.

use std::io::Write;
use std::path::PathBuf;

use reviewhost::report::inert;

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Definitions are embedded in reviewhost; a file of the same name in
~/.config/reviewhost/agents/ replaces one, and so does one in the repository's
.reviewhost/agents/ with --trust-repo-config (Markdown with YAML front matter).

Examples:
  reviewhost agents
  reviewhost agents --root . --trust-repo-config")]
pub struct AgentsArgs {
    /// The repository whose .reviewhost/agents/ may override the defaults.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Read the repository's own .reviewhost/agents/ too.
    #[arg(long, env = "REVIEWHOST_TRUST_REPO_CONFIG", value_parser = clap::builder::BoolishValueParser::new())]
    trust_repo_config: bool,
}

pub fn agents(args: &AgentsArgs) -> anyhow::Result<Exit> {
    let (root, trust_repo) = (&args.root, args.trust_repo_config);
    use reviewhost::review::{definitions::Source, trust};
    let (definitions, warnings) = trust::load_definitions(root, &trust::Sources::new(None, trust_repo))?;
    for warning in &warnings {
        eprintln!("reviewhost: warning: {warning}");
    }
    let mut stdout = std::io::stdout().lock();
    for d in definitions {
        let source = match &d.source {
            Source::Embedded => "embedded default".to_string(),
            Source::User(path) | Source::Project(path) => inert(&path.display().to_string()).into_owned(),
        };
        let track = d.track.as_deref().map(|t| format!(" track {}", inert(t))).unwrap_or_default();
        writeln!(stdout, "{:<20} {:<12} {source}", inert(&d.name), format!("{}{track}", d.role.as_str()))?;
        writeln!(stdout, "{:<20} tools: {}", "", inert(&d.tools.join(", ")))?;
        for (field, spec) in [("contract", &d.contract), ("completion", &d.completion)] {
            if let Some(spec) = spec {
                let schema = if spec.schema.is_some() { "a JSON Schema, " } else { "" };
                let rules = spec.rules.len();
                let s = if rules == 1 { "" } else { "s" };
                writeln!(stdout, "{:<20} {field}: {schema}{rules} rule{s}, {} retries", "", spec.retries())?;
            }
        }
    }
    Ok(Exit::Clean)
}
