//! Running the suite under an emulator: one job per (test, arch), in parallel, each in a
//! fresh temporary working directory, judged against the expected stdout and exit status.
//!
//! When the emulator is endgate ([`Emulator::is_endgate`]), tests the manifest marks
//! `endgate_pending` are judged by [`Verdict::with_pending`]: a failure or timeout becomes
//! [`Verdict::Pending`] (expected, not counted as a failure), a pass becomes
//! [`Verdict::XPass`] (a failure: the mark should be removed).

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::arch::{Arch, QEMU, QEMU72};
use crate::builder::binary_path;
use crate::error::{Error, Result};
use crate::exec::{self, Execution};
use crate::pool;
use crate::suite::{Expected, Suite, Test};

/// How test programs are started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Emulator {
    /// Directly, on the host (only for the host's own arch).
    Native,
    /// Through a command: its words, then the program and its arguments. In the words,
    /// `{arch}` becomes the arch name, `{qemu}` the arch's qemu-user 10.0.2 binary (the
    /// reference, [`Arch::qemu10`]) and `{qemu72}` its Debian 12 qemu-user 7.2 binary
    /// ([`Arch::qemu72`]).
    Command(Vec<String>),
}

/// One word of an emulator command with `{arch}`, `{qemu}` and `{qemu72}` expanded for `arch`.
pub fn expand(word: &str, arch: &Arch) -> String {
    word.replace("{arch}", arch.name)
        .replace("{qemu72}", &arch.qemu72().to_string_lossy())
        .replace("{qemu}", &arch.qemu10().to_string_lossy())
}

impl Emulator {
    /// Parses `--emulator`: `native`, or a command split on whitespace
    /// (e.g. `target/release/endgate`, `qemu-aarch64`, `{qemu} -cpu max`, `{qemu72}`).
    pub fn parse(spec: &str) -> Result<Emulator> {
        let words: Vec<String> = spec.split_whitespace().map(str::to_string).collect();
        match words.as_slice() {
            [] => Err(Error::new("--emulator is empty: give a command, or 'native'")),
            [w] if w == "native" => Ok(Emulator::Native),
            _ => Ok(Emulator::Command(words)),
        }
    }

    /// Whether this is endgate: a command whose program's file name is exactly `endgate`
    /// (`target/release/endgate`, `/opt/bin/endgate --flag`). Only then do the manifest's
    /// `endgate_pending` marks apply.
    pub fn is_endgate(&self) -> bool {
        match self {
            Emulator::Native => false,
            Emulator::Command(words) => {
                words.first().and_then(|w| Path::new(w).file_name()).is_some_and(|n| n == "endgate")
            }
        }
    }

    /// The `endgate_pending` reason that applies to `test` on `arch` under this emulator: the
    /// reason of the manifest mark covering `arch` when this is endgate, else `None` (the
    /// marks mean nothing to other emulators, and nothing on arches they do not list).
    pub fn pending_reason<'t>(&self, test: &'t Test, arch: &Arch) -> Option<&'t str> {
        if self.is_endgate() {
            test.settings.pending_on(arch.name)
        } else {
            None
        }
    }

    /// Checks that this emulator can run `arch` at all (`native` only runs the host's arch).
    pub fn check(&self, arch: &Arch) -> Result<()> {
        match self {
            Emulator::Native if Arch::host().map(|h| h.name) != Some(arch.name) => Err(Error::new(format!(
                "'native' cannot run {} programs on this {} host: pick --arch {} or an emulator",
                arch.name,
                std::env::consts::ARCH,
                Arch::host().map_or("<none>", |h| h.name)
            ))),
            _ => Ok(()),
        }
    }

    /// Makes a relative emulator path (`target/release/endgate`) absolute, since tests run in
    /// their own working directories, and checks that the emulator can be found for every
    /// arch in `arches` (after `{arch}`/`{qemu}` expansion).
    pub fn resolve(&self, arches: &[&'static Arch]) -> Result<Emulator> {
        let Emulator::Command(words) = self else { return Ok(Emulator::Native) };
        let mut words = words.clone();
        if words[0].contains('/') && !words[0].contains('{') {
            words[0] = std::path::absolute(&words[0])
                .map_err(|e| Error::new(format!("emulator path {}: {e}", words[0])))?
                .to_string_lossy()
                .into_owned();
        }
        for a in arches {
            let prog = expand(&words[0], a);
            if !find_program(&prog) {
                let hint = [("{qemu}", QEMU), ("{qemu72}", QEMU72)]
                    .into_iter()
                    .find(|(p, _)| words[0].contains(p))
                    .map(|(_, q)| format!(": qemu-user {} is not there ({})", q.version, q.how))
                    .unwrap_or_default();
                return Err(Error::new(format!("emulator '{prog}' not found (for {}){hint}", a.name)));
            }
        }
        Ok(Emulator::Command(words))
    }

    /// The command that runs `program` (built for `arch`) with `args`.
    pub fn command(&self, arch: &Arch, program: &Path, args: &[String]) -> Command {
        let mut cmd = match self {
            Emulator::Native => Command::new(program),
            Emulator::Command(words) => {
                let mut c = Command::new(expand(&words[0], arch));
                c.args(words[1..].iter().map(|w| expand(w, arch))).arg(program);
                c
            }
        };
        cmd.args(args);
        cmd
    }
}

impl fmt::Display for Emulator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Emulator::Native => f.write_str("native"),
            Emulator::Command(w) => f.write_str(&w.join(" ")),
        }
    }
}

/// Settings of one suite run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// How programs are started.
    pub emulator: Emulator,
    /// Which arches' builds to run.
    pub arches: Vec<&'static Arch>,
    /// Where `build` put the programs (`<dir>/<arch>/<test>`).
    pub build_dir: PathBuf,
    /// Parallel jobs.
    pub jobs: usize,
    /// Per-test timeout (the manifest may override it per test).
    pub timeout: Duration,
}

/// The verdict on one test on one arch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Stdout and exit status as expected.
    Pass,
    /// Ran, but stdout or exit status differ.
    Fail,
    /// Killed after the timeout.
    Timeout,
    /// No built program (run `build` first, or the build failed).
    NoBinary,
    /// No expected output checked in.
    NoExpected,
    /// Could not be started.
    Error,
    /// Marked `endgate_pending` and, as expected, did not pass under endgate (it failed or
    /// timed out): an expected failure, not counted as a failure.
    Pending,
    /// Marked `endgate_pending` but passed under endgate: counted as a failure, so the mark
    /// gets removed once the feature it waits for lands.
    XPass,
}

impl Verdict {
    /// The short word used in the matrix.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "FAIL",
            Verdict::Timeout => "TIMEOUT",
            Verdict::NoBinary => "NOBIN",
            Verdict::NoExpected => "NOEXP",
            Verdict::Error => "ERROR",
            Verdict::Pending => "xfail",
            Verdict::XPass => "XPASS",
        }
    }

    /// Whether this counts as passing.
    pub fn passed(self) -> bool {
        self == Verdict::Pass
    }

    /// Whether this counts as a failure: anything but a pass or a pending test (an XPASS is
    /// a failure). A run succeeds when no outcome failed.
    pub fn failed(self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::Pending)
    }

    /// The verdict once an `endgate_pending` mark is taken into account (`pending`: the mark
    /// applies to this run). A pass becomes [`Verdict::XPass`]; a wrong result or a timeout
    /// becomes [`Verdict::Pending`]. Setup problems (no program, no expected output, an
    /// emulator that cannot be started) stay failures: they are not what the mark is about.
    pub fn with_pending(self, pending: bool) -> Verdict {
        match (pending, self) {
            (false, v) => v,
            (true, Verdict::Pass) => Verdict::XPass,
            (true, Verdict::Fail | Verdict::Timeout) => Verdict::Pending,
            (true, v) => v,
        }
    }
}

/// The message of an XPASS outcome.
pub const XPASS_MESSAGE: &str = "passes now: remove endgate_pending from the manifest";

/// The result of one test on one arch.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The test's name.
    pub test: String,
    /// The arch.
    pub arch: &'static Arch,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it did not pass (empty on a pass). For a pending test, why it failed; for an
    /// XPASS, [`XPASS_MESSAGE`].
    pub message: String,
    /// The `endgate_pending` reason, when the mark applies to this run (endgate only).
    pub pending: Option<String>,
    /// The command line, for reproducing by hand.
    pub command: String,
    /// What was expected, if known.
    pub expected: Option<Expected>,
    /// What happened, if it ran.
    pub execution: Option<Execution>,
}

/// Runs every test of `suite` on every arch of `config`, calling `on_done` as each finishes.
/// Errors only on a bad configuration (e.g. `native` for a foreign arch).
pub fn run(
    suite: &Suite,
    config: &RunConfig,
    on_done: &(dyn Fn(&Outcome, usize, usize) + Sync),
) -> Result<Vec<Outcome>> {
    for a in &config.arches {
        config.emulator.check(a)?;
    }
    let config = &RunConfig { emulator: config.emulator.resolve(&config.arches)?, ..config.clone() };
    let build_dir = std::path::absolute(&config.build_dir)
        .map_err(|e| Error::new(format!("build directory {}: {e}", config.build_dir.display())))?;
    // One scratch directory per call: several runs may share a process (the cargo tests run
    // the arches in parallel), and each removes its own directory when done.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let scratch = std::env::temp_dir().join(format!(
        "guest-tests-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    fs::create_dir_all(&scratch).map_err(|e| Error::new(format!("creating {}: {e}", scratch.display())))?;
    // An asm test not (yet) ported to an arch is not run there: '-' in the matrix.
    let jobs: Vec<(&Test, &'static Arch)> = suite
        .tests
        .iter()
        .flat_map(|t| config.arches.iter().filter(|a| t.source_for(a).is_some()).map(move |a| (t, *a)))
        .collect();
    let done = AtomicUsize::new(0);
    let outcomes = pool::map(&jobs, config.jobs, |i, (test, arch)| {
        let workdir = scratch.join(format!("{i}-{}-{}", arch.name, test.name));
        let o = run_one(suite, config, &build_dir, test, arch, &workdir);
        let _ = fs::remove_dir_all(&workdir);
        on_done(&o, done.fetch_add(1, Ordering::Relaxed) + 1, jobs.len());
        o
    });
    let _ = fs::remove_dir_all(&scratch);
    Ok(outcomes)
}

fn run_one(
    suite: &Suite,
    config: &RunConfig,
    build_dir: &Path,
    test: &Test,
    arch: &'static Arch,
    workdir: &Path,
) -> Outcome {
    let program = binary_path(build_dir, arch, &test.name);
    let cmd = config.emulator.command(arch, &program, &test.settings.args);
    let mut o = Outcome {
        test: test.name.clone(),
        arch,
        verdict: Verdict::Error,
        message: String::new(),
        pending: config.emulator.pending_reason(test, arch).map(str::to_string),
        command: show_command(&cmd),
        expected: None,
        execution: None,
    };
    match suite.expected(test, arch) {
        Ok(e) => o.expected = Some(e),
        Err(e) => {
            o.verdict = Verdict::NoExpected;
            o.message = format!("{e} (generate with `guest-tests expected`; asm tests' are written by hand)");
            return o;
        }
    }
    if !program.is_file() {
        o.verdict = Verdict::NoBinary;
        o.message = format!("{} is missing: run `guest-tests build --arch {}` first", program.display(), arch.name);
        return o;
    }
    if let Err(e) = fs::create_dir_all(workdir) {
        o.message = format!("creating working directory {}: {e}", workdir.display());
        return o;
    }
    let timeout = test.settings.timeout.unwrap_or(config.timeout);
    let ex = match exec::run(cmd, workdir, test.settings.stdin.as_deref(), timeout) {
        Ok(ex) => ex,
        Err(e) => {
            o.message = format!("cannot start `{}`: {e}", o.command);
            return o;
        }
    };
    let exp = o.expected.as_ref().expect("set above");
    if ex.timed_out {
        o.verdict = Verdict::Timeout;
        o.message = format!("killed after {:.1}s", timeout.as_secs_f64());
    } else {
        let mut why = Vec::new();
        if ex.status != Some(exp.status) {
            why.push(format!(
                "exit status: expected {}, got {}",
                exp.status,
                ex.status.map_or("unknown".to_string(), |s| s.to_string())
            ));
        }
        if ex.stdout != exp.stdout {
            why.push(describe_diff(&exp.stdout, &ex.stdout));
        }
        o.verdict = if why.is_empty() { Verdict::Pass } else { Verdict::Fail };
        o.message = why.join("\n");
    }
    o.verdict = o.verdict.with_pending(o.pending.is_some());
    if o.verdict == Verdict::XPass {
        o.message = XPASS_MESSAGE.to_string();
    }
    o.execution = Some(ex);
    o
}

/// Whether `prog` names an existing file (when it has a '/') or is found on `$PATH`.
fn find_program(prog: &str) -> bool {
    if prog.contains('/') {
        return Path::new(prog).is_file();
    }
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(prog).is_file()))
}

/// Describes how `actual` differs from `expected`: the first differing line of each.
pub fn describe_diff(expected: &[u8], actual: &[u8]) -> String {
    let e: Vec<&[u8]> = expected.split_inclusive(|&b| b == b'\n').collect();
    let a: Vec<&[u8]> = actual.split_inclusive(|&b| b == b'\n').collect();
    let i = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let line =
        |v: &[&[u8]]| v.get(i).map_or("<end of output>".to_string(), |l| format!("{:?}", String::from_utf8_lossy(l)));
    format!(
        "stdout differs at line {}: expected {}, got {} ({} vs {} lines)",
        i + 1,
        line(&e),
        line(&a),
        e.len(),
        a.len()
    )
}

/// A command line as a shell would take it (words with spaces or quotes get quoted).
pub fn show_command(cmd: &Command) -> String {
    std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|w| {
            let s = w.to_string_lossy();
            if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%{}".contains(c)) {
                s.into_owned()
            } else {
                format!("'{}'", s.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emulator_parse_and_command() {
        assert_eq!(Emulator::parse(" native ").unwrap(), Emulator::Native);
        assert!(Emulator::parse("   ").is_err());
        let e = Emulator::parse("{qemu} -cpu max").unwrap();
        let arch = Arch::by_name("aarch64").unwrap();
        let c = e.command(arch, Path::new("/b/hello"), &["a b".into(), String::new()]);
        let q10 = arch.qemu10().to_string_lossy().into_owned();
        assert!(q10.ends_with("/.cache/qemu-10.0.2/usr/bin/qemu-aarch64"), "{q10}");
        assert_eq!(show_command(&c), format!("{q10} -cpu max /b/hello 'a b' ''"));
        let e = Emulator::parse("{qemu72} -E A={arch}").unwrap();
        let c = e.command(arch, Path::new("/b/hello"), &[]);
        assert_eq!(show_command(&c), "/usr/bin/qemu-aarch64 -E A=aarch64 /b/hello");
        assert_eq!(expand("qemu-{arch}", arch), "qemu-aarch64");
        if Arch::host().is_some_and(|h| h.name == "x86_64") {
            assert!(Emulator::Native.check(arch).unwrap_err().0.contains("cannot run aarch64"));
        }
    }

    #[test]
    fn endgate_detection() {
        let is = |spec: &str| Emulator::parse(spec).unwrap().is_endgate();
        assert!(is("endgate"));
        assert!(is("target/release/endgate"));
        assert!(is("/abs/path/endgate --trace"));
        assert!(!is("native"));
        assert!(!is("qemu-aarch64"));
        assert!(!is("{qemu}"));
        assert!(!is("{qemu72}"));
        assert!(!is("target/release/endgate-old"));
        assert!(!is("wrapper target/release/endgate"));

        let mut test = Test {
            name: "t".into(),
            kind: crate::suite::Kind::C("t.c".into()),
            settings: crate::manifest::Entry::default(),
        };
        let endgate = Emulator::parse("target/release/endgate").unwrap();
        let (x86, arm) = (Arch::by_name("x86_64").unwrap(), Arch::by_name("arm").unwrap());
        assert_eq!(endgate.pending_reason(&test, x86), None);
        test.settings = crate::manifest::parse(
            "[t]\nendgate_pending = x86_64 \"needs fork\"\nendgate_pending = arm \"needs stat64\"\n",
            "m",
        )
        .unwrap()
        .remove("t")
        .unwrap();
        assert_eq!(endgate.pending_reason(&test, x86), Some("needs fork"));
        assert_eq!(endgate.pending_reason(&test, arm), Some("needs stat64"));
        assert_eq!(endgate.pending_reason(&test, Arch::by_name("s390x").unwrap()), None);
        assert_eq!(Emulator::Native.pending_reason(&test, x86), None);
        assert_eq!(Emulator::parse("qemu-x86_64").unwrap().pending_reason(&test, x86), None);
    }

    #[test]
    fn pending_verdicts() {
        use Verdict::*;
        let all = [Pass, Fail, Timeout, NoBinary, NoExpected, Error, Pending, XPass];
        for v in all {
            assert_eq!(v.with_pending(false), v, "unmarked tests keep their verdict");
        }
        assert_eq!(Pass.with_pending(true), XPass);
        assert_eq!(Fail.with_pending(true), Pending);
        assert_eq!(Timeout.with_pending(true), Pending);
        for v in [NoBinary, NoExpected, Error] {
            assert_eq!(v.with_pending(true), v, "setup problems stay failures");
        }
        let failed: Vec<_> = all.into_iter().filter(|v| v.failed()).collect();
        assert_eq!(failed, [Fail, Timeout, NoBinary, NoExpected, Error, XPass]);
        assert!(!Pending.passed() && !XPass.passed());
        assert_eq!((Pending.label(), XPass.label()), ("xfail", "XPASS"));
    }

    #[test]
    fn diff() {
        assert_eq!(
            describe_diff(b"a\nb\n", b"a\nc\n"),
            "stdout differs at line 2: expected \"b\\n\", got \"c\\n\" (2 vs 2 lines)"
        );
        assert!(describe_diff(b"a\n", b"a\nextra\n").contains("expected <end of output>"));
    }
}
