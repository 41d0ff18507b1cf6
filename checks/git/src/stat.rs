//! `--stat`, `--numstat` and `--shortstat`: line counts per file and git's graph of
//! them, scaled to the width git uses when its output is not a terminal.

use crate::Error;
use crate::diff::{Change, File, Options, SinkString, contents, is_binary, line_changes, quote};
use crate::repo::Repo;
use std::fmt::Write as _;

/// Insertions and deletions of one change, or None for a binary file.
/// (`-a` does not change it: git's statistics still show a binary file as `Bin`.)
pub fn counts(repo: &Repo, c: &Change) -> Result<Option<(usize, usize)>, Error> {
    let (old, new) = contents(repo, c)?;
    let (Some(old), Some(new)) = (old, new) else { return Ok(None) };
    if is_binary(&old) || is_binary(&new) {
        return Ok(None);
    }
    let (mut ins, mut del) = (0, 0);
    for (b0, b1, a0, a1) in line_changes(&old, &new) {
        del += b1 - b0;
        ins += a1 - a0;
    }
    Ok(Some((ins, del)))
}

/// `--stat` as git prints it into a pipe (80 columns).
pub fn print_stat(repo: &Repo, changes: &[Change], opts: &Options, out: &mut Vec<u8>) -> Result<(), Error> {
    if changes.is_empty() {
        return Ok(());
    }
    struct Row {
        name: String,
        counts: Option<(usize, usize)>,
        sizes: (u64, u64),
    }
    let mut rows = Vec::new();
    for c in changes {
        let name = if c.similarity.is_some() { rename_name(&c.old_path, &c.new_path) } else { quote(b"", &c.new_path) };
        let counts = counts(repo, c)?;
        let size = |f: &Option<File>| -> Result<u64, Error> {
            Ok(match f {
                Some(f) => match &f.data {
                    Some(d) => d.len() as u64,
                    None => repo.object_size(f.id)?,
                },
                None => 0,
            })
        };
        let sizes = if counts.is_none() { (size(&c.old)?, size(&c.new)?) } else { (0, 0) };
        rows.push(Row { name, counts, sizes });
    }
    // git's show_stats, for output that is not a terminal (80 columns by default).
    let width: usize = opts.stat.width.filter(|w| *w > 0).unwrap_or(80);
    let count = opts.stat.count.filter(|c| *c > 0).unwrap_or(rows.len()).min(rows.len());
    let mut max_change = 0;
    let mut bin_width = 0;
    let mut number_width = 0;
    for r in &rows[..count] {
        match r.counts {
            Some((i, d)) => max_change = max_change.max(i + d),
            None => {
                bin_width = bin_width.max(14 + decimal_width(r.sizes.0) + decimal_width(r.sizes.1));
                number_width = 3;
            }
        }
    }
    let number_width = number_width.max(decimal_width(max_change as u64));
    let width = width.max(16 + 6 + number_width);
    let max_len = rows[..count].iter().map(|r| r.name.chars().count()).max().unwrap_or(0);
    let mut graph_width = if max_change + 4 > bin_width { max_change } else { bin_width - 4 };
    let graph_limit = opts.stat.graph_width.filter(|g| *g > 0);
    if let Some(g) = graph_limit {
        graph_width = graph_width.min(g);
    }
    let mut name_width = match opts.stat.name_width {
        Some(n) if n > 0 && n < max_len => n,
        _ => max_len,
    };
    if name_width + number_width + 6 + graph_width > width {
        let limit = (width * 3 / 8).saturating_sub(number_width + 6);
        if graph_width > limit {
            graph_width = limit.max(6);
        }
        if let Some(g) = graph_limit {
            graph_width = graph_width.min(g);
        }
        if name_width > width.saturating_sub(number_width + 6 + graph_width) {
            name_width = width.saturating_sub(number_width + 6 + graph_width);
        } else {
            graph_width = width - number_width - 6 - name_width;
        }
    }
    let (mut total_ins, mut total_del) = (0, 0);
    for r in &rows[count..] {
        if let Some((i, d)) = r.counts {
            total_ins += i;
            total_del += d;
        }
    }
    for r in &rows[..count] {
        let mut name: String = r.name.clone();
        let mut prefix = "";
        let mut len = name_width;
        if name_width < name.chars().count() {
            prefix = "...";
            len = len.saturating_sub(3);
            let chars: Vec<char> = name.chars().collect();
            name = chars[chars.len() - len.min(chars.len())..].iter().collect();
            if let Some(slash) = name.find('/') {
                name = name[slash..].to_string();
            }
        }
        let padding = len.saturating_sub(name.chars().count());
        match r.counts {
            None => {
                let _ = writeln!(
                    SinkString(out),
                    " {prefix}{name}{} | {:>number_width$} {} -> {} bytes",
                    " ".repeat(padding),
                    "Bin",
                    r.sizes.0,
                    r.sizes.1
                );
            }
            Some((i, d)) => {
                total_ins += i;
                total_del += d;
                let (mut add, mut del) = (i, d);
                if graph_width <= max_change {
                    let mut total = scale(add + del, graph_width, max_change);
                    if total < 2 && add > 0 && del > 0 {
                        total = 2;
                    }
                    if add < del {
                        add = scale(add, graph_width, max_change);
                        del = total - add;
                    } else {
                        del = scale(del, graph_width, max_change);
                        add = total - del;
                    }
                }
                let sep = if i + d > 0 { " " } else { "" };
                let _ = writeln!(
                    SinkString(out),
                    " {prefix}{name}{} | {:>number_width$}{sep}{}{}",
                    " ".repeat(padding),
                    i + d,
                    "+".repeat(add),
                    "-".repeat(del)
                );
            }
        }
    }
    if count < rows.len() {
        out.extend_from_slice(b" ...\n");
    }
    let _ = writeln!(SinkString(out), "{}", stat_summary(rows.len(), total_ins, total_del));
    Ok(())
}

/// The last line of `--stat`, and all of `--shortstat`: git's `print_stat_summary`.
pub fn stat_summary(files: usize, ins: usize, del: usize) -> String {
    let mut summary = format!(" {files} file{} changed", if files == 1 { "" } else { "s" });
    if ins > 0 || del == 0 {
        let _ = write!(summary, ", {ins} insertion{}(+)", if ins == 1 { "" } else { "s" });
    }
    if del > 0 || ins == 0 {
        let _ = write!(summary, ", {del} deletion{}(-)", if del == 1 { "" } else { "s" });
    }
    summary
}

/// git's `scale_linear`: at least one column for any change.
fn scale(it: usize, width: usize, max_change: usize) -> usize {
    if it == 0 {
        return 0;
    }
    1 + (it * (width - 1) / max_change.max(1))
}

fn decimal_width(n: u64) -> usize {
    n.to_string().len()
}

/// `--stat`'s name of a rename: `{old => new}` around the common prefix and suffix.
pub fn rename_name(old: &[u8], new: &[u8]) -> String {
    // git's pprint_rename: names that need quoting are printed whole, each quoted.
    let (qa, qb) = (quote(b"", old), quote(b"", new));
    if qa.starts_with('"') || qb.starts_with('"') {
        return format!("{qa} => {qb}");
    }
    let (old, new) = (String::from_utf8_lossy(old).to_string(), String::from_utf8_lossy(new).to_string());
    let (ob, nb) = (old.as_bytes(), new.as_bytes());
    let mut pfx = 0;
    for i in 0..ob.len().min(nb.len()) {
        if ob[i] != nb[i] {
            break;
        }
        if ob[i] == b'/' {
            pfx = i + 1;
        }
    }
    let mut sfx = 0;
    let max_sfx = ob.len().min(nb.len()) - pfx;
    for i in 0..max_sfx {
        if ob[ob.len() - 1 - i] != nb[nb.len() - 1 - i] {
            break;
        }
        if ob[ob.len() - 1 - i] == b'/' {
            sfx = i + 1;
        }
    }
    if pfx == 0 && sfx == 0 {
        return format!("{old} => {new}");
    }
    format!(
        "{}{{{} => {}}}{}",
        &old[..pfx],
        &old[pfx..old.len() - sfx],
        &new[pfx..new.len() - sfx],
        &old[old.len() - sfx..]
    )
}
