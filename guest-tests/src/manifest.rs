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
//! arches = x86_64,aarch64     # only built and run for these arches (default: all)
//! endgate_pending = "needs fork (clone without CLONE_VM): issue 5"
//! endgate_pending = arm,i386 "needs the 32-bit struct stat64 layout"
//! ```
//!
//! Tests without a section get the defaults (no args, no stdin, shared expected output).
//!
//! `endgate_pending` marks a test as known not to pass under endgate yet, for a stated,
//! non-empty reason, on some arches:
//!
//! - `endgate_pending = "reason"` or `endgate_pending = all "reason"`: on every arch;
//! - `endgate_pending = arm,i386 "reason"`: on the listed arches only (names from
//!   [`crate::arch::ARCHES`], comma-separated, no spaces).
//!
//! A section may have several `endgate_pending` lines with different reasons, as long as no
//! arch is named twice. The marks matter only when the emulator being judged is endgate (the
//! emulator command's program is a file named `endgate`); under `native`, qemu-user or any
//! other emulator the test is judged as usual. Under endgate a marked test that fails (or
//! times out) on a marked arch is reported as *pending* (`xfail` in the matrix) and does not
//! count as a failure; one that passes is an *XPASS*, reported as a failure so that the mark
//! is removed once the feature lands (see [`crate::runner::Verdict`]). Unmarked arches are
//! judged as usual.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::arch::{Arch, ARCHES};
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
    /// The arches the test is built and run for (`arches`; default all). On the others it
    /// does not apply (e.g. `__int128` does not exist on 32-bit arches): '-' in the matrix.
    pub arches: ArchSet,
    /// The `endgate_pending` marks, in manifest order: on which arches, and why, the test
    /// does not pass under endgate yet. Empty if it should pass everywhere. No arch is
    /// covered by two marks.
    pub endgate_pending: Vec<Pending>,
    /// The manifest line of the section header, for error messages.
    pub line: usize,
}

/// A set of arches, as `arches` and `endgate_pending` name them: `all` or `arm,i386`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ArchSet {
    /// Every arch (`all`, or no arch list at all).
    #[default]
    All,
    /// Only these arch names (each in [`ARCHES`]), in [`ARCHES`] order.
    Only(Vec<&'static str>),
}

impl ArchSet {
    /// Whether the arch called `arch` is covered.
    pub fn covers(&self, arch: &str) -> bool {
        match self {
            ArchSet::All => true,
            ArchSet::Only(v) => v.contains(&arch),
        }
    }

    /// Parses `all` or a comma-separated list of known arch names (`arm,i386`).
    pub fn parse(spec: &str) -> std::result::Result<ArchSet, String> {
        if spec == "all" {
            return Ok(ArchSet::All);
        }
        let mut names: Vec<&'static str> = Vec::new();
        for part in spec.split(',') {
            let arch = Arch::by_name(part).ok_or_else(|| {
                let known: Vec<_> = ARCHES.iter().map(|a| a.name).collect();
                format!("unknown arch '{part}' (known: {}, or 'all')", known.join(", "))
            })?;
            if names.contains(&arch.name) {
                return Err(format!("arch '{part}' is listed twice"));
            }
            names.push(arch.name);
        }
        names.sort_by_key(|n| ARCHES.iter().position(|a| a.name == *n));
        Ok(ArchSet::Only(names))
    }
}

impl std::fmt::Display for ArchSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArchSet::All => f.write_str("all"),
            ArchSet::Only(v) => f.write_str(&v.join(",")),
        }
    }
}

/// One `endgate_pending` mark: the arches it covers and why the test fails there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The arches the mark covers.
    pub arches: ArchSet,
    /// Why the test does not pass under endgate on them yet (non-empty, trimmed).
    pub reason: String,
}

impl Entry {
    /// The `endgate_pending` reason for the arch called `arch`, if a mark covers it.
    pub fn pending_on(&self, arch: &str) -> Option<&str> {
        self.endgate_pending.iter().find(|p| p.arches.covers(arch)).map(|p| p.reason.as_str())
    }
}

/// Parses the value of an `endgate_pending` line: `"reason"`, `all "reason"` or
/// `arch,arch "reason"`.
fn parse_pending(value: &str) -> std::result::Result<Pending, String> {
    const USAGE: &str = "endgate_pending wants an optional arch list and one quoted, non-empty reason, \
                         e.g. endgate_pending = \"needs fork: issue 5\" or endgate_pending = arm,i386 \"needs …\"";
    let words = split_words(value)?;
    let (arches, reason) = match words.as_slice() {
        [reason] => {
            if ArchSet::parse(reason).is_ok() {
                return Err(format!("endgate_pending = {value} names arches but gives no reason ({USAGE})"));
            }
            (ArchSet::All, reason)
        }
        [spec, reason] => (ArchSet::parse(spec)?, reason),
        _ => return Err(USAGE.to_string()),
    };
    if reason.trim().is_empty() {
        return Err(USAGE.to_string());
    }
    Ok(Pending { arches, reason: reason.trim().to_string() })
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
            "arches" => entry.arches = ArchSet::parse(value).map_err(err)?,
            "endgate_pending" => {
                let mark = parse_pending(value).map_err(err)?;
                let overlap = ARCHES.iter().find(|a| {
                    mark.arches.covers(a.name) && entry.endgate_pending.iter().any(|p| p.arches.covers(a.name))
                });
                if let Some(a) = overlap {
                    return Err(err(format!("[{name}] has two endgate_pending marks for {}", a.name)));
                }
                entry.endgate_pending.push(mark);
            }
            _ => {
                return Err(err(format!(
                    "unknown key '{key}' (known: args, stdin, cflags, timeout, arch_specific, arches, endgate_pending)"
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
        let all = |r: &str| vec![Pending { arches: ArchSet::All, reason: r.into() }];
        assert_eq!(m["fork_wait"].endgate_pending, all("needs fork (clone without CLONE_VM): issue 5"));
        assert_eq!(m["single"].endgate_pending, all("needs \"x\""));
        assert_eq!(m["plain"].endgate_pending, all("word"));
        assert!(m["other"].endgate_pending.is_empty());
        assert!(Entry::default().endgate_pending.is_empty());
        for a in ARCHES {
            assert_eq!(m["fork_wait"].pending_on(a.name), Some("needs fork (clone without CLONE_VM): issue 5"));
            assert_eq!(m["other"].pending_on(a.name), None);
        }
        for bad in ["", "\"\"", "\"  \"", "two words", "\"a\" \"b\"", "\"open", "all", "arm,i386", "arm \"\""] {
            let e = parse(&format!("[a]\nendgate_pending = {bad}\n"), "m").unwrap_err().0;
            assert!(e.contains("m:2"), "{bad}: {e}");
        }
    }

    #[test]
    fn endgate_pending_per_arch() {
        let m = parse(
            "[t]\nendgate_pending = i386,arm \"needs struct stat64\"\n\
             endgate_pending = s390x 'big-endian sockaddr'\n\
             [u]\nendgate_pending = all \"needs fork\"\n",
            "m",
        )
        .unwrap();
        let t = &m["t"];
        assert_eq!(t.endgate_pending.len(), 2);
        // Listed arches are kept in table order, whatever order the line gives.
        assert_eq!(t.endgate_pending[0].arches, ArchSet::Only(vec!["arm", "i386"]));
        assert_eq!(t.endgate_pending[0].arches.to_string(), "arm,i386");
        assert_eq!(t.pending_on("arm"), Some("needs struct stat64"));
        assert_eq!(t.pending_on("i386"), Some("needs struct stat64"));
        assert_eq!(t.pending_on("s390x"), Some("big-endian sockaddr"));
        assert_eq!(t.pending_on("x86_64"), None);
        assert_eq!(t.pending_on("mips64el"), None);
        assert_eq!(m["u"].endgate_pending[0].arches, ArchSet::All);
        assert_eq!(m["u"].pending_on("mips64el"), Some("needs fork"));

        let err = |text: &str| parse(text, "m").unwrap_err().0;
        assert!(err("[a]\nendgate_pending = sparc \"x\"\n").contains("unknown arch 'sparc'"));
        assert!(err("[a]\nendgate_pending = arm,,i386 \"x\"\n").contains("unknown arch ''"));
        assert!(err("[a]\nendgate_pending = arm,arm \"x\"\n").contains("listed twice"));
        assert!(err("[a]\narches = arm,mips\n").contains("unknown arch 'mips'"));
        let only = parse("[a]\narches = s390x,x86_64\n[b]\nargs = x\n", "m").unwrap();
        assert_eq!(only["a"].arches, ArchSet::Only(vec!["x86_64", "s390x"]));
        assert_eq!(only["b"].arches, ArchSet::All);
        assert!(err("[a]\nendgate_pending = 'arm, i386' \"x\"\n").contains("unknown arch ' i386'"));
        let twice = err("[a]\nendgate_pending = arm \"x\"\nendgate_pending = i386,arm \"y\"\n");
        assert!(twice.contains("m:3") && twice.contains("two endgate_pending marks for arm"), "{twice}");
        assert!(err("[a]\nendgate_pending = \"x\"\nendgate_pending = riscv64 \"y\"\n").contains("riscv64"));
        assert!(err("[a]\nendgate_pending = all \"x\"\nendgate_pending = all \"y\"\n").contains("x86_64"));
    }
}
