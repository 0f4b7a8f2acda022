//! Protocol revisions and what each one allows: the ONLY place version strings are compared.
//!
//! Every other module asks a [`Version`] what it supports (`version.accepts_batches()`,
//! `features()`) instead of comparing strings, so adding a revision is one variant here and
//! one adapter in `era/`, not edits scattered through the code. A leaf: it imports nothing
//! from the crate.

/// The eight syslog levels of `logging/setLevel` and `_meta` `logLevel`.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Every protocol revision this server speaks, oldest first (the order is meaningful: the
/// feature predicates below compare variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
}

/// The handshake-era revisions, newest first: the order of preference in negotiation.
pub const LEGACY: [Version; 4] = [
    Version::V2025_11_25,
    Version::V2025_06_18,
    Version::V2025_03_26,
    Version::V2024_11_05,
];

/// The stateless revisions served through the per-request `_meta` envelope.
pub const MODERN: [Version; 1] = [Version::V2026_07_28];

impl Version {
    pub const LATEST_LEGACY: Version = Version::V2025_11_25;

    pub fn as_str(self) -> &'static str {
        match self {
            Version::V2024_11_05 => "2024-11-05",
            Version::V2025_03_26 => "2025-03-26",
            Version::V2025_06_18 => "2025-06-18",
            Version::V2025_11_25 => "2025-11-25",
            Version::V2026_07_28 => "2026-07-28",
        }
    }

    fn parse_in(set: &[Version], s: &str) -> Option<Version> {
        set.iter().copied().find(|v| v.as_str() == s)
    }

    /// Legacy negotiation: the requested version when we speak it, else our latest legacy
    /// version (a counter-offer, never an error).
    pub fn negotiate_legacy(requested: &str) -> Version {
        Self::parse_in(&LEGACY, requested).unwrap_or(Self::LATEST_LEGACY)
    }

    /// True when `requested` is a handshake-era version we speak as asked (no counter-offer).
    pub fn speaks_legacy(requested: &str) -> bool {
        Self::parse_in(&LEGACY, requested).is_some()
    }

    /// A modern request's version, if we serve it.
    pub fn parse_modern(s: &str) -> Option<Version> {
        Self::parse_in(&MODERN, s)
    }

    /// The modern versions as strings, for `supportedVersions` and -32022 `data.supported`.
    pub fn modern_strings() -> Vec<&'static str> {
        MODERN.iter().map(|v| v.as_str()).collect()
    }

    pub fn is_modern(self) -> bool {
        self >= Version::V2026_07_28
    }

    /// 2025-03-26 is the only revision with JSON-RPC batches.
    pub fn accepts_batches(self) -> bool {
        self == Version::V2025_03_26
    }

    /// What the era-neutral service layer needs to know to shape its results.
    pub fn features(self) -> Features {
        Features {
            annotations: self >= Version::V2025_03_26,
            titles: self >= Version::V2025_06_18,
            structured_content: self >= Version::V2025_06_18,
            schema_errors_as_tool_results: self >= Version::V2025_11_25,
            completions: self >= Version::V2025_03_26,
            elicitation: self >= Version::V2025_06_18,
            elicitation_mode: self >= Version::V2025_11_25,
        }
    }
}

/// Result-shaping switches for one request, derived from its version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// `Tool.annotations` exists (2025-03-26 on).
    pub annotations: bool,
    /// `title` on tools, prompts, resources and templates (2025-06-18 on).
    pub titles: bool,
    /// `outputSchema` on tools and `structuredContent` on results (2025-06-18 on).
    pub structured_content: bool,
    /// Tool input-schema failures are `isError` results (2025-11-25 on, SEP-1303); before
    /// that they are JSON-RPC -32602.
    pub schema_errors_as_tool_results: bool,
    /// The `completions` server capability (2025-03-26 on). `completion/complete` itself is
    /// in every revision and is answered in every one.
    pub completions: bool,
    /// Form elicitation (2025-06-18 on): a server request `elicitation/create` in legacy
    /// sessions, an `input_required` result in 2026-07-28.
    pub elicitation: bool,
    /// `mode: "form"` in elicitation params (2025-11-25 on; absent means form).
    pub elicitation_mode: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiate_supported_version_is_echoed() {
        for v in LEGACY {
            assert_eq!(Version::negotiate_legacy(v.as_str()), v);
        }
    }

    #[test]
    fn speaks_legacy_only_for_handshake_versions() {
        assert!(Version::speaks_legacy("2024-11-05"));
        assert!(!Version::speaks_legacy("2026-07-28"));
        assert!(!Version::speaks_legacy("1999-01-01"));
    }

    #[test]
    fn negotiate_unknown_or_modern_version_gets_latest_legacy() {
        for s in ["1999-01-01", "2026-07-28", "", "2025-11-25 "] {
            assert_eq!(Version::negotiate_legacy(s), Version::V2025_11_25);
        }
    }

    #[test]
    fn features_follow_revision_history() {
        assert!(!Version::V2024_11_05.features().annotations);
        assert!(Version::V2025_03_26.features().annotations);
        assert!(!Version::V2025_03_26.features().structured_content);
        assert!(Version::V2025_06_18.features().structured_content);
        assert!(
            !Version::V2025_06_18
                .features()
                .schema_errors_as_tool_results
        );
        assert!(
            Version::V2025_11_25
                .features()
                .schema_errors_as_tool_results
        );
        assert!(
            Version::V2026_07_28
                .features()
                .schema_errors_as_tool_results
        );
        assert!(!Version::V2024_11_05.features().completions);
        assert!(Version::V2025_03_26.features().completions);
        assert!(Version::V2026_07_28.features().completions);
        assert!(!Version::V2025_03_26.features().elicitation);
        assert!(Version::V2025_06_18.features().elicitation);
        assert!(!Version::V2025_06_18.features().elicitation_mode);
        assert!(Version::V2025_11_25.features().elicitation_mode);
        assert!(Version::V2026_07_28.features().elicitation_mode);
        assert!(Version::V2025_03_26.accepts_batches());
        assert!(!Version::V2025_06_18.accepts_batches());
    }
}
