//! The real-kernel test: Debian's ppc64el kernel (scripts/fetch-ppc-kernel.sh) boots in
//! `qemu-system-ppc64 -M pseries` (TCG, which honours MSR[LE] changes made by the kernel) with
//! an initramfs whose /init is the static ppc64le test program. Takes about 15-30 s.
//!
//! Expected results come from the kernel, not from our output:
//! - 0x1ebe: ENOSYS, because the kernel's own build configuration (the package's
//!   boot/config-*) leaves CONFIG_PPC_FAST_ENDIAN_SWITCH unset (default N since 2017);
//! - switch_endian works (64-bit task, arch/powerpc/kernel/syscalls.c) and keeps r3;
//! - PR_GET_ENDIAN reports PR_ENDIAN_LITTLE (1) for a little-endian process and PR_SET_ENDIAN
//!   works (POWER9 has CPU_FTR_REAL_LE; arch/powerpc/kernel/process.c set_endian);
//! - so switch_endian is chosen; the register pattern holds in both byte orders; a word loaded
//!   in the other byte order is the byte-swapped stored word.

use host_shims::lab::{self, PpcTarget};
use std::path::Path;
use std::time::Duration;

const ENOSYS: i32 = 38;

#[test]
fn ppc64el_kernel_chooses_switch_endian_and_times_the_switches() {
    let kernel = lab::kernel_path();
    let config = kernel.with_file_name("config");
    let config = std::fs::read_to_string(&config).unwrap_or_else(|e| {
        panic!("{}: {e}; run scripts/fetch-ppc-kernel.sh (the kernel package's boot/config-*)", config.display())
    });
    let fast_built = config.lines().any(|l| l == "CONFIG_PPC_FAST_ENDIAN_SWITCH=y");

    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ppc-kernel");
    let prog = lab::build_test_program(PpcTarget::Ppc64le, &out).unwrap_or_else(|e| panic!("build: {e}"));
    let initrd = out.join("initramfs.cpio");
    lab::write_initramfs(&prog, &initrd).unwrap_or_else(|e| panic!("initramfs: {e}"));
    let (r, log) =
        lab::boot_kernel(&kernel, &initrd, 100_000, Duration::from_secs(300)).unwrap_or_else(|e| panic!("boot: {e}"));
    std::fs::write(out.join("console.log"), &log).ok();
    let ctx = format!("{r:#?}\n--- console (end) ---\n{}", &log[log.len().saturating_sub(3000)..]);

    assert!(r.ended, "the program did not finish: {ctx}");
    assert_eq!(r.arch, "ppc64le", "{ctx}");
    if fast_built {
        assert_eq!(r.probe("fast"), Some("works"), "{ctx}");
    } else {
        assert_eq!(r.probe_errno("fast"), Some(ENOSYS), "{ctx}");
    }
    assert_eq!(r.probe("switch_endian"), Some("works"), "{ctx}");
    assert_eq!(r.probe("prctl_get"), Some("works"), "{ctx}");
    assert_eq!(r.prctl_mode, Some(1), "PR_ENDIAN_LITTLE: {ctx}");
    assert_eq!(r.probe("prctl_set"), Some("works"), "{ctx}");
    let expected = if fast_built { "fast" } else { "switch_endian" };
    assert_eq!(r.chosen.as_deref(), Some(expected), "{ctx}");
    // Both passes of the register check: r3-r8, r13-r31, LR, CR2-4 intact (0 = no mismatch).
    assert_eq!(r.pattern, Some((0, 0)), "{ctx}");
    for b in &r.blocks {
        assert_eq!((b.rc, b.result), (0, b.arg.swap_bytes()), "block {b:?}: {ctx}");
    }
    assert!(r.blocks.iter().any(|b| b.strategy == "switch_endian"), "{ctx}");
    assert!(r.blocks.iter().any(|b| b.strategy == "prctl"), "{ctx}");
    assert_eq!(r.timebase_hz, Some(512_000_000), "pseries time base: {ctx}");
    for name in ["switch_endian", "prctl", "getppid", "bswap_4k"] {
        let t = r.timing(name).unwrap_or_else(|| panic!("{name} not timed: {ctx}"));
        assert!(t.ticks > 0 && t.ns > 0.0, "{t:?}: {ctx}");
    }
    assert!(r.table.contains("| switch_endian |"), "{ctx}");
    println!("{}", r.table);
}
