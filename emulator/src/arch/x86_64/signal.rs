//! x86_64 signal frames: `struct rt_sigframe` (arch/x86/include/asm/sigframe.h) with the
//! `ucontext` and `sigcontext` of arch/x86/include/uapi/asm/{ucontext,sigcontext}.h and an
//! FXSAVE-format FP area, placed as arch/x86/kernel/signal.c places them.
//!
//! Frame, from the stack pointer the handler starts with (`frame`), in bytes:
//! - `+0` `pretcode`: the handler's return address, `sa_restorer` (x86_64 has no kernel
//!   trampoline: a handler without `SA_RESTORER` cannot be delivered, the guest gets SIGSEGV);
//! - `+8` `struct ucontext` (304): `uc_flags`, `uc_link`, `uc_stack` (24), `uc_mcontext`
//!   (`struct sigcontext`, 256: r8-r15, rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags,
//!   cs/gs/fs/ss, err, trapno, oldmask, cr2, fpstate pointer, 8 reserved), `uc_sigmask` (8);
//! - `+312` `siginfo_t` (128);
//! - above, 64-byte aligned: the 512-byte FXSAVE image `fpstate` points to.
//!
//! The frame sits 128 bytes below the interrupted stack pointer (the System V red zone) unless
//! it goes on the alternate stack, and `frame + 8` is 16-byte aligned, as after a `call`.

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterX86 as R;

use crate::abi::{low16, low32, u64_to_usize};
use crate::guest::sigframe::{own_ucontext, reg, restore_mask_and_altstack, write_siginfo, write_uc_stack, Frames};
use crate::guest::Cpu;
use crate::mm::GuestAddr;
use crate::signal::{sa, FrameRequest, SigFields};

/// Bytes of `struct rt_sigframe`: pretcode, ucontext, siginfo.
const FRAME_SIZE: u64 = 8 + 304 + 128;
/// Offset of `uc_mcontext` in the frame.
const MCONTEXT: u64 = 8 + own_ucontext::mcontext(8);
/// Offset of `uc_sigmask` in the frame.
const SIGMASK: u64 = 8 + 296;
/// Offset of `siginfo` in the frame.
const SIGINFO: u64 = 8 + 304;
/// Bytes of the FXSAVE image.
const FXSAVE_SIZE: u64 = 512;
/// The System V ABI's red zone below the stack pointer, in bytes.
const RED_ZONE: u64 = 128;

/// `sigcontext` general registers, in their order in the struct (r8 first).
const GREGS: [R; 18] = [
    R::R8,
    R::R9,
    R::R10,
    R::R11,
    R::R12,
    R::R13,
    R::R14,
    R::R15,
    R::RDI,
    R::RSI,
    R::RBP,
    R::RBX,
    R::RDX,
    R::RAX,
    R::RCX,
    R::RSP,
    R::RIP,
    R::RFLAGS,
];

/// `uc_flags`: `UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS` (arch/x86/include/uapi/asm/ucontext.h).
const UC_FLAGS: u64 = 0x2 | 0x4;
/// EFLAGS bits a `sigreturn` may change (the kernel's `FIX_EFLAGS`: AC OF DF TF SF ZF AF PF CF
/// RF).
const FIX_EFLAGS: u64 = 0x40000 | 0x800 | 0x400 | 0x100 | 0x80 | 0x40 | 0x10 | 0x4 | 0x1 | 0x10000;

/// x86_64's signal frames, for its data row (no trampoline: handlers need `SA_RESTORER`).
pub const FRAMES: Frames = Frames { setup_frame, restore_frame, sigtramp_code: None };

/// Builds the frame and enters the handler: `rdi` = signal, `rsi` = &siginfo, `rdx` =
/// &ucontext, `rax` = 0, `rsp` = frame, `rip` = handler; DF, TF and RF cleared.
pub fn setup_frame(cpu: &mut Cpu<'_>, req: &FrameRequest) -> Result<(), Errno> {
    let arch = cpu.get_data().arch;
    if req.action.flags & sa::RESTORER == 0 {
        return Err(Errno::EFAULT);
    }
    let rsp = reg(cpu, R::RSP);
    let top = req.stack_top(rsp.wrapping_sub(RED_ZONE));
    let fpstate = GuestAddr::new(top.wrapping_sub(FXSAVE_SIZE)).align_down(64);
    let frame = (fpstate - FRAME_SIZE).align_down(16) - 8;

    let gregs: Vec<u64> = GREGS.iter().map(|&r| reg(cpu, r)).collect();
    let (cs, ss) = (reg(cpu, R::CS) & 0xffff, reg(cpu, R::SS) & 0xffff);
    let fx = fxsave(cpu);
    // The exception that raised a fault's signal, and CR2 for a page fault.
    let (trapno, err, cr2) = match req.info.fields {
        SigFields::Fault { addr } => match super::trap::take(req.info.signo) {
            Some((trapno, err)) => (trapno, err, if trapno == 14 { addr } else { super::trap::last_cr2() }),
            None => {
                let trapno = super::trap::infer(req.info.signo);
                (trapno, 0, if trapno == 14 { addr } else { super::trap::last_cr2() })
            }
        },
        _ => {
            let (trapno, err) = super::trap::last_exception();
            (trapno, err, super::trap::last_cr2())
        }
    };
    let t = cpu.get_data_mut();
    let mm = &mut t.mm;
    mm.check_writable(frame, fpstate + FXSAVE_SIZE - frame)?;
    mm.write_bytes(fpstate, &fx)?;
    mm.write_u64(frame, req.action.restorer)?;
    mm.write_u64(frame + 8, UC_FLAGS)?;
    mm.write_u64(frame + 16, 0)?;
    write_uc_stack(mm, arch, frame + 24, &req.altstack, frame.get())?;
    for (i, v) in gregs.iter().enumerate() {
        mm.write_u64(frame + MCONTEXT + 8 * i as u64, *v)?;
    }
    // cs, gs, fs, ss (__pad0 is ss with UC_SIGCONTEXT_SS): the code and stack segments the
    // guest ran with (0x23 in 32-bit code it far-jumped to), gs and fs 0 as Linux saves them.
    // Not done as Linux does: the handler should run in 64-bit code whatever the guest ran,
    // and `rt_sigreturn` should load the saved CS and SS; unicorn's register writes in 64-bit
    // mode change only the selector, not the segment (unicorn.c), so neither is done.
    mm.write_u64(frame + MCONTEXT + 18 * 8, cs | (ss << 48))?;
    mm.write_u64(frame + MCONTEXT + 19 * 8, err)?;
    mm.write_u64(frame + MCONTEXT + 20 * 8, trapno)?;
    mm.write_u64(frame + MCONTEXT + 21 * 8, req.old_mask)?; // oldmask
    mm.write_u64(frame + MCONTEXT + 22 * 8, cr2)?;
    mm.write_u64(frame + MCONTEXT + 23 * 8, fpstate.get())?;
    for i in 24..32 {
        mm.write_u64(frame + MCONTEXT + i * 8, 0)?;
    }
    arch.write_sigset(mm, frame + SIGMASK, req.old_mask)?;
    write_siginfo(mm, arch, frame + SIGINFO, &req.info)?;

    let flags = reg(cpu, R::RFLAGS) & !(0x400 | 0x100 | 0x10000);
    let signo = req.guest_signo;
    cpu.set_reg(R::RDI, signo);
    cpu.set_reg(R::RSI, (frame + SIGINFO).get());
    cpu.set_reg(R::RDX, (frame + 8).get());
    cpu.set_reg(R::RAX, 0);
    cpu.set_reg(R::RSP, frame.get());
    cpu.set_reg(R::RFLAGS, flags);
    cpu.set_reg(R::RIP, req.action.handler);
    Ok(())
}

/// `rt_sigreturn`: the handler's `ret` popped `pretcode`, so the frame is at `rsp - 8`. x86_64
/// has `rt` frames only.
pub fn restore_frame(cpu: &mut Cpu<'_>, _rt: bool) -> Result<u64, Errno> {
    let frame = GuestAddr::new(reg(cpu, R::RSP).wrapping_sub(8));
    let mm = &cpu.get_data().mm;
    let mut gregs = [0u64; 18];
    for (i, v) in gregs.iter_mut().enumerate() {
        *v = mm.read_u64(frame + MCONTEXT + 8 * i as u64)?;
    }
    let fpstate = mm.read_u64(frame + MCONTEXT + 23 * 8)?;
    let fx = if fpstate != 0 {
        let mut b = [0u8; u64_to_usize(FXSAVE_SIZE)];
        mm.read_bytes(GuestAddr::new(fpstate), &mut b)?;
        Some(b)
    } else {
        None
    };
    let mask = restore_mask_and_altstack(cpu, frame + SIGMASK, frame + 24)?;
    let old_flags = reg(cpu, R::RFLAGS);
    for (i, &r) in GREGS.iter().enumerate() {
        let v = if r == R::RFLAGS { (old_flags & !FIX_EFLAGS) | (gregs[i] & FIX_EFLAGS) } else { gregs[i] };
        cpu.set_reg(r, v);
    }
    if let Some(fx) = fx {
        fxrstor(cpu, &fx);
    }
    Ok(mask)
}

const XMM: [R; 16] = [
    R::XMM0,
    R::XMM1,
    R::XMM2,
    R::XMM3,
    R::XMM4,
    R::XMM5,
    R::XMM6,
    R::XMM7,
    R::XMM8,
    R::XMM9,
    R::XMM10,
    R::XMM11,
    R::XMM12,
    R::XMM13,
    R::XMM14,
    R::XMM15,
];
const ST: [R; 8] = [R::ST0, R::ST1, R::ST2, R::ST3, R::ST4, R::ST5, R::ST6, R::ST7];

/// The FXSAVE image of the FP state (Intel SDM vol. 1 table 10-2): FCW at 0, FSW at 2, the
/// abridged tag byte at 4, MXCSR at 24, MXCSR_MASK at 28, ST0-7 from 32 (16 each), XMM0-15
/// from 160 (16 each).
fn fxsave(cpu: &Cpu<'_>) -> [u8; u64_to_usize(FXSAVE_SIZE)] {
    let mut fx = [0u8; u64_to_usize(FXSAVE_SIZE)];
    fx[0..2].copy_from_slice(&low16(reg(cpu, R::FPCW)).to_le_bytes());
    fx[2..4].copy_from_slice(&low16(reg(cpu, R::FPSW)).to_le_bytes());
    // Abridged tag: one bit per register, 1 = valid (the full tag word uses 11 for empty).
    let tag = low16(reg(cpu, R::FPTAG));
    let abridged = (0..8).filter(|i| (tag >> (2 * i)) & 3 != 3).fold(0u8, |a, i| a | 1 << i);
    fx[4] = abridged;
    fx[24..28].copy_from_slice(&low32(reg(cpu, R::MXCSR)).to_le_bytes());
    fx[28..32].copy_from_slice(&0xffffu32.to_le_bytes());
    for (i, &r) in ST.iter().enumerate() {
        if let Ok(v) = cpu.reg_read_long(r) {
            let n = v.len().min(10);
            fx[32 + 16 * i..32 + 16 * i + n].copy_from_slice(&v[..n]);
        }
    }
    for (i, &r) in XMM.iter().enumerate() {
        if let Ok(v) = cpu.reg_read_long(r) {
            let n = v.len().min(16);
            fx[160 + 16 * i..160 + 16 * i + n].copy_from_slice(&v[..n]);
        }
    }
    fx
}

/// Loads the FP state from an FXSAVE image (the inverse of [`fxsave`]).
fn fxrstor(cpu: &mut Cpu<'_>, fx: &[u8]) {
    let u16_at = |o: usize| u64::from(u16::from_le_bytes([fx[o], fx[o + 1]]));
    cpu.set_reg(R::FPCW, u16_at(0));
    cpu.set_reg(R::FPSW, u16_at(2));
    let abridged = fx[4];
    let tag = (0..8).fold(0u64, |t, i| if abridged & (1 << i) == 0 { t | 3 << (2 * i) } else { t });
    cpu.set_reg(R::FPTAG, tag);
    cpu.set_reg(R::MXCSR, u64::from(u32::from_le_bytes([fx[24], fx[25], fx[26], fx[27]])));
    for (i, &r) in ST.iter().enumerate() {
        cpu.set_reg_long(r, &fx[32 + 16 * i..32 + 16 * i + 10]);
    }
    for (i, &r) in XMM.iter().enumerate() {
        cpu.set_reg_long(r, &fx[160 + 16 * i..160 + 16 * i + 16]);
    }
}
