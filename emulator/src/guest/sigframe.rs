//! Pieces every arch's signal frame shares: `siginfo_t`, the `uc_stack` member of
//! `ucontext`, and the frame's place on the stack. The arch-specific parts (register save
//! areas, trampolines) are in `arch/<name>/signal.rs`.

use crate::guard::Checked;
use syscalls::Errno;

use super::{Cpu, GuestArch};
use crate::abi::{bits64, int32, low32, u64_to_usize};
use crate::mm::{AddressSpace, GuestAddr};
use crate::signal::{AltStack, FrameRequest, SigFields, SigInfo, Signal, SS_DISABLE, SS_ONSTACK};

/// An arch's signal frames: the functions of its `arch/<name>/signal.rs` that
/// [`GuestArch::setup_frame`], [`GuestArch::restore_frame`] and [`GuestArch::sigtramp_code`]
/// are (the arch's data row, [`crate::guest::ArchInfo::frames`], names them).
#[derive(Clone, Copy)]
pub struct Frames {
    /// [`GuestArch::setup_frame`].
    pub setup_frame: fn(&mut Cpu<'_>, &FrameRequest) -> Result<(), Errno>,
    /// [`GuestArch::restore_frame`]: `true` for `rt_sigreturn`, `false` for `sigreturn`.
    pub restore_frame: fn(&mut Cpu<'_>, bool) -> Result<u64, Errno>,
    /// [`GuestArch::sigtramp_code`] (`None`: the arch's kernel brings no trampoline).
    pub sigtramp_code: Option<fn() -> Vec<u8>>,
}

/// Offset of the old `sigreturn` trampoline in the sigtramp page.
pub const SIGTRAMP_OLD: u64 = 0x40;

/// Maps the arch's signal-return trampolines ([`crate::guest::GuestArch::sigtramp_code`]) on a
/// read+exec page placed like the vDSO (top-down in the mmap area) and returns its address;
/// 0 when the arch needs none. Errors: `ENOMEM`.
pub fn map_sigtramp(mm: &mut AddressSpace, arch: &dyn GuestArch) -> Result<u64, Errno> {
    let Some(code) = arch.sigtramp_code() else { return Ok(0) };
    let page = crate::mm::PAGE_SIZE;
    let addr = mm.find_free(page).ok_or(Errno::ENOMEM)?;
    mm.map_anon(addr, page, crate::mm::Prot::READ | crate::mm::Prot::EXEC, crate::mm::VmaName::Gate("[sigpage]"))?;
    mm.poke_bytes(GuestAddr::new(addr), &code)?;
    Ok(addr)
}

/// Size of `siginfo_t` in bytes on every arch (`SI_MAX_SIZE`).
pub const SIGINFO_SIZE: u64 = 128;

/// Offsets in the `struct rt_sigframe` of the arches whose kernel uses asm-generic's `struct
/// ucontext` (include/uapi/asm-generic/ucontext.h; aarch64, riscv64): `siginfo_t` at 0, then
/// the ucontext: `uc_flags`, `uc_link`, `uc_stack` (24), `uc_sigmask` (8) and 120 bytes
/// reserved for a larger `sigset_t`, then `uc_mcontext` at the next 16-byte boundary.
pub mod generic_rt {
    use super::SIGINFO_SIZE;
    /// Offset of `struct ucontext` in the frame.
    pub const UC: u64 = SIGINFO_SIZE;
    /// Offset of `uc_stack` in the frame.
    pub const UC_STACK: u64 = UC + 16;
    /// Offset of `uc_sigmask` in the frame.
    pub const UC_SIGMASK: u64 = UC + 40;
    /// Offset of `uc_mcontext` (the arch's `struct sigcontext`) in the frame.
    pub const UC_MCONTEXT: u64 = UC + 176;
}

/// Offsets in the `struct ucontext` of the arches whose uapi headers declare their own (arm,
/// i386, MIPS, s390x, x86_64; asm-generic's, [`generic_rt`], puts `uc_sigmask` first):
/// `uc_flags` and `uc_link`, a `long` each, then `uc_stack` (three `long`s' worth of
/// `stack_t`) and right after it `uc_mcontext`, the arch's `struct sigcontext`; what follows is
/// each arch's own. `long` is the guest's `long` in bytes.
pub mod own_ucontext {
    /// Offset of `uc_stack`.
    pub const fn stack(long: u64) -> u64 {
        2 * long
    }
    /// Offset of `uc_mcontext`.
    pub const fn mcontext(long: u64) -> u64 {
        5 * long
    }
}

/// Where the members of the guest's `siginfo_t` are (include/uapi/asm-generic/siginfo.h): the
/// three ints `si_signo`, `si_errno`, `si_code` (MIPS puts `si_code` before `si_errno`), then
/// the union at the first `long`-aligned offset after them: 16 on LP64, 12 on ILP32. Inside
/// the union, `_rt`/`_timer` have their `sigval` and `_sigchld` its clock times at the next
/// `long`-aligned offset after two or three ints. Every reader and writer of a guest
/// `siginfo_t` goes through this one description.
struct SiginfoLayout {
    errno: u64,
    code: u64,
    union: u64,
    long: u64,
}

impl SiginfoLayout {
    fn of(mm: &AddressSpace, arch: &dyn GuestArch) -> SiginfoLayout {
        let long = mm.long_bytes();
        let (errno, code) = if arch.info().siginfo_code_first { (8, 4) } else { (4, 8) };
        SiginfoLayout { errno, code, union: 12u64.next_multiple_of(long), long }
    }
    /// Offset in the union of the member after `ints` leading ints (`sigval`, `si_utime`).
    fn after_ints(&self, ints: u64) -> u64 {
        self.union + (4 * ints).next_multiple_of(self.long)
    }
}

/// Writes `info` as the guest's `siginfo_t` at `addr` ([`SiginfoLayout`]; MIPS numbers some
/// codes differently). Signal numbers (the signal itself, a child's killing or stopping
/// signal) are converted to the guest's numbering. Errors: `EFAULT`.
pub fn write_siginfo(
    mm: &mut AddressSpace,
    arch: &dyn GuestArch,
    addr: GuestAddr,
    info: &SigInfo,
) -> Result<(), Errno> {
    mm.write_bytes(addr, &[0u8; u64_to_usize(SIGINFO_SIZE)])?;
    let at = SiginfoLayout::of(mm, arch);
    let signo = low32((arch.info().signal_from_host)(info.signo));
    mm.write_u32(addr, signo)?;
    let code = (arch.info().si_code_from_host)(info.code);
    mm.write_i32(addr + at.code, code)?;
    mm.write_i32(addr + at.errno, info.errno)?;
    let long = at.long;
    let u = addr + at.union;
    match info.fields {
        SigFields::Kill { pid, uid } => {
            mm.write_i32(u, pid)?;
            mm.write_u32(u + 4, uid)?;
        }
        SigFields::Rt { pid, uid, value } => {
            mm.write_i32(u, pid)?;
            mm.write_u32(u + 4, uid)?;
            mm.write_ulong(addr + at.after_ints(2), value)?;
        }
        SigFields::Timer { tid, overrun, value } => {
            mm.write_i32(u, tid)?;
            mm.write_i32(u + 4, overrun)?;
            mm.write_ulong(addr + at.after_ints(2), value)?;
        }
        SigFields::Chld { pid, uid, status, utime, stime } => {
            // `si_status` is a signal number for every code but CLD_EXITED (1), whose status
            // is the exit code (kernel/signal.c do_notify_parent, wait_task_continued).
            let status = if (2..=6).contains(&info.code) {
                int32((arch.info().signal_from_host)(Signal(low32(status))))
            } else {
                status
            };
            mm.write_i32(u, pid)?;
            mm.write_u32(u + 4, uid)?;
            mm.write_i32(u + 8, status)?;
            let t = addr + at.after_ints(3);
            mm.write_ulong(t, bits64(utime))?;
            mm.write_ulong(t + long, bits64(stime))?;
        }
        SigFields::Fault { addr: a } => mm.write_ulong(u, a)?,
        SigFields::Poll { band, fd } => {
            mm.write_ulong(u, bits64(band))?;
            mm.write_i32(u + long, fd)?;
        }
        SigFields::Sys { call_addr, syscall, arch } => {
            mm.write_ulong(u, call_addr)?;
            mm.write_u32(u + long, u32::from_ne_bytes(syscall.to_ne_bytes()))?;
            mm.write_u32(u + long + 4, arch)?;
        }
    }
    Ok(())
}

/// Reads the guest `siginfo_t` a caller queues (`rt_sigqueueinfo`): `si_errno`, `si_code`
/// (host-numbered) and the `_rt` member `si_pid`, `si_uid`, `si_value`, as
/// [`write_siginfo`] lays them out. Errors: `EFAULT`.
pub fn read_siginfo_rt(
    mm: &AddressSpace,
    arch: &dyn GuestArch,
    addr: GuestAddr,
) -> Result<(i32, i32, u32, u32, u64), Errno> {
    let at = SiginfoLayout::of(mm, arch);
    let errno = mm.read_i32(addr + at.errno)?;
    let code = (arch.info().si_code_to_host)(mm.read_i32(addr + at.code)?);
    let (pid, uid) = (mm.read_u32(addr + at.union)?, mm.read_u32(addr + at.union + 4)?);
    let value = mm.read_ulong(addr + at.after_ints(2))?;
    Ok((errno, code, pid, uid, value))
}

/// A guest `stack_t` (`sigaltstack`, a frame's `uc_stack`): `{void *ss_sp; int ss_flags;
/// size_t ss_size}` (include/uapi/asm-generic/signal.h), `{ss_sp, ss_size, ss_flags}` on MIPS
/// (arch/mips/include/uapi/asm/signal.h); three `long`s' room either way. Returns `(sp,
/// flags, size)`. Errors: `EFAULT`.
pub fn read_stack_t(mm: &AddressSpace, arch: &dyn GuestArch, addr: GuestAddr) -> Result<(u64, u32, u64), Errno> {
    let long = mm.long_bytes();
    let sp = mm.read_ulong(addr)?;
    if arch.info().stack_t_size_first {
        Ok((sp, mm.read_u32(addr + 2 * long)?, mm.read_ulong(addr + long)?))
    } else {
        Ok((sp, mm.read_u32(addr + long)?, mm.read_ulong(addr + 2 * long)?))
    }
}

/// Writes a guest `stack_t` ([`read_stack_t`]'s layout), its padding zeroed. Errors: `EFAULT`.
pub fn write_stack_t(
    mm: &mut AddressSpace,
    arch: &dyn GuestArch,
    addr: GuestAddr,
    (sp, flags, size): (u64, u32, u64),
) -> Result<(), Errno> {
    let long = mm.long_bytes();
    mm.write_bytes(addr, &[0u8; 24][..u64_to_usize(3 * long)])?;
    mm.write_ulong(addr, sp)?;
    if arch.info().stack_t_size_first {
        mm.write_ulong(addr + long, size)?;
        mm.write_u32(addr + 2 * long, flags)
    } else {
        mm.write_u32(addr + long, flags)?;
        mm.write_ulong(addr + 2 * long, size)
    }
}

/// Size in bytes of the guest's `stack_t` (3 longs' room: 24 on LP64, 12 on ILP32).
pub fn stack_t_size(mm: &AddressSpace) -> u64 {
    3 * mm.long_bytes()
}

/// Writes the `uc_stack` member of a signal frame: the thread's alternate stack, with
/// `SS_ONSTACK` when `sp` (the stack pointer the handler starts with) is on it
/// ([`write_stack_t`]). Errors: `EFAULT`.
pub fn write_uc_stack(
    mm: &mut AddressSpace,
    arch: &dyn GuestArch,
    addr: GuestAddr,
    st: &AltStack,
    sp: u64,
) -> Result<(), Errno> {
    let flags = if st.flags & SS_DISABLE != 0 {
        SS_DISABLE
    } else if st.contains(sp) {
        SS_ONSTACK
    } else {
        0
    };
    write_stack_t(mm, arch, addr, (st.sp, flags, st.size))
}

/// Reads a frame's `uc_stack` back as the alternate stack `rt_sigreturn` restores (the
/// kernel's `restore_altstack`); `None` when it is not readable or not a valid setting (the
/// kernel then keeps the current one).
pub fn read_uc_stack(mm: &AddressSpace, arch: &dyn GuestArch, addr: GuestAddr) -> Option<AltStack> {
    let (sp, flags, size) = read_stack_t(mm, arch, addr).ok()?;
    let flags = flags & !SS_ONSTACK;
    (flags & !(SS_DISABLE | (1 << 31)) == 0).then_some(AltStack { sp, flags, size })
}

/// A register's value (a refusal is an internal error: [`crate::guard::Checked`]).
#[inline]
#[track_caller]
pub fn reg(cpu: &Cpu<'_>, r: impl Into<i32> + Copy) -> u64 {
    cpu.reg(r)
}

/// Stores `v` little-endian at `off` in a frame image being built (`buf`; arches of that byte
/// order build their frame in a buffer and write it in one piece).
pub fn put_u32(buf: &mut [u8], off: u64, v: u32) {
    buf[u64_to_usize(off)..u64_to_usize(off) + 4].copy_from_slice(&v.to_le_bytes());
}

/// Stores `v` little-endian at `off` in a frame image ([`put_u32`]).
pub fn put_u64(buf: &mut [u8], off: u64, v: u64) {
    buf[u64_to_usize(off)..u64_to_usize(off) + 8].copy_from_slice(&v.to_le_bytes());
}

/// The little-endian `u32` at `off` in a frame image read back.
pub fn get_u32(buf: &[u8], off: u64) -> u32 {
    let o = u64_to_usize(off);
    u32::from_le_bytes([buf[o], buf[o + 1], buf[o + 2], buf[o + 3]])
}

/// The little-endian `u64` at `off` in a frame image read back.
pub fn get_u64(buf: &[u8], off: u64) -> u64 {
    let o = u64_to_usize(off);
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[o..o + 8]);
    u64::from_le_bytes(b)
}

/// Writes a [`generic_rt`] frame at `frame` (aarch64, riscv64): the arch's image `buf` (its
/// `uc_mcontext` filled, the rest zero), then over it `siginfo_t`, `uc_stack` (the alternate
/// stack as seen from `sp`, the interrupted stack pointer) and `uc_sigmask`. `len` bytes from
/// `frame` must be writable (the frame and what the arch puts above it). Errors: `EFAULT`.
pub fn write_generic_rt(
    cpu: &mut Cpu<'_>,
    req: &FrameRequest,
    (frame, len): (GuestAddr, u64),
    buf: &[u8],
    sp: u64,
) -> Result<(), Errno> {
    let t = cpu.get_data_mut();
    let (arch, mm) = (t.arch, &mut t.mm);
    mm.check_writable(frame, len)?;
    mm.write_bytes(frame, buf)?;
    write_siginfo(mm, arch, frame, &req.info)?;
    write_uc_stack(mm, arch, frame + generic_rt::UC_STACK, &req.altstack, sp)?;
    arch.write_sigset(mm, frame + generic_rt::UC_SIGMASK, req.old_mask)
}

/// What every `rt_sigreturn` does besides the registers: reads the saved mask (the frame's
/// `uc_sigmask` at `sigmask`, host-numbered) and puts back the alternate stack from its
/// `uc_stack` at `uc_stack` ([`read_uc_stack`]). Errors: `EFAULT` (unreadable mask).
pub fn restore_mask_and_altstack(cpu: &mut Cpu<'_>, sigmask: GuestAddr, uc_stack: GuestAddr) -> Result<u64, Errno> {
    let t = cpu.get_data_mut();
    let mask = t.arch.read_sigset(&t.mm, sigmask)?;
    if let Some(st) = read_uc_stack(&t.mm, t.arch, uc_stack) {
        t.sig.altstack = st;
    }
    Ok(mask)
}

/// Rounds `sp` down to a multiple of `align` (a power of two).
#[inline]
pub fn align_down(sp: u64, align: u64) -> u64 {
    sp & !(align - 1)
}
