//! The `guest-tests` command: `build` the guest programs, `run` them under an emulator and
//! judge the results, regenerate the `expected` outputs natively, `report` on endgate against
//! qemu-user 10.0.2 and 7.2 for every arch, or `list` the tests.
//! Run `guest-tests help` for the options.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use guest_tests::arch::{self, Arch, ARCHES};
use guest_tests::builder;
use guest_tests::error::{Error, Result};
use guest_tests::expected::{self, Change};
use guest_tests::pool;
use guest_tests::report;
use guest_tests::runner::{self, Emulator, RunConfig};
use guest_tests::suite::Suite;

const USAGE: &str = "\
guest-tests: build guest programs and judge an emulator by running them

USAGE:
    guest-tests build    [--arch A] [--out DIR] [--jobs N] [--test NAME]...
    guest-tests run      --emulator CMD [--arch A] [--build-dir DIR] [--jobs N]
                         [--timeout SECS] [--json FILE] [--junit FILE] [--test NAME]...
                         [--build] [--verbose]
    guest-tests expected [--out DIR] [--jobs N] [--timeout SECS] [--test NAME]...
    guest-tests report   [--endgate PATH] [--qemu CMD] [--qemu72 CMD] [--arch A] [--build-dir DIR]
                         [--jobs N] [--timeout SECS] [--test NAME]... [--report FILE]
                         [--results-dir DIR]
    guest-tests list
    guest-tests help

OPTIONS:
    --arch A          x86_64, aarch64, riscv64, arm, i386, s390x, mips64el, a comma list,
                      or all (default: all)
    --out DIR         build directory (default: <workspace>/target/guest-tests); programs go
                      to DIR/<arch>/<test>. --build-dir is the same option.
    --jobs N          parallel compilers / tests (default: number of CPUs)
    --emulator CMD    how to start a program: a command split on whitespace, given the
                      program and its arguments (e.g. 'target/release/endgate',
                      'qemu-aarch64', '{qemu} -cpu max'), or 'native' to run it directly
                      (host arch only). In CMD, '{arch}' is the arch name, '{qemu}' the
                      arch's qemu-user 10.0.2 binary (the reference:
                      <workspace>/.cache/qemu-10.0.2/usr/bin/qemu-<arch>, from
                      scripts/fetch-qemu10.sh) and '{qemu72}' its Debian 12 qemu-user 7.2
                      binary (/usr/bin/qemu-<arch>)
    --timeout SECS    per-test timeout, after which the test is killed (default: 30)
    --json FILE       also write the results as JSON
    --junit FILE      also write the results as JUnit XML
    --test NAME       only tests whose name contains NAME (repeatable, or comma list)
    --build           (run) build the programs first
    --verbose         (run) print each result as it finishes
    --endgate PATH    (report) endgate's binary (default: <target dir>/release/endgate)
    --qemu CMD        (report) the reference qemu-user command (default: '{qemu}', 10.0.2)
    --qemu72 CMD      (report) the second qemu-user command (default: '{qemu72}', 7.2);
                      'none' for either leaves that run out
    --report FILE     (report) the Markdown report (default: guest-tests/REPORT.md)
    --results-dir DIR (report) where report-{endgate,qemu10,qemu72}.json and .junit.xml go
                      (default: the build directory)

`report` builds everything, runs the suite for every arch under endgate, qemu-user 10.0.2
and qemu-user 7.2, and writes the Markdown report (the three matrices, per arch whether
endgate passes every test either qemu-user passes and the tests it misses against each, and
where the two qemu-user versions differ) plus JSON and JUnit results of each run. It exits 0
once the report is written, whatever the results.

`expected` is the only way expected outputs are made: it builds the x86_64 programs and runs
them natively (never under endgate), writing expected/<test>.stdout and .status; the asm
tests' expected files are written by hand and only checked against the native run. Only
arch-specific tests (expected/<arch>/) and tests whose manifest arches leave out x86_64 get
theirs from a run under qemu-user 10.0.2, the reference emulator, instead.

Under endgate (an emulator command whose program is named 'endgate'), tests the manifest
marks endgate_pending for an arch (`endgate_pending = arm,i386 \"reason\"`, or every arch) are
expected not to pass there: a failure is reported as pending ('xfail'), listed with its reason
and not counted as a failure; a pass is an XPASS, a failure (remove the mark). Other
emulators, and unlisted arches, ignore the marks.

Exit status: 0 all passed (pending tests aside), 1 some test failed (or XPASSed) or some
build failed, 2 bad usage or setup.";

#[derive(Default)]
struct Opts {
    arch: Option<String>,
    out: Option<PathBuf>,
    jobs: Option<usize>,
    timeout: Option<Duration>,
    emulator: Option<String>,
    json: Option<PathBuf>,
    junit: Option<PathBuf>,
    tests: Vec<String>,
    build: bool,
    verbose: bool,
    endgate: Option<PathBuf>,
    qemu: Option<String>,
    qemu72: Option<String>,
    report: Option<PathBuf>,
    results_dir: Option<PathBuf>,
}

fn parse_opts(cmd: &str, args: &[String]) -> Result<Opts> {
    let mut o = Opts::default();
    let mut i = 0;
    while i < args.len() {
        let (flag, inline) = match args[i].split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (args[i].clone(), None),
        };
        i += 1;
        let takes_value = !matches!(flag.as_str(), "--build" | "--verbose" | "-v");
        let value = if !takes_value {
            if inline.is_some() {
                return Err(Error::new(format!("{flag} takes no value")));
            }
            String::new()
        } else if let Some(v) = inline {
            v
        } else {
            let v = args.get(i).ok_or_else(|| Error::new(format!("{flag} needs a value")))?;
            i += 1;
            v.clone()
        };
        let allowed: &[&str] = match cmd {
            "build" => &["--arch", "--out", "--build-dir", "--jobs", "--test"],
            "run" => &[
                "--arch",
                "--out",
                "--build-dir",
                "--jobs",
                "--test",
                "--emulator",
                "--timeout",
                "--json",
                "--junit",
                "--build",
                "--verbose",
                "-v",
            ],
            "expected" => &["--out", "--build-dir", "--jobs", "--timeout", "--test"],
            "report" => &[
                "--arch",
                "--out",
                "--build-dir",
                "--jobs",
                "--test",
                "--timeout",
                "--endgate",
                "--qemu",
                "--qemu72",
                "--report",
                "--results-dir",
            ],
            _ => &[],
        };
        if !allowed.contains(&flag.as_str()) {
            return Err(Error::new(format!("'{cmd}' does not take '{flag}' (see `guest-tests help`)")));
        }
        match flag.as_str() {
            "--arch" => o.arch = Some(value),
            "--out" | "--build-dir" => o.out = Some(PathBuf::from(value)),
            "--jobs" => {
                o.jobs = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|&n: &usize| n > 0)
                        .ok_or_else(|| Error::new(format!("--jobs wants a positive number, found '{value}'")))?,
                )
            }
            "--timeout" => {
                let secs: f64 = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e9)
                    .ok_or_else(|| Error::new(format!("--timeout wants positive seconds, found '{value}'")))?;
                o.timeout = Some(Duration::from_secs_f64(secs));
            }
            "--emulator" => o.emulator = Some(value),
            "--json" => o.json = Some(PathBuf::from(value)),
            "--junit" => o.junit = Some(PathBuf::from(value)),
            "--test" => o.tests.extend(value.split(',').filter(|s| !s.is_empty()).map(str::to_string)),
            "--build" => o.build = true,
            "--endgate" => o.endgate = Some(PathBuf::from(value)),
            "--qemu" => o.qemu = Some(value),
            "--qemu72" => o.qemu72 = Some(value),
            "--report" => o.report = Some(PathBuf::from(value)),
            "--results-dir" => o.results_dir = Some(PathBuf::from(value)),
            _ => o.verbose = true,
        }
    }
    Ok(o)
}

fn load_suite(o: &Opts) -> Result<Suite> {
    let mut suite = Suite::load(&Suite::default_root())?;
    suite.filter(&o.tests)?;
    Ok(suite)
}

fn arches(o: &Opts) -> Result<Vec<&'static Arch>> {
    arch::parse_selection(o.arch.as_deref().unwrap_or("all"))
}

/// Builds and prints failures; Ok(true) if everything built.
fn do_build(suite: &Suite, arches: &[&'static Arch], out: &Path, jobs: usize) -> Result<bool> {
    for (test, missing) in suite.missing_ports() {
        let wanted: Vec<_> = missing.iter().filter(|m| arches.iter().any(|a| a.name == **m)).collect();
        if !wanted.is_empty() {
            eprintln!("note: asm test '{test}' has no source for {wanted:?} (not built or run there)");
        }
    }
    let built = builder::build(suite, arches, out, jobs)?;
    let mut ok = 0;
    for b in &built {
        match &b.result {
            Ok(_) => ok += 1,
            Err(e) => eprintln!("error: {} [{}]: {e}", b.test, b.arch.name),
        }
    }
    let names: Vec<_> = arches.iter().map(|a| a.name).collect();
    println!("built {ok} of {} programs for {} into {}", built.len(), names.join(", "), out.display());
    Ok(ok == built.len())
}

fn cmd_build(o: &Opts) -> Result<ExitCode> {
    let suite = load_suite(o)?;
    let out = o.out.clone().unwrap_or_else(builder::default_out_dir);
    let ok = do_build(&suite, &arches(o)?, &out, o.jobs.unwrap_or_else(pool::default_jobs))?;
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn cmd_run(o: &Opts) -> Result<ExitCode> {
    let suite = load_suite(o)?;
    let arches = arches(o)?;
    let emulator = Emulator::parse(
        o.emulator
            .as_deref()
            .ok_or_else(|| Error::new("run needs --emulator CMD (e.g. target/release/endgate, '{qemu}', native)"))?,
    )?;
    for a in &arches {
        emulator.check(a)?;
    }
    let config = RunConfig {
        emulator,
        arches: arches.clone(),
        build_dir: o.out.clone().unwrap_or_else(builder::default_out_dir),
        jobs: o.jobs.unwrap_or_else(pool::default_jobs),
        timeout: o.timeout.unwrap_or(Duration::from_secs(30)),
    };
    if o.build && !do_build(&suite, &arches, &config.build_dir, config.jobs)? {
        eprintln!("note: running anyway; tests without a program report NOBIN");
    }
    let verbose = o.verbose;
    let outcomes = runner::run(&suite, &config, &|out, done, total| {
        if verbose {
            let ms = out.execution.as_ref().map_or(0, |e| e.duration.as_millis());
            eprintln!("[{done}/{total}] {:7} {} [{}] {ms} ms", out.verdict.label(), out.test, out.arch.name);
        }
    })?;
    println!("emulator: {}\n", config.emulator);
    print!("{}", report::matrix(&outcomes, &arches));
    let pending = report::pending(&outcomes);
    if !pending.is_empty() {
        println!("\nPENDING under endgate (endgate_pending in the manifest; not counted as failures)\n{pending}");
    }
    let details = report::failure_details(&outcomes);
    if !details.is_empty() {
        println!("\nFAILURES\n{details}");
    }
    if let Some(p) = &o.json {
        fs::write(p, report::json(&outcomes, &config.emulator.to_string()))
            .map_err(|e| Error::new(format!("writing {}: {e}", p.display())))?;
    }
    if let Some(p) = &o.junit {
        fs::write(p, report::junit(&outcomes, &arches))
            .map_err(|e| Error::new(format!("writing {}: {e}", p.display())))?;
    }
    println!("\n{}", report::summary(&outcomes));
    let missing = outcomes.iter().filter(|x| matches!(x.verdict, runner::Verdict::NoBinary)).count();
    if missing > 0 {
        eprintln!(
            "note: {missing} tests have no guest program (NOBIN) in {}: build them with `guest-tests build --arch ...` first, or run with --build",
            shown(&config.build_dir)
        );
    }
    Ok(if outcomes.iter().any(|x| x.verdict.failed()) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `path` relative to the workspace root when it is under it (for a report that does not
/// depend on where the checkout is).
fn shown(path: &Path) -> String {
    let root = builder::workspace_root();
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.strip_prefix(&root).map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    fs::write(path, text).map_err(|e| Error::new(format!("writing {}: {e}", path.display())))
}

/// The title of a qemu-user run: `qemu-user <version>` from the binary's `--version` for
/// `arch` (after `{qemu}` expansion), else `fallback`.
fn qemu_title(emulator: &Emulator, arch: &Arch, fallback: &str) -> String {
    let Emulator::Command(words) = emulator else { return fallback.to_string() };
    let out = std::process::Command::new(runner::expand(&words[0], arch)).arg("--version").output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let first = text.lines().next().unwrap_or("");
    match first.split_once(" version ").and_then(|(_, v)| v.split_whitespace().next()) {
        Some(v) => format!("qemu-user {v}"),
        None => fallback.to_string(),
    }
}

fn cmd_report(o: &Opts) -> Result<ExitCode> {
    let suite = load_suite(o)?;
    let arches = arches(o)?;
    let build_dir = o.out.clone().unwrap_or_else(builder::default_out_dir);
    let jobs = o.jobs.unwrap_or_else(pool::default_jobs);
    let endgate_path = o.endgate.clone().unwrap_or_else(|| builder::target_dir().join("release").join("endgate"));
    if !endgate_path.is_file() {
        return Err(Error::new(format!(
            "endgate not found at {} (build it with `cargo build --release -p endgate`, or give --endgate)",
            endgate_path.display()
        )));
    }
    // (results file label, title when --version says nothing, command).
    let mut emulators =
        vec![("endgate", "endgate".to_string(), Emulator::Command(vec![endgate_path.to_string_lossy().into_owned()]))];
    for (label, spec, default, q) in
        [("qemu10", &o.qemu, "{qemu}", arch::QEMU), ("qemu72", &o.qemu72, "{qemu72}", arch::QEMU72)]
    {
        let spec = spec.as_deref().unwrap_or(default);
        if spec != "none" {
            let e = Emulator::parse(spec)?;
            e.resolve(&arches)?;
            let title = qemu_title(&e, arches[0], &format!("qemu-user {}", q.version));
            emulators.push((label, title, e));
        }
    }
    if emulators.len() < 2 {
        return Err(Error::new("report needs qemu-user to compare with: not both --qemu none and --qemu72 none"));
    }
    if !do_build(&suite, &arches, &build_dir, jobs)? {
        eprintln!("note: some programs did not build; their tests report NOBIN");
    }
    let timeout = o.timeout.unwrap_or(Duration::from_secs(30));
    let results_dir = o.results_dir.clone().unwrap_or_else(|| build_dir.clone());
    fs::create_dir_all(&results_dir).map_err(|e| Error::new(format!("creating {}: {e}", results_dir.display())))?;
    let mut runs = Vec::new();
    let mut written = Vec::new();
    for (label, title, emulator) in emulators {
        eprintln!("report: running the suite under {emulator} ({title})");
        let config = RunConfig { emulator, arches: arches.clone(), build_dir: build_dir.clone(), jobs, timeout };
        let outcomes = runner::run(&suite, &config, &|_, _, _| {})?;
        let json = results_dir.join(format!("report-{label}.json"));
        let junit = results_dir.join(format!("report-{label}.junit.xml"));
        write_file(&json, &report::json(&outcomes, &config.emulator.to_string()))?;
        write_file(&junit, &report::junit(&outcomes, &arches))?;
        println!("{title}: {}", report::summary(&outcomes));
        written.extend([json, junit].map(|p| shown(&p)));
        let command = if label == "endgate" { shown(&endgate_path) } else { config.emulator.to_string() };
        runs.push((title, command, outcomes));
    }
    let runs: Vec<report::Run> =
        runs.iter().map(|(title, command, outcomes)| report::Run { title, command, outcomes }).collect();
    let (endgate, peers) = runs.split_first().expect("endgate ran");
    let report_path = o.report.clone().unwrap_or_else(|| Suite::default_root().join("REPORT.md"));
    write_file(&report_path, &report::markdown(endgate, peers, &arches, &written))?;
    let claim = report::claim(peers);
    for a in &arches {
        let gaps: Vec<String> = peers
            .iter()
            .flat_map(|p| report::gaps(endgate.outcomes, p.outcomes, a.name).into_iter().map(|(t, _)| t.to_string()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let verdict = if gaps.is_empty() { "yes".to_string() } else { format!("no ({})", gaps.join(", ")) };
        println!("{}: {claim}: {verdict}", a.name);
    }
    println!("wrote {} and {}", report_path.display(), written.join(", "));
    Ok(ExitCode::SUCCESS)
}

fn cmd_expected(o: &Opts) -> Result<ExitCode> {
    let suite = load_suite(o)?;
    let out = o.out.clone().unwrap_or_else(builder::default_out_dir);
    let changes = expected::regenerate(
        &suite,
        &out,
        o.jobs.unwrap_or_else(pool::default_jobs),
        o.timeout.unwrap_or(Duration::from_secs(30)),
    )?;
    for (name, change) in &changes {
        let what = match change {
            Change::Created => "created",
            Change::Updated => "UPDATED",
            Change::Unchanged => "unchanged",
            Change::HandChecked => "hand-written, agrees",
        };
        println!("{name:24} {what}");
    }
    println!(
        "expected outputs from native {} runs ([arch]: under qemu-user {}): {} tests",
        expected::REFERENCE_ARCH,
        arch::QEMU.version,
        changes.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn cmd_list() -> Result<ExitCode> {
    let suite = Suite::load(&Suite::default_root())?;
    for t in &suite.tests {
        let kind = if t.expected_by_hand() { "asm" } else { "c" };
        let archs: Vec<_> = ARCHES.iter().filter(|a| t.source_for(a).is_some()).map(|a| a.name).collect();
        let mut extra = String::new();
        if !t.settings.args.is_empty() {
            extra.push_str(&format!(" args={:?}", t.settings.args));
        }
        if t.settings.stdin.is_some() {
            extra.push_str(" stdin");
        }
        for p in &t.settings.endgate_pending {
            extra.push_str(&format!(" endgate_pending[{}]={:?}", p.arches, p.reason));
        }
        println!("{:24} {kind:3} {}{extra}", t.name, archs.join(","));
    }
    Ok(ExitCode::SUCCESS)
}

/// The usage on stdout; a closed stdout (`| head`) is not an error.
fn print_usage() {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{USAGE}");
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first().map(String::as_str) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    // `guest-tests run --help` asks for the usage too (not for a value of an option `--help`).
    if args[1..].iter().any(|a| a == "--help" || a == "-h") {
        print_usage();
        return ExitCode::SUCCESS;
    }
    let result = match cmd {
        "help" | "--help" | "-h" => {
            print_usage();
            return ExitCode::SUCCESS;
        }
        "list" => cmd_list(),
        "build" | "run" | "expected" | "report" => parse_opts(cmd, &args[1..]).and_then(|o| match cmd {
            "build" => cmd_build(&o),
            "run" => cmd_run(&o),
            "report" => cmd_report(&o),
            _ => cmd_expected(&o),
        }),
        other => Err(Error::new(format!("unknown command '{other}' (build, run, expected, report, list, help)"))),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("guest-tests: {e}");
            ExitCode::from(2)
        }
    }
}
