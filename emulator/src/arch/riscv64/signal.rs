//! riscv64 signal frames: `struct rt_sigframe` of arch/riscv/kernel/signal.c with the
//! `ucontext` and `sigcontext` of arch/riscv/include/uapi/asm/{ucontext,sigcontext,ptrace}.h,
//! placed as that file's `get_sigframe` places them.
//!
//! Frame, from the stack pointer the handler starts with (`frame`, 16-byte aligned, directly
//! below the interrupted or alternate stack top: RISC-V has no red zone), in bytes:
//! - `+0` `siginfo_t` (128);
//! - `+128` `struct ucontext` (960): `uc_flags`, `uc_link`, `uc_stack` (24), `uc_sigmask` (8)
//!   and 120 bytes reserved for a larger `sigset_t`, then at `+304` (16-byte aligned)
//!   `uc_mcontext`, a `struct sigcontext`:
//!   - `sc_regs`, a `struct user_regs_struct` (256): `pc`, then x1-x31 (`ra sp gp tp t0-t2
//!     s0 s1 a0-a7 s2-s11 t3-t6`) in register order;
//!   - at `+560` `sc_fpregs`, the `union __riscv_fp_state` (528) in its D-extension form:
//!     `f[32]` (64-bit each) and `fcsr` (u32); the union's tail holds, since Linux 6.5, a
//!     zero `reserved` word at `+1076` and the null header `{u32 magic, u32 size}` that ends
//!     the extension list (vector state) at `+1080`.
//!
//! RISC-V has no `SA_RESTORER`: the handler returns through `ra` to the sigtramp page (the
//! kernel's vDSO `__vdso_rt_sigreturn`).

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterRISCV as R;

use crate::abi::{int32, low32, u64_to_usize};
use crate::guest::sigframe::generic_rt::{UC, UC_MCONTEXT, UC_SIGMASK as SIGMASK, UC_STACK};
use crate::guest::sigframe::{
    get_u32, get_u64, put_u32, put_u64, reg, restore_mask_and_altstack, write_generic_rt, Frames, SIGINFO_SIZE,
};
use crate::guest::Cpu;
use crate::mm::GuestAddr;
use crate::signal::FrameRequest;

/// Bytes of `struct rt_sigframe`: siginfo and ucontext.
const FRAME_SIZE: u64 = SIGINFO_SIZE + 960;
/// Offset of `uc_mcontext.sc_regs` (`pc`, then x1-x31) in the frame.
const SC_REGS: u64 = UC_MCONTEXT;
/// Offset of `uc_mcontext.sc_fpregs.d.f[0]` in the frame.
const SC_FPREGS: u64 = SC_REGS + 256;
/// Offset of `uc_mcontext.sc_fpregs.d.fcsr` in the frame.
const SC_FCSR: u64 = SC_FPREGS + 32 * 8;

// sizeof(struct rt_sigframe) and the offsets of uc_mcontext and sc_fpregs.d.fcsr, as the riscv
// uapi headers give them; the union __riscv_fp_state is 528 bytes (its Q form) and ends the
// frame.
const _: () = assert!(FRAME_SIZE == 1088 && SC_REGS - UC == 176 && SC_FCSR - SC_REGS == 512);
const _: () = assert!(SC_FPREGS + 528 == FRAME_SIZE);

/// `__NR_rt_sigreturn` (include/uapi/asm-generic/unistd.h).
const NR_RT_SIGRETURN: u32 = 139;

/// The return trampoline: `li a7, 139` (`addi a7, zero, 139`), `ecall` (unprivileged spec
/// 2.4, 2.8).
pub fn sigtramp_code() -> Vec<u8> {
    let li_a7 = (NR_RT_SIGRETURN << 20) | (17 << 7) | 0x13;
    [li_a7, super::ECALL].iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// Unicorn id of register `xn`, n in 1..=31.
fn xreg(n: usize) -> i32 {
    R::X0 as i32 + int32(n)
}

/// Unicorn id of FP register `fn`, n in 0..=31.
fn freg(n: usize) -> i32 {
    R::F0 as i32 + int32(n)
}

/// riscv64's signal frames, for its data row.
pub const FRAMES: Frames = Frames { setup_frame, restore_frame, sigtramp_code: Some(sigtramp_code) };

/// Builds the frame and enters the handler: a0 = signal, a1 = &siginfo, a2 = &ucontext (the
/// kernel passes both whether or not `SA_SIGINFO` is set), sp = frame, ra = the sigtramp page,
/// pc = handler. A frame that would overflow the alternate stack the thread is already on is
/// `EFAULT`, as the kernel refuses it.
pub fn setup_frame(cpu: &mut Cpu<'_>, req: &FrameRequest) -> Result<(), Errno> {
    let tramp = cpu.get_data().sigtramp;
    if tramp == 0 {
        return Err(Errno::EFAULT);
    }
    let sp = reg(cpu, R::SP);
    if req.altstack.contains(sp) && !req.altstack.contains(sp.wrapping_sub(FRAME_SIZE)) {
        return Err(Errno::EFAULT);
    }
    let top = req.stack_top(sp);
    let frame = GuestAddr::new(top.wrapping_sub(FRAME_SIZE)).align_down(16);

    let mut buf = vec![0u8; u64_to_usize(FRAME_SIZE)];
    put_u64(&mut buf, SC_REGS, reg(cpu, R::PC));
    for n in 1..32 {
        put_u64(&mut buf, SC_REGS + 8 * n as u64, reg(cpu, xreg(n)));
    }
    for n in 0..32 {
        put_u64(&mut buf, SC_FPREGS + 8 * n as u64, reg(cpu, freg(n)));
    }
    put_u32(&mut buf, SC_FCSR, low32(reg(cpu, R::FCSR)));

    write_generic_rt(cpu, req, (frame, FRAME_SIZE), &buf, sp)?;

    cpu.set_reg(R::A0, req.guest_signo);
    cpu.set_reg(R::A1, frame.get());
    cpu.set_reg(R::A2, (frame + UC).get());
    cpu.set_reg(R::SP, frame.get());
    cpu.set_reg(R::RA, tramp);
    cpu.set_reg(R::PC, req.action.handler);
    Ok(())
}

/// `rt_sigreturn`: the frame is at the stack pointer. Restores pc, x1-x31, f0-f31, fcsr, the
/// alternate stack, and returns the saved mask. Errors: `EFAULT` (unreadable frame). riscv64
/// has `rt` frames only.
pub fn restore_frame(cpu: &mut Cpu<'_>, _rt: bool) -> Result<u64, Errno> {
    let frame = GuestAddr::new(reg(cpu, R::SP));
    let mut buf = vec![0u8; u64_to_usize(FRAME_SIZE)];
    cpu.get_data().mm.read_bytes(frame, &mut buf)?;
    let mask = restore_mask_and_altstack(cpu, frame + SIGMASK, frame + UC_STACK)?;
    cpu.set_reg(R::PC, get_u64(&buf, SC_REGS));
    for n in 1..32 {
        cpu.set_reg(xreg(n), get_u64(&buf, SC_REGS + 8 * n as u64));
    }
    for n in 0..32 {
        cpu.set_reg(freg(n), get_u64(&buf, SC_FPREGS + 8 * n as u64));
    }
    cpu.set_reg(R::FCSR, u64::from(get_u32(&buf, SC_FCSR)));
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigtramp_encodings() {
        // addi a7, zero, 139 and ecall, as riscv64-linux-gnu-objdump prints them
        // (08b00893, 00000073).
        assert_eq!(sigtramp_code(), [0x93, 0x08, 0xb0, 0x08, 0x73, 0x00, 0x00, 0x00]);
    }
}
