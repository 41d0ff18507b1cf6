//! `--allow-program`: which host programs command checks may run, and how.
//!
//! Grants are the operator's: the command line, and `[run]` of the operator's own
//! `reviewhost.toml` (`--config`, or the user's configuration directory). The
//! repository under review cannot grant anything: its `reviewhost.toml` is not read here,
//! even with `--trust-repo-config`, and an assertions file that asks is refused when it
//! is loaded. Each grant is resolved once, now, on the operator's `PATH`; the machine's
//! confinement is probed once (bubblewrap where user namespaces work, else Landlock;
//! `[run] confinement = "bwrap" | "landlock"` forces one, refused when the machine lacks
//! it), and a grant it cannot confine is refused unless `--allow-unconfined-programs`
//! says otherwise (with a warning every run).

use std::path::PathBuf;

use anyhow::{Context, bail};
use reviewhost::review::agent::{CONFIG_FILE, Config, ConfinementKind, RunSettings};
use reviewhost::review::trust::Sources;
use reviewhost::sandbox::{Grants, ProgramRunner};
use reviewhost_confine::{Confinement, Kind, resolve};

/// The grants of a run, or `None` when nothing is granted.
pub fn grants(allow: &[String], config: Option<&PathBuf>, unconfined: bool) -> anyhow::Result<Option<Grants>> {
    let settings = operator_settings(config)?;
    let mut names: Vec<String> = allow.iter().chain(&settings.allow_programs).cloned().collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Ok(None);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let programs = names
        .iter()
        .map(|name| resolve(name, &path).with_context(|| format!("cannot grant '{name}'")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let probed = match settings.confinement {
        None => Confinement::probe(),
        Some(ConfinementKind::Bwrap) => Confinement::probe_kind(Kind::Bwrap),
        Some(ConfinementKind::Landlock) => Confinement::probe_kind(Kind::Landlock),
    };
    let runner = match probed {
        Ok(confinement) => ProgramRunner::Confined(confinement),
        Err(unavailable) if unconfined => {
            eprintln!(
                "reviewhost: warning: {unavailable}; --allow-unconfined-programs: {} run WITHOUT confinement, \
                 with this user's rights over the repository and the machine",
                names.join(", ")
            );
            ProgramRunner::Unconfined
        }
        Err(unavailable) => bail!(
            "{unavailable}; refusing to run {} unconfined (--allow-unconfined-programs would, with this user's rights)",
            names.join(", ")
        ),
    };
    if let ProgramRunner::Confined(confinement) = &runner {
        for grant in &programs {
            confinement
                .check_reachable(&grant.path)
                .map_err(|why| anyhow::anyhow!("cannot grant '{}' ({}): {why}", grant.name, grant.path.display()))?;
        }
    }
    let env = settings.program_env.iter().filter_map(|name| Some((name.clone(), std::env::var(name).ok()?))).collect();
    let mut grants = Grants::new(programs, runner, settings.toolchain_dirs, env);
    if let Some(memory) = &settings.program_memory {
        let bytes = reviewhost::sandbox::parse_memory(memory)
            .map_err(|why| anyhow::anyhow!("[run] program_memory = {memory:?}: {why}"))?;
        grants = grants.with_memory(bytes);
    }
    Ok(Some(grants))
}

/// `[run]` of the operator's configuration: `--config PATH`, else the user's
/// configuration directory's `reviewhost.toml` when there is one.
fn operator_settings(config: Option<&PathBuf>) -> anyhow::Result<RunSettings> {
    let file = match config {
        Some(path) => Some(path.clone()),
        None => Sources::user_dir().map(|dir| dir.join(CONFIG_FILE)).filter(|path| path.is_file()),
    };
    Ok(match file {
        Some(path) => Config::load(&path, true)?.run,
        None => RunSettings::default(),
    })
}
