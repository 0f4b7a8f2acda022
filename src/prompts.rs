//! The engineering-review prompts: their descriptions, arguments and text.
//!
//! The prompts teach the assistant how to use this server together with a geometry server:
//! recall before asking, treat `stale` records as claims to re-check, take every number from
//! the geometry server (this server never measures), record one basis item per requirement
//! with an honest `source`, and leave verdicts to the engineer. They name the tools and fields
//! exactly as the tools publish them, so the text and the schemas cannot drift apart unnoticed
//! (a unit test checks every tool name mentioned here).
//!
//! Wire rules: prompt arguments are strings (`prompts/get` in every era). A required argument
//! that is absent or empty is [`PromptError::MissingArgument`]; an argument that is not a
//! string, is not one the prompt takes, or breaks its form (a `revision` that is not
//! `sha256:` + 64 lowercase hex digits) is [`PromptError::InvalidArgument`]. The service maps
//! every case to -32602. An optional argument sent as an empty string (some clients send every
//! form field) counts as absent.

use serde_json::{Map, Value, json};

use crate::review::is_revision;
use crate::text::prefix_chars;

/// Why `prompts/get` failed; every case is -32602 on the wire.
#[derive(Debug, PartialEq)]
pub enum PromptError {
    Unknown(String),
    MissingArgument(String),
    InvalidArgument(String),
}

impl std::fmt::Display for PromptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PromptError::Unknown(n) => write!(f, "Unknown prompt: {n}"),
            PromptError::MissingArgument(a) => write!(f, "Missing required argument: {a}"),
            PromptError::InvalidArgument(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PromptError {}

/// What an argument must look like beyond being a string.
#[derive(Clone, Copy)]
enum Form {
    /// `sha256:` + 64 lowercase hex digits, as `artifact.revision` demands.
    Revision,
    /// Free text up to this many characters.
    Text(usize),
}

/// One prompt argument as `prompts/list` shows it.
struct ArgSpec {
    name: &'static str,
    description: &'static str,
    required: bool,
    form: Form,
}

/// One prompt: its listing and how its text is rendered from validated arguments.
struct PromptSpec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    args: &'static [ArgSpec],
    render: fn(&Args) -> String,
}

/// The URI / path limit: long enough for any real path, short enough to keep prompts small.
const MAX_URI_CHARS: usize = 4096;
/// Matches the 64 KiB limit the tools put on `note`, `requirement` and `summary`.
const MAX_TEXT_CHARS: usize = 65_536;
/// Subjects are short labels.
const MAX_SUBJECT_CHARS: usize = 1000;

const REVISION_ARG: ArgSpec = ArgSpec {
    name: "revision",
    description: "The part's revision: \"sha256:\" followed by the 64 lowercase hex digits of the STEP file's SHA-256 (`review-mcp revision FILE` prints it).",
    required: true,
    form: Form::Revision,
};

const URI_ARG: ArgSpec = ArgSpec {
    name: "uri",
    description: "Optional: the part's file path or URI. With it, records for earlier revisions of the same file are found too.",
    required: false,
    form: Form::Text(MAX_URI_CHARS),
};

const PROMPTS: [PromptSpec; 3] = [
    PromptSpec {
        name: "start_review",
        title: "Start a design review",
        description: "Start an engineering review of one part revision: recall what is already known, check each requirement with a geometry server, and record the decision with its basis.",
        args: &[
            REVISION_ARG,
            URI_ARG,
            ArgSpec {
                name: "requirements",
                description: "Optional: the requirements to check, as the engineer states them (text from a drawing, spec or email).",
                required: false,
                form: Form::Text(MAX_TEXT_CHARS),
            },
        ],
        render: render_start_review,
    },
    PromptSpec {
        name: "resume_review",
        title: "Resume a design review",
        description: "Pick up a review where it was left: recall the records and decisions for a part, re-check stale ones against the current revision, and list the open questions.",
        args: &[REVISION_ARG, URI_ARG],
        render: render_resume_review,
    },
    PromptSpec {
        name: "record_decision",
        title: "Record a review decision",
        description: "Record a disposition (hold, accept, rework, ...) about a part revision with one basis item per requirement, honest sources and the engineer's verdicts.",
        args: &[
            ArgSpec {
                name: "subject",
                description: "What the decision is about, e.g. \"bore tolerance\" or \"release for machining\".",
                required: true,
                form: Form::Text(MAX_SUBJECT_CHARS),
            },
            ArgSpec {
                required: false,
                ..REVISION_ARG
            },
            URI_ARG,
        ],
        render: render_record_decision,
    },
];

/// Every prompt as `prompts/list` shows it (`name`, `title`, `description`, `arguments`).
pub fn catalog() -> Vec<Value> {
    PROMPTS
        .iter()
        .map(|p| {
            let args: Vec<Value> = p
                .args
                .iter()
                .map(|a| json!({"name": a.name, "description": a.description, "required": a.required}))
                .collect();
            json!({
                "name": p.name,
                "title": p.title,
                "description": p.description,
                "arguments": args,
            })
        })
        .collect()
}

/// Renders a prompt: the `GetPromptResult` object (`description?`, `messages`).
pub fn get(name: &str, args: &Map<String, Value>) -> Result<Value, PromptError> {
    let spec = PROMPTS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| PromptError::Unknown(name.to_string()))?;
    let args = validate(spec, args)?;
    let text = (spec.render)(&args);
    Ok(json!({
        "description": spec.description,
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
    }))
}

/// Validated arguments: present, non-empty strings of the right form.
struct Args {
    values: Vec<(&'static str, String)>,
}

impl Args {
    fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

fn validate(spec: &PromptSpec, given: &Map<String, Value>) -> Result<Args, PromptError> {
    // Unknown names first: a misspelt optional argument must not be silently dropped.
    if let Some(unknown) = given
        .keys()
        .find(|k| !spec.args.iter().any(|a| a.name == *k))
    {
        let accepted: Vec<&str> = spec.args.iter().map(|a| a.name).collect();
        return Err(PromptError::InvalidArgument(format!(
            "Prompt {} takes no argument \"{}\"; it accepts: {}",
            spec.name,
            prefix_chars(unknown, 100),
            accepted.join(", ")
        )));
    }
    let mut values = Vec::new();
    for arg in spec.args {
        let value = match given.get(arg.name) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                return Err(PromptError::InvalidArgument(format!(
                    "Argument \"{}\" must be a string (prompt arguments are strings), not {}",
                    arg.name,
                    kind_of(other)
                )));
            }
        };
        match value {
            None if arg.required => return Err(PromptError::MissingArgument(arg.name.into())),
            None => {}
            Some(v) => {
                check_form(arg, v)?;
                values.push((arg.name, v.to_string()));
            }
        }
    }
    Ok(Args { values })
}

fn check_form(arg: &ArgSpec, value: &str) -> Result<(), PromptError> {
    match arg.form {
        Form::Revision if is_revision(value) => Ok(()),
        Form::Revision => Err(PromptError::InvalidArgument(format!(
            "Argument \"{}\" must be \"sha256:\" followed by exactly 64 lowercase hex digits, \
             e.g. sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef \
             (`review-mcp revision FILE` prints it); got \"{}\"",
            arg.name,
            prefix_chars(value, 100)
        ))),
        Form::Text(max) if value.chars().count() > max => Err(PromptError::InvalidArgument(
            format!("Argument \"{}\" is longer than {max} characters", arg.name),
        )),
        Form::Text(_) => Ok(()),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The `artifact` object to pass to every tool, as compact JSON (so quotes in a path are
/// escaped correctly).
fn artifact_json(revision: &str, uri: Option<&str>) -> String {
    let mut m = Map::new();
    m.insert("revision".into(), json!(revision));
    m.insert("format".into(), json!("step"));
    if let Some(u) = uri {
        m.insert("uri".into(), json!(u));
    }
    Value::Object(m).to_string()
}

fn part_phrase(revision: &str, uri: Option<&str>) -> String {
    match uri {
        Some(u) => format!("the part {u} at revision {revision}"),
        None => format!("the part at revision {revision}"),
    }
}

/// The two-server setting every prompt starts from.
const ROLES: &str = "Two servers work together here. This review server is the memory: names, notes, tags and \
decisions bound to the exact revision of a part (tools `remember`, `recall`, `remember_decision`, \
`recall_decisions`, `forget`). A geometry server is the authority for shape and numbers. This review \
server never opens the CAD file and never measures anything.";

/// The rules shared by every prompt, each one a numbered habit.
const RULES: &str = "How to work:
1. Recall before you ask. Before asking the engineer anything, call `recall` and `recall_decisions` with the artifact above and follow `next_cursor` until it is absent. Do not ask again for what is already recorded; quote it and ask only whether it still holds.
2. `stale: true` means a claim to re-check, not a fact. Such a record or decision was written for another revision. Re-check it against the current revision with the geometry server before relying on it. Entity ids (faces, edges) do not carry over between revisions: re-identify the geometry in this revision before reusing any id.
3. Every number comes from the geometry server. Take dimensions, tolerances, distances, areas and thicknesses from the geometry server's answers and quote them in `evidence` with their provenance (which tool, which entity, which units). Never estimate or compute a number yourself, and never present a recalled number as a fresh measurement. If no geometry server is connected, say so, and record a number only as the engineer states it (`source: \"engineer-stated\"`).
4. One requirement, one basis item. In `remember_decision`, give every requirement-check its own item in `basis`: `requirement` stated so it can be checked; `source` told honestly: `drawing`, `model-pmi`, `shop-spec`, `supplier-cert`, `standard` or `prior-decision` only when you can name the document (put the clause or note number in `sourceDetail`), `engineer-stated` for what the engineer told you, and `assistant-proposed` for every requirement you propose yourself; `evidence` quoted with its provenance; `state` (`satisfied`, `violated`, `unresolved`, `conflicting`, `not-applicable`); `question` saying what would settle it whenever the state is `unresolved` or `conflicting`; `faces` with the entity ids in this revision (`[]` when the item is about the whole part).
5. Verdicts are the engineer's. Never fill in `verdict` yourself. Ask the engineer to accept or reject each item, above all the `assistant-proposed` ones, and record `{\"judgement\": \"accepted\" | \"rejected\", \"reason\": ...}` as they give it. An unresolved item is a complete record of where the work stands, not a failure.
6. Record as you go. Use `remember` for named features (for example the mating face) with the `entity_ids` and `id_scheme` the geometry server uses, and for notes worth keeping; use `remember_decision` with `subject`, `disposition` (for example \"hold\", \"accept\", \"rework\") and `basis` when a conclusion is reached. The same subject at the same revision replaces the earlier decision, so the new call must carry every basis item to keep.";

fn render_start_review(args: &Args) -> String {
    let revision = args.get("revision").unwrap_or_default();
    let uri = args.get("uri");
    let requirements = match args.get("requirements") {
        Some(r) => format!(
            "The engineer gave these requirements (split them into individually checkable \
             statements, one basis item each, `source` as the text itself says or \
             `engineer-stated`):\n--- requirements ---\n{r}\n--- end of requirements ---"
        ),
        None => "No requirements were given. After recalling what is already recorded, ask the \
                 engineer for the governing requirements (drawing, specification, model PMI) \
                 instead of assuming them; any requirement you suggest is `assistant-proposed`."
            .to_string(),
    };
    format!(
        "Start an engineering design review of {part}.\n\n{ROLES}\n\n\
         Use this artifact in every review call: {artifact}\n\n{RULES}\n\n{requirements}\n\n\
         Begin by recalling, then check each requirement with the geometry server, then ask the \
         engineer for the verdicts and the disposition, and record the decision.",
        part = part_phrase(revision, uri),
        artifact = artifact_json(revision, uri),
    )
}

fn render_resume_review(args: &Args) -> String {
    let revision = args.get("revision").unwrap_or_default();
    let uri = args.get("uri");
    let scope = if uri.is_some() {
        "With the `uri`, `recall` also returns what was recorded for earlier revisions of this \
         file; those come back `stale: true`."
    } else {
        "Without a `uri`, only records written for exactly this revision come back; if the \
         engineer knows the file's path, ask for it to find the records of earlier revisions."
    };
    format!(
        "Resume the engineering design review of {part}.\n\n{ROLES}\n\n\
         Use this artifact in every review call: {artifact}\n{scope}\n\n{RULES}\n\n\
         Start with a short status for the engineer, built only from what you recalled: the \
         decisions and their dispositions; the open questions (basis items that are \
         `unresolved` or `conflicting`, with their `question`); the items still waiting for the \
         engineer's verdict; and the stale records and decisions you will re-check against \
         this revision with the geometry server. Then ask only what the memory cannot answer.",
        part = part_phrase(revision, uri),
        artifact = artifact_json(revision, uri),
    )
}

fn render_record_decision(args: &Args) -> String {
    let subject = args.get("subject").unwrap_or_default();
    let subject_json = json!(subject).to_string();
    let part = match args.get("revision") {
        Some(revision) => format!(
            "It concerns {}. Use this artifact: {}",
            part_phrase(revision, args.get("uri")),
            artifact_json(revision, args.get("uri"))
        ),
        None => {
            let file = args
                .get("uri")
                .map(|u| format!(" of {u}"))
                .unwrap_or_default();
            format!(
                "No revision was given. A decision is bound to the exact revision{file}: get \
                 it from the geometry server or the engineer (`review-mcp revision FILE` prints \
                 the value for a STEP file); never guess or reuse one. The artifact is \
                 {{\"revision\": \"sha256:<64 hex>\", \"format\": \"step\"{uri}}}.",
                uri = args
                    .get("uri")
                    .map(|u| format!(", \"uri\": {}", json!(u)))
                    .unwrap_or_default()
            )
        }
    };
    format!(
        "Record the review decision with subject {subject_json}.\n\n{part}\n\n{ROLES}\n\n{RULES}\n\n\
         Steps: first call `recall_decisions` with this subject (and the artifact) to see \
         whether a decision already exists at this revision or an earlier one, and recall the \
         named features the basis will refer to. Then build the basis, one item per \
         requirement, with the numbers from the geometry server. Show the basis to the engineer \
         and ask for the disposition and for a verdict on each item; do not invent either. \
         Finally call `remember_decision` with `artifact`, `subject`, `disposition`, an \
         optional `summary`, and `basis`, and report whether it `replaced` an earlier decision."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const REV: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn args(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn text_of(result: &Value) -> &str {
        result["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or_default()
    }

    #[test]
    fn catalog_every_prompt_has_title_description_and_string_arguments() {
        let cat = catalog();
        assert!(cat.len() >= 3);
        let names: Vec<&str> = cat.iter().filter_map(|p| p["name"].as_str()).collect();
        assert_eq!(names, ["start_review", "resume_review", "record_decision"]);
        for p in &cat {
            assert!(p["title"].as_str().is_some_and(|t| !t.is_empty()), "{p}");
            assert!(p["description"].as_str().is_some_and(|t| !t.is_empty()));
            for a in p["arguments"].as_array().unwrap() {
                assert!(a["name"].is_string() && a["description"].is_string());
                assert!(a["required"].is_boolean());
            }
        }
        let required: Vec<(&str, &str)> = cat
            .iter()
            .flat_map(|p| {
                p["arguments"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|a| a["required"] == true)
                    .map(|a| (p["name"].as_str().unwrap(), a["name"].as_str().unwrap()))
            })
            .collect();
        assert_eq!(
            required,
            [
                ("start_review", "revision"),
                ("resume_review", "revision"),
                ("record_decision", "subject")
            ]
        );
    }

    #[test]
    fn get_every_prompt_returns_one_user_text_message() {
        let cases = [
            ("start_review", args(&[("revision", json!(REV))])),
            ("resume_review", args(&[("revision", json!(REV))])),
            ("record_decision", args(&[("subject", json!("bore"))])),
        ];
        for (name, a) in cases {
            let r = get(name, &a).unwrap();
            assert!(r["description"].is_string());
            let msgs = r["messages"].as_array().unwrap();
            assert_eq!(msgs.len(), 1);
            assert_eq!(msgs[0]["role"], "user");
            assert_eq!(msgs[0]["content"]["type"], "text");
            assert!(!text_of(&r).is_empty());
        }
    }

    #[test]
    fn get_prompt_text_teaches_the_review_habits() {
        let a = args(&[("revision", json!(REV)), ("uri", json!("/work/part.step"))]);
        for name in ["start_review", "resume_review"] {
            let r = get(name, &a).unwrap();
            let t = text_of(&r);
            for needle in [
                "Recall before you ask",
                "`stale: true`",
                "geometry server",
                "never measures",
                "`assistant-proposed`",
                "`question`",
                "Verdicts are the engineer's",
                "`recall_decisions`",
                "`remember_decision`",
                "\"format\":\"step\"",
                "\"uri\":\"/work/part.step\"",
                REV,
            ] {
                assert!(t.contains(needle), "{name} lacks {needle}");
            }
        }
    }

    #[test]
    fn get_prompt_text_names_only_real_tools_and_basis_fields() {
        let tools = [
            "remember",
            "recall",
            "remember_decision",
            "recall_decisions",
            "forget",
        ];
        let fields = [
            "requirement",
            "source",
            "sourceDetail",
            "evidence",
            "state",
            "question",
            "faces",
            "verdict",
        ];
        let t = text_of(
            &get(
                "start_review",
                &args(&[("revision", json!(REV)), ("requirements", json!("x"))]),
            )
            .unwrap(),
        )
        .to_string();
        for f in fields {
            assert!(t.contains(&format!("`{f}`")), "missing field {f}");
        }
        // Every backticked snake_case word that looks like a tool must be one.
        for word in t.split('`').skip(1).step_by(2) {
            if word.starts_with("re") && word.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                let known = tools.contains(&word) || ["requirement", "replaced"].contains(&word);
                assert!(known, "unknown tool-like name `{word}`");
            }
        }
    }

    #[test]
    fn get_start_review_includes_requirements_verbatim() {
        let a = args(&[
            ("revision", json!(REV)),
            ("requirements", json!("Bore Ø10 H7\nFlatness 0.02")),
        ]);
        let t = text_of(&get("start_review", &a).unwrap()).to_string();
        assert!(t.contains("--- requirements ---\nBore Ø10 H7\nFlatness 0.02\n--- end"));
        let t =
            text_of(&get("start_review", &args(&[("revision", json!(REV))])).unwrap()).to_string();
        assert!(t.contains("No requirements were given"));
    }

    #[test]
    fn get_record_decision_without_revision_says_never_guess() {
        let t = text_of(
            &get(
                "record_decision",
                &args(&[("subject", json!("bore \"A\""))]),
            )
            .unwrap(),
        )
        .to_string();
        assert!(t.contains("subject \"bore \\\"A\\\"\""));
        assert!(t.contains("never guess"));
        let t = text_of(
            &get(
                "record_decision",
                &args(&[("subject", json!("bore")), ("revision", json!(REV))]),
            )
            .unwrap(),
        )
        .to_string();
        assert!(t.contains(&format!("\"revision\":\"{REV}\"")));
    }

    #[test]
    fn get_missing_required_argument_names_it() {
        assert_eq!(
            get("start_review", &Map::new()),
            Err(PromptError::MissingArgument("revision".into()))
        );
        assert_eq!(
            get("record_decision", &args(&[("subject", json!("  "))])),
            Err(PromptError::MissingArgument("subject".into()))
        );
        assert_eq!(
            get("resume_review", &args(&[("revision", Value::Null)])),
            Err(PromptError::MissingArgument("revision".into()))
        );
    }

    #[test]
    fn get_unknown_prompt_is_unknown() {
        assert_eq!(
            get("nope", &Map::new()),
            Err(PromptError::Unknown("nope".into()))
        );
    }

    #[test]
    fn get_non_string_argument_is_invalid() {
        let r = get("start_review", &args(&[("revision", json!(42))]));
        let Err(PromptError::InvalidArgument(m)) = r else {
            panic!("{r:?}")
        };
        assert!(
            m.contains("\"revision\"") && m.contains("must be a string"),
            "{m}"
        );
    }

    #[test]
    fn get_malformed_revision_shows_expected_form() {
        for bad in [
            "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
            "sha256:0123",
            "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0",
            "md5:0123456789abcdef0123456789abcdef",
        ] {
            let r = get("resume_review", &args(&[("revision", json!(bad))]));
            let Err(PromptError::InvalidArgument(m)) = r else {
                panic!("{bad}: {r:?}")
            };
            assert!(m.contains("64 lowercase hex digits"), "{m}");
        }
        let r = get(
            "record_decision",
            &args(&[("subject", json!("s")), ("revision", json!("sha256:x"))]),
        );
        assert!(matches!(r, Err(PromptError::InvalidArgument(_))));
    }

    #[test]
    fn get_unknown_argument_is_refused_with_accepted_list() {
        let r = get(
            "resume_review",
            &args(&[("revision", json!(REV)), ("revison", json!("x"))]),
        );
        let Err(PromptError::InvalidArgument(m)) = r else {
            panic!("{r:?}")
        };
        assert!(m.contains("revison") && m.contains("revision, uri"), "{m}");
    }

    #[test]
    fn get_empty_optional_argument_counts_as_absent() {
        let r = get(
            "start_review",
            &args(&[("revision", json!(REV)), ("uri", json!(""))]),
        )
        .unwrap();
        assert!(!text_of(&r).contains("\"uri\""));
    }

    #[test]
    fn get_overlong_text_argument_is_invalid() {
        let long = "x".repeat(MAX_URI_CHARS + 1);
        let r = get(
            "start_review",
            &args(&[("revision", json!(REV)), ("uri", json!(long))]),
        );
        assert!(matches!(r, Err(PromptError::InvalidArgument(m)) if m.contains("longer than")));
    }
}
