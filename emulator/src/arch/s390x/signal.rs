//! s390x signal frames: `struct sigframe` (handlers without `SA_SIGINFO`, left by `sigreturn`)
//! and `struct rt_sigframe` (`SA_SIGINFO`, left by `rt_sigreturn`) of
//! arch/s390/kernel/signal.c, with `_sigregs`/`_sigregs_ext` of
//! arch/s390/include/uapi/asm/sigcontext.h and `struct ucontext_extended` of
//! arch/s390/include/uapi/asm/ucontext.h. Everything is big-endian, written through the
//! endian-aware [`crate::mm::AddressSpace`] accessors.
//!
//! Both frames start with the 160-byte register save area a called function may use
//! (`__SIGNAL_FRAMESIZE`), whose first doubleword is the back chain (the interrupted `r15`).
//! `_sigregs` (344 bytes): PSW mask and address, `gprs[16]`, `acrs[16]` (32-bit), then `fpc`,
//! a pad word and `fprs[16]`. `_sigregs_ext` (576 bytes): the right halves of `v0`-`v15`
//! (`vxrs_low[16]`, the left halves are the FPRs), `v16`-`v31` whole (`vxrs_high[16]`), 128
//! reserved bytes; the kernel adds it when the machine has the vector facility, which the
//! emulated z13 has (`HWCAP_S390_VXRS`).
//!
//! `struct sigframe` (1112 bytes), from the stack pointer the handler starts with:
//! - `+160` `struct sigcontext`: `oldmask` (the saved signal mask, one doubleword) and a
//!   pointer to the `_sigregs` below;
//! - `+176` `_sigregs`; `+520` the signal number (int); `+528` `_sigregs_ext`;
//! - `+1110` `svc 119` (`sigreturn`), the return code of kernels without a vDSO.
//!
//! `struct rt_sigframe` (1384 bytes):
//! - `+160` `svc 173` (`rt_sigreturn`), the old return code;
//! - `+168` `siginfo_t` (128);
//! - `+296` `struct ucontext_extended`: `uc_flags` (`UC_VXRS`), `uc_link`, `uc_stack` (24),
//!   `uc_mcontext` (`_sigregs`, at `+336`), `uc_sigmask` (8, at `+680`) and room up to 128
//!   bytes for a larger mask, `uc_mcontext_ext` (`_sigregs_ext`, at `+808`).
//!
//! The frame goes right below the interrupted `r15` (s390 has no red zone), 8-byte aligned,
//! or at the top of the alternate stack. The handler gets `r2` = signal, `r3` = &sigcontext
//! (old) or &siginfo (rt), `r4` = &ucontext (rt), `r15` = frame, `r14` = its return address:
//! `sa_restorer` with `SA_RESTORER` (glibc passes the caller's flags unchanged and adds none),
//! otherwise the sigtramp page, as current kernels return through the vDSO's
//! `__kernel_[rt_]sigreturn`.
//!
//! Two places where the engine differs from the kernel's view: the trap hook leaves the PSW
//! *on* an instruction whose program check raised SIGILL or SIGFPE, but Linux saves the PSW
//! after it (those checks suppress or complete the instruction), so the frame gets the next
//! address; and the FPC is reloaded with a real `sfpc` on `sigreturn` when the rounding mode
//! changed, because a register write leaves QEMU's separate rounding state as it was.

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterS390X as R;

use crate::guest::Cpu;

use super::{psw, SVC};
use crate::arch::{read_regs, write_regs};
use crate::guest::sigframe::{own_ucontext, read_uc_stack, write_siginfo, write_uc_stack, Frames, SIGTRAMP_OLD};
use crate::mm::{AddressSpace, GuestAddr};
use crate::signal::{sa, FrameRequest, SigFields, Signal};

/// s390x's signal frames, for its data row.
pub const FRAMES: Frames = Frames { setup_frame, restore_frame, sigtramp_code: Some(sigtramp_code) };

/// `__SIGNAL_FRAMESIZE` of 64-bit s390: the register save area at the bottom of each frame.
const SAVE_AREA: u64 = 160;
/// Bytes of `_sigregs`.
const SIGREGS_SIZE: u64 = 344;
/// Bytes of `_sigregs_ext`.
const SIGREGS_EXT_SIZE: u64 = 576;

/// `struct sigframe`: offsets of `sc.oldmask`, `sc.sregs`, `sregs`, `signo`, `sregs_ext`,
/// and its size.
const SF_OLDMASK: u64 = SAVE_AREA;
const SF_SREGS_PTR: u64 = SAVE_AREA + 8;
const SF_SREGS: u64 = SAVE_AREA + 16;
const SF_SIGNO: u64 = SF_SREGS + SIGREGS_SIZE;
const SF_SREGS_EXT: u64 = SF_SIGNO + 8;
const SF_SIZE: u64 = SF_SREGS_EXT + SIGREGS_EXT_SIZE + 8;

/// `struct rt_sigframe`: offsets of the return code, `info`, `uc`, and its size.
const RT_SVC: u64 = SAVE_AREA;
const RT_INFO: u64 = SAVE_AREA + 8;
const RT_UC: u64 = RT_INFO + crate::guest::sigframe::SIGINFO_SIZE;
/// Offsets inside `struct ucontext_extended`.
const UC_STACK: u64 = own_ucontext::stack(8);
const UC_MCONTEXT: u64 = own_ucontext::mcontext(8);
const UC_SIGMASK: u64 = UC_MCONTEXT + SIGREGS_SIZE;
const UC_MCONTEXT_EXT: u64 = UC_SIGMASK + 128;
const RT_SIZE: u64 = RT_UC + UC_MCONTEXT_EXT + SIGREGS_EXT_SIZE;

// sizeof(struct sigframe) and sizeof(struct rt_sigframe) with _sigregs_ext on s390x, and where
// the rt frame's uc_mcontext and uc_sigmask and the old frame's sregs_ext fall.
const _: () = assert!(SF_SIZE == 1112 && RT_SIZE == 1384 && SF_SREGS_EXT == 528);
const _: () = assert!(RT_UC + UC_MCONTEXT == 336 && RT_UC + UC_SIGMASK == 680);

/// `uc_flags`: `uc_mcontext_ext` holds the vector registers.
const UC_VXRS: u64 = 2;
/// s390x `sigreturn` and `rt_sigreturn` numbers (arch/s390/kernel/syscalls/syscall.tbl).
const NR_SIGRETURN: u16 = 119;
const NR_RT_SIGRETURN: u16 = 173;

/// The FPC's binary-floating-point rounding mode field.
const FPC_BFP_ROUNDING: u64 = 0x7;
/// Offset in the sigtramp page of `sfpc %r1` (see [`load_fpc`]).
const SFPC_STUB: u64 = 0x80;
/// `sfpc %r1` (RRE format `b384 00 10`).
const SFPC_R1: [u8; 4] = [0xb3, 0x84, 0x00, 0x10];

/// FPC bits that must be zero (the ones `sfpc` rejects with a specification exception, as
/// the kernel's `test_fp_ctl` checks; QEMU target/s390x/fpu_helper.c `sfpc`).
const FPC_INVALID: u64 = 0x0303_0088;

/// The user register state a frame saves (`_sigregs` and `_sigregs_ext`).
struct SigRegs {
    psw_mask: u64,
    psw_addr: u64,
    gprs: [u64; 16],
    acrs: [u64; 16],
    fpc: u64,
    /// `v0`-`v31`, left doubleword first (the left halves of `v0`-`v15` are `f0`-`f15`).
    vrs: [[u64; 2]; 32],
}

/// Unicorn register ids: `r0`, `a0`, `f0` (left half of `v0`), `f0_hi` (right half).
const R0: i32 = R::R0 as i32;
const A0: i32 = R::A0 as i32;
const F0: i32 = R::F0 as i32;
const F0_HI: i32 = R::F0_HI as i32;

fn ids(first: i32) -> [i32; 16] {
    std::array::from_fn(|i| first + crate::abi::int32(i))
}

impl SigRegs {
    /// The thread's registers, with the PSW mask as the kernel shows it to user space.
    fn from_cpu(cpu: &Cpu<'_>) -> SigRegs {
        let [mask, addr, fpc] = read_regs(cpu, &[R::PSWM as i32, R::PC as i32, R::FPC as i32]);
        let acrs = read_regs(cpu, &ids(A0)).map(|a| a & 0xffff_ffff);
        let mut vrs = [[0u64; 2]; 32];
        for (half, base) in [F0, F0_HI].into_iter().enumerate() {
            let v0_15 = read_regs(cpu, &ids(base));
            let v16_31 = read_regs(cpu, &ids(base + 16));
            for (i, v) in v0_15.iter().chain(v16_31.iter()).enumerate() {
                vrs[i][half] = *v;
            }
        }
        SigRegs {
            psw_mask: psw::USER_BITS | (mask & (psw::USER | psw::RI)),
            psw_addr: addr,
            gprs: read_regs(cpu, &ids(R0)),
            acrs,
            fpc: fpc & 0xffff_ffff,
            vrs,
        }
    }

    /// Writes `_sigregs` at `sregs` and `_sigregs_ext` at `ext`.
    fn store(&self, mm: &mut AddressSpace, sregs: GuestAddr, ext: GuestAddr) -> Result<(), Errno> {
        mm.write_u64(sregs, self.psw_mask)?;
        mm.write_u64(sregs + 8, self.psw_addr)?;
        for (i, g) in self.gprs.iter().enumerate() {
            mm.write_u64(sregs + 16 + 8 * i as u64, *g)?;
        }
        for (i, a) in self.acrs.iter().enumerate() {
            mm.write_u32(sregs + 144 + 4 * i as u64, crate::abi::low32(*a))?;
        }
        mm.write_u32(sregs + 208, crate::abi::low32(self.fpc))?;
        mm.write_u32(sregs + 212, 0)?;
        for i in 0..16 {
            mm.write_u64(sregs + 216 + 8 * i as u64, self.vrs[i][0])?;
            mm.write_u64(ext + 8 * i as u64, self.vrs[i][1])?;
            mm.write_u64(ext + 128 + 16 * i as u64, self.vrs[16 + i][0])?;
            mm.write_u64(ext + 136 + 16 * i as u64, self.vrs[16 + i][1])?;
        }
        mm.write_bytes(ext + 384, &[0u8; 128])
    }

    /// Reads `_sigregs` at `sregs` and `_sigregs_ext` at `ext`.
    fn load(mm: &AddressSpace, sregs: GuestAddr, ext: GuestAddr) -> Result<SigRegs, Errno> {
        let mut r = SigRegs {
            psw_mask: mm.read_u64(sregs)?,
            psw_addr: mm.read_u64(sregs + 8)?,
            gprs: [0; 16],
            acrs: [0; 16],
            fpc: u64::from(mm.read_u32(sregs + 208)?),
            vrs: [[0; 2]; 32],
        };
        for i in 0..16 {
            r.gprs[i] = mm.read_u64(sregs + 16 + 8 * i as u64)?;
            r.acrs[i] = u64::from(mm.read_u32(sregs + 144 + 4 * i as u64)?);
            r.vrs[i][0] = mm.read_u64(sregs + 216 + 8 * i as u64)?;
            r.vrs[i][1] = mm.read_u64(ext + 8 * i as u64)?;
            r.vrs[16 + i][0] = mm.read_u64(ext + 128 + 16 * i as u64)?;
            r.vrs[16 + i][1] = mm.read_u64(ext + 136 + 16 * i as u64)?;
        }
        Ok(r)
    }

    /// Loads the registers into the CPU, the PSW mask as `restore_sigregs` merges it: only
    /// the user bits come from the frame, home space becomes primary space, and 64-bit
    /// addressing keeps basic addressing on. Errors: `EINVAL` for runtime instrumentation or
    /// an FPC with reserved bits set (the kernel's bad frame).
    fn apply(&self, cpu: &mut Cpu<'_>) -> Result<(), Errno> {
        if self.psw_mask & psw::RI != 0 || self.fpc & FPC_INVALID != 0 {
            return Err(Errno::EINVAL);
        }
        let cur = cpu.reg(R::PSWM);
        let mut mask = (cur & !(psw::USER | psw::RI)) | (self.psw_mask & psw::USER);
        if mask & psw::ASC == psw::ASC_HOME {
            mask &= !psw::ASC;
        }
        if mask & psw::EA != 0 {
            mask |= psw::BA;
        }
        let cur_fpc = cpu.reg(R::FPC);
        if (cur_fpc ^ self.fpc) & FPC_BFP_ROUNDING != 0 {
            load_fpc(cpu, self.fpc);
        }
        write_regs(cpu, &ids(R0), &self.gprs);
        write_regs(cpu, &ids(A0), &self.acrs);
        for (half, base) in [F0, F0_HI].into_iter().enumerate() {
            let v0_15: [u64; 16] = std::array::from_fn(|i| self.vrs[i][half]);
            let v16_31: [u64; 16] = std::array::from_fn(|i| self.vrs[16 + i][half]);
            write_regs(cpu, &ids(base), &v0_15);
            write_regs(cpu, &ids(base + 16), &v16_31);
        }
        write_regs(cpu, &[R::FPC as i32, R::PSWM as i32], &[self.fpc, mask]);
        cpu.set_reg(R::PC, self.psw_addr);
        Ok(())
    }
}

/// Loads `fpc` into the FPC with an `sfpc` run from the sigtramp page: a register write sets
/// the FPC but not the rounding mode QEMU keeps beside it for binary floating point (its
/// `fpu_status`, which only `sfpc`, `lfpc` and `srnm` set), so a handler that changed the
/// rounding mode would leave it changed after `sigreturn`. Clobbers `r1` and the PSW address
/// (the caller sets both afterwards).
fn load_fpc(cpu: &mut Cpu<'_>, fpc: u64) {
    let sigtramp = cpu.get_data().sigtramp;
    if sigtramp == 0 {
        cpu.set_reg(R::FPC, fpc);
        return;
    }
    let (start, end) = (sigtramp + SFPC_STUB, sigtramp + SFPC_STUB + 4);
    cpu.set_reg(R::R1, fpc);
    // A host signal may stop the engine before the instruction ran: try again.
    for _ in 0..3 {
        // How the run ended is read from the PC: at `end` the instruction ran; a stop before it
        // (a host signal) is tried again, then the register write stands in.
        let _ = cpu.emu_start(start, end, 0, 0);
        if cpu.reg(R::PC) == end {
            return;
        }
    }
    cpu.set_reg(R::FPC, fpc);
}

/// Program-interruption code and parameter the old frame passes in `r4`/`r5` for a
/// synchronous signal (the kernel's `int_code & 127` and `int_parm_long`), as far as the
/// signal tells them: page-translation (or protection) with the address for SIGSEGV,
/// operation for SIGILL, fixed-point divide or data for SIGFPE.
fn program_check(info: &crate::signal::SigInfo) -> Option<(u64, u64)> {
    use crate::signal::si_code::*;
    let addr = match info.fields {
        SigFields::Fault { addr } => addr,
        _ => return None,
    };
    if info.code <= 0 {
        return None;
    }
    Some(match info.signo {
        Signal::SIGSEGV if info.code == SEGV_ACCERR => (0x04, addr & !0xfff),
        Signal::SIGSEGV => (0x11, addr & !0xfff),
        Signal::SIGBUS => (0x05, addr),
        Signal::SIGILL => (0x01, 0),
        Signal::SIGFPE if info.code == FPE_INTDIV => (0x09, 0),
        Signal::SIGFPE => (0x07, 0),
        Signal::SIGTRAP => (0x01, 0),
        _ => return None,
    })
}

/// `true` if `info` is the SIGILL or SIGFPE of a program check raised by the instruction at
/// `psw_addr`. Those program checks (operation, privileged-operation, specification,
/// fixed-point divide, data) suppress or complete the instruction, so the PSW Linux saves
/// for the handler is the next instruction's (arch/s390/kernel/traps.c reports `si_addr` as
/// the PSW address minus the instruction length); a handler that returns carries on after
/// it. Page faults nullify the instruction instead, and SIGSEGV returns to it.
fn completes_before_signal(info: &crate::signal::SigInfo, psw_addr: u64) -> bool {
    matches!(info.signo, Signal::SIGILL | Signal::SIGFPE)
        && info.code > 0
        && info.fields == SigFields::Fault { addr: psw_addr }
}

/// Builds the old frame (no `SA_SIGINFO`) or the rt frame and enters the handler (see the
/// module doc). Errors: `EFAULT` when the stack cannot hold the frame or it would overflow
/// the alternate stack the thread is on.
pub fn setup_frame(cpu: &mut Cpu<'_>, req: &FrameRequest) -> Result<(), Errno> {
    let t = cpu.get_data();
    let (arch, sigtramp) = (t.arch, t.sigtramp);
    let rt = req.action.flags & sa::SIGINFO != 0;
    let size = if rt { RT_SIZE } else { SF_SIZE };
    let sp = cpu.reg(R::R15);
    let frame = GuestAddr::new(req.stack_top(sp).wrapping_sub(size)).align_down(8);
    if req.altstack.contains(sp) && !req.altstack.contains(frame.get()) {
        return Err(Errno::EFAULT);
    }
    let restorer = if req.action.flags & sa::RESTORER != 0 {
        req.action.restorer
    } else if sigtramp != 0 {
        sigtramp + if rt { 0 } else { SIGTRAMP_OLD }
    } else {
        return Err(Errno::EFAULT);
    };
    let mut regs = SigRegs::from_cpu(cpu);
    if completes_before_signal(&req.info, regs.psw_addr) {
        // The trap hook left the PSW on the instruction; Linux saves it past it.
        regs.psw_addr += super::traps::insn_len(cpu, GuestAddr::new(regs.psw_addr)).unwrap_or(2);
    }
    let signo = req.guest_signo;

    let mm = &mut cpu.get_data_mut().mm;
    mm.check_writable(frame, size)?;
    mm.write_bytes(frame, &[0u8; crate::abi::u64_to_usize(SAVE_AREA)])?;
    mm.write_u64(frame, sp)?;
    // Handler arguments from r2 on.
    let mut args = vec![signo];
    if rt {
        let uc = frame + RT_UC;
        mm.write_u16(frame + RT_SVC, SVC | NR_RT_SIGRETURN)?;
        mm.write_bytes(frame + RT_SVC + 2, &[0u8; 6])?;
        write_siginfo(mm, arch, frame + RT_INFO, &req.info)?;
        mm.write_u64(uc, UC_VXRS)?;
        mm.write_u64(uc + 8, 0)?;
        write_uc_stack(mm, arch, uc + UC_STACK, &req.altstack, frame.get())?;
        mm.write_bytes(uc + UC_SIGMASK, &[0u8; 128])?;
        arch.write_sigset(mm, uc + UC_SIGMASK, req.old_mask)?;
        regs.store(mm, uc + UC_MCONTEXT, uc + UC_MCONTEXT_EXT)?;
        // r5 = the breaking-event address, which the engine does not record.
        args.extend([(frame + RT_INFO).get(), uc.get(), 0]);
    } else {
        arch.write_sigset(mm, frame + SF_OLDMASK, req.old_mask)?;
        mm.write_u64(frame + SF_SREGS_PTR, (frame + SF_SREGS).get())?;
        regs.store(mm, frame + SF_SREGS, frame + SF_SREGS_EXT)?;
        // The kernel means to store the signal number here, for backtraces.
        mm.write_u32(frame + SF_SIGNO, crate::abi::low32(signo))?;
        mm.write_u32(frame + SF_SIGNO + 4, 0)?;
        mm.write_u64(frame + SF_SIZE - 8, 0)?;
        mm.write_u16(frame + SF_SIZE - 2, SVC | NR_SIGRETURN)?;
        args.push((frame + SF_OLDMASK).get());
        if let Some((code, parm)) = program_check(&req.info) {
            args.extend([code, parm, 0]);
        }
    }

    for (i, &v) in args.iter().enumerate() {
        cpu.set_reg(R::R2 as i32 + crate::abi::int32(i), v);
    }
    // Default addressing mode and primary space for the handler.
    let mask = (cpu.reg(R::PSWM) & !psw::ASC) | psw::EA | psw::BA;
    write_regs(cpu, &[R::R14 as i32, R::R15 as i32, R::PSWM as i32], &[restorer, frame.get(), mask]);
    cpu.set_reg(R::PC, req.action.handler);
    Ok(())
}

/// `sigreturn` (`rt` false) or `rt_sigreturn`: the frame is at `r15` (the handler returned
/// with the stack pointer it started with); restores the registers, the alternate stack (rt
/// frames) and returns the saved mask. Errors: `EFAULT` (unreadable frame), `EINVAL` (a
/// register value the kernel refuses); both kill the guest with SIGSEGV.
pub fn restore_frame(cpu: &mut Cpu<'_>, rt: bool) -> Result<u64, Errno> {
    let arch = cpu.get_data().arch;
    let frame = GuestAddr::new(cpu.reg(R::R15));
    let t = cpu.get_data_mut();
    let (mask, regs) = if rt {
        let uc = frame + RT_UC;
        let mask = arch.read_sigset(&t.mm, uc + UC_SIGMASK)?;
        let regs = SigRegs::load(&t.mm, uc + UC_MCONTEXT, uc + UC_MCONTEXT_EXT)?;
        if let Some(st) = read_uc_stack(&t.mm, arch, uc + UC_STACK) {
            t.sig.altstack = st;
        }
        (mask, regs)
    } else {
        let mask = arch.read_sigset(&t.mm, frame + SF_OLDMASK)?;
        (mask, SigRegs::load(&t.mm, frame + SF_SREGS, frame + SF_SREGS_EXT)?)
    };
    regs.apply(cpu)?;
    Ok(mask)
}

/// The sigtramp page: `svc 173` (`rt_sigreturn`) at 0, `svc 119` (`sigreturn`) at
/// [`SIGTRAMP_OLD`], and endgate's own `sfpc %r1` at [`SFPC_STUB`] (see [`load_fpc`]).
pub fn sigtramp_code() -> Vec<u8> {
    let mut code = vec![0u8; crate::abi::u64_to_usize(SFPC_STUB) + SFPC_R1.len()];
    code[..2].copy_from_slice(&(SVC | NR_RT_SIGRETURN).to_be_bytes());
    let old = crate::abi::u64_to_usize(SIGTRAMP_OLD);
    code[old..old + 2].copy_from_slice(&(SVC | NR_SIGRETURN).to_be_bytes());
    code[crate::abi::u64_to_usize(SFPC_STUB)..].copy_from_slice(&SFPC_R1);
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trampolines() {
        let code = sigtramp_code();
        assert_eq!(&code[..2], &[0x0a, 0xad]);
        assert_eq!(&code[0x40..0x42], &[0x0a, 0x77]);
        assert_eq!(&code[0x80..0x84], &[0xb3, 0x84, 0x00, 0x10]);
    }
}
