//! Compiles the hostile test components and the example validators of
//! `checks/examples/` and exposes their paths to the tests as `TEST_COMPONENT_<NAME>`
//! (`TEST_COMPONENT_EXAMPLE_<NAME>` for the examples; see `src/lib.rs`).

fn main() {
    let guests = reviewhost_guest_build::build_guests(&[
        "reviewhost-test-spin",
        "reviewhost-test-balloon",
        "reviewhost-test-fifo-reader",
        "reviewhost-test-vandal",
        "reviewhost-test-probe",
        "reviewhost-test-future-validator",
        "reviewhost-test-rogue-import",
        "reviewhost-test-hostile",
        "reviewhost-test-init-spin",
        "reviewhost-test-init-trap",
        "reviewhost-test-whole-reader",
        "reviewhost-test-files-validator",
        "reviewhost-example-license-header",
        "reviewhost-example-json-schema",
        "reviewhost-example-max-function-lines",
    ]);
    for (package, path) in guests {
        let name = match package.strip_prefix("reviewhost-example-") {
            Some(example) => format!("example-{example}"),
            None => package.trim_start_matches("reviewhost-test-").to_string(),
        }
        .to_uppercase()
        .replace('-', "_");
        println!("cargo:rustc-env=TEST_COMPONENT_{name}={}", path.display());
    }
}
