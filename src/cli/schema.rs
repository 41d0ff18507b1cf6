//! `reviewhost schema`: the assertions file's JSON Schema.

use std::io::Write;

use crate::exit::Exit;

#[derive(clap::Args)]
#[command(after_help = "\
The schema is derived from reviewhost's own types. It knows the assertion types, so a
misspelt `type` is a violation here (`run` would evaluate that assertion as an error).

Examples:
  reviewhost schema
  reviewhost schema > assertions.schema.json")]
pub struct SchemaArgs {}

pub fn schema() -> anyhow::Result<Exit> {
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, reviewhost::assertion::schema::schema())?;
    writeln!(stdout)?;
    Ok(Exit::Clean)
}
