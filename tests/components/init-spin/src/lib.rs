//! Hostile test validator whose initialisation never finishes: a static constructor
//! (`.init_array`, run by wasi-libc's `_initialize` before any export) loops forever.
//! The deadline must cover initialisation, not only the call.
use reviewhost_guest::{Root, Validator, Verdict};

pub struct InitSpin;

extern "C" fn spin() {
    loop {
        std::hint::spin_loop();
    }
}

#[cfg(target_arch = "wasm32")]
#[used]
#[unsafe(link_section = ".init_array")]
static CONSTRUCTOR: extern "C" fn() = spin;

impl Validator for InitSpin {
    type Config = ();

    fn validate(_id: &str, _config: (), _root: &Root) -> Result<Verdict, String> {
        // Reached only if the constructor did not run.
        let _ = spin as extern "C" fn();
        Ok(Verdict::pass("initialisation finished"))
    }
}

reviewhost_guest::export_validator!(InitSpin);
