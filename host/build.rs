//! Compiles the built-in checks to wasm32-wasip2 components so `include_bytes!` can
//! embed them in the binary (see `src/check/builtin.rs`).

fn main() {
    let guests = reviewhost_guest_build::build_guests(&["reviewhost-check-fs", "reviewhost-check-shell"]);
    for (package, path) in guests {
        let var = format!("{}_WASM", package.to_uppercase().replace('-', "_"));
        println!("cargo:rustc-env={var}={}", path.display());
    }
}
