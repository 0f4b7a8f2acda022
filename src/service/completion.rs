//! `completion/complete`: which prompt arguments and template variables complete from what
//! is stored, and the answer's shape (at most [`MAX_VALUES`] values, `hasMore`, `total`).
//!
//! Rules, for the value typed so far as a prefix (case-sensitive, in byte order):
//! - prompt argument `revision`: the stored revisions; with `context.arguments.uri`, only the
//!   revisions of that file (the uri normalised as the tools normalise it);
//! - prompt argument `uri`: the stored uris; with `context.arguments.revision`, only those
//!   of that revision;
//! - prompt argument `subject`: the decision subjects; with `context.arguments.revision`
//!   and/or `uri`, only those of that revision and/or file;
//! - any other argument of the prompt (`requirements`): no values;
//! - template variable `{revision}` of `review://revisions/{revision}`, its `/report` and
//!   its `/form3.csv`:
//!   the stored revisions; `{id}` of `review://records/{id}` the record ids, of
//!   `review://decisions/{id}` and `review://decisions/{id}/history` the decision ids.
//!
//! An unknown prompt, an unknown template (the `uri` must be one `resources/templates/list`
//! gives, exactly), or an argument the prompt or template does not have is -32602; a storage
//! failure is -32603. An empty context argument counts as absent, like an empty prompt
//! argument; a context uri that cannot be normalised names no stored file, so nothing
//! matches. `total` is given when it is known exactly, that is when there is no more.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::call::Reference;
use crate::prompts;
use crate::review::{normalise_uri, path_prefix_as_uri};
use crate::store::{Completable, Narrowing, Store, StoreError};
use crate::text::{inline, quoted};

/// The most values one answer carries (the spec's limit).
pub const MAX_VALUES: usize = 100;

/// Why a completion is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum CompletionError {
    /// -32602: an unknown prompt, template or argument.
    Invalid(String),
    /// -32603: the database failed (locked, moved, a full disk): what to do.
    Storage(String),
    /// -32603: SQLite found the database damaged (its finding), the file then named.
    Damaged(String),
}

impl From<StoreError> for CompletionError {
    fn from(e: StoreError) -> Self {
        match e.damage() {
            Some(finding) => CompletionError::Damaged(finding),
            None => CompletionError::Storage(e.user_message()),
        }
    }
}

/// Which context arguments narrow a completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// None: template variables, ids.
    Ignored,
    /// `uri`.
    ByUri,
    /// `revision`.
    ByRevision,
    /// `revision` and `uri`.
    ByBoth,
}

/// The completable prompt arguments; every other argument of a prompt completes nothing.
const PROMPT_ARGUMENTS: [(&str, Completable, Context); 3] = [
    ("revision", Completable::Revision, Context::ByUri),
    ("uri", Completable::Locator, Context::ByRevision),
    ("subject", Completable::Subject, Context::ByBoth),
];

/// Each resource template's variable and what it completes.
const TEMPLATE_VARIABLES: [(&str, &str, Completable); 6] = [
    (
        "review://revisions/{revision}",
        "revision",
        Completable::Revision,
    ),
    (
        "review://revisions/{revision}/report",
        "revision",
        Completable::Revision,
    ),
    (
        "review://revisions/{revision}/form3.csv",
        "revision",
        Completable::Revision,
    ),
    ("review://records/{id}", "id", Completable::RecordId),
    ("review://decisions/{id}", "id", Completable::DecisionId),
    (
        "review://decisions/{id}/history",
        "id",
        Completable::DecisionId,
    ),
];

/// What one request completes from: `None` when the argument exists but completes nothing.
fn rule(
    reference: &Reference,
    argument: &str,
) -> Result<Option<(Completable, Context)>, CompletionError> {
    match reference {
        Reference::Prompt(name) => {
            let arguments = prompts::argument_names(name)
                .map_err(|e| CompletionError::Invalid(e.to_string()))?;
            if !arguments.contains(&argument) {
                return Err(CompletionError::Invalid(format!(
                    "Prompt {} takes no argument {}; it accepts: {}",
                    inline(name, 100),
                    quoted(argument, 100),
                    arguments.join(", ")
                )));
            }
            Ok(PROMPT_ARGUMENTS
                .iter()
                .find(|(a, _, _)| *a == argument)
                .map(|&(_, what, context)| (what, context)))
        }
        Reference::Template(uri) => {
            let Some(&(template, variable, what)) =
                TEMPLATE_VARIABLES.iter().find(|(t, _, _)| t == uri)
            else {
                let known: Vec<&str> = TEMPLATE_VARIABLES.iter().map(|(t, _, _)| *t).collect();
                return Err(CompletionError::Invalid(format!(
                    "Unknown resource template: {}; the templates are: {}",
                    inline(uri, 200),
                    known.join(", ")
                )));
            };
            if argument != variable {
                return Err(CompletionError::Invalid(format!(
                    "Resource template {template} has no variable {}; it has: {variable}",
                    quoted(argument, 100)
                )));
            }
            Ok(Some((what, Context::Ignored)))
        }
    }
}

/// The narrowing the context asks for; `None` when it names a uri that cannot be stored.
fn narrowing(context: Context, given: &BTreeMap<String, String>) -> Option<Narrowing> {
    let value = |name: &str| {
        given
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    };
    let by_uri = matches!(context, Context::ByUri | Context::ByBoth);
    let by_revision = matches!(context, Context::ByRevision | Context::ByBoth);
    let locator = match value("uri").filter(|_| by_uri) {
        Some(uri) => Some(normalise_uri(uri, || std::env::current_dir().ok()).ok()?),
        None => None,
    };
    let revision = value("revision")
        .filter(|_| by_revision)
        .map(str::to_string);
    Some(Narrowing { locator, revision })
}

/// The `CompleteResult` of one request (without era decoration).
pub fn complete(
    store: &mut Store,
    reference: &Reference,
    argument: &str,
    value: &str,
    context: &BTreeMap<String, String>,
) -> Result<Map<String, Value>, CompletionError> {
    let (values, has_more) = match rule(reference, argument)? {
        None => (Vec::new(), false),
        Some((what, context_rule)) => match narrowing(context_rule, context) {
            None => (Vec::new(), false),
            Some(narrowing) => {
                // A file is stored by its `file:` URI; what the user types is often its path.
                // A revision's short form, as answers write it (`sha256:9d297e93c19f…`), is
                // the prefix it stands for, not a value that ends in `…`.
                let typed = match what {
                    Completable::Locator => path_prefix_as_uri(value),
                    Completable::Revision => crate::review::short_revision_head(value)
                        .filter(|head| head.len() < value.len())
                        .map(str::to_string),
                    _ => None,
                };
                let value = typed.as_deref().unwrap_or(value);
                let found = store.complete(what, value, &narrowing, MAX_VALUES)?;
                (found.values, found.has_more)
            }
        },
    };
    Ok(result(values, has_more))
}

/// What the values of one completion may cost on the wire: long subjects or URIs (100 of
/// them of a few kilobytes each) end the list early, with `hasMore`, as the answer bound asks.
const VALUES_BUDGET: usize = 24_000;

fn result(mut values: Vec<String>, mut has_more: bool) -> Map<String, Value> {
    let mut spent = 0;
    let fit = values
        .iter()
        .take_while(|v| {
            spent += crate::wire::answer_bytes(v.as_str()) / 2 + 1;
            spent <= VALUES_BUDGET
        })
        .count();
    if fit < values.len() {
        values.truncate(fit);
        has_more = true;
    }
    let total = values.len();
    let mut completion = json!({"hasMore": has_more, "values": values});
    if !has_more {
        completion["total"] = json!(total);
    }
    Map::from_iter([("completion".to_string(), completion)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources;

    fn prompt(name: &str) -> Reference {
        Reference::Prompt(name.into())
    }

    #[test]
    fn prompt_arguments_complete_from_their_columns() {
        assert_eq!(
            rule(&prompt("start_review"), "revision"),
            Ok(Some((Completable::Revision, Context::ByUri)))
        );
        assert_eq!(
            rule(&prompt("resume_review"), "uri"),
            Ok(Some((Completable::Locator, Context::ByRevision)))
        );
        assert_eq!(
            rule(&prompt("record_decision"), "subject"),
            Ok(Some((Completable::Subject, Context::ByBoth)))
        );
        assert_eq!(rule(&prompt("start_review"), "requirements"), Ok(None));
    }

    #[test]
    fn unknown_prompts_templates_and_arguments_are_invalid() {
        for (reference, argument, want) in [
            (prompt("nope"), "revision", "Unknown prompt: nope"),
            (
                prompt("resume_review"),
                "subject",
                "Prompt resume_review takes no argument \"subject\"; it accepts: revision, uri",
            ),
            (
                Reference::Template("review://revisions/{rev}".into()),
                "rev",
                "Unknown resource template: review://revisions/{rev}",
            ),
            (
                Reference::Template("review://records/{id}".into()),
                "revision",
                "Resource template review://records/{id} has no variable \"revision\"; it has: id",
            ),
        ] {
            match rule(&reference, argument) {
                Err(CompletionError::Invalid(m)) => assert!(m.starts_with(want), "{m}"),
                other => panic!("{reference:?} {argument}: {other:?}"),
            }
        }
    }

    #[test]
    fn every_template_and_completable_prompt_argument_is_covered() {
        let listed: Vec<String> = resources::templates()
            .iter()
            .filter_map(|t| t["uriTemplate"].as_str().map(str::to_string))
            .collect();
        let ruled: Vec<&str> = TEMPLATE_VARIABLES.iter().map(|(t, _, _)| *t).collect();
        assert_eq!(listed, ruled);
        for (template, variable, _) in TEMPLATE_VARIABLES {
            assert!(template.contains(&format!("{{{variable}}}")), "{template}");
            assert_eq!(template.matches('{').count(), 1, "{template}");
        }
        for (argument, _, _) in PROMPT_ARGUMENTS {
            let takes = ["start_review", "resume_review", "record_decision"]
                .iter()
                .any(|p| prompts::argument_names(p).is_ok_and(|a| a.contains(&argument)));
            assert!(takes, "{argument}");
        }
    }

    #[test]
    fn context_narrows_by_the_rule_and_empty_values_are_absent() {
        let given = BTreeMap::from([
            ("uri".to_string(), "/work/a.step".to_string()),
            ("revision".to_string(), " ".to_string()),
        ]);
        let n = narrowing(Context::ByBoth, &given).unwrap();
        assert_eq!(n.locator.as_deref(), Some("file:///work/a.step"));
        assert_eq!(n.revision, None);
        assert_eq!(
            narrowing(Context::Ignored, &given),
            Some(Narrowing::default())
        );
        let bad = BTreeMap::from([("uri".to_string(), "http://[x".to_string())]);
        assert_eq!(narrowing(Context::ByUri, &bad), None);
        assert_eq!(
            narrowing(Context::ByRevision, &bad),
            Some(Narrowing::default())
        );
    }

    #[test]
    fn result_gives_total_only_when_exact() {
        let r = Value::Object(result(vec!["a".into()], false));
        assert_eq!(
            r,
            json!({"completion": {"values": ["a"], "total": 1, "hasMore": false}})
        );
        let r = Value::Object(result(vec!["a".into()], true));
        assert_eq!(r, json!({"completion": {"values": ["a"], "hasMore": true}}));
    }
}
