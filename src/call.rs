//! Every MCP method this server knows, named once, and each request's params parsed once
//! into a typed [`Call`] that the adapters and the service dispatch on.
//!
//! An adapter runs its era's checks first (the legacy session, the 2026-07-28 envelope),
//! then asks [`Method::from_name`] and [`Call::parse`]; nothing after that looks at a method
//! name or a raw params object again.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::version::LOG_LEVELS;

/// The server's own request asking the user through the client (legacy sessions), and the
/// method of an input request in a 2026-07-28 `input_required` result.
pub const ELICIT: &str = "elicitation/create";
/// `initialize`: handled by the router, which opens the legacy session.
pub const INITIALIZE: &str = "initialize";
/// The client's word that the handshake is done: until it comes, the server sends the
/// session no request of its own (every handshake revision's lifecycle).
pub const INITIALIZED: &str = "notifications/initialized";
/// Closes a `subscriptions/listen` stream (and would cancel any request).
pub const CANCELLED: &str = "notifications/cancelled";
/// The acknowledgement a `subscriptions/listen` stream opens with.
pub const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// What `resources/list` returns has changed.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// A resource a client watches has changed (`params.uri`).
pub const RESOURCE_UPDATED: &str = "notifications/resources/updated";
/// A log message (`logging/setLevel`, handshake era).
pub const MESSAGE: &str = "notifications/message";

/// A request method an era adapter serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Ping,
    SetLevel,
    Discover,
    Listen,
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourcesRead,
    TemplatesList,
    Subscribe,
    Unsubscribe,
    Complete,
}

/// The methods and their wire names: the only place a method name is written.
const NAMES: [(Method, &str); 14] = [
    (Method::Ping, "ping"),
    (Method::SetLevel, "logging/setLevel"),
    (Method::Discover, "server/discover"),
    (Method::Listen, "subscriptions/listen"),
    (Method::ToolsList, "tools/list"),
    (Method::ToolsCall, "tools/call"),
    (Method::PromptsList, "prompts/list"),
    (Method::PromptsGet, "prompts/get"),
    (Method::ResourcesList, "resources/list"),
    (Method::ResourcesRead, "resources/read"),
    (Method::TemplatesList, "resources/templates/list"),
    (Method::Subscribe, "resources/subscribe"),
    (Method::Unsubscribe, "resources/unsubscribe"),
    (Method::Complete, "completion/complete"),
];

impl Method {
    pub fn from_name(name: &str) -> Option<Method> {
        NAMES.iter().find(|(_, n)| *n == name).map(|(m, _)| *m)
    }

    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(m, _)| *m == self)
            .map_or("", |(_, n)| n)
    }

    /// Only the handshake era has it (2026-07-28 removed it).
    pub fn is_legacy_only(self) -> bool {
        matches!(
            self,
            Method::Ping | Method::SetLevel | Method::Subscribe | Method::Unsubscribe
        )
    }

    /// Only the 2026-07-28 revision has it.
    pub fn is_modern_only(self) -> bool {
        matches!(self, Method::Discover | Method::Listen)
    }
}

/// One parsed request.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    Ping,
    SetLevel { level: String },
    Subscribe { uri: String },
    Unsubscribe { uri: String },
    Discover,
    Listen(Filter),
    Shared(SharedCall),
}

/// What a `subscriptions/listen` stream asks to be told (its `notifications` member).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub tools_list_changed: bool,
    pub prompts_list_changed: bool,
    pub resources_list_changed: bool,
    pub resource_subscriptions: Vec<String>,
}

/// What a 2026-07-28 client sends back when it retries a call that answered
/// `input_required`: the answers to the input requests, and the state echoed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Retry {
    pub responses: Map<String, Value>,
    pub state: Option<String>,
}

/// A request the service answers alike in both eras.
#[derive(Debug, Clone, PartialEq)]
pub enum SharedCall {
    ToolsList {
        cursor: Option<String>,
    },
    ToolsCall {
        name: String,
        /// Always an object.
        arguments: Value,
        /// A 2026-07-28 retry of a call that answered `input_required`.
        retry: Option<Retry>,
    },
    PromptsList {
        cursor: Option<String>,
    },
    PromptsGet {
        name: String,
        arguments: Map<String, Value>,
    },
    ResourcesList {
        cursor: Option<String>,
    },
    ResourcesRead {
        uri: String,
    },
    TemplatesList {
        cursor: Option<String>,
    },
    /// `completion/complete`: the value typed so far for one argument of a prompt or one
    /// variable of a resource template, with the arguments already chosen.
    Complete {
        reference: Reference,
        argument: String,
        value: String,
        context: BTreeMap<String, String>,
    },
}

impl SharedCall {
    pub fn method(&self) -> Method {
        match self {
            SharedCall::ToolsList { .. } => Method::ToolsList,
            SharedCall::ToolsCall { .. } => Method::ToolsCall,
            SharedCall::PromptsList { .. } => Method::PromptsList,
            SharedCall::PromptsGet { .. } => Method::PromptsGet,
            SharedCall::ResourcesList { .. } => Method::ResourcesList,
            SharedCall::ResourcesRead { .. } => Method::ResourcesRead,
            SharedCall::TemplatesList { .. } => Method::TemplatesList,
            SharedCall::Complete { .. } => Method::Complete,
        }
    }

    /// The catalogs (tools, prompts, templates) are fixed for the life of the process: the
    /// result of such a call depends only on the version and the cursor.
    pub fn is_static(&self) -> bool {
        matches!(
            self,
            SharedCall::ToolsList { .. }
                | SharedCall::PromptsList { .. }
                | SharedCall::TemplatesList { .. }
        )
    }

    /// The cursor of a list call.
    pub fn cursor(&self) -> Option<&str> {
        match self {
            SharedCall::ToolsList { cursor }
            | SharedCall::PromptsList { cursor }
            | SharedCall::ResourcesList { cursor }
            | SharedCall::TemplatesList { cursor } => cursor.as_deref(),
            _ => None,
        }
    }
}

/// Params a method cannot take: -32602 in every era.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    InvalidParams(String),
    /// "Invalid cursor".
    InvalidCursor,
}

/// One member of a params object as sent. Reading a params struct never fails: each member
/// says what is wrong with it when it is asked for, in words a client can act on.
#[derive(Debug, Default)]
enum Field<T> {
    #[default]
    Absent,
    Null,
    Is(T),
    /// Present, and not a `T`.
    Not,
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Null => Field::Null,
            v => serde_json::from_value(v).map_or(Field::Not, Field::Is),
        })
    }
}

impl<T> Field<T> {
    /// Absent or null is `None`; a value that is not a `T` is refused with `wrong`.
    fn optional(self, wrong: &str) -> Result<Option<T>, CallError> {
        match self {
            Field::Absent | Field::Null => Ok(None),
            Field::Is(t) => Ok(Some(t)),
            Field::Not => Err(invalid(wrong)),
        }
    }

    /// Refused with `missing` when absent and with `wrong` when not a `T` (null included).
    fn required(self, missing: &str, wrong: &str) -> Result<T, CallError> {
        match self {
            Field::Absent => Err(invalid(missing)),
            Field::Null | Field::Not => Err(invalid(wrong)),
            Field::Is(t) => Ok(t),
        }
    }
}

/// A JSON object: what a params struct is read from (never a JSON array, which serde would
/// also take for a struct).
type Object = Map<String, Value>;

/// The members of `params` this server reads, each as a [`Field`]; the others are ignored.
fn members<T: DeserializeOwned + Default>(params: Object) -> T {
    serde_json::from_value(Value::Object(params)).unwrap_or_default()
}

/// The members of a request's params that some method reads; each method takes its own
/// (`tools/call`: `name`, `arguments`, `inputResponses`, `requestState`; the lists: `cursor`;
/// `completion/complete`: `ref`, `argument`, `context`; ...).
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Params {
    cursor: Field<String>,
    uri: Field<String>,
    level: Field<String>,
    name: Field<String>,
    arguments: Field<Object>,
    input_responses: Field<Object>,
    request_state: Field<String>,
    notifications: Field<Object>,
    r#ref: Field<Object>,
    argument: Field<Object>,
    context: Field<Object>,
}

/// The `notifications` member of `subscriptions/listen`.
#[derive(Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct NotificationsParams {
    tools_list_changed: Field<bool>,
    prompts_list_changed: Field<bool>,
    resources_list_changed: Field<bool>,
    resource_subscriptions: Field<Vec<String>>,
}

impl Call {
    /// Reads `params` (already an object) for `method`.
    pub fn parse(method: Method, params: Map<String, Value>) -> Result<Call, CallError> {
        let p: Params = members(params);
        let shared = match method {
            Method::Ping => return Ok(Call::Ping),
            Method::Discover => return Ok(Call::Discover),
            Method::Listen => {
                // Required by the 2026-07-28 schema (`SubscriptionsListenRequestParams`): a
                // stream without it would be told nothing, so its absence is a client's bug.
                let notifications = p.notifications.required(
                    "subscriptions/listen needs \"notifications\": an object of the notifications \
                     to receive ({} for none; resourcesListChanged, resourceSubscriptions, ...)",
                    "\"notifications\" must be an object",
                )?;
                return filter(members(notifications)).map(Call::Listen);
            }
            Method::Subscribe | Method::Unsubscribe => {
                let wrong = format!("{} needs a string \"uri\"", method.name());
                let uri = p.uri.required(&wrong, &wrong)?;
                return Ok(if method == Method::Subscribe {
                    Call::Subscribe { uri }
                } else {
                    Call::Unsubscribe { uri }
                });
            }
            Method::SetLevel => {
                return match p.level {
                    Field::Is(level) if LOG_LEVELS.contains(&level.as_str()) => {
                        Ok(Call::SetLevel { level })
                    }
                    _ => Err(CallError::InvalidParams(format!(
                        "Invalid log level: expected one of {}",
                        LOG_LEVELS.join(", ")
                    ))),
                };
            }
            Method::ToolsList => SharedCall::ToolsList {
                cursor: cursor(p.cursor)?,
            },
            Method::PromptsList => SharedCall::PromptsList {
                cursor: cursor(p.cursor)?,
            },
            Method::ResourcesList => SharedCall::ResourcesList {
                cursor: cursor(p.cursor)?,
            },
            Method::TemplatesList => SharedCall::TemplatesList {
                cursor: cursor(p.cursor)?,
            },
            Method::ToolsCall => {
                let name = p
                    .name
                    .required("tools/call needs \"name\"", "\"name\" must be a string")?;
                let arguments = p
                    .arguments
                    .optional("\"arguments\" must be an object")?
                    .unwrap_or_default();
                let responses = p
                    .input_responses
                    .optional("\"inputResponses\" must be an object")?;
                let state = p
                    .request_state
                    .optional("\"requestState\" must be a string")?;
                let retry = (responses.is_some() || state.is_some()).then(|| Retry {
                    responses: responses.unwrap_or_default(),
                    state,
                });
                SharedCall::ToolsCall {
                    name,
                    arguments: Value::Object(arguments),
                    retry,
                }
            }
            Method::PromptsGet => {
                retry_members(p.input_responses, p.request_state)?;
                let wrong = "prompts/get needs a string \"name\"";
                SharedCall::PromptsGet {
                    name: p.name.required(wrong, wrong)?,
                    arguments: p
                        .arguments
                        .optional("\"arguments\" must be an object of strings")?
                        .unwrap_or_default(),
                }
            }
            Method::ResourcesRead => {
                retry_members(p.input_responses, p.request_state)?;
                let wrong = "resources/read needs a string \"uri\"";
                SharedCall::ResourcesRead {
                    uri: p.uri.required(wrong, wrong)?,
                }
            }
            Method::Complete => completion(p)?,
        };
        Ok(Call::Shared(shared))
    }
}

/// `inputResponses` and `requestState` of a request that takes them (2026-07-28) but never
/// asks for input here (`prompts/get`, `resources/read`): ignored, but refused when of another
/// type than the schema's, as `tools/call` refuses them.
fn retry_members(responses: Field<Object>, state: Field<String>) -> Result<(), CallError> {
    responses.optional("\"inputResponses\" must be an object")?;
    state.optional("\"requestState\" must be a string")?;
    Ok(())
}

/// The `notifications` of a listen request.
fn filter(n: NotificationsParams) -> Result<Filter, CallError> {
    let flag = |f: Field<bool>, key: &str| {
        f.optional(&format!("notifications.{key} must be a boolean"))
            .map(Option::unwrap_or_default)
    };
    Ok(Filter {
        tools_list_changed: flag(n.tools_list_changed, "toolsListChanged")?,
        prompts_list_changed: flag(n.prompts_list_changed, "promptsListChanged")?,
        resources_list_changed: flag(n.resources_list_changed, "resourcesListChanged")?,
        resource_subscriptions: n
            .resource_subscriptions
            .optional("notifications.resourceSubscriptions must be an array of strings")?
            .unwrap_or_default(),
    })
}

fn invalid(msg: &str) -> CallError {
    CallError::InvalidParams(msg.to_string())
}

/// `params.cursor`: absent, or a string.
fn cursor(cursor: Field<String>) -> Result<Option<String>, CallError> {
    cursor.optional("").map_err(|_| CallError::InvalidCursor)
}

/// What a completion is for (`completion/complete`'s `ref`). Every revision that has the
/// method names the same `ref` and `argument`; `context` came in 2025-06-18 and is read in
/// every revision (an older client simply never sends it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// `{"type": "ref/prompt", "name": ...}`.
    Prompt(String),
    /// `{"type": "ref/resource", "uri": ...}`: a URI template as `resources/templates/list`
    /// gives it.
    Template(String),
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RefParams {
    r#type: Field<String>,
    name: Field<String>,
    uri: Field<String>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct ArgumentParams {
    name: Field<String>,
    value: Field<String>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct ContextParams {
    arguments: Field<BTreeMap<String, String>>,
}

/// `completion/complete`: `ref` (a prompt by name or a resource template by its URI
/// template), `argument` (`name` and the `value` typed so far) and the optional
/// `context.arguments` (the arguments already chosen, all strings).
fn completion(p: Params) -> Result<SharedCall, CallError> {
    let needs_ref = "completion/complete needs \"ref\": {\"type\": \"ref/prompt\", \"name\": ...} or {\"type\": \"ref/resource\", \"uri\": ...}";
    let reference = reference(members(p.r#ref.required(needs_ref, needs_ref)?))?;
    let needs_argument = "completion/complete needs \"argument\": {\"name\": ..., \"value\": ...}";
    let argument: ArgumentParams = members(p.argument.required(needs_argument, needs_argument)?);
    let name_wrong = "\"argument.name\" must be a string";
    let value_wrong = "\"argument.value\" must be a string";
    let context = match p.context.optional("\"context\" must be an object")? {
        Some(c) => members::<ContextParams>(c)
            .arguments
            .optional("\"context.arguments\" must be an object of strings")?
            .unwrap_or_default(),
        None => BTreeMap::new(),
    };
    Ok(SharedCall::Complete {
        reference,
        argument: argument.name.required(name_wrong, name_wrong)?,
        value: argument.value.required(value_wrong, value_wrong)?,
        context,
    })
}

fn reference(r: RefParams) -> Result<Reference, CallError> {
    let kind = r.r#type.optional("").ok().flatten();
    match kind.as_deref() {
        Some("ref/prompt") => {
            let wrong = "a \"ref/prompt\" reference needs a string \"name\"";
            r.name.required(wrong, wrong).map(Reference::Prompt)
        }
        Some("ref/resource") => {
            let wrong = "a \"ref/resource\" reference needs a string \"uri\"";
            r.uri.required(wrong, wrong).map(Reference::Template)
        }
        _ => Err(invalid(
            "\"ref.type\" must be \"ref/prompt\" or \"ref/resource\"",
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn method_names_round_trip_and_unknown_names_are_none() {
        for (m, name) in NAMES {
            assert_eq!(Method::from_name(name), Some(m));
            assert_eq!(m.name(), name);
        }
        for other in [
            "initialize",
            "Tools/list",
            "tools/list ",
            "",
            "notifications/cancelled",
        ] {
            assert_eq!(Method::from_name(other), None, "{other}");
        }
    }

    fn params(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn parse_reads_each_methods_params_and_refuses_wrong_types() {
        let ok = Call::parse(
            Method::ToolsCall,
            params(json!({"name": "recall", "arguments": null})),
        );
        assert_eq!(
            ok,
            Ok(Call::Shared(SharedCall::ToolsCall {
                name: "recall".into(),
                arguments: json!({}),
                retry: None,
            }))
        );
        let retry = Call::parse(
            Method::ToolsCall,
            params(json!({"name": "x", "inputResponses": {"k": {}}, "requestState": "s"})),
        );
        assert_eq!(
            retry,
            Ok(Call::Shared(SharedCall::ToolsCall {
                name: "x".into(),
                arguments: json!({}),
                retry: Some(Retry {
                    responses: params(json!({"k": {}})),
                    state: Some("s".into()),
                }),
            }))
        );
        let cases = [
            (
                Method::ToolsCall,
                json!({"name": 1}),
                "\"name\" must be a string",
            ),
            (Method::ToolsCall, json!({}), "tools/call needs \"name\""),
            (
                Method::ToolsCall,
                json!({"name": "x", "requestState": 1}),
                "\"requestState\" must be a string",
            ),
            (
                Method::ToolsCall,
                json!({"name": "x", "inputResponses": []}),
                "\"inputResponses\" must be an object",
            ),
            (
                Method::ToolsCall,
                json!({"name": "x", "arguments": []}),
                "\"arguments\" must be an object",
            ),
            (
                Method::PromptsGet,
                json!({"name": "x", "arguments": "a"}),
                "\"arguments\" must be an object of strings",
            ),
            (
                Method::ResourcesRead,
                json!({"uri": 1}),
                "resources/read needs a string \"uri\"",
            ),
        ];
        for (m, p, want) in cases {
            assert_eq!(
                Call::parse(m, params(p)),
                Err(CallError::InvalidParams(want.into()))
            );
        }
        assert_eq!(
            Call::parse(Method::Listen, params(json!({}))),
            Err(CallError::InvalidParams(
                "subscriptions/listen needs \"notifications\": an object of the notifications \
                 to receive ({} for none; resourcesListChanged, resourceSubscriptions, ...)"
                    .into()
            ))
        );
        assert_eq!(
            Call::parse(Method::Listen, params(json!({"notifications": null}))),
            Err(CallError::InvalidParams(
                "\"notifications\" must be an object".into()
            ))
        );
        assert_eq!(
            Call::parse(Method::Listen, params(json!({"notifications": [true]}))),
            Err(CallError::InvalidParams(
                "\"notifications\" must be an object".into()
            ))
        );
        assert_eq!(
            Call::parse(
                Method::Listen,
                params(json!({"notifications": {"toolsListChanged": true,
                    "resourceSubscriptions": ["review://revisions"], "other": 1}})),
            ),
            Ok(Call::Listen(Filter {
                tools_list_changed: true,
                resource_subscriptions: vec!["review://revisions".into()],
                ..Filter::default()
            }))
        );
        assert_eq!(
            Call::parse(Method::ToolsList, params(json!({"cursor": 5}))),
            Err(CallError::InvalidCursor)
        );
        assert!(matches!(
            Call::parse(Method::SetLevel, params(json!({"level": "loud"}))),
            Err(CallError::InvalidParams(_))
        ));
    }

    fn parse_json(v: Value) -> Result<Call, CallError> {
        match v {
            Value::Object(m) => Call::parse(Method::Complete, m),
            _ => Err(invalid("not an object")),
        }
    }

    #[test]
    fn complete_params_are_typed() {
        let call = parse_json(json!({
            "ref": {"type": "ref/prompt", "name": "start_review"},
            "argument": {"name": "revision", "value": "sha"},
            "context": {"arguments": {"uri": "/work/a.step"}},
        }));
        let context = BTreeMap::from([("uri".to_string(), "/work/a.step".to_string())]);
        assert_eq!(
            call,
            Ok(Call::Shared(SharedCall::Complete {
                reference: Reference::Prompt("start_review".into()),
                argument: "revision".into(),
                value: "sha".into(),
                context,
            }))
        );
        let call = parse_json(json!({
            "ref": {"type": "ref/resource", "uri": "review://records/{id}"},
            "argument": {"name": "id", "value": ""},
            "context": null,
        }));
        assert!(matches!(
            call,
            Ok(Call::Shared(SharedCall::Complete { reference: Reference::Template(u), context, .. }))
                if u == "review://records/{id}" && context.is_empty()
        ));
    }

    #[test]
    fn malformed_complete_params_are_refused() {
        let arg = json!({"name": "revision", "value": ""});
        let prompt = json!({"type": "ref/prompt", "name": "start_review"});
        for bad in [
            json!({"argument": arg}),
            json!({"ref": "start_review", "argument": arg}),
            json!({"ref": {"type": "ref/tool", "name": "x"}, "argument": arg}),
            json!({"ref": {"type": "ref/prompt"}, "argument": arg}),
            json!({"ref": {"type": "ref/resource", "uri": 3}, "argument": arg}),
            json!({"ref": prompt}),
            json!({"ref": prompt, "argument": {"value": ""}}),
            // A struct is read from an object only, never from an array in field order.
            json!({"ref": ["ref/prompt", "start_review"], "argument": arg}),
            json!({"ref": prompt, "argument": ["revision", ""]}),
            json!({"ref": prompt, "argument": arg, "context": [{"uri": "a"}]}),
            json!({"ref": prompt, "argument": {"name": "revision"}}),
            json!({"ref": prompt, "argument": {"name": "revision", "value": 7}}),
            json!({"ref": prompt, "argument": arg, "context": []}),
            json!({"ref": prompt, "argument": arg, "context": {"arguments": [1]}}),
            json!({"ref": prompt, "argument": arg, "context": {"arguments": {"uri": 1}}}),
        ] {
            assert!(
                matches!(parse_json(bad.clone()), Err(CallError::InvalidParams(_))),
                "{bad}"
            );
        }
    }
}
