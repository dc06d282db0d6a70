//! The suite on disk: which tests exist (found from the program sources), their manifest
//! settings, and where their expected outputs live.
//!
//! Layout under the suite root (`guest-tests/`):
//! - `programs/NAME.c` — a C test, built for every arch;
//! - `programs/asm/ARCH/NAME.S` — a freestanding test, one source per arch;
//! - `programs/manifest.txt` — per-test args, stdin, flags (see [`crate::manifest`]);
//! - `expected/NAME.stdout`, `expected/NAME.status` — the expected stdout bytes and exit
//!   status (128+signo for a signal death), or under `expected/ARCH/` for arch-specific tests.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::arch::{Arch, ARCHES};
use crate::error::{Context, Error, Result};
use crate::manifest::{self, Entry};

/// How a test's program is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// One portable C source.
    C(PathBuf),
    /// Freestanding assembly, one source per arch that has one (arch name → source).
    Asm(BTreeMap<&'static str, PathBuf>),
}

/// One test: a program plus how to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Test {
    /// The test's name (the source's file stem).
    pub name: String,
    /// Its source(s).
    pub kind: Kind,
    /// Its manifest settings (defaults if the manifest has no section for it).
    pub settings: Entry,
}

impl Test {
    /// The source to build for `arch`, or `None` if this test has none for it (an asm test
    /// not yet ported).
    pub fn source_for(&self, arch: &Arch) -> Option<&Path> {
        if !self.applies_to(arch) {
            return None;
        }
        match &self.kind {
            Kind::C(p) => Some(p),
            Kind::Asm(m) => m.get(arch.name).map(PathBuf::as_path),
        }
    }

    /// Whether the test is meant for `arch` at all (the manifest's `arches`, default all).
    pub fn applies_to(&self, arch: &Arch) -> bool {
        self.settings.arches.covers(arch.name)
    }

    /// Whether the expected output is written by hand (asm tests) rather than generated
    /// by running the x86_64 build natively.
    pub fn expected_by_hand(&self) -> bool {
        matches!(self.kind, Kind::Asm(_))
    }
}

/// The expected result of one test on one arch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Exact stdout bytes.
    pub stdout: Vec<u8>,
    /// Exit status; 128+signo for a death by signal.
    pub status: i32,
}

/// All tests of a suite root, sorted by name.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The suite root (holding `programs/` and `expected/`).
    pub root: PathBuf,
    /// The tests, sorted by name.
    pub tests: Vec<Test>,
}

impl Suite {
    /// The suite shipped with this crate (its own directory).
    pub fn default_root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// Loads the suite at `root`: finds the sources and applies the manifest.
    pub fn load(root: &Path) -> Result<Suite> {
        let programs = root.join("programs");
        let mut found: BTreeMap<String, Kind> = BTreeMap::new();
        for path in sorted_dir(&programs)? {
            if path.extension().is_some_and(|e| e == "c") {
                found.insert(stem(&path)?, Kind::C(path));
            }
        }
        let asm_root = programs.join("asm");
        if asm_root.is_dir() {
            for dir in sorted_dir(&asm_root)? {
                if !dir.is_dir() {
                    continue;
                }
                let dir_name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
                let arch = Arch::by_name(&dir_name).ok_or_else(|| {
                    Error::new(format!("{}: directory for an unknown arch '{dir_name}'", dir.display()))
                })?;
                for path in sorted_dir(&dir)? {
                    if path.extension() != Some(std::ffi::OsStr::new("S")) {
                        continue;
                    }
                    let name = stem(&path)?;
                    match found.entry(name.clone()).or_insert_with(|| Kind::Asm(BTreeMap::new())) {
                        Kind::Asm(m) => {
                            m.insert(arch.name, path);
                        }
                        Kind::C(c) => {
                            return Err(Error::new(format!(
                                "test '{name}' has both a C source ({}) and an asm one ({})",
                                c.display(),
                                path.display()
                            )))
                        }
                    }
                }
            }
        }
        if found.is_empty() {
            return Err(Error::new(format!("no test programs under {}", programs.display())));
        }

        let manifest_path = programs.join("manifest.txt");
        let mut entries = if manifest_path.exists() {
            let text = fs::read_to_string(&manifest_path).ctx(|| format!("reading {}", manifest_path.display()))?;
            manifest::parse(&text, &manifest_path.display().to_string())?
        } else {
            BTreeMap::new()
        };
        for (name, e) in &entries {
            if !found.contains_key(name) {
                return Err(Error::new(format!(
                    "{}:{}: [{name}] names no program (no programs/{name}.c or programs/asm/*/{name}.S)",
                    manifest_path.display(),
                    e.line
                )));
            }
        }
        let tests = found
            .into_iter()
            .map(|(name, kind)| {
                let settings = entries.remove(&name).unwrap_or_default();
                Test { name, kind, settings }
            })
            .collect();
        Ok(Suite { root: root.to_path_buf(), tests })
    }

    /// Keeps only tests whose name contains one of `filters` (all tests if it is empty).
    pub fn filter(&mut self, filters: &[String]) -> Result<()> {
        if filters.is_empty() {
            return Ok(());
        }
        self.tests.retain(|t| filters.iter().any(|f| t.name.contains(f.as_str())));
        if self.tests.is_empty() {
            return Err(Error::new(format!("no test name contains any of: {}", filters.join(", "))));
        }
        Ok(())
    }

    /// The directory holding `include`d headers (`common.h`).
    pub fn include_dir(&self) -> PathBuf {
        self.root.join("programs")
    }

    /// Where the expected files of `test` on `arch` live: (stdout file, status file).
    pub fn expected_paths(&self, test: &Test, arch: &Arch) -> (PathBuf, PathBuf) {
        let mut dir = self.root.join("expected");
        if test.settings.arch_specific {
            dir.push(arch.name);
        }
        (dir.join(format!("{}.stdout", test.name)), dir.join(format!("{}.status", test.name)))
    }

    /// Reads the expected result of `test` on `arch`.
    pub fn expected(&self, test: &Test, arch: &Arch) -> Result<Expected> {
        let (out, status) = self.expected_paths(test, arch);
        let stdout = fs::read(&out).ctx(|| format!("reading {}", out.display()))?;
        let text = fs::read_to_string(&status).ctx(|| format!("reading {}", status.display()))?;
        let status = text.trim().parse().map_err(|_| {
            Error::new(format!("{}: expected an exit status number, found '{}'", status.display(), text.trim()))
        })?;
        Ok(Expected { stdout, status })
    }

    /// Writes the expected result of `test` on `arch`.
    pub fn write_expected(&self, test: &Test, arch: &Arch, exp: &Expected) -> Result<()> {
        let (out, status) = self.expected_paths(test, arch);
        if let Some(dir) = out.parent() {
            fs::create_dir_all(dir).ctx(|| format!("creating {}", dir.display()))?;
        }
        fs::write(&out, &exp.stdout).ctx(|| format!("writing {}", out.display()))?;
        fs::write(&status, format!("{}\n", exp.status)).ctx(|| format!("writing {}", status.display()))
    }

    /// Names of arches that have no source for some asm test it applies to, per test (for
    /// notes).
    pub fn missing_ports(&self) -> Vec<(String, Vec<&'static str>)> {
        self.tests
            .iter()
            .filter_map(|t| {
                let missing: Vec<_> =
                    ARCHES.iter().filter(|a| t.applies_to(a) && t.source_for(a).is_none()).map(|a| a.name).collect();
                (!missing.is_empty()).then(|| (t.name.clone(), missing))
            })
            .collect()
    }
}

fn sorted_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut v = Vec::new();
    for e in fs::read_dir(dir).ctx(|| format!("listing {}", dir.display()))? {
        v.push(e.ctx(|| format!("listing {}", dir.display()))?.path());
    }
    v.sort();
    Ok(v)
}

fn stem(path: &Path) -> Result<String> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map(str::to_string)
        .ok_or_else(|| Error::new(format!("{}: test names use letters, digits, '_' and '-' only", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_suite_loads() {
        let s = Suite::load(&Suite::default_root()).unwrap();
        assert!(s.tests.len() >= 24);
        assert!(s.tests.iter().any(|t| t.name == "hello" && matches!(t.kind, Kind::C(_))));
        let asm: Vec<_> = s.tests.iter().filter(|t| t.expected_by_hand()).collect();
        assert!(asm.len() >= 2);
        assert!(s.missing_ports().is_empty(), "{:?}", s.missing_ports());
        for t in &s.tests {
            for a in ARCHES.iter().filter(|a| t.applies_to(a)) {
                s.expected(t, a).unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}
