//! The static POWER test programs (ppc64 and ppc64le, built with Debian's cross gcc from the
//! crate's own shims) under qemu-user. Expected: qemu-user implements none of the switches
//! (linux-user/ppc/cpu_loop.c sends every `sc` to do_syscall, which has no 0x1ebe or
//! switch_endian case, and do_prctl refuses PR_GET/SET_ENDIAN with EINVAL), so the whole chain
//! runs and software byteswap is chosen.

use host_shims::lab::{self, PpcTarget};
use std::path::Path;

const ENOSYS: i32 = 38; // include/uapi/asm-generic/errno.h
const EINVAL: i32 = 22; // include/uapi/asm-generic/errno-base.h

fn check(target: PpcTarget) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ppc-user");
    let prog = lab::build_test_program(target, &out).unwrap_or_else(|e| panic!("build: {e}"));
    let r = lab::run_user(target, &prog, 1000).unwrap_or_else(|e| panic!("run: {e}"));
    assert_eq!(r.arch, target.arch_name(), "{r:#?}");
    assert_eq!(r.probe_errno("fast"), Some(ENOSYS), "{r:#?}");
    assert_eq!(r.probe_errno("switch_endian"), Some(ENOSYS), "{r:#?}");
    assert_eq!(r.probe_errno("prctl_get"), Some(EINVAL), "{r:#?}");
    assert_eq!(r.probe_errno("prctl_set"), Some(EINVAL), "{r:#?}");
    assert_eq!(r.chosen.as_deref(), Some("software"), "{r:#?}");
    assert_eq!(r.pattern, None, "no switch, so no pattern run: {r:#?}");
    assert!(r.blocks.is_empty(), "{r:#?}");
    for s in ["fast", "switch_endian", "prctl"] {
        assert!(r.timing(s).is_none(), "{s} timed without a switch: {r:#?}");
    }
    assert!(r.timing("bswap_4k").is_some(), "{r:#?}");
    assert!(r.ended, "{r:#?}");
}

#[test]
fn ppc64_big_endian_under_qemu_user_chooses_software() {
    check(PpcTarget::Ppc64);
}

#[test]
fn ppc64le_under_qemu_user_chooses_software() {
    check(PpcTarget::Ppc64le);
}
