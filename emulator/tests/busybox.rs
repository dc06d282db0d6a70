//! Debian bookworm's own `busybox-static`, run under endgate for each guest arch (amd64,
//! arm64, armhf, i386, s390x, mips64el), must give byte-identical stdout and the same exit
//! status as native amd64 busybox, applet by applet.
//!
//! The inputs come from `scripts/fetch-inputs.sh` (`.cache/busybox/<arch>/busybox`, or the
//! directory in `ENDGATE_BUSYBOX_DIR`). Each case runs in a fresh copy of a prepared tree with
//! fixed file times, once natively and once per guest arch under endgate, and the outputs are
//! compared. The reference is always the native run, never endgate's output. Every invocation
//! has a deadline ([`STEP_TIMEOUT`]); a hang counts as a failed case, not a stuck test.
//!
//! No case prints something the arch decides (`uname -m`, byte-order-dependent `od -t x4`…):
//! every expected output is the same on all six arches, so one native run is the reference
//! for all. A case that did would need its own per-arch expectation.
//!
//! Gate: a test for an arch endgate does not run yet carries `#[ignore = "... not merged yet"]`;
//! delete that line once the arch is merged. `cargo test --test busybox -- --include-ignored`
//! runs them anyway.
//!
//! `ENDGATE_BUSYBOX_EMULATOR` replaces endgate as the runner, to check the harness and the
//! cases themselves: `qemu` runs each arch under its qemu-user (`qemu-arm`, `qemu-i386`,
//! `qemu-s390x`…), any other value is a program run as `PROGRAM BUSYBOX ARGS…`. For example
//! `ENDGATE_BUSYBOX_EMULATOR=qemu cargo test --release -p endgate --test busybox --
//! --include-ignored --nocapture` shows which cases pass under qemu-user, the reference.
//! Under qemu-user 7.2 every case matches on all six arches except `env`: qemu hands the guest
//! its environment in reverse order, where the kernel keeps execve's order.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{busybox, endgate, qemu_user, run_with_timeout, TempDir};

/// The longest one busybox invocation may run before it counts as hung (emulated bzip2 of
/// 200 KB takes a few seconds on a loaded 2-core machine).
const STEP_TIMEOUT: Duration = Duration::from_secs(120);

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
                // busybox tar restores the files' times, not those of directories and links,
                // which keep the minute of extraction (native and guest runs may straddle one).
                &[
                    "touch",
                    "-h",
                    "-d",
                    "2020-01-02 03:04:05",
                    "out/tree",
                    "out/tree/sub",
                    "out/tree/sub/deeper",
                    "out/tree/link",
                ],
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
        // The link's own time is the time of the run, so `stat` shows it without (`ls -l`'s
        // minute differed when the native and the endgate run straddled a minute).
        steps(
            "ln -s readlink",
            &[
                &["ln", "-s", "lines.txt", "ln1"],
                &["readlink", "ln1"],
                &["cat", "ln1"],
                &["stat", "-c", "%A %s %N", "ln1"],
            ],
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
        // rtnetlink through write()/recvmsg (s390x: converted for the other byte order).
        case("ip addr", &["ip", "addr"]),
        case("ip route", &["ip", "route"]),
        case("ip link", &["ip", "link"]),
        case("ip rule", &["ip", "rule"]),
        // Process names: the shell runs an applet by execve("/proc/self/exe"), Linux names the
        // task "exe" (the path's last component) and busybox renames itself to the applet on
        // seeing that name, so pidof, pgrep and killall find it. unexpand blocks opening a FIFO;
        // its name is one no other process of the host should have (killall kills by name), and
        // every run of this case on the host takes its turn ([`BY_NAME`], [`by_name_turn`]).
        case(
            BY_NAME,
            &[
                "sh",
                "-c",
                "mkfifo f; unexpand f & sleep 1; \
                 [ \"$(pidof unexpand)\" = \"$!\" ] && echo pidof found || echo pidof notfound; \
                 [ \"$(pgrep -x unexpand)\" = \"$!\" ] && echo pgrep found || echo pgrep notfound; \
                 killall unexpand; echo killall $?; kill $! 2>/dev/null; wait $!; echo wait $?",
            ],
        ),
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
    /// The first invocation that hit [`STEP_TIMEOUT`], if any.
    hung: Option<String>,
}

/// The case that finds processes by name: one run at a time on the whole host, since its
/// `killall` would kill another run's `unexpand` (the arches' tests run in parallel threads of
/// this test binary, and two test suites may run at once).
const BY_NAME: &str = "pidof pgrep killall";
static BY_NAME_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// [`BY_NAME`]'s turn: this binary's lock, then an exclusive `flock` of a file in the host's
/// temporary directory, which other test processes take too (released when the file closes).
fn by_name_turn() -> (std::sync::MutexGuard<'static, ()>, std::fs::File) {
    use std::os::fd::AsRawFd as _;
    let inner = BY_NAME_LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = std::env::temp_dir().join("endgate-tests-busybox-by-name.lock");
    let f = std::fs::OpenOptions::new().create(true).append(true).open(&path).expect("lock file");
    // SAFETY: an advisory lock on a descriptor this function owns.
    while unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
        assert_eq!(std::io::Error::last_os_error().kind(), std::io::ErrorKind::Interrupted, "flock {}", path.display());
    }
    (inner, f)
}

fn run_case(c: &Case, runner: &[PathBuf]) -> Outcome {
    let _turn = (c.name == BY_NAME).then(by_name_turn);
    let dir = TempDir::new("bb");
    prepare(dir.path());
    let mut out = Outcome { stdout: Vec::new(), statuses: Vec::new(), hung: None };
    for (args, stdin) in &c.steps {
        let mut cmd = Command::new(&runner[0]);
        cmd.args(&runner[1..]).args(args);
        cmd.current_dir(dir.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env("HOME", "/nonexistent");
        let o = run_with_timeout(&mut cmd, stdin.map(str::as_bytes), STEP_TIMEOUT);
        out.stdout.extend_from_slice(&o.stdout);
        out.stdout.extend_from_slice(b"--\n");
        out.statuses.push(o.status);
        if o.timed_out && out.hung.is_none() {
            out.hung = Some(args.join(" "));
        }
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked") && !err.contains("endgate: internal"), "{}: endgate failed: {err}", c.name);
    }
    out
}

/// The guest runner for `arch`: endgate, or what `ENDGATE_BUSYBOX_EMULATOR` names (module doc),
/// followed by the arch's busybox.
fn guest_runner(arch: &str) -> Vec<PathBuf> {
    let program = match std::env::var("ENDGATE_BUSYBOX_EMULATOR") {
        Ok(v) if v == "qemu" => {
            PathBuf::from(qemu_user(arch).unwrap_or_else(|| panic!("no qemu-user known for {arch}")))
        }
        Ok(v) if !v.is_empty() => PathBuf::from(v),
        _ => endgate(),
    };
    vec![program, busybox(arch)]
}

fn compare_arch(arch: &str) {
    let native = [busybox("amd64")];
    let guest = guest_runner(arch);
    let label = guest[0].file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let all = cases();
    assert!(all.len() >= 40, "at least 40 applet invocations");
    let mut failures = Vec::new();
    for c in &all {
        let want = run_case(c, &native);
        assert!(want.hung.is_none(), "native busybox hung in {}", c.name);
        let got = run_case(c, &guest);
        let ok = want.stdout == got.stdout && want.statuses == got.statuses && got.hung.is_none();
        eprintln!("[{arch} under {label}] {} {}", if ok { "ok  " } else { "FAIL" }, c.name);
        if !ok {
            failures.push(format!(
                "[{}] {}{}\n  native status {:?}, {label} status {:?}\n  native stdout: {:?}\n  {label} stdout: {:?}",
                arch,
                c.name,
                got.hung
                    .as_ref()
                    .map(|s| format!(" (hung in `{s}`, killed after {STEP_TIMEOUT:?})"))
                    .unwrap_or_default(),
                want.statuses,
                got.statuses,
                String::from_utf8_lossy(&want.stdout[..want.stdout.len().min(400)]),
                String::from_utf8_lossy(&got.stdout[..got.stdout.len().min(400)])
            ));
        }
    }
    eprintln!("[{arch} under {label}] {} of {} cases match native amd64", all.len() - failures.len(), all.len());
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

#[test]
fn busybox_armhf_matches_native() {
    compare_arch("armhf");
}

#[test]
fn busybox_i386_matches_native() {
    compare_arch("i386");
}

#[test]
fn busybox_s390x_matches_native() {
    compare_arch("s390x");
}

#[test]
fn busybox_mips64el_matches_native() {
    compare_arch("mips64el");
}
