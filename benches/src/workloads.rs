//! The workloads: freestanding asm guests (getppid loop, store loop), the C
//! guests (gatebench, the compute kernel, threads, spawn, yield), the Go guest (gotypes), the
//! deterministic inputs (the
//! `busybox sha256sum` data file, the `gzip` text, the small-file tree of
//! `find` and `cat`), and a reference SHA-256 to check the guests' answers
//! against.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A guest CPU architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// x86_64 (Debian `amd64`).
    X86_64,
    /// aarch64 (Debian `arm64`).
    Aarch64,
    /// riscv64, RV64GC with the lp64d ABI (Debian `riscv64`).
    Riscv64,
    /// 32-bit arm, EABI hard-float (Debian `armhf`).
    Arm,
    /// i386 (Debian `i386`; built with `i686-linux-gnu-gcc`).
    I386,
    /// s390x, big-endian (Debian `s390x`).
    S390x,
    /// mips64el with the n64 ABI (Debian `mips64el`).
    Mips64el,
}

impl Arch {
    /// Every architecture, in report order.
    pub const ALL: [Arch; 7] =
        [Arch::X86_64, Arch::Aarch64, Arch::Riscv64, Arch::Arm, Arch::I386, Arch::S390x, Arch::Mips64el];

    /// This architecture's row of the workspace's arch table ([`guest_tests::arch`]): its
    /// names, cross compiler and qemu-user binary.
    pub fn row(self) -> &'static guest_tests::arch::Arch {
        use guest_tests::arch;
        match self {
            Arch::X86_64 => &arch::X86_64,
            Arch::Aarch64 => &arch::AARCH64,
            Arch::Riscv64 => &arch::RISCV64,
            Arch::Arm => &arch::ARM,
            Arch::I386 => &arch::I386,
            Arch::S390x => &arch::S390X,
            Arch::Mips64el => &arch::MIPS64EL,
        }
    }

    /// The GNU/kernel name (`x86_64`, `aarch64`, `riscv64`, `arm`, `i386`,
    /// `s390x`, `mips64el`); also the suffix of the asm guest sources.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The Debian architecture name (`amd64`, `arm64`, `armhf`, ...), as used
    /// for busybox.
    pub fn debarch(self) -> &'static str {
        self.row().debian
    }

    /// The qemu-user binary for this guest architecture.
    pub fn qemu(self) -> &'static str {
        self.row().qemu
    }

    /// The C compiler that builds freestanding guests for this architecture
    /// on an x86_64 host (Debian's cross compilers).
    pub fn compiler(self) -> &'static str {
        self.row().cc
    }

    /// Why busybox may be missing for this architecture beyond "not fetched
    /// yet", shown next to the n/a.
    pub fn busybox_hint(self) -> Option<&'static str> {
        self.row().no_busybox
    }

    /// Go's `GOARCH` for this architecture (`amd64`, `arm64`, `386`, `mips64le`, ...).
    pub fn goarch(self) -> &'static str {
        self.row().goarch
    }

    /// Further environment `go build` needs for this architecture (`GOARM=7`, `GO386=sse2`).
    pub fn goenv(self) -> &'static [(&'static str, &'static str)] {
        self.row().goenv
    }

    /// Parse an `--arches` entry: the GNU name or the Debian name
    /// (`x86_64`/`amd64`, `aarch64`/`arm64`, `arm`/`armhf`, `i386`/`i686`, ...).
    pub fn parse(s: &str) -> Option<Arch> {
        let s = s.to_ascii_lowercase();
        Arch::ALL.into_iter().find(|a| a.name() == s || a.debarch() == s).or(match s.as_str() {
            "i686" | "x86" => Some(Arch::I386),
            "armv7" | "arm32" => Some(Arch::Arm),
            _ => None,
        })
    }

    /// Position in [`Arch::ALL`], for per-arch tables.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The architecture of the machine running the benchmark, if it is one
    /// endgate emulates.
    pub fn host() -> Option<Arch> {
        match std::env::consts::ARCH {
            "x86_64" => Some(Arch::X86_64),
            "aarch64" => Some(Arch::Aarch64),
            "riscv64" => Some(Arch::Riscv64),
            "arm" => Some(Arch::Arm),
            "x86" => Some(Arch::I386),
            "s390x" => Some(Arch::S390x),
            "mips64" if cfg!(target_endian = "little") => Some(Arch::Mips64el),
            _ => None,
        }
    }
}

/// One of the benchmark workloads (one row group of the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Workload {
    /// A loop of `getppid` system calls: the cost of a guest syscall round trip.
    Getppid,
    /// A counted loop storing to a stack slot: the cost of translated guest stores.
    Store,
    /// gatebench: getppid through the raw trap instruction, ns per call as the guest timed it.
    NullTrap,
    /// gatebench: getppid through the vDSO's `__kernel_vsyscall` gate entry.
    NullGate,
    /// gatebench: clock_gettime(CLOCK_MONOTONIC) through the vDSO's clock_gettime symbol.
    ClockVdso,
    /// gatebench: clock_gettime(CLOCK_MONOTONIC) through the raw system call.
    ClockSyscall,
    /// `busybox sha256sum` of a large file: mostly translated compute plus `read`.
    Sha256,
    /// `busybox gzip -9 -c` of a large text file: compute-bound, output checked by gunzip.
    Gzip,
    /// The CoreMark-like C kernel `guests/compute.c` (list, matrix, state machine, CRC).
    Compute,
    /// `busybox find .` over a tree of small files: getdents64, fstatat, openat.
    Find,
    /// `busybox cat` of every small file of the tree: openat, read, write, close.
    Cat,
    /// Repeated `busybox true`: process start-up and exit, seconds per start.
    Startup,
    /// `guests/threads.c` with one thread: the base of the thread-scaling ratio.
    Threads1,
    /// `guests/threads.c` with as many threads as the host has cores, each doing the work
    /// of [`Workload::Threads1`]'s one: its time over that one is the thread-scaling ratio.
    ThreadsN,
    /// `guests/gotypes/main.go`: a Go program that parses and type-checks the standard
    /// library's `go/...` packages from source (go/parser, go/types with the source importer);
    /// whole-process wall time of one run.
    Gotypes,
    /// `guests/spawn.c`: N fork + execve (of itself, exiting at once) + waitpid in a row;
    /// (median full run - median 0-iteration run) / N per spawn.
    Spawn,
    /// `guests/yield.c`: T threads that each call `sched_yield` K times at once; whole-process
    /// wall time of one run (the cost of guest thread hand-offs when many threads wait).
    Yield,
    /// `guests/fileio.c`: T threads that each open, fstat, read and close a 4 KiB file K
    /// times at once; whole-process wall time of one run (descriptor calls of many threads).
    FileIo,
    /// `guests/mapgrow.c`: T threads spin while main grows a PROT_NONE reservation by K pages,
    /// one `mprotect` each; whole-process wall time of one run (address-space changes while
    /// other threads run).
    MapGrow,
    /// `guests/mapchurn.c`: T threads that each map 16 KiB, write a byte per page, mprotect it
    /// read-only, read the bytes back and unmap it, N times at once; whole-process wall time of
    /// one run (munmap and permission-lowering mprotect while other threads run).
    MapChurn,
}

impl Workload {
    /// All workloads, in report order.
    pub const ALL: [Workload; 20] = [
        Workload::Getppid,
        Workload::Store,
        Workload::NullTrap,
        Workload::NullGate,
        Workload::ClockVdso,
        Workload::ClockSyscall,
        Workload::Sha256,
        Workload::Gzip,
        Workload::Compute,
        Workload::Find,
        Workload::Cat,
        Workload::Startup,
        Workload::Threads1,
        Workload::ThreadsN,
        Workload::Gotypes,
        Workload::Spawn,
        Workload::Yield,
        Workload::FileIo,
        Workload::MapGrow,
        Workload::MapChurn,
    ];

    /// The four values one gatebench run reports, with the stderr field that carries each.
    pub const GATEBENCH: [(Workload, &'static str); 4] = [
        (Workload::NullTrap, "getppid_trap_ns"),
        (Workload::NullGate, "getppid_gate_ns"),
        (Workload::ClockVdso, "clock_gettime_vdso_ns"),
        (Workload::ClockSyscall, "clock_gettime_syscall_ns"),
    ];

    /// The CPU-bound workloads, whose peak RSS is compared.
    pub const CPU_BOUND: [Workload; 3] = [Workload::Sha256, Workload::Gzip, Workload::Compute];

    /// Short name, also accepted by `--only`.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Getppid => "getppid",
            Workload::Store => "store",
            Workload::NullTrap => "null_trap",
            Workload::NullGate => "null_gate",
            Workload::ClockVdso => "clock_vdso",
            Workload::ClockSyscall => "clock_syscall",
            Workload::Sha256 => "sha256sum",
            Workload::Gzip => "gzip",
            Workload::Compute => "compute",
            Workload::Find => "find",
            Workload::Cat => "cat",
            Workload::Startup => "startup",
            Workload::Threads1 => "threads1",
            Workload::ThreadsN => "threadsN",
            Workload::Gotypes => "gotypes",
            Workload::Spawn => "spawn",
            Workload::Yield => "yield",
            Workload::FileIo => "fileio",
            Workload::MapGrow => "mapgrow",
            Workload::MapChurn => "mapchurn",
        }
    }

    /// What one "operation" of the workload is, for the per-op column.
    pub fn unit(self) -> &'static str {
        match self {
            Workload::Getppid | Workload::NullTrap | Workload::NullGate => "syscall",
            Workload::ClockVdso | Workload::ClockSyscall => "call",
            Workload::Store | Workload::Compute | Workload::Threads1 | Workload::ThreadsN => "iter",
            Workload::Sha256 | Workload::Gzip => "byte",
            Workload::Find | Workload::Cat => "file",
            Workload::Startup => "start",
            Workload::Gotypes => "run",
            Workload::Spawn => "spawn",
            Workload::Yield => "yield",
            Workload::FileIo => "round",
            Workload::MapGrow => "page",
            Workload::MapChurn => "round",
        }
    }

    /// Whether the guest program itself reports the metric (gatebench's ns per call).
    pub fn is_gatebench(self) -> bool {
        Workload::GATEBENCH.iter().any(|(w, _)| *w == self)
    }

    /// Whether the guest is a busybox applet (rows named by the Debian arch).
    pub fn is_busybox(self) -> bool {
        matches!(self, Workload::Sha256 | Workload::Gzip | Workload::Find | Workload::Cat | Workload::Startup)
    }

    /// Parse a `--only` name; `gatebench` (all four gatebench values) and `cpu`
    /// (sha256sum, gzip, compute) name groups.
    pub fn parse(s: &str) -> Option<Vec<Workload>> {
        let one = match s {
            "getppid" => Workload::Getppid,
            "store" | "stores" => Workload::Store,
            "null_trap" | "trap" => Workload::NullTrap,
            "null_gate" | "gate" => Workload::NullGate,
            "clock_vdso" | "vdso" => Workload::ClockVdso,
            "clock_syscall" => Workload::ClockSyscall,
            "sha256sum" | "sha256" | "sha" => Workload::Sha256,
            "gzip" => Workload::Gzip,
            "compute" | "coremark" => Workload::Compute,
            "find" => Workload::Find,
            "cat" => Workload::Cat,
            "startup" | "true" => Workload::Startup,
            "threads1" => Workload::Threads1,
            "threadsN" | "threadsn" => Workload::ThreadsN,
            "gotypes" => Workload::Gotypes,
            "spawn" => Workload::Spawn,
            "yield" | "sched_yield" => Workload::Yield,
            "fileio" => Workload::FileIo,
            "mapgrow" => Workload::MapGrow,
            "mapchurn" => Workload::MapChurn,
            "gatebench" => return Some(Workload::GATEBENCH.iter().map(|(w, _)| *w).collect()),
            "cpu" => return Some(Workload::CPU_BOUND.to_vec()),
            "files" => return Some(vec![Workload::Find, Workload::Cat]),
            "threads" => return Some(vec![Workload::Threads1, Workload::ThreadsN]),
            _ => return None,
        };
        Some(vec![one])
    }

    /// Whether the metric is (full run - 0-iteration run) / size: the loop workloads
    /// (getppid, store) and spawn.
    pub fn has_zero_run(self) -> bool {
        matches!(self, Workload::Getppid | Workload::Store | Workload::Spawn)
    }

    /// The asm guest source stem for loop workloads (`None` for the others).
    pub fn guest_stem(self) -> Option<&'static str> {
        match self {
            Workload::Getppid => Some("getppid"),
            Workload::Store => Some("store"),
            _ => None,
        }
    }
}

/// Build the C guest `src` (`-static -O2`, with `include` on the include path) for `arch`
/// with `compiler` into `out_dir/<stem>_<arch>` and return the executable's path.
pub fn build_c_guest(
    arch: Arch,
    compiler: &Path,
    src: &Path,
    include: Option<&Path>,
    out_dir: &Path,
) -> Result<PathBuf, String> {
    let stem = src.file_stem().and_then(|s| s.to_str()).ok_or("bad guest source name")?;
    let out = out_dir.join(format!("{stem}_{}", arch.name()));
    std::fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let mut cmd = Command::new(compiler);
    cmd.args(["-static", "-O2", "-std=gnu11", "-o"]).arg(&out);
    if let Some(inc) = include {
        cmd.arg("-I").arg(inc);
    }
    let output = cmd.arg(src).output().map_err(|e| format!("cannot run {}: {e}", compiler.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed on {}: {}",
            compiler.display(),
            src.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(out)
}

/// The `go/...` packages the gotypes workload parses and type-checks in a full run: the
/// default list of `guests/gotypes/main.go`, passed explicitly so the report's command line
/// shows it.
pub const GOTYPES_PACKAGES: [&str; 10] = [
    "go/ast",
    "go/build",
    "go/constant",
    "go/doc",
    "go/format",
    "go/parser",
    "go/printer",
    "go/scanner",
    "go/token",
    "go/types",
];

/// The smaller package list of a `--quick` gotypes run.
pub const GOTYPES_QUICK_PACKAGES: [&str; 3] = ["go/token", "go/scanner", "go/ast"];

/// Build the Go guest `src` (one `main` package file) for `arch` with the host's `go`:
/// `CGO_ENABLED=0` (so static), `GOOS=linux`, the arch's `GOARCH` and extra environment
/// (`GOARM`, `GO386`), `GO111MODULE=off`, the build cache and GOPATH under `out_dir`. The
/// executable is `out_dir/<stem>_<arch>`, `<stem>` being the source's directory name.
pub fn build_go_guest(arch: Arch, go: &Path, src: &Path, out_dir: &Path) -> Result<PathBuf, String> {
    let stem = src.parent().and_then(Path::file_name).and_then(|s| s.to_str()).ok_or("bad Go guest source path")?;
    let out = out_dir.join(format!("{stem}_{}", arch.name()));
    std::fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let mut cmd = Command::new(go);
    cmd.args(["build", "-o"]).arg(&out).arg(src);
    for (k, v) in go_build_env(arch) {
        cmd.env(k, v);
    }
    cmd.env("GOCACHE", out_dir.join("gocache")).env("GOPATH", out_dir.join("gopath"));
    let output = cmd.output().map_err(|e| format!("cannot run {}: {e}", go.display()))?;
    if !output.status.success() {
        return Err(format!(
            "go build for GOARCH={} failed on {}: {}",
            arch.goarch(),
            src.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(out)
}

/// The environment of `go build` for `arch` (besides the cache directories).
pub fn go_build_env(arch: Arch) -> Vec<(&'static str, &'static str)> {
    let mut env = vec![("CGO_ENABLED", "0"), ("GOOS", "linux"), ("GOARCH", arch.goarch()), ("GO111MODULE", "off")];
    env.extend_from_slice(arch.goenv());
    env
}

/// What `guests/spawn.c` prints after `spawns` children ran and exited 0.
pub fn spawn_expected(spawns: u64) -> String {
    format!("spawned {spawns}\n")
}

/// What `guests/fileio.c` prints after `threads` threads read its file `rounds` times each.
pub fn fileio_expected(threads: u32, rounds: u64) -> String {
    format!("fileio {threads} x {rounds}\n")
}

/// What `guests/mapgrow.c` prints after growing its reservation by `pages` pages beside
/// `threads` spinning threads, every page keeping its byte.
pub fn mapgrow_expected(threads: u32, pages: u64) -> String {
    format!("mapgrow {threads} x {pages}\n")
}

/// What `guests/mapchurn.c` prints after `threads` threads each mapped, filled, write-protected,
/// checked and unmapped a 16 KiB block `rounds` times, every byte reading back as written.
pub fn mapchurn_expected(threads: u32, rounds: u64) -> String {
    format!("mapchurn {threads} x {rounds}\n")
}

/// What `guests/yield.c` prints after `threads` threads called `sched_yield` `yields` times each,
/// every call returning 0.
pub fn yield_expected(threads: u32, yields: u64) -> String {
    format!("yield {threads} x {yields}\n")
}

/// The last line of the gotypes output (`total N`), for the notes.
pub fn gotypes_total(stdout: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(stdout).ok()?;
    text.lines().last().filter(|l| l.starts_with("total "))
}

/// Words of the gzip input text, separated by spaces (a fixed list, so that the file is the
/// same on every run).
const WORDS: &str = "the of and to in is was that for on with as by at from his \
                     which or an be this are have not had were but it one all their there \
                     been has when who will more no if out so said what up its about into \
                     than them can only other new some could time these two may then do first any \
                     emulator guest syscall translation block register";

/// Write `bytes` bytes of deterministic English-like text (words of [`WORDS`] picked by
/// splitmix64 seeded with [`DATA_SEED`], spaces, a newline every 12 words) to `path` and
/// return their SHA-256 in lowercase hex. Text compresses like real files do, which makes
/// `gzip -9` do its full match search.
pub fn make_text_file(path: &Path, bytes: u64) -> io::Result<String> {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = SplitMix64(DATA_SEED ^ 0x7465_7874);
    let mut hasher = Sha256::new();
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut buf = Vec::with_capacity(1 << 16);
    let mut left = usize::try_from(bytes).expect("64-bit host");
    let mut count = 0u64;
    while left > 0 {
        buf.clear();
        while buf.len() < (1 << 16) {
            let r = rng.next();
            buf.extend_from_slice(
                words[usize::try_from(r % words.len() as u64).expect("below words.len()")].as_bytes(),
            );
            count += 1;
            buf.push(if count % 12 == 0 { b'\n' } else { b' ' });
        }
        let n = left.min(buf.len());
        hasher.update(&buf[..n]);
        w.write_all(&buf[..n])?;
        left -= n;
    }
    w.flush()?;
    Ok(hex(&hasher.finish()))
}

/// The small-file tree of the find and cat workloads.
pub struct FileTree {
    /// The tree's root directory.
    pub root: PathBuf,
    /// The files' paths relative to `root`, in creation order (what `cat` is given).
    pub files: Vec<String>,
    /// How many lines `find .` prints: the root, every directory and every file.
    pub find_lines: usize,
    /// SHA-256 (lowercase hex) of all files' contents concatenated in `files` order.
    pub cat_sha256: String,
}

/// Create `files` small files (64 to 1087 bytes of splitmix64 text each) in directories of
/// 100 under `root` (`d000/f0000`, ...) and describe them.
pub fn make_file_tree(root: &Path, files: usize) -> io::Result<FileTree> {
    let mut rng = SplitMix64(DATA_SEED ^ 0x6669_6c65);
    let mut hasher = Sha256::new();
    let mut names = Vec::with_capacity(files);
    let mut dirs = 0;
    for i in 0..files {
        if i % 100 == 0 {
            std::fs::create_dir_all(root.join(format!("d{:03}", i / 100)))?;
            dirs += 1;
        }
        let name = format!("d{:03}/f{i:04}", i / 100);
        let len = 64 + (rng.next() % 1024) as usize;
        let body: Vec<u8> = (0..len).map(|_| b"abcdefghijklmnopqrstuvwxyz \n"[(rng.next() % 28) as usize]).collect();
        std::fs::write(root.join(&name), &body)?;
        hasher.update(&body);
        names.push(name);
    }
    Ok(FileTree {
        root: root.to_path_buf(),
        files: names,
        find_lines: 1 + dirs + files,
        cat_sha256: hex(&hasher.finish()),
    })
}

/// Build the asm guest for `workload` on `arch` with `compiler` into `out_dir`
/// and return the path of the executable.
pub fn build_guest(
    workload: Workload,
    arch: Arch,
    compiler: &Path,
    src_dir: &Path,
    out_dir: &Path,
) -> Result<PathBuf, String> {
    let stem = workload.guest_stem().ok_or("workload has no asm guest")?;
    let src = src_dir.join(format!("{stem}_{}.S", arch.name()));
    let out = out_dir.join(format!("{stem}_{}", arch.name()));
    std::fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let output = Command::new(compiler)
        .args(["-nostdlib", "-static", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", compiler.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed on {}: {}",
            compiler.display(),
            src.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(out)
}

/// Seed of the input file's PRNG ("endgate" in ASCII).
pub const DATA_SEED: u64 = 0x0065_6e64_6761_7465;

/// splitmix64: a tiny, well-mixed, fully deterministic PRNG.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Write `bytes` bytes of deterministic pseudo-random data (splitmix64 seeded
/// with [`DATA_SEED`], little-endian words) to `path` and return their SHA-256
/// in lowercase hex.
pub fn make_data_file(path: &Path, bytes: u64) -> io::Result<String> {
    let mut rng = SplitMix64(DATA_SEED);
    let mut hasher = Sha256::new();
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut chunk = vec![0u8; 1 << 16];
    let mut left = bytes;
    while left > 0 {
        let n = usize::try_from(left.min(chunk.len() as u64)).expect("below chunk.len()");
        for word in chunk[..n].chunks_mut(8) {
            let v = rng.next().to_le_bytes();
            word.copy_from_slice(&v[..word.len()]);
        }
        hasher.update(&chunk[..n]);
        w.write_all(&chunk[..n])?;
        left -= n as u64;
    }
    w.flush()?;
    Ok(hex(&hasher.finish()))
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `bytes` in lowercase hex (what an output check compares).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(bytes);
    hex(&h.finish())
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
];

/// A plain SHA-256 (FIPS 180-4), used as the reference the guests' output is
/// checked against.
pub struct Sha256 {
    h: [u32; 8],
    buf: [u8; 64],
    buf_len: usize,
    total: u64,
}

impl Default for Sha256 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sha256 {
    /// A fresh hasher.
    pub fn new() -> Self {
        Sha256 {
            h: [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19],
            buf: [0; 64],
            buf_len: 0,
            total: 0,
        }
    }

    fn compress(h: &mut [u32; 8], block: &[u8]) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = *h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, v) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(v);
        }
    }

    /// Feed more data.
    pub fn update(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.buf_len > 0 {
            let take = (64 - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
            if self.buf_len < 64 {
                return;
            }
            let block = self.buf;
            Self::compress(&mut self.h, &block);
            self.buf_len = 0;
        }
        let mut blocks = data.chunks_exact(64);
        for block in &mut blocks {
            Self::compress(&mut self.h, block);
        }
        let rest = blocks.remainder();
        self.buf[..rest.len()].copy_from_slice(rest);
        self.buf_len = rest.len();
    }

    /// Finish and return the 32-byte digest.
    pub fn finish(mut self) -> [u8; 32] {
        let bits = self.total.wrapping_mul(8);
        let mut pad = vec![0x80u8];
        while (self.buf_len + pad.len()) % 64 != 56 {
            pad.push(0);
        }
        pad.extend_from_slice(&bits.to_be_bytes());
        let total = self.total;
        self.update(&pad);
        self.total = total;
        let mut out = [0u8; 32];
        for (i, v) in self.h.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&v.to_be_bytes());
        }
        out
    }
}

/// The hash in the first field of `sha256sum` output, if it looks like one.
pub fn parse_sha256sum_output(stdout: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stdout);
    let field = text.split_whitespace().next()?;
    (field.len() == 64 && field.bytes().all(|b| b.is_ascii_hexdigit())).then(|| field.to_ascii_lowercase())
}

/// What `guests/threads.c` prints for `threads` threads of `iters` rounds each: the XOR of each
/// thread's final xorshift64 state (its low 32 bits), as 8 hex digits and a newline.
pub fn threads_expected(threads: u32, iters: u64) -> String {
    let mut all = 0u32;
    for i in 0..threads {
        let mut x = u64::from(i).wrapping_add(0x9e37_79b9_7f4a_7c15);
        for _ in 0..iters {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        all ^= (x & 0xffff_ffff) as u32;
    }
    format!("{all:08x}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(data: &[u8]) -> String {
        let mut h = Sha256::new();
        h.update(data);
        hex(&h.finish())
    }

    #[test]
    fn sha256_vectors() {
        assert_eq!(sha(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(
            sha(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        let mut h = Sha256::new();
        for _ in 0..1000 {
            h.update(&[b'a'; 1000]);
        }
        assert_eq!(hex(&h.finish()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }

    #[test]
    fn arch_names() {
        for (i, a) in Arch::ALL.into_iter().enumerate() {
            assert_eq!(a.index(), i);
            assert_eq!(Arch::parse(a.name()), Some(a));
            assert_eq!(Arch::parse(a.debarch()), Some(a));
        }
        assert_eq!(Arch::parse("armhf"), Some(Arch::Arm));
        assert_eq!(Arch::parse("i686"), Some(Arch::I386));
        assert_eq!(Arch::parse("ppc64el"), None);
        // One variant per row of the arch table, in its order.
        let table: Vec<_> = guest_tests::arch::ARCHES.iter().map(|a| a.name).collect();
        assert_eq!(Arch::ALL.map(Arch::name).to_vec(), table);
    }

    #[test]
    fn parse_output() {
        let out = b"E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855  /tmp/x\n";
        assert_eq!(
            parse_sha256sum_output(out).as_deref(),
            Some("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        );
        assert_eq!(parse_sha256sum_output(b"sha256sum: can't open"), None);
    }

    #[test]
    fn new_workload_names() {
        for w in Workload::ALL {
            assert_eq!(Workload::parse(w.name()), Some(vec![w]), "{w:?}");
        }
        assert_eq!(Workload::Gotypes.unit(), "run");
        assert_eq!(Workload::Spawn.unit(), "spawn");
        assert!(Workload::Spawn.has_zero_run() && !Workload::Gotypes.has_zero_run());
        assert!(!Workload::Spawn.is_busybox() && Workload::Spawn.guest_stem().is_none());
    }

    #[test]
    fn spawn_output() {
        assert_eq!(spawn_expected(200), "spawned 200\n");
        // The guest prints exactly this line.
        let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("guests/spawn.c")).unwrap();
        assert!(src.contains(r#"printf("spawned %ld\n", n);"#));
    }

    #[test]
    fn fileio_output() {
        assert_eq!(Workload::parse("fileio"), Some(vec![Workload::FileIo]));
        assert_eq!(Workload::FileIo.unit(), "round");
        assert!(!Workload::FileIo.has_zero_run() && !Workload::FileIo.is_busybox());
        assert_eq!(fileio_expected(4, 10000), "fileio 4 x 10000\n");
        // The guest prints the line the harness expects.
        let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("guests/fileio.c")).unwrap();
        assert!(src.contains(r#"printf("fileio %d x %ld\n", n, rounds);"#));
    }

    #[test]
    fn mapgrow_output() {
        assert_eq!(Workload::parse("mapgrow"), Some(vec![Workload::MapGrow]));
        assert_eq!(Workload::MapGrow.unit(), "page");
        assert!(!Workload::MapGrow.has_zero_run() && !Workload::MapGrow.is_busybox());
        assert_eq!(mapgrow_expected(3, 2000), "mapgrow 3 x 2000\n");
        // The guest prints the line the harness expects.
        let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("guests/mapgrow.c")).unwrap();
        assert!(src.contains(r#"printf("mapgrow %d x %ld\n", n, pages);"#));
    }

    #[test]
    fn mapchurn_output() {
        assert_eq!(Workload::parse("mapchurn"), Some(vec![Workload::MapChurn]));
        assert_eq!(Workload::MapChurn.unit(), "round");
        assert!(!Workload::MapChurn.has_zero_run() && !Workload::MapChurn.is_busybox());
        assert_eq!(mapchurn_expected(4, 5000), "mapchurn 4 x 5000\n");
        // The guest prints the line the harness expects.
        let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("guests/mapchurn.c")).unwrap();
        assert!(src.contains(r#"printf("mapchurn %d x %ld\n", n, rounds);"#));
    }

    #[test]
    fn yield_output() {
        assert_eq!(Workload::parse("yield"), Some(vec![Workload::Yield]));
        assert_eq!(Workload::Yield.unit(), "yield");
        assert!(!Workload::Yield.has_zero_run() && !Workload::Yield.is_busybox());
        assert_eq!(yield_expected(32, 3000), "yield 32 x 3000\n");
        // The guest prints exactly this line.
        let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("guests/yield.c")).unwrap();
        assert!(src.contains(r#"printf("yield %d x %ld\n", n, iters);"#));
    }

    #[test]
    fn gotypes_packages_are_the_programs_default() {
        let src =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("guests/gotypes/main.go")).unwrap();
        let list = src.lines().find(|l| l.trim_start().starts_with("pkgs := []string{")).expect("default list");
        let quoted: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
        assert_eq!(quoted, GOTYPES_PACKAGES);
        assert!(GOTYPES_QUICK_PACKAGES.iter().all(|p| GOTYPES_PACKAGES.contains(p)));
        assert_eq!(gotypes_total(b"go/ast ast 146\ntotal 279\n"), Some("total 279"));
        assert_eq!(gotypes_total(b"parse: oops\n"), None);
    }

    #[test]
    fn go_env_per_arch() {
        let env = go_build_env(Arch::I386);
        assert!(env.contains(&("GOARCH", "386")) && env.contains(&("GO386", "sse2")));
        assert!(env.contains(&("CGO_ENABLED", "0")) && env.contains(&("GO111MODULE", "off")));
        assert!(go_build_env(Arch::Arm).contains(&("GOARM", "7")));
        assert!(go_build_env(Arch::Mips64el).contains(&("GOARCH", "mips64le")));
    }

    #[test]
    fn threads_expected_matches_the_guest_formula() {
        // One round of xorshift64 from the seed for thread 0, by hand.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert_eq!(threads_expected(1, 1), format!("{:08x}\n", x & 0xffff_ffff));
        assert_eq!(threads_expected(2, 0), format!("{:08x}\n", (0x7f4a_7c15u32) ^ (0x7f4a_7c16u32)));
    }
}
