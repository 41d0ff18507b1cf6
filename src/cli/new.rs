//! `reviewhost new NAME`: a custom validator crate to start from.

use std::path::Path;

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Creates ./NAME/: a crate with a working example validator, a native unit test, fixtures,
and its own copy of the SDK and WIT files (it needs only Rust and crates.io).

Examples:
  reviewhost new license-check

Then: cd license-check && cargo test && cargo build --release --target wasm32-wasip2")]
pub struct NewArgs {
    /// The crate name (letters, digits, '-' and '_').
    name: String,
}

pub fn new(args: &NewArgs) -> anyhow::Result<Exit> {
    let name = &args.name;
    let dir = reviewhost::authoring::scaffold::create(Path::new("."), name)?;
    println!("Created {}. Next:", dir.display());
    println!("  cd {name} && cargo test && cargo build --release --target wasm32-wasip2");
    println!("  reviewhost test target/wasm32-wasip2/release/{}.wasm --fixtures fixtures", name.replace('-', "_"));
    Ok(Exit::Clean)
}
