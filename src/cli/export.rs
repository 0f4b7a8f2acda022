//! `review-mcp export [-o FILE]`: every record and decision as JSON Lines.
//!
//! The format, one JSON object per line and nothing else (no header, no timestamp of the
//! export itself, so that export -> import into an empty database -> export is
//! byte-identical):
//!
//! ```text
//! {"record":{"id":"rec_…","kind":"feature","name":"mating face",…,"created_at":…,"updated_at":…}}
//! {"decision":{"id":"dec_…","subject":"bore","disposition":"hold","basis":[…],…}}
//! ```
//!
//! Records come first, then decisions, each sorted by (`created_at`, `id`). Both keep their
//! `id` and `created_at` when they are replaced, so a replaced record changes its line in
//! place and two exports of one database over time diff cleanly in git.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use serde::Serialize;

use review_mcp::review::{Decision, Record};

use super::database::open_existing;
use super::output::{create_temp_beside, refuse_database_target};

/// `review-mcp export [-o FILE]`: JSON Lines on stdout, or into FILE through a temporary file
/// renamed into place, so a failed export never leaves a truncated backup behind.
pub fn run(db: &Path, output: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(path) = output {
        refuse_database_target(db, path)?;
    }
    let mut store = open_existing(db)?;
    let records = store.all_records().map_err(|e| anyhow!("{e}"))?;
    let decisions = store.all_decisions().map_err(|e| anyhow!("{e}"))?;
    let Some(path) = output else {
        let stdout = io::stdout();
        let mut out = io::BufWriter::new(stdout.lock());
        write_export(records, decisions, &mut out).context("cannot write the export")?;
        return Ok(ExitCode::SUCCESS);
    };
    let (tmp, file) =
        create_temp_beside(path, db).with_context(|| format!("cannot write {}", path.display()))?;
    let written = (|| -> anyhow::Result<(usize, usize)> {
        let mut out = io::BufWriter::new(file);
        let counts = write_export(records, decisions, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(counts)
    })();
    match written {
        Ok((r, d)) => {
            log::info!(
                "exported {r} records and {d} decisions to {}",
                path.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e.context(format!("cannot write {}", path.display())))
        }
    }
}

/// One line of an export as it is written: `{"record":{…}}` or `{"decision":{…}}`, the item
/// serialised straight from its struct, so the key order is the field order whatever
/// serde_json features the build enables.
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExportLine<'a> {
    Record(&'a Record),
    Decision(&'a Decision),
}

/// Writes the export of `records` and `decisions` (in any order) to `out`.
pub fn write_export(
    mut records: Vec<Record>,
    mut decisions: Vec<Decision>,
    out: &mut dyn Write,
) -> std::io::Result<(usize, usize)> {
    records.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    decisions.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    // A row an older version edited under a clock behind its `created_at` holds an
    // `updated_at` before it, which import refuses: export it as edited when it was created,
    // so every export imports back.
    for (created, updated) in records
        .iter_mut()
        .map(|r| (&r.created_at, &mut r.updated_at))
        .chain(
            decisions
                .iter_mut()
                .map(|d| (&d.created_at, &mut d.updated_at)),
        )
    {
        if *updated < *created {
            updated.clone_from(created);
        }
    }
    let lines = records
        .iter()
        .map(ExportLine::Record)
        .chain(decisions.iter().map(ExportLine::Decision));
    for line in lines {
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok((records.len(), decisions.len()))
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{T1, T2, feature};
    use super::*;

    #[test]
    fn write_export_orders_records_then_decisions_by_creation() {
        let mut late = feature("z", "late", T2);
        late.created_at = T2.into();
        let early = feature("y", "early", T1);
        let mut out = Vec::new();
        write_export(vec![late, early], vec![], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let ids: Vec<&str> = text
            .lines()
            .map(|l| if l.contains("\"id\":\"y\"") { "y" } else { "z" })
            .collect();
        assert_eq!(ids, ["y", "z"]);
        assert!(text.starts_with("{\"record\":{\"id\":\"y\""));
    }
}
