//! The review domain: artifacts (revision, locator, URI normalisation), records, decisions
//! and the basis rules. No SQL, no JSON-RPC.
