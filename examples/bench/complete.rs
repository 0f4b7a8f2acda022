//! The `completion/complete` rows: the prompt and template completions a host sends while
//! the user types, timed at each database size (target: p50 within 2 ms at 100,000 records).

use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::{Value, json};

use super::Row;
use super::wire::{Server, Stats};

/// One kind of completion request.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `revision` of a prompt with a 2-character prefix: every revision matches, so it is
    /// always 100 values and `hasMore`.
    Revision,
    /// `revision` with `context.arguments.uri`: the revisions of one file.
    RevisionOfFile,
    /// `uri` with the prefix of ten parts' paths.
    Uri,
    /// `subject` with a prefix that hundreds of subjects share.
    Subject,
    /// The `{id}` of `review://records/{id}`: `rec_` and one hex digit.
    RecordId,
}

const KINDS: [Kind; 5] = [
    Kind::Revision,
    Kind::RevisionOfFile,
    Kind::Uri,
    Kind::Subject,
    Kind::RecordId,
];

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Revision => "complete revision, prefix \"sh\"",
            Kind::RevisionOfFile => "complete revision of a file (context uri)",
            Kind::Uri => "complete uri, prefix of 10+ parts",
            Kind::Subject => "complete subject, prefix \"subject-N\"",
            Kind::RecordId => "complete {id} of review://records/{id}",
        }
    }

    fn params(self, k: usize) -> Value {
        let prompt = |name: &str, arg: &str, value: String| json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": arg, "value": value}});
        match self {
            Kind::Revision => prompt("start_review", "revision", "sh".into()),
            Kind::RevisionOfFile => {
                let mut p = prompt("resume_review", "revision", "sha256:".into());
                p["context"] =
                    json!({"arguments": {"uri": format!("/work/parts/part-{}.step", k % 200)}});
                p
            }
            Kind::Uri => prompt(
                "start_review",
                "uri",
                format!("file:///work/parts/part-{}", k % 10),
            ),
            Kind::Subject => prompt("record_decision", "subject", format!("subject-{}", k % 10)),
            Kind::RecordId => json!({
                "ref": {"type": "ref/resource", "uri": "review://records/{id}"},
                "argument": {"name": "id", "value": format!("rec_{:x}", k % 16)},
            }),
        }
    }
}

/// The figures of one kind at one size.
pub struct Figures {
    kind: Kind,
    disk: Stats,
    cpu: Duration,
    answer_bytes: usize,
    /// Values in the last answer, and whether it said there were more.
    last: (usize, bool),
}

/// Times `n` requests of every kind on a running server.
pub fn measure(s: &mut Server, n: usize) -> Result<Vec<Figures>> {
    let mut out = Vec::new();
    for kind in KINDS {
        let cpu_before = s.cpu_time()?;
        let mut times = Vec::with_capacity(n);
        let mut answer_bytes = 0;
        let mut last = (0, false);
        for k in 0..n {
            let (t, result) = s.round_trip_method("completion/complete", kind.params(k))?;
            times.push(t);
            answer_bytes += s.last_line_len();
            let Some(values) = result
                .pointer("/completion/values")
                .and_then(Value::as_array)
            else {
                bail!("{}: no completion.values in {result}", kind.label());
            };
            let more = result.pointer("/completion/hasMore") == Some(&json!(true));
            last = (values.len(), more);
        }
        let cpu = s.cpu_time()?.saturating_sub(cpu_before) / u32::try_from(n.max(1))?;
        out.push(Figures {
            kind,
            disk: Stats::new(times),
            cpu,
            answer_bytes: answer_bytes / n.max(1),
            last,
        });
    }
    Ok(out)
}

/// One row per kind and size; the 2 ms target at 100,000 records.
pub fn rows(reports: &[(usize, &[Figures])], fmt_dur: fn(Duration) -> String) -> Vec<Row> {
    let mut rows = Vec::new();
    for kind in KINDS {
        for (size, figures) in reports {
            let Some(f) = figures.iter().find(|f| f.kind == kind) else {
                continue;
            };
            let mut r = Row::new(kind.label());
            r.records = size.to_string();
            r.p50 = fmt_dur(f.disk.p50());
            r.p99 = fmt_dur(f.disk.p99());
            r.cpu = fmt_dur(f.cpu);
            r.answer = format!(
                "{} B ({} values{})",
                f.answer_bytes,
                f.last.0,
                if f.last.1 { ", more" } else { "" }
            );
            if *size == 100_000 {
                r.target = "≤ 2 ms".into();
                let ok = f.disk.p50() <= Duration::from_millis(2);
                r.verdict = if ok { "PASS" } else { "MISS" }.into();
            }
            rows.push(r);
        }
    }
    rows
}
