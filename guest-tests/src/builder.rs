//! Building the guest programs: every test for every selected arch, with Debian's cross gcc,
//! into `OUT/<arch>/<name>`. C programs are built `-static -O2`; asm programs
//! `-nostdlib -static`. Outputs are written to a temporary name and renamed, so concurrent
//! builds into the same directory never leave a half-written binary.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::arch::Arch;
use crate::error::{Context, Error, Result};
use crate::pool;
use crate::suite::{Kind, Suite, Test};

/// The default build directory: `<workspace target dir>/guest-tests`.
pub fn default_out_dir() -> PathBuf {
    target_dir().join("guest-tests")
}

/// The workspace's cargo target directory (`$CARGO_TARGET_DIR`, else `<workspace>/target`).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => workspace_root().join("target"),
    }
}

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    let me = Path::new(env!("CARGO_MANIFEST_DIR"));
    me.parent().unwrap_or(me).to_path_buf()
}

/// Where the program of `test` for `arch` is (or will be) built.
pub fn binary_path(out_dir: &Path, arch: &Arch, test: &str) -> PathBuf {
    out_dir.join(arch.name).join(test)
}

/// The result of building one test for one arch.
#[derive(Debug, Clone)]
pub struct Built {
    /// The test's name.
    pub test: String,
    /// The arch it was built for.
    pub arch: &'static Arch,
    /// The binary, or why there is none (compiler output included).
    pub result: std::result::Result<PathBuf, String>,
}

/// Checks that each arch's compiler runs; returns one message per missing compiler.
pub fn check_compilers(arches: &[&'static Arch]) -> Vec<String> {
    arches
        .iter()
        .filter(|a| {
            !Command::new(a.cc)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .map(|a| {
            format!(
                "{}: compiler '{}' not found or not working (Debian: apt-get install {})",
                a.name, a.cc, a.cc_package
            )
        })
        .collect()
}

/// Builds every test of `suite` for every arch in `arches` into `out_dir`, with `jobs`
/// compilers at once. Per-program failures are reported in the result, not as `Err`; `Err`
/// means the build could not start at all (a missing compiler, an unwritable directory).
pub fn build(suite: &Suite, arches: &[&'static Arch], out_dir: &Path, jobs: usize) -> Result<Vec<Built>> {
    let missing = check_compilers(arches);
    if !missing.is_empty() {
        return Err(Error::new(missing.join("\n")));
    }
    for a in arches {
        let d = out_dir.join(a.name);
        fs::create_dir_all(&d).ctx(|| format!("creating build directory {}", d.display()))?;
    }
    // An asm test without a port to an arch is skipped there (the runner does not run it).
    let jobs_list: Vec<(&Test, &'static Arch)> = suite
        .tests
        .iter()
        .flat_map(|t| arches.iter().filter(|a| t.source_for(a).is_some()).map(move |a| (t, *a)))
        .collect();
    Ok(pool::map(&jobs_list, jobs, |_, (test, arch)| Built {
        test: test.name.clone(),
        arch,
        result: build_one(suite, test, arch, out_dir),
    }))
}

/// The compiler command line for `test` on `arch` writing to `output`, or `None` if the
/// test has no source for that arch.
pub fn compile_command(suite: &Suite, test: &Test, arch: &Arch, output: &Path) -> Option<Command> {
    let src = test.source_for(arch)?;
    let mut cmd = Command::new(arch.cc);
    cmd.args(arch.cflags);
    match &test.kind {
        Kind::C(_) => {
            cmd.args(["-static", "-O2", "-Wall", "-std=gnu11"]).arg("-I").arg(suite.include_dir());
        }
        Kind::Asm(_) => {
            cmd.args(["-nostdlib", "-static"]);
        }
    }
    cmd.args(&test.settings.cflags).arg("-o").arg(output).arg(src);
    if matches!(test.kind, Kind::C(_)) {
        cmd.arg("-lm");
    }
    Some(cmd)
}

fn build_one(suite: &Suite, test: &Test, arch: &Arch, out_dir: &Path) -> std::result::Result<PathBuf, String> {
    let out = binary_path(out_dir, arch, &test.name);
    let tmp =
        out.with_file_name(format!(".{}.tmp-{}-{:?}", test.name, std::process::id(), std::thread::current().id()));
    let Some(mut cmd) = compile_command(suite, test, arch, &tmp) else {
        return Err(format!("no source for {}: add programs/asm/{}/{}.S", arch.name, arch.name, test.name));
    };
    let shown = format!("{cmd:?}");
    let output = cmd.stdin(Stdio::null()).output().map_err(|e| format!("running {}: {e}", arch.cc))?;
    if !output.status.success() {
        let _ = fs::remove_file(&tmp);
        // A program from an earlier build must not run in its place (it would pass for the
        // source that failed to build): the test reports NOBIN.
        let _ = fs::remove_file(&out);
        return Err(format!(
            "{shown} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    fs::rename(&tmp, &out).map_err(|e| format!("renaming {} to {}: {e}", tmp.display(), out.display()))?;
    Ok(out)
}
