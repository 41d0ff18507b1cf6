//! `reviewhost inspect COMPONENT`: a component's world, imports, exports, memory and pin.

use std::io::Write;
use std::path::PathBuf;

use reviewhost::authoring::inspect::inspect as inspect_component;
use reviewhost::report::inert;
use reviewhost::sandbox::{Bytes, parse_memory};

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
Nothing is compiled or run: the answer comes from the component's sections.

Examples:
  reviewhost inspect license_check.wasm
  reviewhost inspect license_check.wasm --memory 64MiB --json

Exit codes: 0 a custom assertion can use it, 1 reviewhost would refuse it (the reason
is printed), 2 it cannot be read or is not a component.")]
pub struct InspectArgs {
    /// The component (.wasm).
    component: PathBuf,
    /// The --memory of the runs that will use it, e.g. 64MiB.
    #[arg(long, default_value = "256MiB", value_parser = parse_memory)]
    memory: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn inspect(args: &InspectArgs) -> anyhow::Result<Exit> {
    let found = inspect_component(&args.component, args.memory)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &found)?;
        writeln!(out)?;
        return Ok(Exit::clean_if(found.refused.is_none()));
    }
    let world = found.world.as_deref().map_or("none of reviewhost's (see exports)".into(), |w| inert(w).into_owned());
    writeln!(out, "component  {}", inert(&args.component.display().to_string()))?;
    writeln!(out, "world      {world}")?;
    writeln!(out, "size       {} ({} bytes)", Bytes(found.size), found.size)?;
    writeln!(out, "sha256     {}", found.sha256)?;
    writeln!(out, "memory     {} at start", Bytes(found.initial_memory))?;
    let list = |out: &mut dyn Write, label: &str, items: Vec<String>| -> std::io::Result<()> {
        match items.is_empty() {
            true => writeln!(out, "{label:<10} none"),
            false => items
                .iter()
                .enumerate()
                .try_for_each(|(i, item)| writeln!(out, "{:<10} {item}", if i == 0 { label } else { "" })),
        }
    };
    list(&mut out, "exports", found.exports.iter().map(|e| inert(e).into_owned()).collect())?;
    let imports = found
        .imports
        .iter()
        .map(|i| format!("{} ({})", inert(&i.name), if i.linked { "linked" } else { "NOT linked" }))
        .collect();
    list(&mut out, "imports", imports)?;
    list(&mut out, "built by", found.producers.iter().map(|p| inert(p).into_owned()).collect())?;
    writeln!(out)?;
    match &found.refused {
        None => {
            writeln!(out, "A custom assertion can use it (with --memory {}). Pin it:", Bytes(args.memory))?;
            let name = args.component.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            writeln!(out, "  \"component\": \"{}\", \"sha256\": \"{}\"", inert(&name), found.sha256)?;
        }
        Some(reason) => writeln!(out, "reviewhost would refuse it: {}", inert(reason))?,
    }
    Ok(Exit::clean_if(found.refused.is_none()))
}
