//! aarch64 signal frames: `struct rt_sigframe` of arch/arm64/kernel/signal.c with the
//! `ucontext` and `sigcontext` of arch/arm64/include/uapi/asm/{ucontext,sigcontext}.h, placed
//! as that file's `get_sigframe` places them.
//!
//! Frame, from the stack pointer the handler starts with (`frame`, 16-byte aligned), in bytes:
//! - `+0` `siginfo_t` (128);
//! - `+128` `struct ucontext` (4560): `uc_flags`, `uc_link`, `uc_stack` (24), `uc_sigmask`
//!   (8) and 120 bytes reserved for a larger `sigset_t`, then at `+304` (16-byte aligned)
//!   `uc_mcontext`, a `struct sigcontext`: `fault_address`, `regs[31]` (x0-x30), `sp`, `pc`,
//!   `pstate`, and at `+592` `__reserved[4096]`, a list of records each starting with a
//!   `{u32 magic, u32 size}` header: `fpsimd_context` (magic 0x46508001, 528 bytes: header,
//!   `fpsr`, `fpcr`, `vregs[32]` of 16 bytes each), then a null header that ends the list;
//! - above the frame (at the first 16-byte boundary below the interrupted or alternate stack
//!   top): the frame record `{x29, x30}` of the interrupted code, which the handler's x29
//!   points at so that unwinders walk from the handler into it.
//!
//! The handler returns through x30: `sa_restorer` with `SA_RESTORER`, otherwise the sigtramp
//! page (the kernel's vDSO `__kernel_rt_sigreturn`; glibc and musl do not set `SA_RESTORER` on
//! aarch64).

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterARM64 as R;

use crate::abi::{int32, low32, u64_to_usize};
use crate::guest::sigframe::generic_rt::{UC, UC_MCONTEXT, UC_SIGMASK as SIGMASK, UC_STACK};
use crate::guest::sigframe::{
    align_down, get_u32, get_u64, put_u32, put_u64, reg, restore_mask_and_altstack, write_generic_rt, Frames,
    SIGINFO_SIZE,
};
use crate::guest::Cpu;
use crate::mm::GuestAddr;
use crate::signal::{sa, FrameRequest, SigFields};

/// Bytes of `struct rt_sigframe`: siginfo and ucontext.
const FRAME_SIZE: u64 = SIGINFO_SIZE + 4560;
/// Offset of `uc_mcontext` (`struct sigcontext`) in the frame.
const MCONTEXT: u64 = UC_MCONTEXT;
/// Offset of `sigcontext.regs[0]` in the frame; `sp`, `pc` and `pstate` follow `regs[30]`.
const REGS: u64 = MCONTEXT + 8;
/// Offset of `sigcontext.__reserved`, the record list, in the frame.
const RESERVED: u64 = MCONTEXT + 288;
/// Bytes of `sigcontext.__reserved`.
const RESERVED_SIZE: u64 = 4096;
/// Bytes of the frame record `{fp, lr}`.
const FRAME_RECORD: u64 = 16;

// sizeof(struct rt_sigframe) and the offsets of uc_mcontext and __reserved, as the arm64 uapi
// headers give them.
const _: () = assert!(FRAME_SIZE == 4688 && FRAME_SIZE % 16 == 0 && RESERVED + RESERVED_SIZE == FRAME_SIZE);
const _: () = assert!((REGS + 34 * 8).next_multiple_of(16) == RESERVED);

/// `fpsimd_context.head.magic`.
const FPSIMD_MAGIC: u32 = 0x4650_8001;
/// `esr_context.head.magic` (a record the kernel adds for faults; skipped on return).
const ESR_MAGIC: u32 = 0x4553_5201;
/// Bytes of `struct fpsimd_context`.
const FPSIMD_SIZE: u64 = 528;

/// `__NR_rt_sigreturn` (include/uapi/asm-generic/unistd.h).
const NR_RT_SIGRETURN: u32 = 139;

/// PSTATE bits `rt_sigreturn` takes from the frame: N, Z, C, V (the kernel's
/// `valid_user_regs` keeps at most these for an EL0 task).
const PSTATE_NZCV: u64 = 0xf000_0000;

/// The return trampoline: `mov x8, #139` (`movz`), `svc #0` (Arm ARM C6.2.191, C6.2.317).
pub fn sigtramp_code() -> Vec<u8> {
    let movz_x8 = 0xd280_0000 | (NR_RT_SIGRETURN << 5) | 8;
    [movz_x8, super::SVC_0].iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// Unicorn id of general register `xn`, n in 0..=30 (X29 and X30 are apart from X0-X28).
fn xreg(n: usize) -> i32 {
    match n {
        29 => R::X29 as i32,
        30 => R::X30 as i32,
        _ => R::X0 as i32 + int32(n),
    }
}

/// aarch64's signal frames, for its data row.
pub const FRAMES: Frames = Frames { setup_frame, restore_frame, sigtramp_code: Some(sigtramp_code) };

/// Builds the frame and enters the handler: x0 = signal, with `SA_SIGINFO` x1 = &siginfo and
/// x2 = &ucontext, sp = frame, x29 = &frame record, x30 = the return trampoline, pc = handler.
pub fn setup_frame(cpu: &mut Cpu<'_>, req: &FrameRequest) -> Result<(), Errno> {
    let ret = if req.action.flags & sa::RESTORER != 0 { req.action.restorer } else { cpu.get_data().sigtramp };
    if ret == 0 {
        return Err(Errno::EFAULT);
    }
    let sp = reg(cpu, R::SP);
    let top = req.stack_top(sp);
    let record = align_down(top.wrapping_sub(FRAME_RECORD), 16);
    let frame = GuestAddr::new(record.wrapping_sub(FRAME_SIZE));

    let mut buf = vec![0u8; u64_to_usize(FRAME_SIZE + FRAME_RECORD)];
    let x: Vec<u64> = (0..31).map(|n| reg(cpu, xreg(n))).collect();
    let fault_address = match req.info.fields {
        SigFields::Fault { addr } => addr,
        _ => 0,
    };
    put_u64(&mut buf, MCONTEXT, fault_address);
    for (n, v) in x.iter().enumerate() {
        put_u64(&mut buf, REGS + 8 * n as u64, *v);
    }
    put_u64(&mut buf, REGS + 31 * 8, sp);
    put_u64(&mut buf, REGS + 32 * 8, reg(cpu, R::PC));
    put_u64(&mut buf, REGS + 33 * 8, reg(cpu, R::NZCV) & PSTATE_NZCV);
    write_fpsimd(cpu, &mut buf[u64_to_usize(RESERVED)..u64_to_usize(RESERVED + FPSIMD_SIZE)]);
    // The null record after fpsimd_context is already zero.
    put_u64(&mut buf, FRAME_SIZE, x[29]);
    put_u64(&mut buf, FRAME_SIZE + 8, x[30]);

    write_generic_rt(cpu, req, (frame, top.wrapping_sub(frame.get())), &buf, sp)?;

    cpu.set_reg(R::X0, req.guest_signo);
    if req.action.flags & sa::SIGINFO != 0 {
        cpu.set_reg(xreg(1), frame.get());
        cpu.set_reg(xreg(2), (frame + UC).get());
    }
    cpu.set_reg(R::SP, frame.get());
    cpu.set_reg(R::X29, record);
    cpu.set_reg(R::X30, ret);
    cpu.set_reg(R::PC, req.action.handler);
    Ok(())
}

/// `rt_sigreturn`: the frame is at the stack pointer (the handler's own frame is gone). A
/// misaligned stack pointer, an unreadable frame or a record list without a well-formed
/// `fpsimd_context` is a bad frame (`EFAULT`), as in the kernel. aarch64 has `rt` frames only.
pub fn restore_frame(cpu: &mut Cpu<'_>, _rt: bool) -> Result<u64, Errno> {
    let frame = GuestAddr::new(reg(cpu, R::SP));
    if frame.get() & 15 != 0 {
        return Err(Errno::EFAULT);
    }
    let mut buf = vec![0u8; u64_to_usize(FRAME_SIZE)];
    cpu.get_data().mm.read_bytes(frame, &mut buf)?;
    let fpsimd = find_fpsimd(&buf).ok_or(Errno::EFAULT)?;
    let mask = restore_mask_and_altstack(cpu, frame + SIGMASK, frame + UC_STACK)?;
    for n in 0..31 {
        cpu.set_reg(xreg(n), get_u64(&buf, REGS + 8 * n as u64));
    }
    cpu.set_reg(R::SP, get_u64(&buf, REGS + 31 * 8));
    cpu.set_reg(R::PC, get_u64(&buf, REGS + 32 * 8));
    cpu.set_reg(R::NZCV, get_u64(&buf, REGS + 33 * 8) & PSTATE_NZCV);
    read_fpsimd(cpu, &buf[fpsimd..fpsimd + u64_to_usize(FPSIMD_SIZE)]);
    Ok(mask)
}

/// Fills a `struct fpsimd_context` (`buf`, 528 bytes): header, FPSR, FPCR, V0-V31.
fn write_fpsimd(cpu: &Cpu<'_>, buf: &mut [u8]) {
    put_u32(buf, 0, FPSIMD_MAGIC);
    put_u32(buf, 4, low32(FPSIMD_SIZE));
    put_u32(buf, 8, low32(reg(cpu, R::FPSR)));
    put_u32(buf, 12, low32(reg(cpu, R::FPCR)));
    for i in 0..32 {
        if let Ok(v) = cpu.reg_read_long(R::V0 as i32 + int32(i)) {
            let n = v.len().min(16);
            let o = 16 + 16 * i;
            buf[o..o + n].copy_from_slice(&v[..n]);
        }
    }
}

/// Loads FPSR, FPCR and V0-V31 from a `struct fpsimd_context` (the inverse of
/// [`write_fpsimd`]).
fn read_fpsimd(cpu: &mut Cpu<'_>, buf: &[u8]) {
    cpu.set_reg(R::FPSR, u64::from(get_u32(buf, 8)));
    cpu.set_reg(R::FPCR, u64::from(get_u32(buf, 12)));
    for i in 0..32 {
        let o = 16 + 16 * i;
        cpu.set_reg_long(R::V0 as i32 + int32(i), &buf[o..o + 16]);
    }
}

/// Walks the record list of `__reserved` in a frame read into `buf` and returns the offset of
/// its `fpsimd_context`; `None` if a record is malformed, unknown, or the list has no
/// fpsimd record (the kernel's `parse_user_sigframe` rejects these frames).
fn find_fpsimd(buf: &[u8]) -> Option<usize> {
    let end = RESERVED + RESERVED_SIZE;
    let mut off = RESERVED;
    let mut fpsimd = None;
    while off + 8 <= end {
        let (magic, size) = (get_u32(buf, off), u64::from(get_u32(buf, off + 4)));
        match magic {
            0 if size == 0 => return fpsimd,
            FPSIMD_MAGIC if size == FPSIMD_SIZE && fpsimd.is_none() => fpsimd = Some(u64_to_usize(off)),
            ESR_MAGIC if size == 16 => {}
            _ => return None,
        }
        if size % 16 != 0 || off + size > end {
            return None;
        }
        off += size;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigtramp_encodings() {
        // mov x8, #0x8b (movz) and svc #0, as aarch64-linux-gnu-objdump prints them.
        assert_eq!(sigtramp_code(), [0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4]);
    }

    #[test]
    fn record_list() {
        let mut buf = vec![0u8; u64_to_usize(FRAME_SIZE)];
        assert_eq!(find_fpsimd(&buf), None);
        put_u32(&mut buf, RESERVED, FPSIMD_MAGIC);
        put_u32(&mut buf, RESERVED + 4, low32(FPSIMD_SIZE));
        assert_eq!(find_fpsimd(&buf), Some(u64_to_usize(RESERVED)));
        put_u32(&mut buf, RESERVED + FPSIMD_SIZE, ESR_MAGIC);
        put_u32(&mut buf, RESERVED + FPSIMD_SIZE + 4, 16);
        assert_eq!(find_fpsimd(&buf), Some(u64_to_usize(RESERVED)));
        put_u32(&mut buf, RESERVED + FPSIMD_SIZE, 0x1234);
        assert_eq!(find_fpsimd(&buf), None);
    }
}
