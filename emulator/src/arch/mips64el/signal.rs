//! mips64el (n64) signal frames: `struct rt_sigframe` of arch/mips/kernel/signal.c, the only
//! frame n64 has (every handler gets siginfo and ucontext, `SA_SIGINFO` or not), with
//! `struct ucontext` of arch/mips/include/uapi/asm/ucontext.h and the 64-bit `struct
//! sigcontext` of arch/mips/include/uapi/asm/sigcontext.h.
//!
//! Frame (808 bytes), from the stack pointer the handler starts with:
//! - `+0` `rs_ass[4]`, `rs_pad[2]`: argument save space for o32 code and the place of the
//!   trampoline older kernels wrote (24 bytes, zeroed);
//! - `+24` `siginfo_t` (128; MIPS puts `si_code` before `si_errno`);
//! - `+152` `struct ucontext`: `uc_flags`, `uc_link`, `uc_stack` (`{ss_sp, ss_size,
//!   ss_flags}`, 24), `uc_mcontext` (`struct sigcontext`, 600, at `+192`: `sc_regs[32]`,
//!   `sc_fpregs[32]`, `sc_mdhi`, `sc_hi1`-`sc_hi3`, `sc_mdlo`, `sc_lo1`-`sc_lo3`, `sc_pc`,
//!   then the words `sc_fpc_csr`, `sc_used_math`, `sc_dsp`, `sc_reserved`), `uc_sigmask` (16:
//!   MIPS has 128 signals, at `+792`).
//!
//! The kernel's `get_sigframe` leaves 32 bytes below the interrupted `sp` (room an FPU
//! emulator trampoline may use), or starts at the top of the alternate stack, and aligns the
//! frame down to 16 bytes. The handler gets `a0` = signal, `a1` = &siginfo, `a2` = &ucontext,
//! `sp` = frame, `ra` = the sigtramp page (`li v0, 5211; syscall`, as the vDSO's
//! `__vdso_rt_sigreturn`: MIPS has no `SA_RESTORER`), and `pc` = `t9` = handler, since PIC
//! code computes `gp` from `t9`. The DSP registers (`sc_hi1`…, `sc_dsp`) are zero: the model
//! has no DSP ASE. `sc_used_math` says the FP registers are valid and 64-bit (`USED_FP |
//! USED_FR1`).

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterMIPS as R;

use super::delay_slot;
use crate::abi::{int32, low32, u64_to_usize};
use crate::arch::{read_regs, write_regs};
use crate::guest::sigframe::{
    own_ucontext, restore_mask_and_altstack, write_siginfo, write_uc_stack, Frames, SIGINFO_SIZE,
};
use crate::guest::Cpu;
use crate::mm::GuestAddr;
use crate::signal::FrameRequest;

/// mips64el's signal frames, for its data row.
pub const FRAMES: Frames = Frames { setup_frame, restore_frame, sigtramp_code: Some(sigtramp_code) };

/// Offset of `rs_info`.
const INFO: u64 = 24;
/// Offset of `rs_uc`.
const UC: u64 = INFO + SIGINFO_SIZE;
/// Offsets in `struct ucontext`.
const UC_STACK: u64 = own_ucontext::stack(8);
const UC_MCONTEXT: u64 = own_ucontext::mcontext(8);
const UC_SIGMASK: u64 = UC_MCONTEXT + SC_SIZE;
/// Bytes of `struct rt_sigframe`.
const FRAME_SIZE: u64 = UC + UC_SIGMASK + 16;

/// Offsets in `struct sigcontext`.
const SC_FPREGS: u64 = 256;
const SC_MDHI: u64 = 512;
const SC_MDLO: u64 = 544;
const SC_PC: u64 = 576;
const SC_FPC_CSR: u64 = 584;
const SC_USED_MATH: u64 = 588;
const SC_SIZE: u64 = 600;

// sizeof(struct sigcontext) on n64, sizeof(struct ucontext), sizeof(struct rt_sigframe).
const _: () = assert!(SC_SIZE == 600 && UC_SIGMASK + 16 == 656 && FRAME_SIZE == 808);

/// `sc_used_math`: `USED_FP | USED_FR1` (arch/mips/kernel/signal.c).
const USED_FP: u32 = 1;
const USED_FR1: u32 = 2;
/// Room `get_sigframe` leaves below the interrupted stack pointer.
const BELOW_SP: u64 = 32;
/// `__NR_rt_sigreturn` of n64 (arch/mips/kernel/syscalls/syscall_n64.tbl).
const NR_RT_SIGRETURN: u32 = 5211;
/// FCSR cause bits (17..12); a cause whose enable bit is set would trap at once.
const FCSR_CAUSE: u64 = 0x3_f000;

const GPR0: i32 = R::R0 as i32;
const F0: i32 = R::F0 as i32;

fn ids<const N: usize>(first: i32) -> [i32; N] {
    std::array::from_fn(|i| first + int32(i))
}

/// Builds the frame and enters the handler (see the module doc). A thread stopped between a
/// branch and its delay slot saves the branch's address, so that `rt_sigreturn` runs the
/// branch again, as the kernel does with `Cause.BD`. Errors: `EFAULT` when the stack cannot
/// hold the frame or it would overflow the alternate stack the thread is on.
pub fn setup_frame(cpu: &mut Cpu<'_>, req: &FrameRequest) -> Result<(), Errno> {
    let t = cpu.get_data();
    let (arch, sigtramp) = (t.arch, t.sigtramp);
    if sigtramp == 0 {
        return Err(Errno::EFAULT);
    }
    let mut gprs: [u64; 32] = read_regs(cpu, &ids(GPR0));
    gprs[0] = 0;
    let sp = gprs[29];
    if req.altstack.contains(sp) && !req.altstack.contains(sp.wrapping_sub(FRAME_SIZE)) {
        return Err(Errno::EFAULT);
    }
    let frame = GuestAddr::new(req.stack_top(sp.wrapping_sub(BELOW_SP)).wrapping_sub(FRAME_SIZE)).align_down(16);
    let fprs: [u64; 32] = read_regs(cpu, &ids(F0));
    let [hi, lo, mut pc, fcsr] = read_regs(cpu, &[R::HI as i32, R::LO as i32, R::PC as i32, R::FCSR as i32]);
    if delay_slot::leave_delay_slot(cpu) {
        pc = pc.wrapping_sub(4);
    }

    let mm = &mut cpu.get_data_mut().mm;
    mm.check_writable(frame, FRAME_SIZE)?;
    mm.write_bytes(frame, &[0u8; u64_to_usize(INFO)])?;
    write_siginfo(mm, arch, frame + INFO, &req.info)?;
    let uc = frame + UC;
    mm.write_u64(uc, 0)?;
    mm.write_u64(uc + 8, 0)?;
    write_uc_stack(mm, arch, uc + UC_STACK, &req.altstack, frame.get())?;
    let sc = uc + UC_MCONTEXT;
    mm.write_bytes(sc, &[0u8; u64_to_usize(SC_SIZE)])?;
    for i in 0..32 {
        mm.write_u64(sc + 8 * i as u64, gprs[i])?;
        mm.write_u64(sc + SC_FPREGS + 8 * i as u64, fprs[i])?;
    }
    mm.write_u64(sc + SC_MDHI, hi)?;
    mm.write_u64(sc + SC_MDLO, lo)?;
    mm.write_u64(sc + SC_PC, pc)?;
    mm.write_u32(sc + SC_FPC_CSR, low32(fcsr))?;
    mm.write_u32(sc + SC_USED_MATH, USED_FP | USED_FR1)?;
    arch.write_sigset(mm, uc + UC_SIGMASK, req.old_mask)?;

    let signo = req.guest_signo;
    let h = req.action.handler;
    let regs = [(4, signo), (5, (frame + INFO).get()), (6, uc.get()), (25, h), (29, frame.get()), (31, sigtramp)];
    write_regs(cpu, &regs.map(|(r, _)| GPR0 + r), &regs.map(|(_, v)| v));
    cpu.set_reg(R::PC, h);
    Ok(())
}

/// `rt_sigreturn`: the frame is at `sp` (the handler returned with the stack pointer it
/// started with). Restores `$1`-`$31`, `pc`, `hi`/`lo`, the FP registers and FCSR (when
/// `sc_used_math` says they were saved) and the alternate stack; returns the saved mask.
/// Errors: `EFAULT` (unreadable frame: the guest dies by SIGSEGV). n64 has `rt` frames only.
pub fn restore_frame(cpu: &mut Cpu<'_>, _rt: bool) -> Result<u64, Errno> {
    let frame = GuestAddr::new(cpu.reg(R::SP));
    let uc = frame + UC;
    let sc = uc + UC_MCONTEXT;
    let mm = &cpu.get_data().mm;
    let mut gprs = [0u64; 31];
    let mut fprs = [0u64; 32];
    for (i, g) in gprs.iter_mut().enumerate() {
        *g = mm.read_u64(sc + 8 * (i as u64 + 1))?;
    }
    for (i, f) in fprs.iter_mut().enumerate() {
        *f = mm.read_u64(sc + SC_FPREGS + 8 * i as u64)?;
    }
    let (hi, lo, pc) = (mm.read_u64(sc + SC_MDHI)?, mm.read_u64(sc + SC_MDLO)?, mm.read_u64(sc + SC_PC)?);
    let fcsr = u64::from(mm.read_u32(sc + SC_FPC_CSR)?);
    let used_math = mm.read_u32(sc + SC_USED_MATH)?;
    let mask = restore_mask_and_altstack(cpu, uc + UC_SIGMASK, uc + UC_STACK)?;
    write_regs(cpu, &ids(GPR0 + 1), &gprs);
    write_regs(cpu, &[R::HI as i32, R::LO as i32], &[hi, lo]);
    if used_math & USED_FP != 0 {
        write_regs(cpu, &ids(F0), &fprs);
        // An enabled exception cause would trap at once; the kernel clears it and sends
        // SIGFPE, endgate only clears it.
        if cpu.reg_write(R::FCSR, fcsr).is_err() {
            cpu.set_reg(R::FCSR, fcsr & !FCSR_CAUSE);
        }
    }
    cpu.set_reg(R::PC, pc);
    Ok(mask)
}

/// The sigtramp page: `li v0, 5211` (`addiu v0, zero, 5211`) and `syscall`, little-endian.
pub fn sigtramp_code() -> Vec<u8> {
    let li_v0 = 0x2402_0000 | NR_RT_SIGRETURN;
    [li_v0, super::SYSCALL].iter().flat_map(|i| i.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trampoline_encoding() {
        // `li v0, 5211` as binutils assembles it: 2402145b.
        assert_eq!(&sigtramp_code()[..4], &0x2402_145b_u32.to_le_bytes());
    }
}
