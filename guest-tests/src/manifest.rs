//! The manifest (`programs/manifest.txt`): per-test settings that a program's source cannot
//! carry. An INI-like text format, parsed by hand:
//!
//! ```text
//! # comment
//! [argv]                      # a test name: a programs/NAME.c or programs/asm/*/NAME.S
//! args = one "two words" ""   # shell-like words: "double" (with \ escapes) or 'single' quotes
//! stdin = "line one\nline 2\n" # bytes fed on stdin (one quoted word; \n \t \\ \" \xHH)
//! cflags = -ffp-contract=off  # extra compiler flags (words)
//! timeout = 60                # seconds, instead of the runner's --timeout
//! arch_specific = false       # true: expected output lives in expected/<arch>/NAME.*
//! endgate_pending = "needs fork (clone without CLONE_VM): issue 5"
//! ```
//!
//! Tests without a section get the defaults (no args, no stdin, shared expected output).
//!
//! `endgate_pending = "reason"` (one quoted, non-empty string) marks a test as known not to
//! pass under endgate yet, for the stated reason. It matters only when the emulator being
//! judged is endgate (the emulator command's program is a file named `endgate`); under
//! `native`, qemu-user or any other emulator the test is judged as usual. Under endgate a
//! marked test that fails (or times out) is reported as *pending* (`xfail` in the matrix) and
//! does not count as a failure; one that passes is an *XPASS*, reported as a failure so that
//! the mark is removed once the feature lands (see [`crate::runner::Verdict`]).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::{Error, Result};

/// The settings of one test, as the manifest gives them (defaults when it says nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// Arguments after `argv[0]`.
    pub args: Vec<String>,
    /// Bytes for stdin; `None` means stdin is /dev/null.
    pub stdin: Option<Vec<u8>>,
    /// Extra compiler flags.
    pub cflags: Vec<String>,
    /// A per-test timeout overriding the runner's.
    pub timeout: Option<Duration>,
    /// Whether the expected output differs per arch (kept under `expected/<arch>/`).
    pub arch_specific: bool,
    /// Why the test does not pass under endgate yet (`endgate_pending`); `None` if it should.
    pub endgate_pending: Option<String>,
    /// The manifest line of the section header, for error messages.
    pub line: usize,
}

/// Parses manifest text; `origin` names it in error messages. Returns entries by test name.
pub fn parse(text: &str, origin: &str) -> Result<BTreeMap<String, Entry>> {
    let mut out: BTreeMap<String, Entry> = BTreeMap::new();
    let mut current: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let err = |msg: String| Error::new(format!("{origin}:{lineno}: {msg}"));
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| err(format!("section header '{line}' lacks its closing ']'")))?
                .trim();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                return Err(err(format!("bad test name '{name}' (letters, digits, '_' and '-' only)")));
            }
            if let Some(prev) = out.get(name) {
                return Err(err(format!("test '{name}' already has a section at line {}", prev.line)));
            }
            out.insert(name.to_string(), Entry { line: lineno, ..Entry::default() });
            current = Some(name.to_string());
            continue;
        }
        let (key, value) =
            line.split_once('=').ok_or_else(|| err(format!("expected 'key = value' or '[test]', found '{line}'")))?;
        let (key, value) = (key.trim(), value.trim());
        let name = current.as_ref().ok_or_else(|| err(format!("'{key}' before any [test] section")))?;
        let entry = out.get_mut(name).expect("section inserted above");
        match key {
            "args" => entry.args = split_words(value).map_err(err)?,
            "cflags" => entry.cflags = split_words(value).map_err(err)?,
            "stdin" => {
                let words = split_words(value).map_err(err)?;
                if words.len() != 1 {
                    return Err(err("stdin wants one quoted string, e.g. stdin = \"a\\nb\\n\"".into()));
                }
                entry.stdin = Some(unescape_bytes(&words[0]));
            }
            "timeout" => {
                let secs: f64 = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| err(format!("timeout wants a positive number of seconds, found '{value}'")))?;
                entry.timeout = Some(Duration::from_secs_f64(secs));
            }
            "arch_specific" => {
                entry.arch_specific = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(err(format!("arch_specific wants true or false, found '{value}'"))),
                }
            }
            "endgate_pending" => {
                let words = split_words(value).map_err(err)?;
                match words.as_slice() {
                    [reason] if !reason.trim().is_empty() => entry.endgate_pending = Some(reason.trim().to_string()),
                    _ => {
                        return Err(err("endgate_pending wants one quoted, non-empty reason, e.g. \
                             endgate_pending = \"needs fork (clone without CLONE_VM): issue 5\""
                            .into()))
                    }
                }
            }
            _ => {
                return Err(err(format!(
                    "unknown key '{key}' (known: args, stdin, cflags, timeout, arch_specific, endgate_pending)"
                )))
            }
        }
    }
    Ok(out)
}

/// Drops a `#` comment that is not inside quotes.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (_, _) if escaped => escaped = false,
            (Some('"'), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Splits shell-like words: whitespace separates; "double quotes" keep spaces and take
/// backslash escapes (kept as written, resolved by [`unescape_bytes`] for stdin, or by
/// [`split_words`] itself for `\"` and `\\`); 'single quotes' are literal. `""` is an empty word.
pub fn split_words(s: &str) -> std::result::Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut chars = s.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            return Ok(words);
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            match c {
                '\'' => loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated ' in: {s}")),
                    }
                },
                '"' => loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unterminated \" in: {s}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated \" in: {s}")),
                    }
                },
                c => word.push(c),
            }
        }
        words.push(word);
    }
}

/// Resolves `\n`, `\t`, `\r`, `\0`, `\\` and `\xHH` into bytes; other text is kept as UTF-8.
pub fn unescape_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let (byte, used) = match b[i + 1] {
                b'n' => (b'\n', 2),
                b't' => (b'\t', 2),
                b'r' => (b'\r', 2),
                b'0' => (0, 2),
                b'\\' => (b'\\', 2),
                b'x' => match b.get(i + 2..i + 4) {
                    Some(h) if h.iter().all(u8::is_ascii_hexdigit) => {
                        let hex = std::str::from_utf8(h).unwrap_or("0");
                        (u8::from_str_radix(hex, 16).unwrap_or(0), 4)
                    }
                    _ => (b'\\', 1),
                },
                _ => (b'\\', 1),
            };
            out.push(byte);
            i += used;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(split_words(r#"a "b c" '' "" 'd"e' x"y"z"#).unwrap(), ["a", "b c", "", "", "d\"e", "xyz"]);
        assert_eq!(split_words(r#""q\"uote\\" "n\n""#).unwrap(), ["q\"uote\\", "n\\n"]);
        assert!(split_words("\"open").is_err());
        assert!(split_words("  ").unwrap().is_empty());
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape_bytes(r"a\nb\t\\\x41\x4"), b"a\nb\t\\A\\x4");
        assert_eq!(unescape_bytes(r"end\"), b"end\\");
    }

    #[test]
    fn manifest() {
        let m = parse(
            "# top\n[argv]\nargs = one \"two three\" # trailing\n[in]\nstdin = \"x\\ny # not a comment\"\ntimeout = 2.5\n",
            "m",
        )
        .unwrap();
        assert_eq!(m["argv"].args, ["one", "two three"]);
        assert_eq!(m["in"].stdin.as_deref(), Some(&b"x\ny # not a comment"[..]));
        assert_eq!(m["in"].timeout, Some(Duration::from_millis(2500)));
        assert!(parse("args = x\n", "m").unwrap_err().0.contains("m:1"));
        assert!(parse("[a]\nbogus = 1\n", "m").unwrap_err().0.contains("unknown key"));
        assert!(parse("[a]\n[a]\n", "m").unwrap_err().0.contains("already"));
        assert!(parse("[a\n", "m").is_err());
        assert!(parse("[a]\ntimeout = -1\n", "m").is_err());
        assert!(parse("[a]\nstdin = a b\n", "m").is_err());
    }

    #[test]
    fn endgate_pending() {
        let m = parse(
            "[fork_wait]\nendgate_pending = \"needs fork (clone without CLONE_VM): issue 5\" # why\n\
             [single]\nendgate_pending = 'needs \"x\"'\n[plain]\nendgate_pending = word\n[other]\nargs = a\n",
            "m",
        )
        .unwrap();
        assert_eq!(m["fork_wait"].endgate_pending.as_deref(), Some("needs fork (clone without CLONE_VM): issue 5"));
        assert_eq!(m["single"].endgate_pending.as_deref(), Some("needs \"x\""));
        assert_eq!(m["plain"].endgate_pending.as_deref(), Some("word"));
        assert_eq!(m["other"].endgate_pending, None);
        assert_eq!(Entry::default().endgate_pending, None);
        for bad in ["", "\"\"", "\"  \"", "two words", "\"a\" \"b\"", "\"open"] {
            let e = parse(&format!("[a]\nendgate_pending = {bad}\n"), "m").unwrap_err().0;
            assert!(e.contains("m:2"), "{bad}: {e}");
        }
    }
}
