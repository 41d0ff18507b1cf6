//! Compiles the hostile test components and exposes their paths to the tests as
//! `TEST_COMPONENT_<NAME>` (see `src/lib.rs`).

fn main() {
    let guests = reviewhost_guest_build::build_guests(&[
        "reviewhost-test-spin",
        "reviewhost-test-balloon",
        "reviewhost-test-fifo-reader",
        "reviewhost-test-vandal",
        "reviewhost-test-probe",
        "reviewhost-test-future-validator",
        "reviewhost-test-rogue-import",
    ]);
    for (package, path) in guests {
        let name = package.trim_start_matches("reviewhost-test-").to_uppercase().replace('-', "_");
        println!("cargo:rustc-env=TEST_COMPONENT_{name}={}", path.display());
    }
}
