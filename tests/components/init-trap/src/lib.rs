//! Hostile test validator whose initialisation traps: a static constructor
//! (`.init_array`, run by wasi-libc's `_initialize` before any export) executes
//! `unreachable`. The trap must end the assertion as an error, never as a verdict.
use reviewhost_guest::{Root, Validator, Verdict};

pub struct InitTrap;

extern "C" fn trap() {
    #[cfg(target_arch = "wasm32")]
    core::arch::wasm32::unreachable();
}

#[cfg(target_arch = "wasm32")]
#[used]
#[unsafe(link_section = ".init_array")]
static CONSTRUCTOR: extern "C" fn() = trap;

impl Validator for InitTrap {
    type Config = ();

    fn validate(_id: &str, _config: (), _root: &Root) -> Result<Verdict, String> {
        let _ = trap as extern "C" fn();
        Ok(Verdict::pass("initialisation finished"))
    }
}

reviewhost_guest::export_validator!(InitTrap);
