//! `completion/complete` end to end through the server in each era, on a store with data:
//! prompt arguments and template variables, context narrowing, the 100-value cap with
//! `hasMore` and without `total`, refusals, and a lazy store whose file is never created.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::support::inproc::{Client, ERAS, Era, REV_A, REV_B, TempDir, art, art_uri, rev};
use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

fn prompt(c: &mut Client, name: &str, arg: &str, value: &str, context: Value) -> Value {
    c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": name},
               "argument": {"name": arg, "value": value},
               "context": {"arguments": context}}),
    )
}

fn template(c: &mut Client, uri: &str, arg: &str, value: &str) -> Value {
    c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": uri},
               "argument": {"name": arg, "value": value}}),
    )
}

fn values(resp: &Value) -> Vec<String> {
    let completion = &resp["result"]["completion"];
    assert!(completion.is_object(), "{resp}");
    completion["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn completions_follow_the_store_in_every_era() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let rec = c.ok(
            "remember",
            json!({"artifact": art_uri(REV_A, "/work/bracket.step"), "entity_ids": [], "note": "n"}),
        );
        let rec_id = rec["record"]["id"].as_str().unwrap().to_string();
        c.ok(
            "remember",
            json!({"artifact": art(REV_B), "entity_ids": [], "note": "no uri"}),
        );
        let dec = c.ok(
            "remember_decision",
            json!({"artifact": art_uri(REV_B, "file:///work/plate.step"), "subject": "bore tolerance",
                   "disposition": "hold", "basis": []}),
        );
        let dec_id = dec["decision"]["id"].as_str().unwrap().to_string();

        let r = prompt(&mut c, "start_review", "revision", "sha256:", json!({}));
        assert_eq!(values(&r), [REV_A, REV_B], "{era:?}");
        assert_eq!(r["result"]["completion"]["total"], 2);
        assert_eq!(r["result"]["completion"]["hasMore"], false);
        if era == Era::V2026_07_28 {
            assert_eq!(r["result"]["resultType"], "complete");
            assert!(r["result"].get("ttlMs").is_none() && r["result"].get("cacheScope").is_none());
        }
        // The path in context is normalised as the tools normalise it.
        let r = prompt(
            &mut c,
            "resume_review",
            "revision",
            "",
            json!({"uri": "/work/./bracket.step"}),
        );
        assert_eq!(values(&r), [REV_A]);
        let r = prompt(&mut c, "start_review", "uri", "", json!({}));
        assert_eq!(
            values(&r),
            ["file:///work/bracket.step", "file:///work/plate.step"]
        );
        let r = prompt(
            &mut c,
            "start_review",
            "uri",
            "",
            json!({"revision": REV_B}),
        );
        assert_eq!(values(&r), ["file:///work/plate.step"]);
        let r = prompt(&mut c, "record_decision", "subject", "bo", json!({}));
        assert_eq!(values(&r), ["bore tolerance"]);
        let r = prompt(
            &mut c,
            "record_decision",
            "subject",
            "",
            json!({"revision": REV_A}),
        );
        assert_eq!(values(&r), Vec::<String>::new());
        let r = template(&mut c, "review://records/{id}", "id", "rec_");
        let ids = values(&r);
        assert!(ids.len() == 2 && ids.contains(&rec_id), "{r}");
        let r = template(&mut c, "review://decisions/{id}", "id", &dec_id[..6]);
        assert_eq!(values(&r), [dec_id]);
        let r = template(
            &mut c,
            "review://revisions/{revision}/report",
            "revision",
            "sha256:b",
        );
        assert_eq!(values(&r), [REV_B]);

        for (resp, code) in [
            (prompt(&mut c, "nope", "revision", "", json!({})), -32602),
            (template(&mut c, "review://nope/{x}", "x", ""), -32602),
            (
                prompt(&mut c, "start_review", "subject", "", json!({})),
                -32602,
            ),
            (
                c.request(
                    "completion/complete",
                    json!({"ref": {"type": "ref/prompt", "name": "start_review"}}),
                ),
                -32602,
            ),
        ] {
            assert_eq!(resp["error"]["code"], code, "{era:?}: {resp}");
        }
    }
}

#[test]
fn completions_stop_at_100_with_has_more_and_no_total() {
    let mut c = Client::memory(Era::V2025_11_25);
    for n in 0..120 {
        c.ok(
            "remember",
            json!({"artifact": art(&rev(n)), "entity_ids": [], "note": "n"}),
        );
    }
    let r = prompt(&mut c, "start_review", "revision", "sha", json!({}));
    let got = values(&r);
    assert_eq!(got.len(), 100);
    assert_eq!(got[0], rev(0));
    assert_eq!(got[99], rev(99));
    assert_eq!(r["result"]["completion"]["hasMore"], true);
    assert!(r["result"]["completion"].get("total").is_none(), "{r}");
    // A narrower prefix (63 zero digits: revisions 0 to 15): no more, and the total known.
    let r = prompt(&mut c, "start_review", "revision", &rev(1)[..70], json!({}));
    assert_eq!(values(&r).len(), 16);
    assert_eq!(r["result"]["completion"]["total"], 16);
}

#[test]
fn completion_on_a_missing_database_creates_no_file() {
    let dir = TempDir::new("complete-lazy").unwrap();
    let db = dir.path().join("review.db");
    let mut server = Server::new(Service::new(Store::lazy(&db).unwrap()));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let out = server.handle_line(&serde_json::to_vec(&init).unwrap());
    assert_eq!(out[0]["result"]["capabilities"]["completions"], json!({}));
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {
        "ref": {"type": "ref/prompt", "name": "start_review"},
        "argument": {"name": "revision", "value": ""}}});
    let out = server.handle_line(&serde_json::to_vec(&req).unwrap());
    assert_eq!(
        out[0]["result"]["completion"],
        json!({"values": [], "total": 0, "hasMore": false})
    );
    assert!(!db.exists(), "a completion created the database file");
}

/// Every argument a client can be asked to fill completes: each argument of each prompt
/// `prompts/list` names and each variable of each template `resources/templates/list` names
/// (a host offers completion on all of them), in every era, and a template variable offers
/// the stored value it names.
#[test]
fn every_listed_prompt_argument_and_template_variable_completes() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let rec = c.ok(
            "remember",
            json!({"artifact": art_uri(REV_A, "/work/bracket.step"), "entity_ids": [], "note": "n"}),
        );
        let dec = c.ok(
            "remember_decision",
            json!({"artifact": art(REV_B), "subject": "bore", "disposition": "hold", "basis": []}),
        );
        let stored = |var: &str, uri: &str| -> String {
            match var {
                "revision" => REV_A.to_string(),
                "id" if uri.starts_with("review://records/") => {
                    rec["record"]["id"].as_str().unwrap().to_string()
                }
                _ => dec["decision"]["id"].as_str().unwrap().to_string(),
            }
        };
        let prompts = c.request("prompts/list", json!({}));
        let mut asked = 0;
        for p in prompts["result"]["prompts"].as_array().unwrap() {
            let name = p["name"].as_str().unwrap();
            for a in p["arguments"].as_array().into_iter().flatten() {
                let r = prompt(&mut c, name, a["name"].as_str().unwrap(), "", json!({}));
                values(&r);
                asked += 1;
            }
        }
        assert!(asked >= 8, "{era:?}: {asked} prompt arguments");
        let templates = c.request("resources/templates/list", json!({}));
        let templates = templates["result"]["resourceTemplates"].as_array().unwrap();
        assert!(templates.len() >= 6, "{era:?}");
        for t in templates {
            let uri = t["uriTemplate"].as_str().unwrap();
            let (_, rest) = uri.split_once('{').unwrap();
            let (var, _) = rest.split_once('}').unwrap();
            let got = values(&template(&mut c, uri, var, ""));
            assert!(
                got.contains(&stored(var, uri)),
                "{era:?}: {uri} offers {got:?}"
            );
        }
    }
}

/// Found in an end-to-end review: the prompts' `uri` argument is "the part's file path or
/// URI", and the tools take a path as readily as a `file:` URI, but completing it from what
/// the engineer types, a path ("/work/br"), offered nothing: only a value typed as the stored
/// URI ("file:///work/br") matched. A typed absolute path now completes as its file: URI.
#[test]
fn a_typed_path_completes_the_stored_file_uri() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember",
            json!({"artifact": art_uri(&rev(1), "/work/my bracket.step"), "entity_ids": [], "note": "n"}),
        );
        c.ok(
            "remember",
            json!({"artifact": art_uri(&rev(2), "/other/bracket.step"), "entity_ids": [], "note": "n"}),
        );
        for typed in ["/work/my b", "/work/", "file:///work/my%20b"] {
            let got = values(&prompt(&mut c, "start_review", "uri", typed, json!({})));
            assert_eq!(got, vec!["file:///work/my%20bracket.step"], "{typed}");
        }
        assert!(
            values(&prompt(
                &mut c,
                "start_review",
                "uri",
                "/nowhere/",
                json!({})
            ))
            .is_empty()
        );
    }
}

/// Regression: a revision's short form pasted from an answer (`sha256:` and 12 or 8 hex
/// digits, then `…` or `...`) completed nothing, the `…` being taken as part of the prefix. It
/// now completes the revisions it stands for, in the prompts and the revision templates.
#[test]
fn a_short_form_completes_the_revision_it_stands_for() {
    for era in ERAS {
        let mut c = Client::memory(era);
        // Two revisions that differ in their first hex digits (`rev(n)`'s share 12 zeros).
        let whole = crate::support::revision("completion short 1");
        c.ok(
            "remember",
            json!({"artifact": art(&whole), "entity_ids": [], "note": "n"}),
        );
        let other = crate::support::revision("completion short 2");
        assert_ne!(whole[..15], other[..15]);
        c.ok(
            "remember",
            json!({"artifact": art(&other), "entity_ids": [], "note": "n"}),
        );
        for short in [format!("{}…", &whole[..19]), format!("{}...", &whole[..15])] {
            let got = values(&prompt(
                &mut c,
                "resume_review",
                "revision",
                &short,
                json!({}),
            ));
            assert_eq!(got, vec![whole.clone()], "{era:?} {short}");
            let got = values(&template(
                &mut c,
                "review://revisions/{revision}",
                "revision",
                &short,
            ));
            assert_eq!(got, vec![whole.clone()], "{era:?} {short}");
        }
    }
}

/// A typed path with `.` or `..` in it names the file remember stores without them (it
/// cleans a path lexically): its completion offered nothing, as `..` stayed in the prefix
/// (file:///work/sub/../my) that no stored URI starts with. A path that ends at a
/// directory (`/work/sub/..`) completes that directory's files.
#[test]
fn a_typed_path_with_dot_segments_completes_the_file_it_names() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember",
            json!({"artifact": art_uri(&rev(1), "/work/my bracket.step"), "entity_ids": [], "note": "n"}),
        );
        c.ok(
            "remember",
            json!({"artifact": art_uri(&rev(2), "/workshop/bracket.step"), "entity_ids": [], "note": "n"}),
        );
        for typed in [
            "/work/sub/../my b",
            "/work/./my b",
            "/work/sub/..",
            "/work/sub/../",
        ] {
            let got = values(&prompt(&mut c, "start_review", "uri", typed, json!({})));
            assert_eq!(got, vec!["file:///work/my%20bracket.step"], "{typed}");
        }
    }
}
