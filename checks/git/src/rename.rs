//! Rename detection as git's default `diff.renames` does it (diffcore-rename):
//! identical content first, then unique basenames at 75% similarity, then the most
//! similar pairs by diffcore-delta's span hashes; see the crate note for what may
//! differ.

use crate::Error;
use crate::diff::{Change, File, content, is_binary, kind};
use crate::repo::Repo;
use std::collections::BTreeMap;

/// git's `diff.renameLimit`: past this many sources times destinations (squared),
/// only identical-content renames are looked for.
const RENAME_LIMIT: usize = 1000;

/// git's `MAX_SCORE` and default minimum rename score (50%).
const MAX_SCORE: u64 = 60000;
const MIN_SCORE: u64 = 30000;
/// The score a unique-basename pair needs: halfway from the minimum to identical (75%).
const MIN_BASENAME_SCORE: u64 = MIN_SCORE + (MAX_SCORE - MIN_SCORE) / 2;

/// Pairs added files with deleted ones as git's diffcore-rename does: identical content
/// first, then by similarity (at least 50%, the best pairs first); each pair takes the
/// added file's place.
pub fn pair_renames(repo: &Repo, changes: &mut Vec<Change>) -> Result<(), Error> {
    let mut taken = vec![false; changes.len()];
    let is_src = |c: &Change| c.new.is_none() && c.old.is_some();
    let is_dst = |c: &Change| c.old.is_none() && c.new.is_some();
    for i in 0..changes.len() {
        let Some(n) = changes[i].new.as_ref().filter(|_| changes[i].old.is_none()) else { continue };
        let found = (0..changes.len()).find(|&j| {
            !taken[j]
                && is_src(&changes[j])
                && changes[j].old.as_ref().is_some_and(|o| o.id == n.id && kind(o.mode) == kind(n.mode))
        });
        if let Some(j) = found {
            taken[j] = true;
            changes[i].old = changes[j].old.clone();
            changes[i].old_path = changes[j].old_path.clone();
            changes[i].similarity = Some(100);
        }
    }
    // Inexact renames among what is left: regular files only.
    let regular = |f: &Option<File>| f.as_ref().is_some_and(|f| kind(f.mode) == 0o100000);
    let srcs: Vec<usize> =
        (0..changes.len()).filter(|&j| !taken[j] && is_src(&changes[j]) && regular(&changes[j].old)).collect();
    let dsts: Vec<usize> = (0..changes.len())
        .filter(|&i| is_dst(&changes[i]) && changes[i].similarity.is_none() && regular(&changes[i].new))
        .collect();
    if !srcs.is_empty() && !dsts.is_empty() && srcs.len() * dsts.len() <= RENAME_LIMIT * RENAME_LIMIT {
        let mut src_data = Vec::new();
        for &j in &srcs {
            let data = content(repo, changes[j].old.as_ref().expect("a source has an old side"))?;
            src_data.push(data.map(|d| (d.len() as u64, span_hashes(&d))));
        }
        let mut dst_data = Vec::new();
        for &i in &dsts {
            let data = content(repo, changes[i].new.as_ref().expect("a destination has a new side"))?;
            dst_data.push(data.map(|d| (d.len() as u64, span_hashes(&d))));
        }
        let score_of = |k: usize, d: usize, min: u64| match (&src_data[k], &dst_data[d]) {
            (Some((ss, sh)), Some((ds, dh))) => similarity(*ss, sh, *ds, dh, min),
            _ => 0,
        };
        fn pair(changes: &mut [Change], taken: &mut [bool], i: usize, j: usize, score: u64) {
            taken[j] = true;
            changes[i].old = changes[j].old.clone();
            changes[i].old_path = changes[j].old_path.clone();
            changes[i].similarity = Some((score * 100 / MAX_SCORE) as u32);
        }
        // git 2.33+: a basename found once among the sources and once among the
        // destinations pairs them at 75% similarity, before the full comparison.
        let unique = |names: Vec<&[u8]>, name: &[u8]| names.iter().filter(|n| **n == name).count() == 1;
        let src_names: Vec<&[u8]> = srcs.iter().map(|&j| basename(&changes[j].old_path)).collect();
        let dst_names: Vec<&[u8]> = dsts.iter().map(|&i| basename(&changes[i].new_path)).collect();
        let mut by_basename = Vec::new();
        for (k, &j) in srcs.iter().enumerate() {
            let name = src_names[k];
            if !unique(src_names.clone(), name) || !unique(dst_names.clone(), name) {
                continue;
            }
            let d = dst_names.iter().position(|n| *n == name).expect("unique among destinations");
            let score = score_of(k, d, MIN_BASENAME_SCORE);
            if score >= MIN_BASENAME_SCORE {
                by_basename.push((dsts[d], j, score));
            }
        }
        for (i, j, score) in by_basename {
            pair(changes, &mut taken, i, j, score);
        }
        // (score, same basename, dst, src), the best first.
        let mut scores: Vec<(u64, bool, usize, usize)> = Vec::new();
        for (d, &i) in dsts.iter().enumerate() {
            if changes[i].similarity.is_some() {
                continue;
            }
            let mut mine = Vec::new();
            for (k, &j) in srcs.iter().enumerate() {
                if taken[j] {
                    continue;
                }
                let same_name = basename(&changes[i].new_path) == basename(&changes[j].old_path);
                mine.push((score_of(k, d, MIN_SCORE), same_name, i, j));
            }
            // git keeps the four best candidates of each destination.
            mine.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
            scores.extend(mine.into_iter().take(4));
        }
        scores.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        for (score, _, i, j) in scores {
            if score < MIN_SCORE {
                break;
            }
            if taken[j] || changes[i].similarity.is_some() {
                continue;
            }
            pair(changes, &mut taken, i, j, score);
        }
    }
    let mut k = 0;
    changes.retain(|_| {
        k += 1;
        !taken[k - 1]
    });
    Ok(())
}

fn basename(path: &[u8]) -> &[u8] {
    path.rsplit(|b| *b == b'/').next().unwrap_or(path)
}

/// git's `estimate_similarity`: how much of the larger file is material copied from
/// the source, in units of [`MAX_SCORE`]; 0 when the sizes differ too much for
/// `min_score`.
fn similarity(src_size: u64, src: &BTreeMap<u32, u64>, dst_size: u64, dst: &BTreeMap<u32, u64>, min_score: u64) -> u64 {
    let max = src_size.max(dst_size);
    let base = src_size.min(dst_size);
    if max * (MAX_SCORE - min_score) < (max - base) * MAX_SCORE || max == 0 {
        return 0;
    }
    let copied: u64 = src.iter().map(|(h, n)| (*n).min(dst.get(h).copied().unwrap_or(0))).sum();
    copied * MAX_SCORE / max
}

/// git's `hash_chars` (diffcore-delta.c): the content cut into spans ending at a newline
/// or after 64 bytes, each hashed; bytes per hash value.
fn span_hashes(data: &[u8]) -> BTreeMap<u32, u64> {
    const HASHBASE: u32 = 107927;
    let text = !is_binary(data);
    let mut out = BTreeMap::new();
    let (mut accum1, mut accum2, mut n) = (0u32, 0u32, 0u64);
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        i += 1;
        if text && c == b'\r' && data.get(i) == Some(&b'\n') {
            continue;
        }
        let old1 = accum1;
        accum1 = (accum1 << 7) ^ (accum2 >> 25);
        accum2 = (accum2 << 7) ^ (old1 >> 25);
        accum1 = accum1.wrapping_add(u32::from(c));
        n += 1;
        if n < 64 && c != b'\n' {
            continue;
        }
        let h = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *out.entry(h).or_insert(0) += n;
        n = 0;
        accum1 = 0;
        accum2 = 0;
    }
    if n > 0 {
        let h = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        *out.entry(h).or_insert(0) += n;
    }
    out
}
