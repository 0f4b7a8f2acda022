//! Issue 27, part B: `artifact_revision` (the one place a CAD file is read: bytes only,
//! regular files only, never blocking) and the AS9102 Form 3 out, as the `review-mcp form3`
//! command and the `review://revisions/{revision}/form3.csv` resource, parsed by a strict
//! RFC 4180 reader.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::inproc::{Client, ERAS, Era, art_uri};
use crate::support::{TempDir, sha256_hex};

const BIN: &str = env!("CARGO_BIN_EXE_review-mcp");
const COLUMNS: usize = 18;
const HEADER_LINES: usize = 10;

fn cmd(dir: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(dir)
        .env_remove("REVIEW_MCP_DB_PATH")
        .env("MCP_LOG_LEVEL", "warn")
        .stdin(Stdio::null());
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    cmd(dir).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A strict RFC 4180 reader: records end with CRLF (the last one too), a field is either
/// plain (no comma, quote, CR or LF) or quoted (quotes doubled inside; CR and LF allowed
/// there); anything else is an error naming the byte offset.
pub(crate) fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let b: Vec<char> = text.chars().collect();
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut i = 0;
    if b.is_empty() {
        return Ok(records);
    }
    loop {
        let mut field = String::new();
        if b.get(i) == Some(&'"') {
            i += 1;
            loop {
                match b.get(i) {
                    None => return Err(format!("unterminated quoted field at {i}")),
                    Some('"') if b.get(i + 1) == Some(&'"') => {
                        field.push('"');
                        i += 2;
                    }
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some(c) => {
                        field.push(*c);
                        i += 1;
                    }
                }
            }
        } else {
            while let Some(c) = b.get(i) {
                match c {
                    ',' | '\r' => break,
                    '"' | '\n' => return Err(format!("bare {c:?} in a plain field at {i}")),
                    c => {
                        field.push(*c);
                        i += 1;
                    }
                }
            }
        }
        record.push(field);
        match (b.get(i), b.get(i + 1)) {
            (Some(','), _) => i += 1,
            (Some('\r'), Some('\n')) => {
                i += 2;
                records.push(std::mem::take(&mut record));
                if i == b.len() {
                    return Ok(records);
                }
            }
            (None, _) => return Err("the last record does not end with CRLF".into()),
            (c, _) => return Err(format!("unexpected {c:?} after a field at {i}")),
        }
    }
}

#[test]
fn strict_reader_refuses_what_rfc_4180_does() {
    assert_eq!(
        parse_csv("a,\"b,\"\"c\"\"\r\nd\"\r\n").unwrap(),
        vec![vec!["a".to_string(), "b,\"c\"\r\nd".to_string()]]
    );
    for bad in [
        "a,b",
        "a\nb\r\n",
        "a\"b\r\n",
        "\"a\"b\r\n",
        "\"a\r\n",
        "a\rb\r\n",
    ] {
        assert!(parse_csv(bad).is_err(), "{bad:?}");
    }
}

/// A cell a spreadsheet would run as a formula: its first character, after whitespace.
fn formula_start(cell: &str) -> bool {
    cell.starts_with(['\t', '\r'])
        || cell
            .trim_start()
            .starts_with(['=', '+', '-', '@', '＝', '＋', '－', '＠'])
}

fn rev(i: usize) -> String {
    format!(
        "sha256:{}",
        sha256_hex(format!("form3 revision {i}").as_bytes())
    )
}

const HOSTILE_REQ: &str = "=HYPERLINK(\"http://evil\",\"click\")";
const HOSTILE_EVIDENCE: &str = "+1,5 mm\r\n-2 \"quoted\"\rline3\nline4";
const HOSTILE_QUESTION: &str = " \t@SUM(A1:A9)";

/// A database with, at `rev(1)`: decision "bore" (created first) with an engineer's verdict
/// and hostile strings, decision "wall" with every other state; at `rev(2)`: one decision
/// that must not appear. Written by `review-mcp import`, as a team's export would be.
fn seeded(dir: &Path) -> std::path::PathBuf {
    let long = "0123456789 ".repeat(3000);
    let lines = [
        json!({"decision": {
            "id": "dec_00000000000000b2", "subject": "wall", "disposition": "hold",
            "basis": [
                {"requirement": "Wall ≥ 2 mm", "source": "assistant-proposed", "state": "conflicting",
                 "question": HOSTILE_QUESTION, "evidence": "-0.1 mm under, \u{202E}reversed\u{0007}bell", "faces": ["face:9"]},
                {"requirement": "Edge break", "source": "shop-spec", "state": "not-applicable", "faces": []},
                {"requirement": "Long evidence", "source": "drawing", "state": "violated",
                 "evidence": long, "faces": ["face:1", "face:2"],
                 "verdict": {"judgement": "rejected", "reason": "=cmd|' /C calc'!A0", "via": "assistant",
                             "at": "2026-01-01T00:00:03.000Z"}},
                {"requirement": "Thread", "source": "drawing", "state": "unresolved",
                 "question": "Which class?", "faces": ["edge:4"]}
            ],
            "artifact": {"revision": rev(1), "format": "step", "uri": "file:///work/bracket.step"},
            "created_at": "2026-01-01T00:00:02.000Z", "updated_at": "2026-01-01T00:00:02.000Z"}}),
        json!({"decision": {
            "id": "dec_00000000000000a1", "subject": "bore", "disposition": "accept",
            "basis": [
                {"requirement": HOSTILE_REQ, "source": "drawing", "sourceDetail": "note 4, sheet 2",
                 "evidence": HOSTILE_EVIDENCE, "state": "satisfied", "faces": ["face:3", "face:7"],
                 "verdict": {"judgement": "accepted", "via": "elicitation", "author": "Ada",
                             "at": "2026-01-01T00:00:05.000Z"}}
            ],
            "artifact": {"revision": rev(1), "format": "step", "uri": "file:///work/bracket.step"},
            "created_at": "2026-01-01T00:00:01.000Z", "updated_at": "2026-01-01T00:00:01.000Z"}}),
        json!({"decision": {
            "id": "dec_00000000000000c3", "subject": "other revision", "disposition": "hold",
            "basis": [{"requirement": "Not here", "source": "drawing", "state": "satisfied", "faces": []}],
            "artifact": {"revision": rev(2), "format": "step", "uri": "file:///work/bracket.step"},
            "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(dir.join("in.jsonl"), text).unwrap();
    let o = run(dir, &["--db", "r.db", "import", "in.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    dir.join("r.db")
}

fn read_resource(c: &mut Client, uri: &str) -> (Value, usize) {
    let resp = c.request("resources/read", json!({"uri": uri}));
    assert!(resp.get("error").is_none(), "{resp}");
    let bytes = serde_json::to_string(&resp).unwrap().len();
    (resp["result"]["contents"][0].clone(), bytes)
}

/// The command's bytes, parsed strictly: header, columns, one row per basis item of the
/// revision's decisions in order, every mapping of the docs, and no cell a formula or a
/// broken row; the same bytes twice, from `-o`, and from the resource in every era.
#[test]
fn form3_command_and_resource_give_one_strict_csv() {
    let dir = TempDir::new("form3").unwrap();
    let db = seeded(dir.path());
    let r1 = rev(1);
    let o = run(dir.path(), &["--db", "r.db", "form3", &r1]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = o.stdout.clone();
    let again = run(dir.path(), &["--db", "r.db", "form3", &r1]);
    assert_eq!(again.stdout, bytes, "deterministic bytes");
    let o = run(dir.path(), &["--db", "r.db", "form3", &r1, "-o", "f3.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // The file is for a spreadsheet: a UTF-8 byte-order mark first (Excel on Windows reads
    // a .csv without one in the ANSI code page: "Ã˜" for "Ø"), then the very bytes of
    // stdout, which has none (pipes, programs, the resource's bytes).
    let file = fs::read(dir.path().join("f3.csv")).unwrap();
    assert_eq!(file[..3], [0xEF, 0xBB, 0xBF], "a BOM opens the -o file");
    assert_eq!(file[3..], bytes[..]);
    let o = run(dir.path(), &["--db", "r.db", "form3", &r1, "-o", "-"]);
    assert_eq!(o.stdout, bytes, "-o - is stdout: no BOM");

    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(!text.starts_with('\u{FEFF}'));
    assert!(text.contains("Wall ≥ 2 mm"));
    let records = parse_csv(&text).unwrap();
    for r in &records {
        assert_eq!(r.len(), COLUMNS, "{r:?}");
        for cell in r {
            assert!(!formula_start(cell), "formula cell {cell:?}");
            assert!(
                !cell
                    .chars()
                    .any(|c| c != '\n' && review_mcp::text::is_control_like(c)),
                "control character in {cell:?}"
            );
        }
    }
    assert_eq!(records[0][0], "Form");
    assert!(records[0][1].contains("AS9102 Rev C Form 3"));
    assert_eq!(records[5][..2], ["Part File", "file:///work/bracket.step"]);
    assert_eq!(records[6][..2], ["Revision", r1.as_str()]);
    assert_eq!(records[7][..2], ["FAI", "Full FAI"]);
    assert_eq!(records[8][..2], ["Rows", "5 of 5"]);
    let head = &records[HEADER_LINES];
    assert_eq!(head[0], "5. Char. No.");
    assert_eq!(head[4], "9. Results");
    assert_eq!(head[7], "12. Additional Data / Comments");
    assert_eq!(head[9], "QIF Status");
    assert_eq!(head[15], "Inherited From");
    let rows = &records[HEADER_LINES + 1..];
    assert_eq!(rows.len(), 5, "one row per basis item of rev(1) only");
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (no, loc, req, res, comm) = (0, 1, 3, 4, 7);
    let (state, qif, verdict, by, via, who, at, inh, id, item) = (
        col("State"),
        col("QIF Status"),
        col("Verdict"),
        col("Verdict Given By"),
        col("Verdict Channel"),
        col("Verdict Recorded By"),
        col("Verdict At"),
        col("Inherited From"),
        col("Decision Id"),
        col("Basis Item"),
    );
    // Oldest decision first ("bore"), each basis in order.
    let bore = &rows[0];
    assert_eq!(bore[no], "1");
    assert_eq!(bore[loc], "face:3, face:7");
    assert_eq!(bore[req], format!("'{HOSTILE_REQ}"));
    assert_eq!(bore[res], "'+1,5 mm\n-2 \"quoted\"\nline3\nline4");
    assert!(
        bore[comm].contains("Source: drawing (\"note 4, sheet 2\")"),
        "{}",
        bore[comm]
    );
    assert_eq!(bore[state], "satisfied");
    assert_eq!(bore[qif], "PASS");
    assert_eq!(bore[verdict], "accepted (review)");
    assert_eq!(bore[by], "engineer");
    assert_eq!(bore[via], "elicitation");
    assert_eq!(bore[who], "Ada");
    assert_eq!(bore[at], "2026-01-01T00:00:05.000Z");
    assert_eq!(bore[inh], "");
    assert_eq!(
        (bore[id].as_str(), bore[item].as_str()),
        ("dec_00000000000000a1", "1")
    );
    let states: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[state].as_str(), r[qif].as_str()))
        .collect();
    assert_eq!(
        states,
        [
            ("satisfied", "PASS"),
            ("conflicting", "INDETERMINATE"),
            ("not-applicable", "OTHER"),
            // Its verdict (relayed) rejects it: the stated state is disputed.
            ("violated", "INDETERMINATE"),
            ("unresolved", "NOT_ANALYZED")
        ]
    );
    let wall = &rows[1];
    assert_eq!(wall[res], "'-0.1 mm under, \\u{202e}reversed\\u{7}bell");
    assert!(
        wall[comm].contains("Question: \" \\u{9}@SUM"),
        "{}",
        wall[comm]
    );
    assert_eq!(wall[verdict], "pending");
    assert_eq!(rows[2][loc], "whole part");
    let long = &rows[3];
    // 33,000 characters: over what a spreadsheet cell holds, so cut there, saying so.
    assert_eq!(
        long[res].encode_utf16().count(),
        32_767,
        "long evidence bounded"
    );
    assert!(long[res].starts_with(&"0123456789 ".repeat(2900)));
    assert!(
        long[res].ends_with(
            " … [cut: 33000 characters in all; the whole text: recall_decisions with decision_id dec_00000000000000b2]"
        ),
        "{}",
        &long[res][32_500..]
    );
    assert_eq!(long[verdict], "rejected: =cmd|' /C calc'!A0");
    assert_eq!(long[by], "assistant");
    assert_eq!(long[via], "assistant");
    assert_eq!(
        rows.iter().map(|r| r[no].as_str()).collect::<Vec<_>>(),
        ["1", "2", "3", "4", "5"]
    );

    // The resource: too long for one answer with the 33 KB evidence, so cut to whole rows
    // and saying so, in every era, within the bound.
    for era in ERAS {
        let mut c = Client::new(Store::open(&db).unwrap(), era);
        let uri = format!("review://revisions/{r1}/form3.csv");
        let (content, line) = read_resource(&mut c, &uri);
        assert!(line <= 32_000, "{era:?}: {line} bytes");
        assert_eq!(content["mimeType"], "text/csv");
        assert_eq!(content["uri"], uri);
        let cut = content["text"].as_str().unwrap();
        assert!(!cut.starts_with('\u{FEFF}'), "no BOM for a model");
        let parsed = parse_csv(cut).unwrap();
        // Regression (docstruth): the command said "on the server's database" without naming
        // it; run as given in a shell without REVIEW_MCP_DB_PATH it read ./review-mcp.db.
        assert_eq!(
            parsed[8][1],
            format!(
                "3 of 5: truncated to fit one answer; run `review-mcp form3 --db {} {r1}` for every row",
                db.display()
            ),
        );
        assert_eq!(
            parsed[HEADER_LINES + 1..],
            rows[..3],
            "a prefix of whole rows"
        );
        // Another revision's form fits: the same bytes as the command's.
        let (content, _) =
            read_resource(&mut c, &format!("review://revisions/{}/form3.csv", rev(2)));
        let o = run(dir.path(), &["--db", "r.db", "form3", &rev(2)]);
        assert_eq!(content["text"].as_str().unwrap().as_bytes(), o.stdout);
        // Nothing recorded: not found, as every revision resource.
        let resp = c.request(
            "resources/read",
            json!({"uri": format!("review://revisions/{}/form3.csv", rev(3))}),
        );
        assert!(resp.get("error").is_some(), "{resp}");
    }
}

/// The resource within the bound over a heavy revision written through the tools, and the
/// command's first rows equal to it; the template is listed.
#[test]
fn form3_resource_of_a_heavy_revision_is_a_prefix_within_the_bound() {
    let dir = TempDir::new("form3-heavy").unwrap();
    let db = dir.path().join("r.db");
    let r = rev(7);
    for era in ERAS {
        let mut c = Client::new(Store::open(&db).unwrap(), era);
        if era == Era::V2025_06_18 {
            for i in 0..30 {
                let basis: Vec<Value> = (0..10)
                    .map(|k| json!({"requirement": format!("req {i}.{k}"), "source": "drawing",
                        "evidence": format!("{}", "measured, \"ok\"\n".repeat(20)), "state": "satisfied",
                        "faces": [format!("face:{k}")]}))
                    .collect();
                c.ok(
                    "remember_decision",
                    json!({"artifact": art_uri(&r, "/work/heavy.step"), "subject": format!("s{i}"),
                           "disposition": "accept", "basis": basis}),
                );
            }
        }
        let t = c.request("resources/templates/list", json!({}));
        let listed = t["result"]["resourceTemplates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| {
                x["uriTemplate"] == "review://revisions/{revision}/form3.csv"
                    && x["mimeType"] == "text/csv"
            });
        assert!(listed, "{t}");
        let (content, line) = read_resource(&mut c, &format!("review://revisions/{r}/form3.csv"));
        assert!(line <= 32_000, "{era:?}: {line}");
        let cut = parse_csv(content["text"].as_str().unwrap()).unwrap();
        let shown: usize = cut[8][1].split(' ').next().unwrap().parse().unwrap();
        assert!(cut[8][1].starts_with(&format!("{shown} of 300: truncated")));
        assert_eq!(cut.len(), HEADER_LINES + 1 + shown);
        assert!(shown > 10, "{shown}");
        drop(c);
        let o = run(dir.path(), &["--db", "r.db", "form3", &r]);
        let all = parse_csv(&String::from_utf8(o.stdout).unwrap()).unwrap();
        assert_eq!(all.len(), HEADER_LINES + 1 + 300);
        assert_eq!(
            cut[HEADER_LINES..],
            all[HEADER_LINES..HEADER_LINES + 1 + shown]
        );
    }
}

/// `-o` never writes through a symlink, never over a directory, and leaves no temporary or
/// partial file behind when it refuses; an unknown revision fails with a message.
#[cfg(unix)]
#[test]
fn form3_output_refuses_links_and_leaves_nothing_partial() {
    let dir = TempDir::new("form3-out").unwrap();
    seeded(dir.path());
    let r1 = rev(1);
    fs::write(dir.path().join("victim"), b"precious").unwrap();
    std::os::unix::fs::symlink(dir.path().join("victim"), dir.path().join("link.csv")).unwrap();
    fs::create_dir(dir.path().join("adir")).unwrap();
    let listing = || -> Vec<std::ffi::OsString> {
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| !n.to_string_lossy().starts_with("r.db"))
            .collect();
        names.sort();
        names
    };
    let before = listing();
    for (target, says) in [
        ("link.csv", "symbolic link"),
        ("adir", "directory"),
        ("r.db", "database"),
    ] {
        let o = run(dir.path(), &["--db", "r.db", "form3", &r1, "-o", target]);
        assert_eq!(o.status.code(), Some(1), "{target}");
        assert!(stderr(&o).contains(says), "{target}: {}", stderr(&o));
    }
    assert_eq!(fs::read(dir.path().join("victim")).unwrap(), b"precious");
    let o = run(
        dir.path(),
        &["--db", "r.db", "form3", &rev(9), "-o", "new.csv"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no decision is recorded at"),
        "{}",
        stderr(&o)
    );
    // Neither a revision nor a file: a failure (the argument may name a file), saying so.
    let o = run(dir.path(), &["--db", "r.db", "form3", "sha256:nothex"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("'sha256:nothex' is not a revision (sha256:<64 lowercase hex>"),
        "{}",
        stderr(&o)
    );
    assert_eq!(before, listing(), "no file left behind");
    let help = run(dir.path(), &["--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("form3 FILE-OR-REVISION [-o FILE]"));
}

/// Regression: `form3` given a revision by the short form answers write (`sha256:` and 12 or
/// 8 hex digits, with or without `…`) said only that it was neither a revision nor a file; it
/// now says what the form is and names the one stored revision it stands for, as a tool does.
#[test]
fn form3_of_a_short_form_names_the_revision_it_stands_for() {
    let dir = TempDir::new("form3-short").unwrap();
    seeded(dir.path());
    let r1 = rev(1);
    for short in [format!("{}…", &r1[..19]), r1[..15].to_string()] {
        let o = run(dir.path(), &["--db", "r.db", "form3", &short]);
        assert_eq!(o.status.code(), Some(1), "{short}");
        let err = stderr(&o);
        assert!(
            err.contains("is the short form an answer writes")
                && err.contains(&format!(
                    "the one revision here that begins {} is {r1}",
                    short.trim_end_matches('…')
                )),
            "{short}: {err}"
        );
        assert!(o.stdout.is_empty(), "{short}");
    }
    // No database: what the form is and what to pass, and nothing created.
    let o = run(dir.path(), &["--db", "none.db", "form3", &r1[..15]]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("pass the whole revision"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("none.db").exists());
}

/// Regression: `form3` given a revision as a checksum tool prints it (`sha256sum`'s 64 hex
/// digits alone, PowerShell's in capitals) said only "no such file ... (give the part's file or
/// its sha256:<64 hex> revision)", while every tool given the same value names the revision to
/// pass (today's merge of branch review). Found by the adversarial read of that merge.
#[test]
fn form3_of_a_bare_digest_names_the_revision_to_give() {
    let dir = TempDir::new("form3-digest").unwrap();
    seeded(dir.path());
    let r1 = rev(1);
    let hex = &r1["sha256:".len()..];
    for given in [
        hex.to_string(),
        hex.to_uppercase(),
        format!("SHA256:{}", hex.to_uppercase()),
    ] {
        let o = run(dir.path(), &["--db", "r.db", "form3", &given]);
        assert_eq!(o.status.code(), Some(1), "{given}");
        let err = stderr(&o);
        assert!(err.contains(&format!("pass \"{r1}\"")), "{given}: {err}");
        assert!(o.stdout.is_empty(), "{given}");
    }
}

fn sha256sum(path: &Path) -> String {
    let o = Command::new("sha256sum").arg(path).output().unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    format!("sha256:{}", out.split_whitespace().next().unwrap())
}

/// `artifact_revision` in every era: a regular file's revision is `sha256sum`'s, by path and
/// by file: URI; a directory, a missing file, a relative path and a non-file URI are refused
/// with what to do; the revision is accepted as artifact.revision by the other tools.
#[test]
fn artifact_revision_hashes_regular_files_only() {
    let dir = TempDir::new("artrev").unwrap();
    let part = dir.path().join("bracket v2.step");
    let body: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    fs::write(&part, &body).unwrap();
    let expected = sha256sum(&part);
    for era in ERAS {
        let mut c = Client::memory(era);
        let got = c.ok("artifact_revision", json!({"path": part.to_str().unwrap()}));
        assert_eq!(got["revision"], expected);
        assert_eq!(got["bytes"], 200_000);
        let uri = got["uri"].as_str().unwrap().to_string();
        assert!(
            uri.starts_with("file:///") && uri.ends_with("bracket%20v2.step"),
            "{uri}"
        );
        assert_eq!(
            c.ok("artifact_revision", json!({"path": uri}))["revision"],
            expected
        );
        c.ok(
            "remember",
            json!({"artifact": {"revision": expected, "format": "step", "uri": uri}, "note": "hashed here", "entity_ids": []}),
        );
        let e = c.refused(
            "artifact_revision",
            json!({"path": dir.path().to_str().unwrap()}),
        );
        assert!(e.contains("is a directory, not a regular file"), "{e}");
        let e = c.refused(
            "artifact_revision",
            json!({"path": dir.path().join("nope.step").to_str().unwrap()}),
        );
        assert!(e.contains("no such file"), "{e}");
        let e = c.refused("artifact_revision", json!({"path": "parts/bracket.step"}));
        assert!(e.contains("relative") && e.contains("absolute path"), "{e}");
        let e = c.refused(
            "artifact_revision",
            json!({"path": "https://example.com/p.step"}),
        );
        assert!(e.contains("only a local file"), "{e}");
        c.schema_refused("artifact_revision", json!({}));
        c.schema_refused("artifact_revision", json!({"path": "/x", "extra": 1}));
    }
}

/// A file whose name really starts or ends with a space (allowed on every POSIX system) is
/// hashed, by path and by its file: URI with %20, and its uri is the one remember takes: the
/// refusal of a uri with white space around it (a copy-paste slip) is for typed uris, not for
/// the name of a file the server has just read.
#[test]
fn artifact_revision_of_a_file_named_with_a_space_at_an_end() {
    let dir = TempDir::new("artrev-space").unwrap();
    for name in ["bracket.step ", " bracket.step"] {
        let part = dir.path().join(name);
        fs::write(&part, b"ISO-10303-21;\n").unwrap();
        let expected = sha256sum(&part);
        for era in ERAS {
            let mut c = Client::memory(era);
            let got = c.ok("artifact_revision", json!({"path": part.to_str().unwrap()}));
            assert_eq!(got["revision"], expected, "{name:?}");
            let uri = got["uri"].as_str().unwrap().to_string();
            assert!(uri.starts_with("file:///") && uri.contains("%20"), "{uri}");
            assert_eq!(
                c.ok("artifact_revision", json!({"path": uri}))["uri"],
                json!(uri)
            );
            c.ok(
                "remember",
                json!({"artifact": {"revision": expected, "format": "step", "uri": uri}, "note": "hashed here", "entity_ids": []}),
            );
        }
    }
}

/// A FIFO with no writer is refused at once, named as a FIFO: the call never waits for a
/// writer (it is opened non-blocking only after `stat` says it is a regular file).
#[cfg(unix)]
#[test]
fn artifact_revision_refuses_fifo_without_blocking() {
    let dir = TempDir::new("artrev-fifo").unwrap();
    let fifo = dir.path().join("pipe.step");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let path = fifo.to_str().unwrap().to_string();
    for era in ERAS {
        let (tx, rx) = mpsc::channel();
        let p = path.clone();
        std::thread::spawn(move || {
            let mut c = Client::memory(era);
            let _ = tx.send(c.refused("artifact_revision", json!({"path": p})));
        });
        let e = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("artifact_revision blocked on a FIFO");
        assert!(
            e.contains("is a FIFO (named pipe), not a regular file"),
            "{era:?}: {e}"
        );
        #[cfg(target_os = "linux")]
        {
            let mut c = Client::memory(era);
            let e = c.refused("artifact_revision", json!({"path": "/dev/zero"}));
            assert!(e.contains("a device"), "{e}");
            // The server's own stdin (a pipe, a tty or /dev/null): never read, never waited on.
            let e = c.refused("artifact_revision", json!({"path": "/dev/stdin"}));
            assert!(e.contains("not a regular file"), "{e}");
            let e = c.refused("artifact_revision", json!({"path": "/proc/self/status"}));
            assert!(e.contains("did not hold the size it reported"), "{e}");
        }
    }
}

/// AS9102 Form 3 opens with fields 1 to 4 (part number, part name, serial number, FAI report
/// number), which the export left out. The review records none of them, so none is made up:
/// each is a labelled line with an empty cell for the engineer, and the note says so.
/// And a cell over 32,767 characters (Excel's limit; it cuts the rest silently) is cut by
/// the export itself, saying how long it was and where the whole text is.
#[test]
fn form3_has_fields_1_to_4_for_the_engineer_and_no_cell_over_the_spreadsheet_limit() {
    let dir = TempDir::new("form3-fields").unwrap();
    let long_req = format!("R{}", "é".repeat(39_999));
    let long_q = format!("Q{}", "𝑥".repeat(20_000));
    let faces: Vec<String> = (0..200).map(|i| format!("face:{i:0>194}")).collect();
    let line = json!({"decision": {
        "id": "dec_00000000000000d4", "subject": "long", "disposition": "hold",
        "basis": [{"requirement": long_req, "source": "drawing", "state": "unresolved",
                   "question": long_q, "faces": faces}],
        "artifact": {"revision": rev(1), "format": "step", "uri": "file:///work/bracket.step"},
        "created_at": "2026-01-01T00:00:02.000Z", "updated_at": "2026-01-01T00:00:02.000Z"}});
    fs::write(dir.path().join("in.jsonl"), format!("{line}\n")).unwrap();
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(dir.path(), &["--db", "r.db", "form3", &rev(1)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let records = parse_csv(&text).unwrap();
    for (i, key) in [
        "1. Part Number",
        "2. Part Name",
        "3. Serial Number",
        "4. FAI Report Number",
    ]
    .iter()
    .enumerate()
    {
        assert_eq!(records[i + 1][..2], [key.to_string(), String::new()]);
    }
    let note = records.iter().find(|r| r[0] == "Note").unwrap();
    assert!(note[1].contains("Fields 1 to 4"), "{}", note[1]);
    for r in &records {
        assert_eq!(r.len(), COLUMNS);
        for cell in r {
            assert!(
                cell.encode_utf16().count() <= 32_767,
                "a cell of {} UTF-16 units: {}…",
                cell.encode_utf16().count(),
                &cell[..40]
            );
        }
    }
    let row = records.last().unwrap();
    let whole = "the whole text: recall_decisions with decision_id dec_00000000000000d4";
    for (col, starts) in [(1, "face:"), (3, "R"), (7, "Decision \"long\"")] {
        assert!(row[col].starts_with(starts), "{col}");
        assert!(
            row[col].contains(whole),
            "{col}: {}",
            &row[col][row[col].len() - 200..]
        );
    }
    assert!(
        row[3].contains("40000 characters in all"),
        "the requirement's own length"
    );
}

/// The audit's case: a revision whose first row alone is larger than one answer (a 30,000
/// character requirement and evidence) served 0 rows and no way to them. The resource gives
/// that row, its long cells cut, each saying where its whole text is, and says so in `Rows`.
#[test]
fn form3_resource_whose_first_row_alone_passes_the_bound_gives_it_cut() {
    let dir = TempDir::new("form3-first-row").unwrap();
    let db = dir.path().join("r.db");
    let r = rev(8);
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2025_11_25);
    let long = |c: char| c.to_string().repeat(30_000);
    let basis = json!([
        {"requirement": long('r'), "source": "drawing", "evidence": long('e'),
         "state": "satisfied", "faces": ["face:1"]},
        {"requirement": "Wall 2 mm", "source": "drawing", "state": "satisfied", "faces": []}
    ]);
    let d = c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&r, "/work/huge.step"), "subject": "huge",
               "disposition": "hold", "basis": basis}),
    );
    let id = d["decision"]["id"].as_str().unwrap().to_string();
    let (content, line) = read_resource(&mut c, &format!("review://revisions/{r}/form3.csv"));
    assert!(line <= 32_000, "{line} bytes");
    let text = content["text"].as_str().unwrap();
    let parsed = parse_csv(text).unwrap();
    assert_eq!(
        parsed.len(),
        HEADER_LINES + 1 + 1,
        "the first row: {text:.2000}"
    );
    let row = &parsed[HEADER_LINES + 1];
    assert_eq!(row.len(), COLUMNS);
    assert_eq!((row[0].as_str(), row[16].as_str()), ("1", id.as_str()));
    let whole = format!("the whole text: recall_decisions with decision_id {id}]");
    for (n, ch) in [(3, 'r'), (4, 'e')] {
        assert!(row[n].starts_with(&ch.to_string().repeat(1000)), "{n}");
        assert!(
            row[n].ends_with(&format!(" … [cut: 30000 characters in all; {whole}")),
            "{n}: {}",
            &row[n][row[n].len().saturating_sub(200)..]
        );
    }
    assert!(
        parsed[8][1].starts_with("1 of 2: truncated to fit one answer; row 1 is cut"),
        "{:?}",
        parsed[8]
    );
}

/// Regression (end-to-end review of a bracket): `review-mcp review bracket.step` takes the
/// part's file, but `review-mcp form3 bracket.step`, the next thing the engineer types, was a
/// usage error ("needs a REVISION … `review-mcp revision FILE` prints it"), exit 2. `form3`
/// takes a FILE or a revision as `review` does: the file's revision, the same bytes as the
/// revision gives; a file that is not there fails naming both forms, and a revision whose file
/// has nothing recorded names the revision it hashed.
#[test]
fn form3_of_the_parts_file_is_the_form3_of_its_revision() {
    let dir = TempDir::new("form3-file").unwrap();
    let part = b"ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n";
    fs::write(dir.path().join("bracket.step"), part).unwrap();
    let revision = format!("sha256:{}", sha256_hex(part));
    let line = json!({"decision": {
        "id": "dec_00000000000000f1", "subject": "release", "disposition": "hold",
        "basis": [{"requirement": "Hole position 25.00 ±0.10", "source": "drawing",
                   "evidence": "x=-25.0", "state": "satisfied", "faces": ["face:10"]}],
        "artifact": {"revision": revision, "format": "step", "uri": "file:///work/bracket.step"},
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}});
    fs::write(dir.path().join("in.jsonl"), format!("{line}\n")).unwrap();
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));

    let by_revision = run(dir.path(), &["--db", "r.db", "form3", &revision]);
    assert!(by_revision.status.success(), "{}", stderr(&by_revision));
    let by_file = run(dir.path(), &["--db", "r.db", "form3", "bracket.step"]);
    assert!(by_file.status.success(), "{}", stderr(&by_file));
    assert_eq!(by_file.stdout, by_revision.stdout);
    assert!(String::from_utf8_lossy(&by_file.stdout).contains("Hole position 25.00"));

    let o = run(dir.path(), &["--db", "r.db", "form3", "nope.step"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("nope.step") && err.contains("sha256:<64 hex>"),
        "{err}"
    );

    fs::write(dir.path().join("changed.step"), b"another part").unwrap();
    let o = run(dir.path(), &["--db", "r.db", "form3", "changed.step"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let hashed = format!("sha256:{}", sha256_hex(b"another part"));
    assert!(
        err.contains(&hashed) && err.contains("changed.step"),
        "{err}"
    );
}

/// Regression (found by cliout): `form3 bracket.step -o bracket.step` (the part's file also
/// given as the output, a slip of tab completion) replaced the CAD part with its own Form 3,
/// exit 0. The part's file as `-o`, by its name, another spelling or a hard link, is refused
/// naming both and a file to give instead, and the part is left as it was.
#[test]
fn form3_refuses_the_part_s_own_file_as_its_output() {
    let dir = TempDir::new("form3-onto-part").unwrap();
    let part = b"ISO-10303-21;\nDATA;\nENDSEC;\nEND-ISO-10303-21;\n";
    fs::write(dir.path().join("bracket.step"), part).unwrap();
    fs::hard_link(
        dir.path().join("bracket.step"),
        dir.path().join("alias.step"),
    )
    .unwrap();
    let revision = format!("sha256:{}", sha256_hex(part));
    let line = json!({"decision": {
        "id": "dec_00000000000000f2", "subject": "release", "disposition": "hold",
        "basis": [{"requirement": "Hole 25.00", "source": "drawing", "state": "satisfied"}],
        "artifact": {"revision": revision, "format": "step", "uri": "file:///work/bracket.step"},
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}});
    fs::write(dir.path().join("in.jsonl"), format!("{line}\n")).unwrap();
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for out in ["bracket.step", "./bracket.step", "alias.step"] {
        let o = run(
            dir.path(),
            &["--db", "r.db", "form3", "bracket.step", "-o", out],
        );
        assert_eq!(o.status.code(), Some(1), "{out}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{out} is the part's file bracket.step"))
                && err.contains("bracket.form3.csv"),
            "{out}: {err}"
        );
        assert_eq!(fs::read(dir.path().join("bracket.step")).unwrap(), part);
        assert_eq!(fs::read(dir.path().join("alias.step")).unwrap(), part);
    }
    // Another file is written as before.
    let o = run(
        dir.path(),
        &[
            "--db",
            "r.db",
            "form3",
            "bracket.step",
            "-o",
            "bracket.form3.csv",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// The formula rule holds in every column a stored string reaches, not only the requirement
/// and the evidence: the faces, the verdict's reason and author, the subject, disposition,
/// source detail and question (in the comments), the part file's URI; each starting with one
/// of `=` `+` `-` `@` TAB CR. Every cell of the command's stdout and of its `-o` file (after
/// the byte-order mark) is parsed and none starts a formula.
#[test]
fn no_column_a_stored_string_reaches_starts_a_formula() {
    let dir = TempDir::new("form3-formulas").unwrap();
    let h = "=HYPERLINK(\"http://evil\",\"x\")";
    let line = json!({"decision": {
        "id": "dec_00000000000000e5", "subject": format!("-{h}"), "disposition": format!("@{h}"),
        "basis": [
            {"requirement": format!("+{h}"), "source": "drawing", "sourceDetail": format!("={h}"),
             "evidence": format!("\t{h}"), "question": format!("\r{h}"), "state": "satisfied",
             "faces": [format!("={h}"), "@x"],
             "verdict": {"judgement": "accepted", "reason": h, "via": "elicitation",
                         "author": format!(" {h}"), "at": "2026-01-01T00:00:05.000Z"}},
            {"requirement": "-0.02 mm", "source": "drawing", "state": "violated", "faces": ["-1"],
             "verdict": {"judgement": "rejected", "via": "app", "author": "\t=1+1",
                         "at": "2026-01-01T00:00:05.000Z"}}
        ],
        "artifact": {"revision": rev(5), "format": "step", "uri": "file:///=cmd%7C'/C%20calc'!A0"},
        "created_at": "2026-01-01T00:00:01.000Z", "updated_at": "2026-01-01T00:00:01.000Z"}});
    fs::write(dir.path().join("in.jsonl"), format!("{line}\n")).unwrap();
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(
        dir.path(),
        &["--db", "r.db", "form3", &rev(5), "-o", "f.csv"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let file = fs::read(dir.path().join("f.csv")).unwrap();
    let o = run(dir.path(), &["--db", "r.db", "form3", &rev(5)]);
    assert_eq!(file[3..], o.stdout[..]);
    let records = parse_csv(&String::from_utf8(o.stdout).unwrap()).unwrap();
    assert_eq!(
        records.len(),
        HEADER_LINES + 1 + 2,
        "one row per requirement"
    );
    for r in &records {
        assert_eq!(r.len(), COLUMNS);
        for cell in r {
            assert!(!formula_start(cell), "formula cell {cell:?}");
        }
    }
    let rows = &records[HEADER_LINES + 1..];
    assert_eq!(rows[0][1], format!("'={h}, @x"));
    assert_eq!(rows[0][13], format!("' {h}"));
    assert_eq!(rows[1][3], "'-0.02 mm");
    assert_eq!(rows[1][1], "'-1");
    assert_eq!(rows[1][13], "\\u{9}=1+1");
}

/// Regression: `form3 PART` on a part changed since its review said "nothing is recorded for
/// sha256:… (… reviewed at another revision, it changed since: give that revision)" without
/// naming that revision; and a revision holding notes but no decision gave a form of no rows,
/// exit 0. Now both are exit status 1 with nothing on stdout, and given the part's file the
/// message names the file's revisions with a review, newest first, each with its command.
#[test]
fn form3_of_a_changed_part_names_the_revisions_its_review_is_at() {
    let dir = TempDir::new("form3-elsewhere").unwrap();
    let part = dir.path().join("bracket.step");
    fs::write(&part, b"bracket, as it is now").unwrap();
    let uri = review_mcp::review::absolute_path_as_uri(&part).unwrap();
    let now = format!("sha256:{}", sha256_hex(b"bracket, as it is now"));
    let decision = |id: &str, revision: &str, at: &str| {
        json!({"decision": {
            "id": id, "subject": "bore", "disposition": "hold",
            "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"},
                      {"requirement": "Thread", "source": "drawing", "state": "unresolved",
                       "question": "M6?"}],
            "artifact": {"revision": revision, "format": "step", "uri": uri},
            "created_at": at, "updated_at": at}})
    };
    let lines = [
        decision("dec_00000000000000e1", &rev(1), "2026-01-01T00:00:00.000Z"),
        decision("dec_00000000000000e2", &rev(2), "2026-02-01T00:00:00.000Z"),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(dir.path().join("in.jsonl"), text).unwrap();
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));

    let o = run(dir.path(), &["--db", "r.db", "form3", "bracket.step"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "no decision is recorded at {now}, the revision of bracket.step"
        )),
        "{err}"
    );
    let db = dir.path().join("r.db");
    let (first, second) = (
        err.find(&format!(
            "review-mcp form3 --db {} {}",
            db.display(),
            rev(2)
        )),
        err.find(&format!(
            "review-mcp form3 --db {} {}",
            db.display(),
            rev(1)
        )),
    );
    assert!(
        matches!((first, second), (Some(a), Some(b)) if a < b),
        "both revisions, newest first, with the command: {err}"
    );
    assert!(
        err.contains("1 decision, 2 items awaiting your verdict"),
        "{err}"
    );

    // A note at the part's revision now, and no decision: no form of no rows.
    let c = review_mcp::store::Store::open(&dir.path().join("r.db"));
    let mut client = Client::new(c.unwrap(), Era::V2025_11_25);
    client.ok(
        "remember",
        json!({"artifact": art_uri(&now, part.to_str().unwrap()), "entity_ids": ["face:1"],
               "id_scheme": "opaque", "note": "looked at it"}),
    );
    drop(client);
    let o = run(
        dir.path(),
        &["--db", "r.db", "form3", "bracket.step", "-o", "f.csv"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!dir.path().join("f.csv").exists());
    assert!(stderr(&o).contains(&rev(2)), "{}", stderr(&o));
}

/// Regression: a part reviewed under two paths of one file (its folder and a link to it),
/// each path's review carried on to a different revision: `form3 PART` (and `review PART`)
/// said the old revision's "2 carried on to" the last carry's revision, as if both decisions
/// went there. It now says that another revision took some too.
#[test]
fn a_changed_part_carried_on_to_two_revisions_says_so() {
    let dir = TempDir::new("form3-elsewhere-two-carries").unwrap();
    let real = dir.path().join("real");
    fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
    fs::write(real.join("bracket.step"), b"bracket, as it is now").unwrap();
    let paths = [
        real.join("bracket.step"),
        dir.path().join("link/bracket.step"),
    ];
    let mut client = Client::new(Store::open(&dir.path().join("r.db")).unwrap(), ERAS[0]);
    for (path, to) in paths.iter().zip([5, 9]) {
        let path = path.to_str().unwrap();
        client.ok(
            "remember_decision",
            json!({"artifact": art_uri(&rev(1), path), "subject": "bore", "disposition": "hold",
                   "basis": [{"requirement": "Bore 12H7", "source": "drawing",
                              "state": "satisfied"}]}),
        );
        client.ok(
            "carry_forward",
            json!({"from": art_uri(&rev(1), path), "to": art_uri(&rev(to), path), "map": []}),
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(client);
    let o = run(dir.path(), &["--db", "r.db", "form3", "link/bracket.step"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "all carried on to {} (and 1 other revision)",
            rev(9)
        )),
        "{err}"
    );
}

/// Regression (found by following the README as a newcomer): the log line of `form3 -o`
/// said "1 rows" for a one-row form. The count of rows is said as every other count is.
#[test]
fn form3_output_log_counts_one_row_in_the_singular() {
    let dir = TempDir::new("form3-one-row").unwrap();
    seeded(dir.path());
    let said = |revision: &str, out: &str| {
        let o = cmd(dir.path())
            .env("MCP_LOG_LEVEL", "info")
            .env("MCP_LOG_FORMAT", "json")
            .args(["--db", "r.db", "form3", revision, "-o", out])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        stderr(&o)
    };
    // rev(2) holds one decision of one basis item: one row.
    let one = said(&rev(2), "one.csv");
    assert!(one.contains(": 1 row to one.csv"), "{one}");
    assert!(!one.contains("1 rows"), "{one}");
    // rev(1) holds five basis items: the plural stays.
    let five = said(&rev(1), "five.csv");
    assert!(five.contains(": 5 rows to five.csv"), "{five}");
}

/// Regression: a row whose Results an engineer's restatement kept as an earlier revision's
/// (`at revision sha256:55bbeb128c63…: cert 4471`, the label `remember_decision` writes when
/// the evidence is copied back from a carried item, kept through later carries) named that
/// revision only by its short form, and nothing else in the CSV named it whole: the form
/// filed for revision C pointed at a result of "sha256:55bbeb128c63…", which no reader of
/// the file could resolve. Found in a real review carried over three revisions of a
/// build123d-mcp bracket. The Note now names each such revision whole, once.
#[test]
fn form3_names_whole_a_revision_its_rows_give_only_by_its_short_form() {
    let (a, b, c) = (rev(31), rev(32), rev(33));
    let at = |r: &str| art_uri(r, "/work/bracket.step");
    let item = |evidence: &str| {
        json!([{"requirement": "Material is 6061-T6", "source": "supplier-cert",
                "evidence": evidence, "state": "satisfied", "faces": []}])
    };
    for era in ERAS {
        let mut cl = Client::memory(era);
        let decide = |cl: &mut Client, r: &str, evidence: &str| {
            cl.ok(
                "remember_decision",
                json!({"artifact": at(r), "subject": "material", "disposition": "hold",
                       "basis": item(evidence)}),
            )
        };
        let carry = |cl: &mut Client, from: &str, to: &str| {
            cl.ok(
                "carry_forward",
                json!({"from": at(from), "to": at(to), "map": [], "changed": []}),
            )
        };
        decide(&mut cl, &a, "cert 4471");
        carry(&mut cl, &a, &b);
        // Copied back word for word: kept as revision a's evidence.
        let stated = decide(&mut cl, &b, "cert 4471");
        let kept = stated["decision"]["basis"][0]["evidence"]
            .as_str()
            .unwrap()
            .to_string();
        let short_a = format!("{}…", &a[..19]);
        assert_eq!(kept, format!("at revision {short_a}: cert 4471"), "{era:?}");
        carry(&mut cl, &b, &c);
        // The label says its revision already: it stays a's through the next carry.
        decide(&mut cl, &c, &kept);
        let (content, _) = read_resource(&mut cl, &format!("review://revisions/{c}/form3.csv"));
        let csv = content["text"].as_str().unwrap();
        assert!(csv.contains(&short_a), "{era:?}: {csv}");
        assert!(
            csv.contains(&format!(
                "Revision {a} is named in the rows by its short form"
            )),
            "{era:?}: {csv}"
        );
        // A revision the header already says whole is not said again.
        assert!(
            !csv.contains(&format!("Revision {b} is named")),
            "{era:?}: {csv}"
        );
    }
}

/// Regression: the Note named whole every revision the rows give by a short form, one
/// sentence (139 characters) each, with no bound: evidence quoting 300 stored revisions by
/// their short forms (the tools write them so; one evidence may be 65,536 characters) made
/// the Note over 42,000 characters, past the 32,767 a spreadsheet keeps of a cell (silently
/// dropping the rest, which the Note itself says never happens), and the header grew with
/// every revision named. Found by the adversarial read of the review merge. Now the Note
/// names at most a few whole and says how to resolve the others.
#[test]
fn form3_note_names_a_bounded_number_of_short_forms() {
    let mut cl = Client::memory(Era::V2025_11_25);
    let revs: Vec<String> = (0..300).map(rev).collect();
    for r in &revs {
        cl.ok(
            "remember",
            json!({"artifact": {"revision": r, "format": "step"}, "name": "n", "entity_ids": []}),
        );
    }
    let evidence: Vec<String> = revs.iter().map(|r| format!("{}…", &r[..19])).collect();
    let here = rev(1000);
    cl.ok(
        "remember_decision",
        json!({"artifact": {"revision": here, "format": "step"}, "subject": "material",
               "disposition": "hold",
               "basis": [{"requirement": "Material is 6061-T6", "source": "supplier-cert",
                          "evidence": evidence.join(" "), "state": "satisfied", "faces": []}]}),
    );
    let (content, _) = read_resource(&mut cl, &format!("review://revisions/{here}/form3.csv"));
    let records = parse_csv(content["text"].as_str().unwrap()).unwrap();
    let note = records
        .iter()
        .find(|r| r[0] == "Note")
        .map(|r| r[1].clone())
        .unwrap();
    let units = note.encode_utf16().count();
    let start: String = note.chars().take(600).collect();
    assert!(units <= 4_000, "{units} characters: {start}");
    // The first ones are still named whole, and the rest are counted, not dropped silently.
    assert!(
        note.contains(&format!("Revision {} is named", revs[0])),
        "{note}"
    );
    assert!(
        note.contains("More revisions are named in the rows only by their short form"),
        "{note}"
    );
}

/// Regression (found by adv5): a digest or revision with the spaces or line break a copy
/// from a terminal or a file leaves around it (`"$hex "`, `" $hex"`, `"sha256:$hex\n"`) was
/// refused as "no such file" or "not a revision" without the revision to pass, which the same
/// digits without them get. The refusal names it, the value shown escaped.
#[test]
fn form3_of_a_digest_with_spaces_or_a_line_break_around_it_names_the_revision() {
    let dir = TempDir::new("form3-padded").unwrap();
    seeded(dir.path());
    let r1 = rev(1);
    let hex = &r1["sha256:".len()..];
    for padded in [
        format!("{hex} "),
        format!(" {hex}"),
        format!("{hex}\n"),
        format!("{r1}\n"),
        format!(" {r1}"),
    ] {
        let o = run(dir.path(), &["--db", "r.db", "form3", &padded]);
        assert_eq!(o.status.code(), Some(1), "{padded:?}");
        let err = stderr(&o);
        assert!(err.contains(&format!("pass \"{r1}\"")), "{padded:?}: {err}");
        assert!(err.lines().count() == 1, "{padded:?}: {err}");
        assert!(o.stdout.is_empty(), "{padded:?}");
    }
}
