//! Debian bookworm's own `busybox-static` (amd64 and arm64), run under endgate, must give
//! byte-identical stdout and the same exit status as native amd64 busybox, applet by applet.
//!
//! The inputs come from `scripts/fetch-inputs.sh` (`.cache/busybox/<arch>/busybox`, or the
//! directory in `ENDGATE_BUSYBOX_DIR`). Each case runs in a fresh copy of a prepared tree with
//! fixed file times, once natively and once per guest arch under endgate, and the outputs are
//! compared. The reference is always the native run, never endgate's output.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{busybox, endgate, TempDir};

/// One case: a sequence of busybox invocations (args, stdin) run in the same fresh directory;
/// their stdout is concatenated and each exit status recorded.
struct Case {
    name: &'static str,
    steps: Vec<(Vec<&'static str>, Option<&'static str>)>,
}

fn case(name: &'static str, args: &[&'static str]) -> Case {
    Case { name, steps: vec![(args.to_vec(), None)] }
}

fn case_in(name: &'static str, args: &[&'static str], stdin: &'static str) -> Case {
    Case { name, steps: vec![(args.to_vec(), Some(stdin))] }
}

fn steps(name: &'static str, s: &[&[&'static str]]) -> Case {
    Case { name, steps: s.iter().map(|a| (a.to_vec(), None)).collect() }
}

fn cases() -> Vec<Case> {
    vec![
        case("echo", &["echo", "hello", "world"]),
        case("echo -n -e", &["echo", "-n", "-e", "a\\tb\\n"]),
        case("printf", &["printf", "%s-%05d-%x-%.3f\\n", "abc", "42", "255", "3.14159"]),
        case("cat", &["cat", "lines.txt"]),
        case("cat -n", &["cat", "-n", "words.txt"]),
        case("head", &["head", "-n", "3", "lines.txt"]),
        case("tail", &["tail", "-n", "2", "lines.txt"]),
        case("wc", &["wc", "lines.txt", "words.txt"]),
        case("sort", &["sort", "words.txt"]),
        case("sort -rn", &["sort", "-r", "-n", "nums.txt"]),
        case("uniq -c", &["uniq", "-c", "dups.txt"]),
        case("cut", &["cut", "-d:", "-f1,3", "passwd.txt"]),
        case_in("tr", &["tr", "a-z", "A-Z"], "hello, tr\n"),
        case("sed", &["sed", "-e", "s/o/0/g", "-e", "2d", "lines.txt"]),
        case("awk", &["awk", "-F:", "{ s += $3 } END { print s, NR }", "passwd.txt"]),
        case("grep -E", &["grep", "-E", "-n", "ab+c|x[0-9]", "grep.txt"]),
        case("grep no match", &["grep", "zzz", "grep.txt"]),
        case("expr", &["expr", "6", "*", "7"]),
        case("expr false", &["expr", "1", "=", "2"]),
        case("seq", &["seq", "1", "3", "20"]),
        case("sha256sum", &["sha256sum", "lines.txt", "big.bin"]),
        case("md5sum", &["md5sum", "lines.txt", "big.bin"]),
        case("sha1sum", &["sha1sum", "big.bin"]),
        case("base64", &["base64", "big.bin"]),
        case_in("base64 -d", &["base64", "-d"], "aGVsbG8gYmFzZTY0Cg==\n"),
        case("od", &["od", "-A", "x", "-t", "x1z", "-N", "64", "big.bin"]),
        case("hexdump", &["hexdump", "-C", "-n", "48", "big.bin"]),
        steps(
            "gzip then gunzip",
            &[&["gzip", "-9", "-k", "big.bin"], &["sha256sum", "big.bin.gz"], &["gunzip", "-c", "big.bin.gz"]],
        ),
        steps(
            "gzip -d",
            &[&["gzip", "lines.txt"], &["ls", "lines.txt.gz"], &["gzip", "-d", "lines.txt.gz"], &["cat", "lines.txt"]],
        ),
        steps(
            "bzip2",
            &[&["bzip2", "-k", "big.bin"], &["sha256sum", "big.bin.bz2"], &["bzip2", "-d", "-c", "big.bin.bz2"]],
        ),
        steps(
            "tar create list extract",
            &[
                &["tar", "-cf", "t.tar", "tree"],
                &["tar", "-tvf", "t.tar"],
                &["mkdir", "out"],
                &["tar", "-xf", "t.tar", "-C", "out"],
                &["ls", "-lR", "out"],
            ],
        ),
        case("ls -l", &["ls", "-l", "tree"]),
        case("ls -lR", &["ls", "-lR", "tree"]),
        case("ls -la --color=never", &["ls", "-la", "--color=never", "tree/sub"]),
        case("stat -c", &["stat", "-c", "%n %s %a %F %h %U %G %Y", "lines.txt", "tree", "tree/link"]),
        case("find", &["find", "tree", "-type", "f"]),
        case("find -name", &["find", ".", "-name", "*.txt", "-size", "-2"]),
        case("du", &["du", "-a", "-k", "tree"]),
        steps(
            "cp",
            &[
                &["cp", "lines.txt", "copy.txt"],
                &["cat", "copy.txt"],
                &["cp", "-r", "tree", "tree2"],
                &["ls", "-R", "tree2"],
            ],
        ),
        steps("mv", &[&["mv", "lines.txt", "moved.txt"], &["ls"], &["cat", "moved.txt"]]),
        steps("rm", &[&["rm", "words.txt"], &["ls"], &["rm", "-r", "tree"], &["ls"]]),
        steps("rm missing", &[&["rm", "nope.txt"]]),
        steps("mkdir rmdir", &[&["mkdir", "-p", "x/y/z"], &["ls", "-R", "x"], &["rmdir", "x/y/z"], &["ls", "-R", "x"]]),
        steps(
            "ln -s readlink",
            &[&["ln", "-s", "lines.txt", "ln1"], &["readlink", "ln1"], &["cat", "ln1"], &["ls", "-l", "ln1"]],
        ),
        steps("ln hard", &[&["ln", "lines.txt", "hard"], &["stat", "-c", "%h", "lines.txt"]]),
        case("readlink", &["readlink", "tree/link"]),
        case("date -u -d @0", &["date", "-u", "-d", "@0"]),
        case("date format", &["date", "-u", "-d", "@1700000000", "+%Y-%m-%d %H:%M:%S %j %a"]),
        case("true", &["true"]),
        case("false", &["false"]),
        case("cat missing", &["cat", "missing.txt"]),
        case_in("sort stdin", &["sort", "-u"], "pear\napple\npear\nfig\n"),
        case_in("wc stdin", &["wc", "-l", "-w", "-c"], "one two\nthree\n"),
        case_in("grep -c stdin", &["grep", "-c", "a"], "abc\nxyz\naaa\n"),
        case_in("sed stdin", &["sed", "-n", "2p"], "first\nsecond\nthird\n"),
        case_in("awk stdin", &["awk", "{ print $2, length($1) }"], "alpha beta\ngamma delta\n"),
        case_in("cat stdin", &["cat"], "through stdin\n"),
        steps("tee", &[&["tee", "teed.txt"], &["cat", "teed.txt"]]),
        case("basename dirname", &["basename", "/a/b/c.txt", ".txt"]),
        case("dirname", &["dirname", "/a/b/c.txt"]),
        case("env", &["env"]),
        case("uname -s", &["uname", "-s"]),
        case("factor", &["factor", "1234567890"]),
        case("cmp", &["cmp", "lines.txt", "words.txt"]),
        case("diff", &["diff", "lines.txt", "lines2.txt"]),
        case("sleep", &["sleep", "0.05"]),
        case("test -f", &["test", "-f", "lines.txt"]),
        case("test -d false", &["test", "-d", "lines.txt"]),
        case("dd", &["dd", "if=big.bin", "bs=512", "count=2", "skip=1", "status=none"]),
        case("truncate", &["truncate", "-s", "10", "lines.txt"]),
        steps(
            "touch -d",
            &[&["touch", "-d", "2001-02-03 04:05:06", "new.txt"], &["ls", "-l", "--full-time", "new.txt"]],
        ),
        steps("chmod", &[&["chmod", "640", "lines.txt"], &["stat", "-c", "%a %A", "lines.txt"]]),
        case("nl", &["nl", "lines.txt"]),
        case("rev", &["rev", "lines.txt"]),
        case("fold", &["fold", "-w", "5", "lines.txt"]),
        case("comm", &["comm", "sorted1.txt", "sorted2.txt"]),
        case("xxd", &["xxd", "-l", "32", "big.bin"]),
        case("strings", &["strings", "-n", "6", "big.bin"]),
    ]
}

/// Writes the prepared tree into `dir`, with fixed file times (`touch -d` from the host's own
/// coreutils would do; here `utimensat` through std).
fn prepare(dir: &Path) {
    let w = |p: &str, s: &[u8]| std::fs::write(dir.join(p), s).unwrap();
    w("lines.txt", b"one line\ntwo lines\nthree lines\nfour lines\nfive\n");
    w("lines2.txt", b"one line\n2 lines\nthree lines\nfour lines\n");
    w("words.txt", b"pear\napple\nzebra\nmango\nkiwi\n");
    w("nums.txt", b"10\n9\n100\n-3\n42\n");
    w("dups.txt", b"a\na\nb\nc\nc\nc\n");
    w(
        "passwd.txt",
        b"root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000::/home/user:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n",
    );
    w("grep.txt", b"abc\nabbbc\nac\nx1\nxy\n");
    w("sorted1.txt", b"a\nb\nd\n");
    w("sorted2.txt", b"b\nc\nd\n");
    // Deterministic pseudo-random bytes (xorshift), with some text runs for `strings`.
    let mut big = Vec::with_capacity(200_000);
    let mut x: u32 = 0x1234_5678;
    while big.len() < 200_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if big.len() % 9000 < 40 {
            big.extend_from_slice(b"endgate text run ");
        }
        big.push((x & 0xff) as u8);
    }
    w("big.bin", &big);
    std::fs::create_dir_all(dir.join("tree/sub/deeper")).unwrap();
    w("tree/a.txt", b"A\n");
    w("tree/b.dat", &[0u8; 3000]);
    w("tree/sub/c.txt", b"see\n");
    w("tree/sub/deeper/d.txt", b"dee\n");
    std::os::unix::fs::symlink("a.txt", dir.join("tree/link")).unwrap();
    // Fixed times (2020-01-02 03:04:05 UTC) on everything, deepest first.
    let status = Command::new("find")
        .arg(dir)
        .args(["-depth", "-exec", "touch", "-h", "-d", "2020-01-02 03:04:05 UTC", "{}", "+"])
        .status()
        .unwrap();
    assert!(status.success());
}

struct Outcome {
    stdout: Vec<u8>,
    statuses: Vec<i32>,
}

fn run_case(c: &Case, runner: &[PathBuf]) -> Outcome {
    let dir = TempDir::new("bb");
    prepare(dir.path());
    let mut out = Outcome { stdout: Vec::new(), statuses: Vec::new() };
    for (args, stdin) in &c.steps {
        let mut cmd = Command::new(&runner[0]);
        cmd.args(&runner[1..]).args(args);
        cmd.current_dir(dir.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("HOME", "/nonexistent")
            .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn");
        if let Some(s) = stdin {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
        }
        let o = child.wait_with_output().unwrap();
        out.stdout.extend_from_slice(&o.stdout);
        out.stdout.extend_from_slice(b"--\n");
        out.statuses.push(common::shell_status(o.status));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked") && !err.contains("endgate: internal"), "{}: endgate failed: {err}", c.name);
    }
    out
}

fn compare_arch(arch: &str) {
    let native = [busybox("amd64")];
    let guest = [endgate(), busybox(arch)];
    let all = cases();
    assert!(all.len() >= 40, "at least 40 applet invocations");
    let mut failures = Vec::new();
    for c in &all {
        let want = run_case(c, &native);
        let got = run_case(c, &guest);
        if want.stdout != got.stdout || want.statuses != got.statuses {
            failures.push(format!(
                "[{}] {}\n  native status {:?}, endgate status {:?}\n  native stdout: {:?}\n  endgate stdout: {:?}",
                arch,
                c.name,
                want.statuses,
                got.statuses,
                String::from_utf8_lossy(&want.stdout[..want.stdout.len().min(400)]),
                String::from_utf8_lossy(&got.stdout[..got.stdout.len().min(400)])
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), all.len(), failures.join("\n"));
}

#[test]
fn busybox_amd64_matches_native() {
    compare_arch("amd64");
}

#[test]
fn busybox_arm64_matches_native() {
    compare_arch("arm64");
}
