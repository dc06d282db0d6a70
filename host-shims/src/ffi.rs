//! Declarations of the C/asm shims (`csrc/shims.h`, `csrc/ppc64.S`), built by `build.rs`.

/// `struct endgate_probe` (csrc/shims.h): each field is 0 (works), an errno (> 0), -1 (the call
/// succeeded without switching) or -2 (not tried on this architecture).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RawProbe {
    pub fast: i32,
    pub switch_endian: i32,
    pub prctl_get: i32,
    pub prctl_set: i32,
    pub prctl_mode: u32,
    pub chosen: i32,
}

extern "C" {
    /// `endgate_probe_chain`: runs every probe; safe on every kernel.
    pub(crate) fn endgate_probe_chain(out: *mut RawProbe);
    /// `endgate_counter`: rdtsc / cntvct_el0 / mftb, 0 elsewhere.
    pub(crate) fn endgate_counter() -> u64;
    /// `endgate_counter_hz`: the counter's reported frequency in Hz, 0 when not reported.
    pub(crate) fn endgate_counter_hz() -> u64;
}

#[cfg(target_arch = "powerpc64")]
extern "C" {
    /// ppc64.S: `n` round trips through sc 0x1ebe.
    pub(crate) fn endgate_ppc_fast_round_trips(n: u64) -> core::ffi::c_long;
    /// ppc64.S: `n` round trips through switch_endian.
    pub(crate) fn endgate_ppc_switch_endian_round_trips(n: u64) -> core::ffi::c_long;
    /// ppc64.S: `n` round trips through prctl(PR_SET_ENDIAN).
    pub(crate) fn endgate_ppc_prctl_round_trips(n: u64) -> core::ffi::c_long;
    /// ppc64.S: call byte-reversed `code` in the other byte order with r3 = `*inout`.
    pub(crate) fn endgate_ppc_run_other_endian(
        strategy: core::ffi::c_long,
        code: *const u32,
        inout: *mut u64,
    ) -> core::ffi::c_long;
}
