//! Shortening text for messages, logs and summaries: one function per way of cutting.
//!
//! - [`clip_bytes`]: at most a number of bytes, cut at a character boundary, with a marker of
//!   how many bytes were cut (log lines, whose bound is in bytes);
//! - [`prefix_chars`]: the first characters, with `…` when something was cut (summaries and
//!   echoed values);
//! - [`cut_middle`]: the first and last characters around a `…` (messages whose end matters,
//!   such as a schema error that names the rule last);
//! - [`first_chars`]: the first characters, nothing added (short display forms);
//! - [`escape_controls`]: control and bidirectional characters shown as `\u{…}` escapes (text
//!   from files printed on a terminal, which must not move the cursor or reorder the line);
//! - [`quoted`], [`inline`]: a stored string inside a one-line message (a tool's summary, an
//!   error a model reads), cut and escaped so that it stays one value on that one line;
//! - [`shown_path`], [`shell_word`]: a path named in a message, and a word of a command a
//!   message tells the reader to run;
//! - [`who`], [`file_name`]: an author or a part's file name inside a line's own words, bare
//!   when plain, else quoted.
//!
//! A leaf: it imports nothing from the crate.

use std::borrow::Cow;
use std::path::Path;
mod decomposed;
mod marks;

/// `s` cut to at most `max` bytes at a character boundary, followed by a marker of how many
/// bytes were cut (`…[4194050 bytes cut]`); `s` itself when it fits.
pub fn clip_bytes(s: &str, max: usize) -> Cow<'_, str> {
    if s.len() <= max {
        return Cow::Borrowed(s);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let kept = s.get(..end).unwrap_or_default();
    Cow::Owned(format!("{kept}…[{} bytes cut]", s.len() - end))
}

/// The longest start of `s` with at most `n` characters.
pub fn first_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((end, _)) => s.get(..end).unwrap_or(s),
        None => s,
    }
}

/// `s` as one line of plain text a person reads: line breaks, tabs and other control
/// characters (Unicode line and paragraph separators included) become spaces, and the
/// bidirectional controls that can make text display in another order than it is stored are
/// dropped. A stored requirement can then not fake another line of a form's message, or show
/// one thing and say another.
pub fn one_line(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'))
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{0085}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// Whether `c` can change what a terminal shows rather than being shown: C0 controls (line
/// breaks and tabs included), DEL, C1 controls, the Unicode line and paragraph separators,
/// the bidirectional controls that make text display in another order than it is stored,
/// and the invisible format characters that are shown as nothing at all ([`is_invisible`]).
pub fn is_control_like(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
        )
        || is_invisible(c)
}

/// Whether `c` is a character shown as nothing (or as a blank), which no name, note or id of a
/// review needs: the soft hyphen, the combining grapheme joiner, the Hangul fillers, the Khmer
/// inherent vowels, zero width space, word joiner and the invisible operators, the deprecated
/// format characters, the byte order mark, the Mongolian vowel separator, the interlinear
/// annotation characters (which hide the text between them), the shorthand format controls,
/// the musical formatting controls, the tag characters (which spell ASCII a model reads and
/// a person does not see) and the variation selectors supplement (whose 240 selectors, one
/// after another, carry bytes the same way). Two subjects or entity ids that differ by one
/// of them look the same unless it is shown. The zero width joiner and non-joiner, the
/// variation selectors U+FE00–FE0F and the Mongolian free variation selectors are not among
/// them: emoji and Indic, Persian and Mongolian text need them.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}'
            | '\u{34F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180E}'
            | '\u{200B}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Whether `c` is one of the characters drawn as nothing ([`is_invisible`]) that text in some
/// script is written with, and so may stand inside a name (an author's, a file's): a soft
/// hyphen, a zero width space (Khmer, Thai), a Mongolian vowel separator, a variation
/// selector (a Japanese name's ideographic variation sequence), an emoji's tag characters.
/// Not the bidirectional isolates and the deprecated format characters (they change how what
/// follows is shown), the byte order mark (a file's, not a name's), the interlinear
/// annotation characters (they hide text), the Hangul fillers (no modern Korean name has one;
/// they make a name look blank or like another) nor the Khmer inherent vowels (deprecated).
pub fn is_invisible_in_writing(c: char) -> bool {
    is_invisible(c)
        && !matches!(
            c,
            '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{3164}'
                | '\u{FFA0}'
                | '\u{17B4}'
                | '\u{17B5}'
        )
}

/// Whether `s` shows nothing: it is made only of white space, control characters and
/// characters drawn as nothing ([`is_control_like`], the joiners U+200C/D). A name of a zero
/// width space is as blank as a name of spaces: nobody can read it, nor tell it from another.
pub fn is_blank(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_whitespace() || is_control_like(c) || matches!(c, '\u{200C}' | '\u{200D}'))
}

/// `s` with every character of [`is_control_like`] written as a visible escape (`\u{1b}`):
/// what a file holds, shown on a terminal without an escape sequence acting, a line break
/// faking another line, or reordered text. `s` itself when there is nothing to escape.
/// Escaping twice changes nothing more (the escapes are plain characters), so a message may
/// be guarded again where it is printed.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    replace_control_like(s, |c| format!("\\u{{{c:x}}}"))
}

/// A path as a message names it: [`escape_controls`] of its display form, so a file name
/// made by a pulled commit or a script cannot fake a line of the message or act on the
/// terminal.
pub fn shown_path(path: &Path) -> String {
    escape_controls(&path.display().to_string()).into_owned()
}

/// `s` as one word of a POSIX shell command that a message tells its reader to run: as it is
/// when made only of characters no shell treats specially, else in single quotes (a `'`
/// inside written `'\''`). A path with a space, a `;` or a `$(…)` then stays the one word it
/// is when the command is pasted, instead of breaking it or running something else. Control
/// characters are escaped as [`escape_controls`] does: the word is shown, never acted on.
pub fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c);
    let word = match !s.is_empty() && s.chars().all(plain) {
        true => s.to_string(),
        false => format!("'{}'", s.replace('\'', "'\\''")),
    };
    escape_controls(&word).into_owned()
}

/// `s` as one word of a shell command that, pasted, gives the program `s` exactly: as
/// [`shell_word`] writes it, but when `s` holds characters drawn as nothing
/// ([`is_invisible`]: a Japanese name's ideographic variation selector, a Khmer zero width
/// space, a soft hyphen) and no control character, as `$'…'` with each of them written as
/// the `\xHH` bytes of its UTF-8 (bash, zsh, ksh; POSIX.1-2024). [`shell_word`] shows them
/// as `\u{…}` text, which a pasted command passed on as written: another name, another path.
pub fn shell_word_exact(s: &str) -> String {
    let acting = |c: char| is_control_like(c) && !is_invisible(c);
    if !s.chars().any(is_invisible) || s.chars().any(acting) {
        return shell_word(s);
    }
    let mut word = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => word.push_str("\\\\"),
            '\'' => word.push_str("\\'"),
            c if is_invisible(c) => {
                let mut bytes = [0u8; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    word.push_str(&format!("\\x{b:02x}"));
                }
            }
            c => word.push(c),
        }
    }
    word.push('\'');
    word
}

/// `s` as a Markdown code span (a command a text answer tells its reader to run): fenced by
/// one backtick more than the longest run of backticks inside it, and padded with a space
/// where it starts or ends with one, so a backtick in it (a path, an `--author` name) cannot
/// end the span early and show the rest as Markdown (CommonMark 6.1).
pub fn code_span(s: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// JSON text (as serde_json writes it, compact) with every character of [`is_control_like`]
/// it leaves raw (DEL, C1 controls, the Unicode line and paragraph separators, the
/// bidirectional controls, the invisible format characters) written as a `\uXXXX` escape (a
/// surrogate pair beyond the Basic Multilingual Plane): the same JSON value, but nothing that
/// acts on a terminal, hides, or that a reader splitting lines (Python's `str.splitlines`
/// breaks at U+2028 and U+0085) takes for a line end. In JSON text they occur only inside
/// strings; serde_json escapes the C0 controls itself.
pub fn escape_json_controls(json: &str) -> Cow<'_, str> {
    replace_control_like(json, |c| {
        // Beyond the Basic Multilingual Plane (a tag character): a UTF-16 surrogate pair,
        // as JSON writes it.
        match c.checked_sub(0x1_0000) {
            Some(v) => format!(
                "\\u{:04x}\\u{:04x}",
                0xD800 + (v >> 10),
                0xDC00 + (v & 0x3FF)
            ),
            None => format!("\\u{c:04x}"),
        }
    })
}

/// [`escape_json_controls`] for pretty-printed JSON: its own line breaks, all outside its
/// strings (serde_json escapes those in them), are kept. `json` itself when there is nothing
/// to escape.
pub fn escape_json_controls_but_newlines(json: &str) -> Cow<'_, str> {
    let mut any = false;
    each_shown(json, |c, escaped| any |= escaped && c != '\n');
    if !any {
        return Cow::Borrowed(json);
    }
    Cow::Owned(
        json.split('\n')
            .map(escape_json_controls)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// How many combining marks in a row are drawn: a letter with more ("a" and 200 accents)
/// is drawn as a tower over the lines above and below it, hiding them in a terminal or a
/// page. Vietnamese stacks two on a letter, the Indic scripts three or four.
const MARKS_DRAWN: usize = 4;

/// Goes through `s` saying of each character whether a reader is shown it as an escape:
/// every one of [`is_control_like`], and each combining mark past [`MARKS_DRAWN`] in a row
/// (any of Unicode's, [`marks::MARKS`], as the card's `\p{M}`).
pub fn each_shown(s: &str, mut each: impl FnMut(char, bool)) {
    let mut marks = 0;
    for c in s.chars() {
        // A mark Rust counts as a letter is one (an Indic vowel sign, a Thai vowel).
        let mark = (is_combining_mark(c) || marks::is_mark(c)) && !c.is_alphanumeric();
        marks = if mark { marks + 1 } else { 0 };
        each(c, is_control_like(c) || marks > MARKS_DRAWN);
    }
}

/// `s` with each character a reader is shown as an escape ([`each_shown`]) replaced by
/// `escape` of its code point; `s` itself when it holds none.
fn replace_control_like(s: &str, escape: impl Fn(u32) -> String) -> Cow<'_, str> {
    let mut any = false;
    each_shown(s, |_, escaped| any |= escaped);
    if !any {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    each_shown(s, |c, escaped| match escaped {
        true => out.push_str(&escape(c as u32)),
        false => out.push(c),
    });
    Cow::Owned(out)
}

/// [`escape_controls`] keeping line breaks (`\n`): a message of several lines built by the
/// program, each part of which was escaped where it was made, shown as a last guard.
pub fn escape_controls_but_newlines(s: &str) -> String {
    s.split('\n')
        .map(|line| escape_controls(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A stored string quoted in a one-line message (a tool's text summary, a refusal): at most
/// `n` characters (`…` marking a cut) between double quotes, with `"` and `\` escaped and
/// every character of [`is_control_like`] written as an escape (`\u{a}`, `\u{202e}`). A name,
/// subject or requirement then reads as one value: it cannot close its quotes, start a line
/// of its own (a fake verdict, a fake "Saved …") or reorder the message around it.
pub fn quoted(s: &str, n: usize) -> String {
    quoted_escaping(s, n, |_, _| false)
}

/// [`quoted`], also escaping each character `also` says of (given the character before it).
fn quoted_escaping(s: &str, n: usize, also: impl Fn(char, Option<char>) -> bool) -> String {
    let head = prefix_chars(s, n);
    let mut out = String::with_capacity(head.len() + 2);
    out.push('"');
    let mut before = None;
    each_shown(&head, |c, escaped| {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if escaped || also(c, before) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
        before = Some(c);
    });
    out.push('"');
    out
}

/// A stored string a one-line message shows without quotes (an id the caller sent): at most
/// `n` characters, every character of [`is_control_like`] escaped, so it cannot break the
/// line or reorder it.
pub fn inline(s: &str, n: usize) -> String {
    escape_controls(&prefix_chars(s, n)).into_owned()
}

/// Who did something (an author), named inside the words that say so (`by the engineer (form,
/// Ada)`, `relayed by the assistant of Ada`, `updated … by Ada`): bare when made of letters
/// (with their combining marks), digits, spaces and `.` `-` `'` `’` `_` `@` only, else
/// [`quoted`]. A name holding `)`, `,`, `;` or `:` then cannot close the words around it and
/// go on as their time, meaning or another verdict (`Bob), …, meaning approval`), whether it
/// came from `--author` or an imported or synced file.
pub fn who(s: &str, n: usize) -> String {
    bare_or_quoted(s, n, |c| {
        matches!(c, ' ' | '.' | '-' | '\'' | '’' | '_' | '@')
    })
}

/// A part's file name before a line's own words (`Review of bracket.step @ 0123…: 2
/// decisions …`): bare when made of letters (with their combining marks), digits, spaces and
/// `.` `-` `_` `+` `(` `)` `[` `]` `,` `'` `’` `~` `#` `&` only, else [`quoted`]. A file may be
/// named anything but `/`: one named `x.step @ 0123…: 0 decisions … Review of x.step` then
/// cannot start the line with a review of its own.
pub fn file_name(s: &str, n: usize) -> String {
    bare_or_quoted(s, n, |c| "-.+_()[],'’~#& ".contains(c))
}

/// A file's uri (or path) inside a line's own words (`… on 0123… of URI, 1 entity.`,
/// `at URI`): bare when it holds no white space and no quote, as a URI written by the rules
/// does (`file:///w/bracket.step`, spaces as `%20`), else [`quoted`]. An opaque uri keeps its
/// spaces (`plm:part 7`), and one such as `plm:x, 0 entities. Saved feature …` then cannot go
/// on as the line's words.
pub fn locator(s: &str, n: usize) -> String {
    bare_or_quoted(s, n, |c| !c.is_whitespace() && c != '"')
}

/// `s` as [`inline`] when it is not empty, has no space at either end and each character is
/// a letter, a digit, a [`is_combining_mark`] or `plain`; else [`quoted`].
fn bare_or_quoted(s: &str, n: usize, plain: impl Fn(char) -> bool) -> String {
    let bare = !s.is_empty()
        && s.trim() == s
        && s.chars()
            .all(|c| c.is_alphanumeric() || is_combining_mark(c) || plain(c));
    if bare { inline(s, n) } else { quoted(s, n) }
}

/// Whether `c` is a mark drawn on the letter before it that Rust does not count as a letter:
/// the combining accents (a decomposed `é`, as macOS file names give it), Hebrew and Arabic
/// points, the marks of the Indic scripts (the virama of every Hindi conjunct), Thai and
/// Lao, and the kana voicing marks, with the few signs of those blocks between them (Hebrew's
/// maqaf, a hyphen). Hebrew's sof pasuq, drawn as a colon, and the Indic dandas are left out,
/// and so is what is drawn as nothing (the combining grapheme joiner).
pub fn is_combining_mark(c: char) -> bool {
    matches!(
        c,
        '\u{300}'..='\u{36F}'
            | '\u{483}'..='\u{489}'
            | '\u{591}'..='\u{5C2}'
            | '\u{5C4}'..='\u{5C7}'
            | '\u{610}'..='\u{61A}'
            | '\u{64B}'..='\u{65F}'
            | '\u{670}'
            | '\u{6D6}'..='\u{6ED}'
            | '\u{900}'..='\u{963}'
            | '\u{966}'..='\u{DFF}'
            | '\u{E31}'..='\u{E3A}'
            | '\u{E47}'..='\u{E4E}'
            | '\u{EB1}'..='\u{EBC}'
            | '\u{EC8}'..='\u{ECE}'
            | '\u{1AB0}'..='\u{1AFF}'
            | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}'
            | '\u{3099}'..='\u{309A}'
            | '\u{FE20}'..='\u{FE2F}'
    ) && !is_control_like(c)
}

/// Whether a disposition shown bare in a one-line message could end early and go on in the
/// message's own words (`accept (D-9) on sha256:…`, `hold; "wall": accept`): it holds a
/// parenthesis, a quote, a semicolon, a colon or `=`. Such a one is shown quoted; a plain one
/// ("use as is") reads best bare.
pub fn needs_quotes(disposition: &str) -> bool {
    disposition.contains(['(', ')', '"', ';', ':', '='])
}

/// Whether a URI shown bare in a one-line message (`on {uri} at {revision}`) could read as
/// the message's own words: it holds white space, a quote or a character of
/// [`is_control_like`]. A file's URI holds none (they are percent-encoded); another scheme's
/// (`urn:a on file:///w/other.step at sha256:…`) may, and is then shown [`quoted`].
pub fn uri_needs_quotes(uri: &str) -> bool {
    uri.chars()
        .any(|c| c.is_whitespace() || c == '"' || is_control_like(c))
}

/// The fewest blank characters in a row that [`blank_runs_counted`] counts.
const BLANK_RUN: usize = 5;

/// `s` with every run of [`BLANK_RUN`] or more blank characters (white space, and U+2800
/// BRAILLE PATTERN BLANK, drawn as one) written as ` [N spaces] `. A terminal wraps a long
/// line at its width, so a run of them in a stored string could push what follows to the
/// start of a row of its own, where it reads as a line of the program's (`    so far:
/// accepted by the engineer …`). `s` itself when it has none.
pub fn blank_runs_counted(s: &str) -> Cow<'_, str> {
    let blank = |c: char| c.is_whitespace() || c == '\u{2800}';
    let mut run = 0usize;
    let mut long = false;
    for c in s.chars() {
        run = if blank(c) { run + 1 } else { 0 };
        long |= run >= BLANK_RUN;
    }
    if !long {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut blanks = String::new();
    let flush = |out: &mut String, blanks: &mut String| {
        match blanks.chars().count() {
            n if n >= BLANK_RUN => out.push_str(&format!(" [{n} spaces] ")),
            _ => out.push_str(blanks),
        }
        blanks.clear();
    };
    for c in s.chars() {
        if blank(c) {
            blanks.push(c);
        } else {
            flush(&mut out, &mut blanks);
            out.push(c);
        }
    }
    flush(&mut out, &mut blanks);
    Cow::Owned(out)
}

/// Whether a stored field shown bare among segments joined by `; ` (`source: drawing (…);
/// state: …; evidence: …`, the form's description and the terminal's lines) could end its
/// segment and go on in the words around it (`; so far: accepted by the engineer …`): it
/// holds a semicolon, or a character drawn as one (U+037E GREEK QUESTION MARK, which NFC
/// makes `;`, and the small and fullwidth semicolons). Such a one is shown [`quoted`].
pub fn holds_a_semicolon(s: &str) -> bool {
    s.contains([';', '\u{37E}', '\u{FE54}', '\u{FF1B}'])
}

/// A disposition in a one-line summary, after `=` or `:`: [`quoted`] when it
/// [`needs_quotes`], [`inline`] otherwise.
pub fn disposition(s: &str, n: usize) -> String {
    if needs_quotes(s) {
        quoted(s, n)
    } else {
        inline(s, n)
    }
}

/// `n` and `noun`, the noun plural unless `n` is 1 ("1 record", "0 records", "2 history
/// events"): the counts a command prints. `noun` is singular and takes an `s`.
pub fn counted<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The first `n` characters of `s` followed by `…` when `s` is longer; `s` itself otherwise.
pub fn prefix_chars(s: &str, n: usize) -> String {
    let head = first_chars(s, n);
    if head.len() == s.len() {
        return s.to_string();
    }
    format!("{head}…")
}

/// What a cut to the first `n` characters of `s` leaves out, as a reader is told it after the
/// `…` (` [25 more characters]`); empty when nothing is cut.
pub fn more_characters(s: &str, n: usize) -> String {
    match s.chars().count().saturating_sub(n) {
        0 => String::new(),
        1 => " [1 more character]".to_string(),
        more => format!(" [{more} more characters]"),
    }
}

/// `s` with its middle replaced by `…` so that `max_chars` of its characters are kept: the
/// first half (rounded up) and the last half. `s` itself when it has at most `max_chars`.
pub fn cut_middle(s: &str, max_chars: usize) -> String {
    let n = s.chars().count();
    if n <= max_chars {
        return s.to_string();
    }
    let tail = max_chars / 2;
    let head = max_chars - tail;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// The ways two names a person reads as one can be spelled apart, in the order [`alike`]
/// undoes them: the accents composed or not (the Latin, Greek and Cyrillic letters of
/// [`decomposed`]; marks stacked in another order are not reordered), characters drawn as
/// nothing (the [`is_invisible`] ones, the joiners and the bidirectional controls), white
/// space (at the ends, doubled, a tab or a line break for a space), full-width forms of ASCII
/// (`Ｂ` for `B`, an ideographic space), the Latin ligatures of U+FB00–FB06 (`ﬁ` for `fi`, as
/// text copied from a PDF drawing gives it), Greek and Cyrillic letters drawn as Latin ones (a
/// Cyrillic `о` for `o`: [`latin_twin`]), and letter case.
const SPELLINGS: [&str; 7] = [
    "Unicode composition",
    "invisible characters",
    "white space",
    "character width",
    "ligatures",
    "letters of another script",
    "letter case",
];

/// `t` with step `step` of [`SPELLINGS`] undone.
fn undone_step(t: &str, step: usize) -> String {
    // ASCII is composed, visible but for its controls (white space to step 2), of one width,
    // without ligatures and Latin.
    if t.is_ascii() && matches!(step, 0 | 1 | 3 | 4 | 5) {
        return t.to_string();
    }
    match step {
        // Decomposed, so that a composed and a decomposed accent are the same marks.
        0 => t
            .chars()
            .fold(String::with_capacity(t.len()), |mut out, c| {
                match decomposed::decomposed(c) {
                    Some(d) => out.push_str(d),
                    None => out.push(c),
                }
                out
            }),
        // Drawn as nothing: dropped. Line breaks and tabs are white space, the next step's.
        1 => t
            .chars()
            .filter(|&c| {
                !(is_invisible(c)
                    || matches!(c, '\u{200C}' | '\u{200D}')
                    || (is_control_like(c) && !c.is_whitespace() && !c.is_control()))
            })
            .collect(),
        2 => t
            .split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        3 => t.chars().map(|c| narrow(c).unwrap_or(c)).collect(),
        4 => t
            .chars()
            .fold(String::with_capacity(t.len()), |mut out, c| {
                match ligature(c) {
                    Some(letters) => out.push_str(letters),
                    None => out.push(c),
                }
                out
            }),
        5 => t.chars().map(|c| latin_twin(c).unwrap_or(c)).collect(),
        _ => t.to_lowercase(),
    }
}

/// `s` with the steps of [`SPELLINGS`] up to `upto` (not included) undone, but for `skip`.
fn undone(s: &str, upto: usize, skip: Option<usize>) -> String {
    (0..upto)
        .filter(|&step| Some(step) != skip)
        .fold(s.to_string(), |t, step| undone_step(&t, step))
}

/// `s` with every step of [`SPELLINGS`] undone: two names with the same key are two spellings
/// of one name ([`alike`] says how they differ). Computed once per name, it is what a lookup
/// compares many stored names with.
pub fn alike_key(s: &str) -> String {
    undone(s, SPELLINGS.len(), None)
}

/// Whether `alike_key(name) == key`, without building the key of an ASCII `name` (what a
/// lookup compares thousands of stored names with): its key is its words, split at white
/// space and controls, joined by one space, in lower case.
pub fn has_alike_key(name: &str, key: &str) -> bool {
    if !name.is_ascii() {
        return alike_key(name) == key;
    }
    let mut key = key.bytes();
    let mut space = false;
    let mut started = false;
    for b in name.bytes() {
        if b.is_ascii_whitespace() || b.is_ascii_control() {
            space = started;
            continue;
        }
        if std::mem::take(&mut space) && key.next() != Some(b' ') {
            return false;
        }
        started = true;
        if key.next() != Some(b.to_ascii_lowercase()) {
            return false;
        }
    }
    key.next().is_none()
}

/// Whether `a` and `b` are two spellings of what a person reads as one name, and if so what
/// tells them apart (some of [`SPELLINGS`], in that order: each one without which they would
/// still differ); `None` when they are the same string or read differently.
pub fn alike(a: &str, b: &str) -> Option<Vec<&'static str>> {
    if a == b {
        return None;
    }
    let upto = (1..=SPELLINGS.len()).find(|&n| undone(a, n, None) == undone(b, n, None))?;
    Some(
        (0..upto)
            .filter(|&step| undone(a, upto, Some(step)) != undone(b, upto, Some(step)))
            .map(|step| SPELLINGS[step])
            .collect(),
    )
}

/// `s` as [`quoted`], with what [`alike`] undoes also written as escapes: a combining mark
/// that composes with the character before it (`"Bore\u{301}"`, a decomposed "é"), the
/// joiners, the characters with a compatibility form (`"\u{ff22}ore"`, a full-width "Ｂ"),
/// the ligatures (`"\u{fb01}llet"`), the Greek and Cyrillic letters drawn as Latin ones
/// (`"B\u{43e}re"`, a Cyrillic "о") and every white space character but the space
/// (`"big\u{a0}bore"`, a no-break space). Two look-alike names are then told apart where a
/// message names one beside the other.
pub fn spelled(s: &str, n: usize) -> String {
    quoted_escaping(s, n, |c, before| {
        // A diacritical mark after a character (`e` and U+0301: `é`).
        let composes = before.is_some() && ('\u{300}'..='\u{36F}').contains(&c);
        composes
            || matches!(c, '\u{200C}' | '\u{200D}')
            || narrow(c).is_some()
            || latin_twin(c).is_some()
            || ligature(c).is_some()
            || (c.is_whitespace() && c != ' ')
    })
}

/// The letters the Latin ligature `c` (U+FB00 to U+FB06) is drawn for.
fn ligature(c: char) -> Option<&'static str> {
    match c {
        '\u{FB00}' => Some("ff"),
        '\u{FB01}' => Some("fi"),
        '\u{FB02}' => Some("fl"),
        '\u{FB03}' => Some("ffi"),
        '\u{FB04}' => Some("ffl"),
        '\u{FB05}' | '\u{FB06}' => Some("st"),
        _ => None,
    }
}

/// The Latin letter a Greek or Cyrillic letter `c` is drawn as ([`latin_glyph`]), or whose
/// capital is (`в` for `b`, as `В` is `B`): a name spelled in another script, wholly or one
/// letter in a word, then reads as the Latin one in either case, and a word of that script
/// as itself in capitals.
fn latin_twin(c: char) -> Option<char> {
    latin_glyph(c).or_else(|| {
        let mut capital = c.to_uppercase();
        match (capital.next(), capital.next()) {
            (Some(upper), None) if upper != c => latin_glyph(upper).map(|l| l.to_ascii_lowercase()),
            _ => None,
        }
    })
}

/// The Latin letter a Greek or Cyrillic letter `c` is drawn as in common fonts (Unicode's
/// confusables, the letters of one glyph: Cyrillic `а` for `a`, Greek `Ο` for `O`).
#[rustfmt::skip]
fn latin_glyph(c: char) -> Option<char> {
    Some(match c {
        // Cyrillic capitals and small letters.
        'А' => 'A', 'В' => 'B', 'Е' => 'E', 'К' => 'K', 'М' => 'M', 'Н' => 'H', 'О' => 'O',
        'Р' => 'P', 'С' => 'C', 'Т' => 'T', 'Х' => 'X', 'У' => 'Y', 'Ү' => 'Y', 'Ѕ' => 'S',
        'І' => 'I', 'Ј' => 'J', 'Ԛ' => 'Q', 'Ԝ' => 'W', 'Ӏ' => 'l',
        'а' => 'a', 'е' => 'e', 'о' => 'o', 'р' => 'p', 'с' => 'c', 'у' => 'y', 'х' => 'x',
        'ѕ' => 's', 'і' => 'i', 'ј' => 'j', 'ԁ' => 'd', 'ԛ' => 'q', 'ԝ' => 'w', 'һ' => 'h',
        'ӏ' => 'l', 'ү' => 'y',
        // Greek capitals and small letters.
        'Α' => 'A', 'Β' => 'B', 'Ε' => 'E', 'Ζ' => 'Z', 'Η' => 'H', 'Ι' => 'I', 'Κ' => 'K',
        'Μ' => 'M', 'Ν' => 'N', 'Ο' => 'O', 'Ρ' => 'P', 'Τ' => 'T', 'Υ' => 'Y', 'Χ' => 'X',
        'ο' => 'o', 'ν' => 'v', 'ρ' => 'p', 'υ' => 'u', 'ι' => 'i', 'α' => 'a', 'γ' => 'y',
        _ => return None,
    })
}

/// The ASCII character whose full-width form `c` is (U+FF01 to U+FF5E), or the space for
/// the ideographic space U+3000.
fn narrow(c: char) -> Option<char> {
    match c {
        '\u{3000}' => Some(' '),
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Latin name and one with Greek or Cyrillic letters drawn alike ("Bоre", its `о`
    /// Cyrillic; "ΒΟRE", Greek capitals) were told apart as different names: a `forget` of the
    /// one a person reads deleted nothing and named nothing. A Cyrillic word in capitals and
    /// in small letters is still one word in two cases, and a letter drawn otherwise (`л`)
    /// keeps two names apart.
    #[test]
    fn alike_reads_greek_and_cyrillic_letters_drawn_as_latin_ones() {
        assert_eq!(
            alike("Bore", "B\u{43e}re"),
            Some(vec!["letters of another script"])
        );
        assert_eq!(
            alike("BORE", "\u{392}\u{39f}RE"),
            Some(vec!["letters of another script"])
        );
        assert_eq!(
            alike("bore", "\u{392}\u{39f}RE"),
            Some(vec!["letters of another script", "letter case"])
        );
        assert_eq!(alike("ВОЛТ", "волт"), Some(vec!["letter case"]));
        assert_eq!(alike("BOLT", "ВОЛТ"), None);
        assert_eq!(alike("Сор", "Cop"), Some(vec!["letters of another script"]));
        assert_eq!(spelled("B\u{43e}re", 20), "\"B\\u{43e}re\"");
        assert_eq!(spelled("Bore", 20), "\"Bore\"");
    }

    #[test]
    fn has_alike_key_agrees_with_alike_key() {
        let names = [
            "",
            " ",
            "Bore",
            "bore",
            " Bore ",
            "big  bore",
            "big\t\nbore",
            "big\u{b}bore",
            "a\u{1f}b",
            "a\u{7f}b",
            "BIG BORE ",
            "bigbore",
            "big bore x",
            "Bor\u{e9}",
            "Bore\u{301}",
            "\u{ff22}ore",
            "Bo\u{200b}re",
        ];
        for name in names {
            for other in names {
                let key = alike_key(other);
                assert_eq!(
                    has_alike_key(name, &key),
                    alike_key(name) == key,
                    "{name:?} against the key of {other:?}"
                );
            }
        }
    }

    #[test]
    fn alike_names_what_tells_two_spellings_of_one_name_apart() {
        let d = |a, b| alike(a, b);
        assert_eq!(
            d("Bor\u{e9}", "Bore\u{301}"),
            Some(vec!["Unicode composition"])
        );
        assert_eq!(d("Bore", "Bore "), Some(vec!["white space"]));
        assert_eq!(d("big bore", "big\t\n bore"), Some(vec!["white space"]));
        assert_eq!(
            d("Bore", "Bo\u{200d}re"),
            Some(vec!["invisible characters"])
        );
        assert_eq!(
            d("Bore", "\u{202e}Bore"),
            Some(vec!["invisible characters"])
        );
        assert_eq!(d("Bore", "\u{ff22}ore"), Some(vec!["character width"]));
        assert_eq!(
            d("BOR\u{c9} ", "bore\u{301}"),
            Some(vec!["Unicode composition", "white space", "letter case"])
        );
        // Greek, Cyrillic and a letter of two marks (Vietnamese), composed and not.
        for (composed, decomposed) in [
            (
                "\u{3ac}\u{3be}\u{3bf}\u{3bd}\u{3b1}\u{3c2}",
                "\u{3b1}\u{301}\u{3be}\u{3bf}\u{3bd}\u{3b1}\u{3c2}",
            ),
            ("\u{439}", "\u{438}\u{306}"),
            ("\u{1ec7}", "e\u{323}\u{302}"),
        ] {
            assert_eq!(
                d(composed, decomposed),
                Some(vec!["Unicode composition"]),
                "{composed:?}"
            );
        }
        // Both decomposed: the composition is not what differs.
        assert_eq!(d("Bore\u{301} ", "Bore\u{301}"), Some(vec!["white space"]));
        // The same string, or letters that read differently: not alike.
        assert_eq!(d("Bore", "Bore"), None);
        assert_eq!(d("Disk", "D\u{131}sk"), None);
        assert_eq!(d("Bore", "Bone"), None);
        // Alike exactly when the keys are the same.
        for (a, b) in [
            ("Bor\u{e9}", "BORE\u{301} "),
            ("Bore", "Bone"),
            ("x\ty", "X Y"),
        ] {
            assert_eq!(
                alike(a, b).is_some(),
                alike_key(a) == alike_key(b),
                "{a:?} {b:?}"
            );
        }
    }

    #[test]
    fn the_decomposition_table_is_sorted_and_each_entry_is_a_letter_and_its_marks() {
        let table = decomposed::DECOMPOSED;
        assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
        for &(letter, parts) in table {
            let mut chars = parts.chars();
            let base = chars.next();
            assert!(base.is_some_and(|b| b != letter), "{letter:?}");
            assert!(
                chars.all(|m| ('\u{300}'..='\u{36F}').contains(&m)),
                "{letter:?} decomposes to a mark outside the combining diacriticals"
            );
            assert_eq!(decomposed::decomposed(letter), Some(parts));
        }
        assert_eq!(decomposed::decomposed('e'), None);
    }

    /// Regression: "a" with 200 combining accents was shown raw by every reader, a tower of
    /// marks drawn over the lines above and below it (a terminal, the report, the card).
    #[test]
    fn a_tower_of_combining_marks_is_shown_past_its_fourth_mark() {
        let tower = format!("a{}b", "\u{301}".repeat(6));
        let shown = format!("a{}{}b", "\u{301}".repeat(4), "\\u{301}".repeat(2));
        assert_eq!(escape_controls(&tower), shown);
        assert_eq!(quoted(&tower, 50), format!("\"{shown}\""));
        // Vietnamese, two marks on one letter, and Devanagari letters in a row stay as they are.
        for plain in [
            "Vie\u{323}\u{302}t",
            "\u{915}\u{94d}\u{937}\u{92e}\u{93e}\u{928}\u{915}",
        ] {
            assert_eq!(escape_controls(plain), plain);
        }
        // Each letter has its own four.
        let two = "e\u{301}\u{301}\u{301}\u{301}e\u{301}\u{301}\u{301}\u{301}";
        assert_eq!(escape_controls(two), two);
    }

    /// Regression: only the marks of `is_combining_mark`'s blocks were counted, so a tower of
    /// any other mark (the Vedic tone marks, the combining Devanagari digits, the musical
    /// symbols' marks, the ideographic tone marks, the Tibetan and Ethiopic ones) was drawn
    /// by the terminal, the report and the Form 3 over the lines around it, while the card,
    /// which counts every mark Unicode has but a letter's (`\p{M}`), showed it as escapes.
    #[test]
    fn a_tower_of_any_mark_is_shown_past_its_fourth_mark() {
        for mark in [
            '\u{1cd0}',
            '\u{a8e0}',
            '\u{1d167}',
            '\u{302a}',
            '\u{f18}',
            '\u{135d}',
            '\u{1e8d0}',
        ] {
            let tower = format!("a{}b", mark.to_string().repeat(6));
            let escape = format!("\\u{{{:x}}}", mark as u32);
            let shown = format!("a{}{}b", mark.to_string().repeat(4), escape.repeat(2));
            assert_eq!(escape_controls(&tower), shown, "{escape}");
        }
        // A Tibetan vowel sign is a letter's mark, as a Devanagari one is.
        let tibetan = "\u{f40}\u{f71}\u{f72}\u{f74}\u{f7a}\u{f7c}\u{f80}";
        assert_eq!(escape_controls(tibetan), tibetan);
    }

    #[test]
    fn the_mark_table_is_sorted_and_apart() {
        for w in marks::MARKS.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{w:?}");
        }
    }

    #[test]
    fn spelled_shows_what_alike_undoes() {
        assert_eq!(spelled("Bore\u{301}", 60), "\"Bore\\u{301}\"");
        assert_eq!(spelled("Bor\u{e9}", 60), "\"Bor\u{e9}\"");
        assert_eq!(
            spelled("\u{ff22}o\u{200d}re\u{200b}", 60),
            "\"\\u{ff22}o\\u{200d}re\\u{200b}\""
        );
        assert_eq!(spelled("a \"b\"\\\n", 60), "\"a \\\"b\\\"\\\\\\u{a}\"");
        // Marks that compose with nothing stay as they are (Hindi's virama, a matra).
        assert_eq!(
            spelled("\u{915}\u{94d}\u{937}", 60),
            "\"\u{915}\u{94d}\u{937}\""
        );
    }

    /// Regression: `alike` undoes every white space character, and `spelled` showed all but
    /// the tab and line breaks as they are: "big bore" and "big\u{a0}bore" (a no-break space,
    /// as a word processor pastes it) were named alike, "differs in white space", in one
    /// spelling, and recall listed the two as one name twice.
    /// Regression: a ligature was no look-alike (8ae06a4 left compatibility forms but width
    /// out), so a `forget` of "fillet" that missed the stored "\u{fb01}llet" (text copied
    /// from a PDF drawing) said only "Deleted 0", and `recall` listed the two in one
    /// spelling.
    #[test]
    fn a_ligature_is_a_look_alike_spelled_apart() {
        let stored = "\u{fb01}llet \u{fb00}\u{fb02}\u{fb03}\u{fb04}\u{fb05}\u{fb06}";
        let asked = "fillet ffflffifflstst";
        assert_eq!(alike_key(stored), alike_key(asked));
        assert!(has_alike_key(asked, &alike_key(stored)));
        assert_eq!(alike(asked, stored), Some(vec!["ligatures"]));
        assert_eq!(
            alike("Fillet", "\u{fb01}llet"),
            Some(vec!["ligatures", "letter case"])
        );
        assert_eq!(spelled("\u{fb01}llet", 60), "\"\\u{fb01}llet\"");
    }

    #[test]
    fn spelled_tells_every_look_alike_white_space_from_a_space() {
        for space in [
            '\u{a0}', '\u{1680}', '\u{2000}', '\u{2002}', '\u{2007}', '\u{2009}', '\u{200a}',
            '\u{202f}', '\u{205f}', '\u{3000}',
        ] {
            let other = format!("big{space}bore");
            assert_eq!(
                alike("big bore", &other),
                Some(vec!["white space"]),
                "{other:?}"
            );
            let shown = spelled(&other, 60);
            assert!(
                shown.is_ascii() && shown != spelled("big bore", 60),
                "{other:?} shown as {shown}"
            );
        }
        assert_eq!(spelled("big bore", 60), "\"big bore\"");
    }

    #[test]
    fn clip_bytes_cuts_at_a_char_boundary_and_says_how_much() {
        assert_eq!(clip_bytes("short", 10), "short");
        assert_eq!(clip_bytes("exact", 5), "exact");
        // "é" is two bytes: a cut at byte 3 falls inside the second one.
        assert_eq!(clip_bytes("aééé", 4), "aé…[4 bytes cut]");
        assert_eq!(
            clip_bytes(&"x".repeat(1000), 10),
            "xxxxxxxxxx…[990 bytes cut]"
        );
        assert_eq!(clip_bytes("é", 1), "…[2 bytes cut]");
        assert!(matches!(clip_bytes("fits", 4), Cow::Borrowed(_)));
    }

    #[test]
    fn first_chars_counts_characters_not_bytes() {
        assert_eq!(first_chars("abc", 5), "abc");
        assert_eq!(first_chars("abc", 3), "abc");
        assert_eq!(first_chars("abc", 2), "ab");
        assert_eq!(first_chars("Øéx", 2), "Øé");
        assert_eq!(first_chars("abc", 0), "");
        assert_eq!(first_chars("", 3), "");
    }

    #[test]
    fn one_line_folds_breaks_and_drops_bidi_controls() {
        assert_eq!(one_line("a\nb\r\nc\td"), "a b  c d");
        assert_eq!(one_line("x\u{2028}y\u{0085}z"), "x y z");
        assert_eq!(one_line("abc\u{202E}fed\u{202C}"), "abcfed");
        assert_eq!(one_line("\u{2067}x\u{2069} é"), "x é");
    }

    #[test]
    fn escape_controls_shows_every_control_and_bidi_character() {
        assert!(matches!(
            escape_controls("Ada Lovelace é"),
            Cow::Borrowed(_)
        ));
        assert_eq!(escape_controls("A\u{1b}[2Kda"), "A\\u{1b}[2Kda");
        assert_eq!(escape_controls("a\nb\rc\td"), "a\\u{a}b\\u{d}c\\u{9}d");
        assert_eq!(
            escape_controls("\u{7f}\u{9b}\u{85}"),
            "\\u{7f}\\u{9b}\\u{85}"
        );
        assert_eq!(
            escape_controls("x\u{202e}y\u{2066}"),
            "x\\u{202e}y\\u{2066}"
        );
        assert_eq!(escape_controls("x\u{2028}"), "x\\u{2028}");
        assert_eq!(
            escape_controls("bore\u{200b}\u{feff}\u{2060}\u{e0041}\u{e007f}"),
            "bore\\u{200b}\\u{feff}\\u{2060}\\u{e0041}\\u{e007f}"
        );
        // Drawn as nothing or as a blank: a soft hyphen, a Hangul filler, a variation
        // selector of the supplement (U+E0100: bytes hidden after a letter).
        assert_eq!(
            escape_controls("bo\u{ad}re\u{3164}\u{34f}\u{e0100}\u{1d173}"),
            "bo\\u{ad}re\\u{3164}\\u{34f}\\u{e0100}\\u{1d173}"
        );
        // Joiners stay: an emoji sequence and Persian text need them; so do the emoji
        // variation selector and Mongolian's free variation selectors.
        assert!(matches!(
            escape_controls("\u{2764}\u{fe0f} \u{1820}\u{180b}"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(
            escape_controls("👩\u{200d}🔧 می\u{200c}خواهم"),
            Cow::Borrowed(_)
        ));
        let json = serde_json::Value::String("a\u{200b}\u{e0041}\u{1f600}".into()).to_string();
        let escaped = escape_json_controls(&json);
        assert_eq!(escaped, "\"a\\u200b\\udb40\\udc41😀\"");
        assert_eq!(
            serde_json::from_str::<String>(&escaped).unwrap(),
            "a\u{200b}\u{e0041}\u{1f600}"
        );
        let once = escape_controls("\u{1b}]8;;x\u{7}");
        assert_eq!(escape_controls(&once), once, "idempotent");
        assert_eq!(escape_controls_but_newlines("a\u{1b}\nb"), "a\\u{1b}\nb");
        assert_eq!(
            escape_json_controls_but_newlines("{\n  \"a\": \"x\u{202e}\u{85}\"\n}"),
            "{\n  \"a\": \"x\\u202e\\u0085\"\n}"
        );
        assert!(matches!(
            escape_json_controls_but_newlines("{\n  \"a\": 1\n}"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn shell_word_is_one_word_for_a_posix_shell() {
        assert_eq!(shell_word("/srv/reviews/r-1.db"), "/srv/reviews/r-1.db");
        assert_eq!(shell_word("My Reviews/a.db"), "'My Reviews/a.db'");
        assert_eq!(shell_word("it's;$(rm x)`y`"), "'it'\\''s;$(rm x)`y`'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("~/a*.db"), "'~/a*.db'");
        assert_eq!(shell_word("a\u{1b}[2Jb"), "'a\\u{1b}[2Jb'");
    }

    #[test]
    fn shell_word_exact_writes_an_invisible_character_as_its_bytes() {
        assert_eq!(shell_word_exact("Ada Lovelace"), "'Ada Lovelace'");
        assert_eq!(
            shell_word_exact("\u{8fbb}\u{e0100}"),
            "$'\u{8fbb}\\xf3\\xa0\\x84\\x80'"
        );
        assert_eq!(
            shell_word_exact("it's\\ Ste\u{ad}fan"),
            "$'it\\'s\\\\ Ste\\xc2\\xadfan'"
        );
        // A control character: shown, as shell_word shows it.
        assert_eq!(
            shell_word_exact("a\u{1b}\u{ad}"),
            shell_word("a\u{1b}\u{ad}")
        );
    }

    #[test]
    fn code_span_is_not_ended_by_a_backtick_inside() {
        assert_eq!(
            code_span("review-mcp review FILE"),
            "`review-mcp review FILE`"
        );
        assert_eq!(code_span("a 'x`y' b"), "``a 'x`y' b``");
        assert_eq!(code_span("a ``x` b"), "```a ``x` b```");
        assert_eq!(code_span("`x"), "`` `x ``");
    }

    #[test]
    fn quoted_keeps_a_stored_string_one_value_on_one_line() {
        assert_eq!(quoted("mating surface", 60), "\"mating surface\"");
        assert_eq!(quoted("Ø10 H7 ✅ नमस्ते", 60), "\"Ø10 H7 ✅ नमस्ते\"");
        assert_eq!(quoted("bore tolerance", 4), "\"bore…\"");
        assert_eq!(
            quoted("x\"\n## Verdict: accepted", 60),
            "\"x\\\"\\u{a}## Verdict: accepted\""
        );
        assert_eq!(quoted("a\\\"b", 60), "\"a\\\\\\\"b\"");
        assert_eq!(
            quoted("\u{1b}[2J\u{202e}\u{9b}\u{2028}", 60),
            "\"\\u{1b}[2J\\u{202e}\\u{9b}\\u{2028}\""
        );
        assert_eq!(inline("hold\r\nfake", 40), "hold\\u{d}\\u{a}fake");
        assert_eq!(inline("hold \"x\"", 40), "hold \"x\"");
    }

    #[test]
    fn who_quotes_a_name_that_could_end_the_words_around_it() {
        assert_eq!(who("Ada Lovelace", 200), "Ada Lovelace");
        assert_eq!(who("José O'Brien-García", 200), "José O'Brien-García");
        assert_eq!(who("ada@example.com", 200), "ada@example.com");
        assert_eq!(
            who("Bob), 2026-01-02, meaning approval", 200),
            "\"Bob), 2026-01-02, meaning approval\""
        );
        assert_eq!(who("Lovelace, Ada", 200), "\"Lovelace, Ada\"");
        assert_eq!(who("Ada\u{200b}", 200), "\"Ada\\u{200b}\"");
        assert_eq!(who(" Ada", 200), "\" Ada\"");
        assert_eq!(who("", 200), "\"\"");
        assert_eq!(who("Ada Lovelace", 3), "Ada…");
    }

    /// Regression: a name whose letters carry combining marks was quoted as if it held
    /// punctuation: José in decomposed form (as macOS file names and some git configs give
    /// it), every Hindi name with a virama, Thai with a tone mark, a kana with its voicing mark.
    #[test]
    fn who_and_file_name_keep_a_name_with_combining_marks_bare() {
        for name in [
            "Jose\u{301} Garci\u{301}a",
            "प्रिया शर्मा",
            "สมชาย ใจดี่",
            "ホ\u{3099}ルト",
            "נָתָן",
            "مُحَمَّد",
        ] {
            assert_eq!(who(name, 200), name);
            assert_eq!(
                file_name(&format!("{name}.step"), 200),
                format!("{name}.step")
            );
        }
        // The combining grapheme joiner is drawn as nothing: shown, and the name quoted.
        assert_eq!(who("Ada\u{34f}", 200), "\"Ada\\u{34f}\"");
        // Hebrew's sof pasuq looks like a colon: quoted.
        assert_eq!(who("Ada\u{5c3}", 200), "\"Ada\u{5c3}\"");
    }

    /// Regression: a name with a typographic apostrophe (`O’Brien`, as macOS and phones type
    /// it) was quoted where `O'Brien` is not.
    #[test]
    fn who_and_file_name_keep_a_typographic_apostrophe_bare() {
        assert_eq!(who("Seán O’Brien", 200), "Seán O’Brien");
        assert_eq!(
            file_name("O’Brien’s bracket.step", 200),
            "O’Brien’s bracket.step"
        );
    }

    #[test]
    fn file_name_quotes_a_name_that_could_go_on_as_the_line() {
        assert_eq!(
            file_name("bracket (rev B), v2.step", 99),
            "bracket (rev B), v2.step"
        );
        assert_eq!(
            file_name("a.step @ 0123: 0 decisions", 99),
            "\"a.step @ 0123: 0 decisions\""
        );
        assert_eq!(file_name("a\n\u{202e}b", 99), "\"a\\u{a}\\u{202e}b\"");
        assert_eq!(file_name("plm:", 99), "\"plm:\"");
    }

    #[test]
    fn counted_says_one_in_the_singular() {
        assert_eq!(counted(1u64, "record"), "1 record");
        assert_eq!(counted(0usize, "decision"), "0 decisions");
        assert_eq!(counted(2usize, "history event"), "2 history events");
    }

    #[test]
    fn prefix_chars_marks_a_cut_only() {
        assert_eq!(prefix_chars("bore", 4), "bore");
        assert_eq!(prefix_chars("bore", 10), "bore");
        assert_eq!(prefix_chars("bore tolerance", 4), "bore…");
        assert_eq!(prefix_chars("ØØØ", 1), "Ø…");
        assert_eq!(prefix_chars("ab", 0), "…");
        assert_eq!(prefix_chars("", 0), "");
        let rev = format!("sha256:{}", "0123456789abcdef".repeat(4));
        assert_eq!(prefix_chars(&rev, 15), "sha256:01234567…");
    }

    #[test]
    fn cut_middle_keeps_both_ends() {
        assert_eq!(cut_middle("abcdef", 6), "abcdef");
        assert_eq!(cut_middle("abcdefgh", 4), "ab…gh");
        assert_eq!(cut_middle("abcdefgh", 5), "abc…gh");
        assert_eq!(cut_middle("ééééé", 2), "é…é");
        assert_eq!(cut_middle("ab", 1), "a…");
        assert_eq!(cut_middle("ab", 0), "…");
        let msg = format!("\"{}\" is longer than 200 characters", "v".repeat(1000));
        let cut = cut_middle(&msg, 300);
        assert_eq!(cut.chars().count(), 301);
        assert!(cut.ends_with("is longer than 200 characters"));
    }
}
