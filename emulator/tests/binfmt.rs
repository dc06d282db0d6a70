//! `endgate binfmt` (docs/binfmt.md): the `--print` strings parsed as the kernel documents the
//! register format (Documentation/admin-guide/binfmt-misc.rst: `:name:type:offset:magic:mask:
//! interpreter:flags`, the first character being the delimiter; a name without `/`; `\xNN`
//! escapes; a mask as long as the magic; magic within the first 128 bytes; an interpreter of at
//! most 127 characters; the whole string at most 1920), each entry matching the ELF headers of
//! its own arch's programs and no other's; and `--install`/`--uninstall` in a private
//! binfmt_misc instance (a new user and mount namespace: since Linux 6.7 a binfmt_misc mount
//! there is the namespace's own), where a foreign program then runs by name, with its own
//! `argv[0]` (flag `P`). Where the machine cannot make such a namespace the install test says
//! why it skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{arch, busybox, endgate, run_with_timeout, TempDir};

/// One parsed registration string.
#[derive(Debug)]
struct Reg {
    name: String,
    kind: char,
    offset: usize,
    magic: Vec<u8>,
    mask: Vec<u8>,
    interpreter: String,
    flags: String,
}

/// A magic or mask field: `\xNN` escapes and plain characters (parsing stops at a NUL, which
/// must therefore be escaped).
fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            if b.get(i + 1) != Some(&b'x') {
                return Err(format!("a backslash not followed by x in '{s}'"));
            }
            let h = s.get(i + 2..i + 4).ok_or_else(|| format!("a short \\x escape in '{s}'"))?;
            out.push(u8::from_str_radix(h, 16).map_err(|e| format!("'\\x{h}': {e}"))?);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// Parses one register string by the kernel's documented rules.
fn parse_reg(line: &str) -> Result<Reg, String> {
    if line.len() > 1920 {
        return Err(format!("{} characters, the limit is 1920", line.len()));
    }
    let delim = line.chars().next().ok_or("empty")?;
    let f: Vec<&str> = line[delim.len_utf8()..].split(delim).collect();
    if f.len() != 7 {
        return Err(format!(
            "{} fields after the delimiter, want 7 (name type offset magic mask interpreter flags)",
            f.len()
        ));
    }
    let name = f[0];
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(format!("bad name '{name}'"));
    }
    let kind = match f[1] {
        "M" => 'M',
        "E" => 'E',
        other => return Err(format!("type '{other}', want M or E")),
    };
    let offset = if f[2].is_empty() { 0 } else { f[2].parse().map_err(|e| format!("offset '{}': {e}", f[2]))? };
    let magic = unescape(f[3])?;
    let mask = if f[4].is_empty() { vec![0xff; magic.len()] } else { unescape(f[4])? };
    if magic.is_empty() || mask.len() != magic.len() {
        return Err(format!("magic of {} bytes, mask of {}", magic.len(), mask.len()));
    }
    if offset + magic.len() >= 128 {
        return Err("magic beyond the first 128 bytes".into());
    }
    if magic.iter().zip(&mask).any(|(m, k)| m & !k != 0) {
        return Err("a magic bit the mask leaves out can never match".into());
    }
    let interpreter = f[5];
    if interpreter.is_empty() || interpreter.len() > 127 || !interpreter.starts_with('/') {
        return Err(format!("interpreter '{interpreter}': an absolute path of at most 127 characters"));
    }
    let flags = f[6];
    if let Some(c) = flags.chars().find(|c| !"POCF".contains(*c)) {
        return Err(format!("unknown flag '{c}'"));
    }
    Ok(Reg { name: name.into(), kind, offset, magic, mask, interpreter: interpreter.into(), flags: flags.into() })
}

impl Reg {
    fn matches(&self, file: &[u8]) -> bool {
        let Some(h) = file.get(self.offset..self.offset + self.magic.len()) else { return false };
        h.iter().zip(&self.mask).zip(&self.magic).all(|((b, k), m)| b & k == *m)
    }
}

fn print_entries(extra: &[&str]) -> Vec<Reg> {
    let t = run_with_timeout(
        Command::new(endgate()).args(["binfmt", "--print"]).args(extra),
        None,
        Duration::from_secs(30),
    );
    assert_eq!(t.status, 0, "{}", String::from_utf8_lossy(&t.stderr));
    let out = String::from_utf8(t.stdout).expect("UTF-8");
    out.lines().map(|l| parse_reg(l).unwrap_or_else(|e| panic!("{l}: {e}"))).collect()
}

fn build_hello(dir: &Path, arch_name: &str) -> PathBuf {
    let a = arch(arch_name);
    let src = common::workspace().join("guest-tests/programs/asm").join(arch_name).join("asm_hello.S");
    let out = dir.join(format!("hello_{arch_name}"));
    let st = Command::new(a.cc)
        .args(a.cflags)
        .args(["-nostdlib", "-static", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{} missing ({e})", a.cc));
    assert!(st.success());
    out
}

#[test]
fn print_gives_kernel_register_strings_that_match_each_arch() {
    let regs = print_entries(&[]);
    let names: Vec<&str> = regs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "endgate-x86_64",
            "endgate-aarch64",
            "endgate-riscv64",
            "endgate-arm",
            "endgate-i386",
            "endgate-s390x",
            "endgate-mips64el"
        ]
    );
    let me = std::fs::canonicalize(endgate()).expect("endgate's path");
    for r in &regs {
        assert_eq!(r.kind, 'M');
        assert_eq!(r.flags, "FP", "{}", r.name);
        assert_eq!(Path::new(&r.interpreter), me.as_path());
    }
    // Each arch's programs (static and dynamic, ET_EXEC and PIE) match its own entry only.
    let dir = TempDir::new("binfmt-print");
    for (a, name) in [
        ("x86_64", "endgate-x86_64"),
        ("aarch64", "endgate-aarch64"),
        ("riscv64", "endgate-riscv64"),
        ("arm", "endgate-arm"),
        ("i386", "endgate-i386"),
        ("s390x", "endgate-s390x"),
        ("mips64el", "endgate-mips64el"),
    ] {
        let mut files = vec![build_hello(dir.path(), a)];
        if let Some(b) = arch(a).no_busybox.is_none().then(|| busybox(arch(a).debian)) {
            files.push(b);
        }
        for f in files {
            let head = std::fs::read(&f).expect("read program");
            let hits: Vec<&str> = regs.iter().filter(|r| r.matches(&head)).map(|r| r.name.as_str()).collect();
            assert_eq!(hits, [name], "{}", f.display());
        }
    }
    // A PIE of the host (ET_DYN) matches the x86_64 entry; a shell script matches none.
    let sh = std::fs::read("/bin/sh").expect("/bin/sh");
    assert!(regs.iter().find(|r| r.name == "endgate-x86_64").is_some_and(|r| r.matches(&sh)));
    assert!(!regs.iter().any(|r| r.matches(b"#!/bin/sh\necho hi\n")));
    // --arch selects; an interpreter path over the kernel's limit is refused.
    assert_eq!(print_entries(&["--arch", "s390x"]).len(), 1);
    let long = format!("/{}", "x".repeat(130));
    let t = run_with_timeout(
        Command::new(endgate()).args(["binfmt", "--print", "--interpreter", &long]),
        None,
        Duration::from_secs(30),
    );
    assert_eq!(t.status, 2);
}

#[test]
fn install_in_a_private_binfmt_misc_runs_foreign_programs_by_name() {
    let dir = TempDir::new("binfmt-install");
    let mnt = dir.path().join("binfmt_misc");
    std::fs::create_dir(&mnt).expect("mount point");
    // Can this machine make a user and mount namespace with its own binfmt_misc?
    let probe = format!("mount -t binfmt_misc binfmt_misc '{}' && test -e '{}/register'", mnt.display(), mnt.display());
    let t = run_with_timeout(Command::new("unshare").args(["-Urm", "sh", "-c", &probe]), None, Duration::from_secs(30));
    if t.status != 0 {
        eprintln!(
            "skipped: no private binfmt_misc here (unshare -Urm + mount -t binfmt_misc, status {}: {}); \
             it needs user namespaces and Linux 6.7 or later",
            t.status,
            String::from_utf8_lossy(&t.stderr).trim()
        );
        return;
    }
    let hello = build_hello(dir.path(), "aarch64");
    let bb = busybox("arm64");
    let script = format!(
        r#"set -e
M='{mnt}'
mount -t binfmt_misc binfmt_misc "$M"
'{endgate}' binfmt --install --dir "$M"
ls "$M" | sort | tr '\n' ' '; echo
cat "$M/endgate-aarch64"
set +e
'{hello}'; echo "hello status $?"
exec -a echo '{bb}' argv0 preserved
"#,
        mnt = mnt.display(),
        endgate = endgate().display(),
        hello = hello.display(),
        bb = bb.display(),
    );
    let t =
        run_with_timeout(Command::new("unshare").args(["-Urm", "bash", "-c", &script]), None, Duration::from_secs(60));
    let out = String::from_utf8_lossy(&t.stdout);
    let err = String::from_utf8_lossy(&t.stderr);
    assert_eq!(t.status, 0, "{out}{err}");
    // Installed: the entries of the arches this host does not run itself.
    let listed = out.lines().next().unwrap_or_default();
    assert!(listed.contains("endgate-aarch64") && listed.contains("endgate-s390x"), "{out}");
    assert!(!listed.contains("endgate-x86_64") && !listed.contains("endgate-i386"), "{out}");
    // The kernel's own view of the entry.
    assert!(out.contains("enabled\n"), "{out}");
    assert!(
        out.contains(&format!("interpreter {}\n", std::fs::canonicalize(endgate()).expect("path").display())),
        "{out}"
    );
    assert!(out.contains("flags: PF\n"), "{out}");
    assert!(out.contains("magic 7f454c460201010000000000000000000200b700\n"), "{out}");
    // A foreign program run by name, and busybox seeing its own argv[0] ("echo").
    assert!(out.contains("hello from asm\nhello status 7\n"), "{out}{err}");
    assert!(out.ends_with("argv0 preserved\n"), "{out}{err}");
    // --uninstall removes them again.
    let script = format!(
        "set -e; mount -t binfmt_misc binfmt_misc '{m}'; '{e}' binfmt --install --dir '{m}'; \
         '{e}' binfmt --uninstall --dir '{m}'; ls '{m}' | sort | tr '\\n' ' '",
        m = mnt.display(),
        e = endgate().display()
    );
    let t =
        run_with_timeout(Command::new("unshare").args(["-Urm", "sh", "-c", &script]), None, Duration::from_secs(60));
    assert_eq!((t.status, String::from_utf8_lossy(&t.stdout).trim()), (0, "register status"));
}
