//! `endian-bench`: what a byte-order mismatch costs, per strategy.
//!
//! - Software byteswap on this (x86_64) host: byte-swapping a 4 KiB buffer (as 512 u64 and as
//!   1024 u32) next to copying it unchanged, and converting a host `struct stat` into a
//!   big-endian ppc64 guest `struct stat` field by field (what endgate's stat handlers do for a
//!   big-endian guest), next to the same conversion without swapping. Timed with
//!   `Instant` over many iterations (ns per operation) and with the host counter
//!   (`host_shims::counter`, rdtsc ticks).
//! - The POWER switch strategies, from a real ppc64el kernel under qemu-system-ppc64
//!   (`host_shims::lab`, the same run as host-shims' real-kernel test): ns per round trip
//!   (two switches) and relative to a null system call (getppid) in the same run. TCG time is
//!   not POWER time, so only the ratios mean something.
//!
//! ```text
//! cargo run --release -p endgate-benches --bin endian-bench -- [--no-kernel] [--out benches/results]
//! ```
//! Writes `<out>/endian.md`.

use host_shims::lab::{self, PpcTarget};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// A ppc64 guest's `struct stat` (arch/powerpc/include/uapi/asm/stat.h, `__powerpc64__`),
/// stored big-endian: 144 bytes.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct GuestStatPpc64 {
    st_dev: u64,
    st_ino: u64,
    st_nlink: u64,
    st_mode: u32,
    st_uid: u32,
    st_gid: u32,
    pad: u32,
    st_rdev: u64,
    st_size: i64,
    st_blksize: u64,
    st_blocks: u64,
    st_atime: u64,
    st_atime_nsec: u64,
    st_mtime: u64,
    st_mtime_nsec: u64,
    st_ctime: u64,
    st_ctime_nsec: u64,
    unused: [u64; 3],
}

/// Converts a host stat to the guest layout; `swap` selects big-endian (a swap per field on
/// this little-endian host) or native order. Casts follow the uapi field widths.
#[inline(never)]
#[allow(clippy::cast_sign_loss)] // the uapi fields are unsigned: the host's bits as they are
fn to_guest_stat(s: &libc::stat, swap: bool) -> GuestStatPpc64 {
    macro_rules! e {
        ($v:expr) => {
            if swap {
                $v.swap_bytes()
            } else {
                $v
            }
        };
    }
    GuestStatPpc64 {
        st_dev: e!(s.st_dev),
        st_ino: e!(s.st_ino),
        st_nlink: e!(s.st_nlink),
        st_mode: e!(s.st_mode),
        st_uid: e!(s.st_uid),
        st_gid: e!(s.st_gid),
        pad: 0,
        st_rdev: e!(s.st_rdev),
        st_size: e!(s.st_size),
        st_blksize: e!(s.st_blksize as u64),
        st_blocks: e!(s.st_blocks as u64),
        st_atime: e!(s.st_atime as u64),
        st_atime_nsec: e!(s.st_atime_nsec as u64),
        st_mtime: e!(s.st_mtime as u64),
        st_mtime_nsec: e!(s.st_mtime_nsec as u64),
        st_ctime: e!(s.st_ctime as u64),
        st_ctime_nsec: e!(s.st_ctime_nsec as u64),
        unused: [0; 3],
    }
}

#[inline(never)]
fn swap_u64(dst: &mut [u64; 512], src: &[u64; 512]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.swap_bytes();
    }
}

#[inline(never)]
fn swap_u32(dst: &mut [u32; 1024], src: &[u32; 1024]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.swap_bytes();
    }
}

#[inline(never)]
fn copy_u64(dst: &mut [u64; 512], src: &[u64; 512]) {
    dst.copy_from_slice(src);
}

/// One measured row: ns and counter ticks per operation (median of 5 runs of `iters`).
struct Cost {
    what: &'static str,
    ns: f64,
    ticks: f64,
}

fn measure(what: &'static str, iters: u64, mut f: impl FnMut()) -> Cost {
    for _ in 0..iters / 10 {
        f();
    }
    let mut runs: Vec<(f64, f64)> = (0..5)
        .map(|_| {
            let (t0, c0) = (Instant::now(), host_shims::counter());
            for _ in 0..iters {
                f();
            }
            let (c1, t1) = (host_shims::counter(), Instant::now());
            let n = iters as f64;
            ((t1 - t0).as_nanos() as f64 / n, c1.wrapping_sub(c0) as f64 / n)
        })
        .collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (ns, ticks) = runs[runs.len() / 2];
    Cost { what, ns, ticks }
}

fn software_costs() -> Vec<Cost> {
    let src64: Box<[u64; 512]> = Box::new(std::array::from_fn(|i| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    let src32: Box<[u32; 1024]> =
        Box::new(std::array::from_fn(|i| u32::try_from(i).expect("i < 1024").wrapping_mul(0x9e37_79b9)));
    let mut d64 = Box::new([0u64; 512]);
    let mut d32 = Box::new([0u32; 1024]);
    // SAFETY: stat on "/" into a zeroed, correctly sized struct.
    let st = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::stat(c"/".as_ptr(), &mut st);
        st
    };
    vec![
        measure("copy 4 KiB, no swap (reference)", 200_000, || copy_u64(black_box(&mut d64), black_box(&src64))),
        measure("byteswap 4 KiB as 512 x u64", 200_000, || swap_u64(black_box(&mut d64), black_box(&src64))),
        measure("byteswap 4 KiB as 1024 x u32", 200_000, || swap_u32(black_box(&mut d32), black_box(&src32))),
        measure("struct stat -> ppc64 guest, native order (reference)", 5_000_000, || {
            black_box(to_guest_stat(black_box(&st), false));
        }),
        measure("struct stat -> ppc64 guest, byte-swapped (big-endian guest)", 5_000_000, || {
            black_box(to_guest_stat(black_box(&st), true));
        }),
    ]
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("model name").map(|v| v.trim_start_matches([' ', '\t', ':']).to_string()))
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn kernel_run(target_dir: &Path) -> Result<lab::Report, String> {
    let out = target_dir.join("endian-bench");
    let prog = lab::build_test_program(PpcTarget::Ppc64le, &out).map_err(|e| e.to_string())?;
    let initrd = out.join("initramfs.cpio");
    lab::write_initramfs(&prog, &initrd).map_err(|e| e.to_string())?;
    let (r, _) =
        lab::boot_kernel(&lab::kernel_path(), &initrd, 200_000, Duration::from_secs(300)).map_err(|e| e.to_string())?;
    if !r.ended {
        return Err(format!("the test program did not finish: {r:?}"));
    }
    Ok(r)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = root.join("benches/results");
    let mut kernel = true;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--no-kernel" => kernel = false,
            "--out" => match it.next() {
                Some(d) => out = PathBuf::from(d),
                None => return usage(),
            },
            _ => return usage(),
        }
    }
    let mut md = String::new();
    md.push_str("# Byte-order costs\n\n");
    md.push_str(&format!(
        "Written by `cargo run --release -p endgate-benches --bin endian-bench`. Host: {} ({}), {}-endian; \
         probe chose: {}; counter: {}{}.\n\n",
        cpu_model(),
        std::env::consts::ARCH,
        host_shims::host_endian(),
        host_shims::probe(),
        host_shims::counter_name(),
        host_shims::counter_hz().map_or(" (frequency not reported)".to_string(), |hz| format!(" at {hz} Hz")),
    ));
    md.push_str(
        "## Software byteswap on this host (median of 5 runs)\n\n| operation | ns | counter ticks |\n|---|---:|---:|\n",
    );
    for c in software_costs() {
        md.push_str(&format!("| {} | {:.1} | {:.1} |\n", c.what, c.ns, c.ticks));
    }
    let mut failed = false;
    if kernel {
        md.push_str(
            "\n## POWER switch strategies: Debian ppc64el kernel under qemu-system-ppc64 (TCG)\n\n\
             One round trip = switch to the other byte order and back (two system calls). TCG \
             time is not POWER time: compare the ratios, not the nanoseconds.\n\n",
        );
        match kernel_run(&root.join("target")) {
            Ok(r) => {
                let base = r.timing("getppid").map(|t| t.ns);
                md.push_str(&format!(
                    "Probe: fast 0x1ebe: {}; switch_endian: {}; prctl(PR_SET_ENDIAN): {}; chosen: {}.\n\n",
                    r.probe("fast").unwrap_or("?"),
                    r.probe("switch_endian").unwrap_or("?"),
                    r.probe("prctl_set").unwrap_or("?"),
                    r.chosen.as_deref().unwrap_or("?")
                ));
                md.push_str("| per iteration | iterations | time-base ticks (512 MHz) | ns (TCG) | / getppid |\n|---|---:|---:|---:|---:|\n");
                for t in &r.timings {
                    match (t.iters, base) {
                        (Some(n), Some(b)) => md.push_str(&format!(
                            "| {} | {} | {:.1} | {:.1} | {:.2}x |\n",
                            label(&t.name),
                            n,
                            t.ticks as f64 / n as f64,
                            t.ns,
                            t.ns / b
                        )),
                        _ => md.push_str(&format!("| {} | - | unavailable | unavailable | - |\n", label(&t.name))),
                    }
                }
            }
            Err(e) => {
                md.push_str(&format!("FAILED: {e}\n"));
                failed = true;
            }
        }
    }
    print!("{md}");
    if let Err(e) = std::fs::create_dir_all(&out).and_then(|()| std::fs::write(out.join("endian.md"), &md)) {
        eprintln!("endian-bench: cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn label(name: &str) -> String {
    match name {
        "fast" => "fast switch 0x1ebe, round trip".into(),
        "switch_endian" => "switch_endian, round trip".into(),
        "prctl" => "prctl(PR_SET_ENDIAN), round trip".into(),
        "getppid" => "getppid (null syscall)".into(),
        "bswap_4k" => "software byteswap 4 KiB (u32)".into(),
        other => other.into(),
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: endian-bench [--no-kernel] [--out DIR]");
    ExitCode::from(2)
}
