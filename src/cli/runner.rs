//! What every subcommand that runs checks sets up: the runner, its cache, its jobs.

use std::path::Path;

use reviewhost::Runner;
use reviewhost::report::inert;
use reviewhost::sandbox::{Cache, CacheKey, Grants, Limits, RootDir};

/// A runner with `limits`, `jobs` threads (default: one per CPU) and the cache, for
/// checks of the tree at `root`.
pub fn runner(limits: Limits, jobs: Option<usize>, root: &Path) -> anyhow::Result<Runner> {
    runner_with_grants(limits, jobs, root, None)
}

/// [`runner`] whose command checks may run the host programs in `grants`.
pub fn runner_with_grants(
    limits: Limits,
    jobs: Option<usize>,
    root: &Path,
    grants: Option<Grants>,
) -> anyhow::Result<Runner> {
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Ok(Runner::with_grants(limits, jobs, cache(root)?, grants)?)
}

/// The compiled-component cache, or none (with a warning) when it cannot be trusted:
/// a cache or key that lies inside `root` (the repository under review could ship
/// entries there) is never used. `REVIEWHOST_CACHE_SIZE=0` turns it off; a value that
/// is not a size is an error.
fn cache(root: &Path) -> anyhow::Result<Option<Cache>> {
    let max_size = Cache::default_max_size().map_err(anyhow::Error::msg)?;
    let (Some(dir), Some(key), 1..) = (Cache::default_dir(), CacheKey::default_path(), max_size) else {
        return Ok(None);
    };
    let opened = || -> Result<Cache, String> {
        let root = RootDir::new(root).map_err(|e| format!("{}: {e}", root.display()))?;
        for (what, path) in [("directory", &dir), ("key", &key)] {
            if root.contains(path) {
                return Err(format!(
                    "its {what} {} is inside the reviewed root {}, where the repository could plant entries",
                    path.display(),
                    root.path().display()
                ));
            }
        }
        let key = CacheKey::load_or_create(&key).map_err(|e| e.to_string())?;
        Cache::open(&dir, key).map(|c| c.with_max_size(max_size)).map_err(|e| e.to_string())
    };
    match opened() {
        Ok(cache) => Ok(Some(cache)),
        Err(e) => {
            eprintln!("reviewhost: warning: not using the compiled-component cache: {}", inert(&e));
            Ok(None)
        }
    }
}
