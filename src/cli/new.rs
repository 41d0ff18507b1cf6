//! `reviewhost new [--lang L] NAME`: a custom validator to start from.

use std::path::Path;

use reviewhost::authoring::scaffold::{self, Lang};

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Creates ./NAME/: a working example validator (every file matching config.files contains
config.text), a helper in the same language, fixtures for `reviewhost test`, a README and
wit/check.wit. The toolchain is pinned inside NAME/ (Cargo; componentize-py by hash;
componentize-js and TypeScript by package-lock.json). The last line printed is the one
command that builds NAME/NAME.wasm.

Examples:
  reviewhost new license-check
  reviewhost new --lang python license-check-py
  reviewhost new --lang typescript license-check-ts

Then run the printed build command, `reviewhost test NAME/NAME.wasm --fixtures
NAME/fixtures`, and `reviewhost inspect NAME/NAME.wasm` for the sha256 to pin.")]
pub struct NewArgs {
    /// The check's name (letters, digits, '-' and '_'): its directory and NAME.wasm.
    name: String,
    /// The language of the validator.
    #[arg(long, value_enum, default_value_t = Lang::Rust)]
    lang: Lang,
}

pub fn new(args: &NewArgs) -> anyhow::Result<Exit> {
    let name = &args.name;
    let created = scaffold::create(Path::new("."), name, args.lang)?;
    println!("Created {}.", created.dir.display());
    println!("Then: reviewhost test {name}/{name}.wasm --fixtures {name}/fixtures");
    println!("      reviewhost inspect {name}/{name}.wasm     (the sha256 to pin)");
    println!("Build it with:");
    println!("{}", created.build);
    Ok(Exit::Clean)
}
