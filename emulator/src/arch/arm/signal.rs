//! arm signal frames, as arch/arm/kernel/signal.c builds them, with the `ucontext` and
//! `sigcontext` of arch/arm/include/asm/ucontext.h and arch/arm/include/uapi/asm/sigcontext.h
//! and the VFP record of arch/arm/include/asm/ucontext.h (`struct vfp_sigframe`).
//!
//! Both frames hold a whole `struct ucontext` (744 bytes); offsets within it, in bytes:
//! - `+0` `uc_flags`, `+4` `uc_link`, `+8` `uc_stack` (12);
//! - `+20` `uc_mcontext`, `struct sigcontext` (21 words): `trap_no`, `error_code`, `oldmask`,
//!   `arm_r0`..`arm_r10`, `arm_fp`, `arm_ip`, `arm_sp`, `arm_lr`, `arm_pc`, `arm_cpsr`,
//!   `fault_address`;
//! - `+104` `uc_sigmask` (8), then room for a 1024-bit glibc `sigset_t`;
//! - `+232` `uc_regspace` (512, 8-byte aligned): the VFP record — magic 0x56465001, size
//!   0x120, `d0`-`d31` (8 each), `fpscr`, a pad word, `fpexc`, `fpinst`, `fpinst2`, a pad
//!   word — followed by a zero word that ends the list of coprocessor records.
//!
//! Without `SA_SIGINFO` the kernel builds `struct sigframe`: the `ucontext` (its `uc_flags`
//! set to 0x5ac3c35a, a value `trap_no` never has) and `retcode[4]`; the handler returns
//! through `sigreturn`. With `SA_SIGINFO` it builds `struct rt_sigframe`: a 128-byte
//! `siginfo_t`, then that `sigframe` (`uc_flags` 0, `uc_stack` filled); the handler returns
//! through `rt_sigreturn`. The frame sits below the stack pointer (or at the top of the
//! alternate stack), 8-byte aligned (AAPCS).
//!
//! The handler starts with `r0` = signal, `r1` = &siginfo and `r2` = &ucontext (rt only),
//! `sp` = frame, `lr` = `sa_restorer` or the [sigpage] trampoline, `pc` = handler; bit 0 of
//! the handler's address selects Thumb state (CPSR.T). CPSR's condition flags, Q, J, the IT
//! state and E are cleared (`setup_return`). FPSCR's vector length and stride are cleared for
//! the handler, as the procedure call standard requires; the VFP registers keep their values.

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterARM as R;

use crate::abi::{int32, low32, u64_to_usize};
use crate::guest::Cpu;
use crate::mm::GuestAddr;

use super::{a32, psr, FPEXC_EN, FPEXC_EX, FPEXC_FP2V};
use crate::arch::read_regs;
use crate::guest::sigframe::{
    get_u32, own_ucontext, put_u32, read_uc_stack, write_siginfo, write_uc_stack, Frames, SIGINFO_SIZE, SIGTRAMP_OLD,
};
use crate::signal::{sa, FrameRequest, SigFields, Signal};

/// Bytes of `struct ucontext`.
const UC_SIZE: u64 = 744;
/// Offsets of `uc_stack` and `uc_mcontext` in the ucontext.
const UC_STACK: u64 = own_ucontext::stack(4);
const UC_MCONTEXT: u64 = own_ucontext::mcontext(4);
/// Offset of `uc_sigmask` in the ucontext.
const UC_SIGMASK: u64 = 104;
/// Offset of `uc_regspace` in the ucontext.
const UC_REGSPACE: u64 = 232;
/// Bytes of `struct sigframe`: the ucontext and `retcode[4]`.
const SIGFRAME_SIZE: u64 = UC_SIZE + 16;
/// Bytes of `struct rt_sigframe`: siginfo, then a `struct sigframe`.
const RT_SIGFRAME_SIZE: u64 = SIGINFO_SIZE + SIGFRAME_SIZE;

/// `uc_flags` of an old (non-rt) frame.
const UC_FLAGS_OLD: u32 = 0x5ac3_c35a;
/// `VFP_MAGIC` and `VFP_STORAGE_SIZE` (arch/arm/include/asm/ucontext.h).
const VFP_MAGIC: u32 = 0x5646_5001;
const VFP_STORAGE_SIZE: u32 = 0x120;
/// Offsets in the VFP record: `ufp.fpregs`, `ufp.fpscr`, `ufp_exc.fpexc`.
const VFP_FPREGS: u64 = 8;
const VFP_FPSCR: u64 = 8 + 32 * 8;
const VFP_FPEXC: u64 = 272;

// sizeof(struct ucontext) on arm: 20 + 84 (sigcontext) + 128 (uc_sigmask and its room) + 512
// (uc_regspace); the VFP record's fields as struct vfp_sigframe lays them out.
const _: () = assert!(UC_MCONTEXT + 21 * 4 == UC_SIGMASK && UC_SIGMASK + 128 == UC_REGSPACE);
const _: () = assert!(UC_REGSPACE + 512 == UC_SIZE && RT_SIGFRAME_SIZE == 888);
const _: () = assert!(VFP_FPSCR == 264 && VFP_STORAGE_SIZE as u64 == VFP_FPEXC + 16 && VFP_STORAGE_SIZE + 4 <= 512);

/// `sigcontext` word indices: r0-r15 are consecutive (`arm_fp`..`arm_pc` are r11-r15), then
/// `arm_cpsr` and `fault_address`.
mod sc {
    pub const TRAP_NO: usize = 0;
    pub const OLDMASK: usize = 2;
    pub const R0: usize = 3;
    pub const PC: usize = R0 + 15;
    pub const CPSR: usize = PC + 1;
    pub const FAULT_ADDRESS: usize = CPSR + 1;
}

/// FPSCR `LEN` and `STRIDE` (the VFP short-vector controls), cleared for the handler.
const FPSCR_LEN_STRIDE: u32 = (7 << 16) | (3 << 20);

/// The `sigreturn_codes` words the kernel copies to `retcode` when there is no restorer
/// (arch/arm/kernel/sigreturn_codes.S): ARM `mov r7, #119; swi 0x900077`, Thumb
/// `movs r7, #119; svc 0`, ARM `mov r7, #173; swi 0x9000ad`, Thumb `movs r7, #173; svc 0`.
const SIGRETURN_CODES: [u32; 6] = [0xe3a0_7077, 0xef90_0077, 0xdf00_2777, 0xe3a0_70ad, 0xef90_00ad, 0xdf00_27ad];

/// The [sigpage] trampolines, in ARM state: `mov r7, #173; svc 0` (`rt_sigreturn`) at 0 and
/// `mov r7, #119; svc 0` (`sigreturn`) at [`SIGTRAMP_OLD`]. A Thumb handler reaches them
/// too: `bx lr` and `pop {pc}` switch to ARM state on an even address.
#[allow(clippy::cast_possible_truncation)] // a page offset fits any usize
pub fn sigtramp_code() -> Vec<u8> {
    let mut words = vec![a32::UDF; (SIGTRAMP_OLD / 4 + 2) as usize];
    words[0..2].copy_from_slice(&[0xe3a0_70ad, a32::SVC_0]);
    let old = (SIGTRAMP_OLD / 4) as usize;
    words[old..old + 2].copy_from_slice(&[0xe3a0_7077, a32::SVC_0]);
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// arm's signal frames, for its data row.
pub const FRAMES: Frames = Frames { setup_frame, restore_frame, sigtramp_code: Some(sigtramp_code) };

/// `r0`-`r12`, `sp`, `lr`, `pc` in `sigcontext` order (`arm_r0` first).
fn gregs_ids() -> [i32; 16] {
    let mut ids = [0i32; 16];
    for (i, id) in ids.iter_mut().enumerate().take(13) {
        *id = R::R0 as i32 + int32(i);
    }
    ids[13] = R::SP as i32;
    ids[14] = R::LR as i32;
    ids[15] = R::PC as i32;
    ids
}

/// `d0`-`d31`.
fn dregs_ids() -> [i32; 32] {
    std::array::from_fn(|i| R::D0 as i32 + int32(i))
}

fn reg(cpu: &Cpu<'_>, r: R) -> u32 {
    low32(cpu.reg(r))
}

/// Fills the ucontext at `uc` in `buf` (the kernel's `setup_sigframe`): registers, fault
/// details, the VFP record and the zero word after it. The masks are written to memory later
/// ([`write_masks`]), through the arch's `sigset_t` numbering.
fn fill_ucontext(cpu: &Cpu<'_>, buf: &mut [u8], uc: u64, req: &FrameRequest) {
    let g = read_regs(cpu, &gregs_ids());
    let mc = uc + UC_MCONTEXT;
    let (trap_no, fault_address) = match req.info.fields {
        SigFields::Fault { addr } if matches!(req.info.signo, Signal::SIGSEGV | Signal::SIGBUS) => (14, addr),
        SigFields::Fault { .. } if req.info.signo == Signal::SIGILL => (6, 0),
        _ => (0, 0),
    };
    put_u32(buf, mc + 4 * sc::TRAP_NO as u64, trap_no);
    for (i, v) in g.iter().enumerate() {
        put_u32(buf, mc + 4 * (sc::R0 + i) as u64, low32(*v));
    }
    put_u32(buf, mc + 4 * sc::CPSR as u64, reg(cpu, R::CPSR));
    put_u32(buf, mc + 4 * sc::FAULT_ADDRESS as u64, low32(fault_address));

    let vfp = uc + UC_REGSPACE;
    put_u32(buf, vfp, VFP_MAGIC);
    put_u32(buf, vfp + 4, VFP_STORAGE_SIZE);
    let d = read_regs(cpu, &dregs_ids());
    for (i, v) in d.iter().enumerate() {
        let at = u64_to_usize(vfp + VFP_FPREGS) + 8 * i;
        buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }
    put_u32(buf, vfp + VFP_FPSCR, reg(cpu, R::FPSCR));
    put_u32(buf, vfp + VFP_FPEXC, reg(cpu, R::FPEXC));
    // fpinst, fpinst2 and the end marker after the record stay 0.
}

/// Writes `uc_sigmask` of the ucontext at guest address `uc` and its first word again as
/// `sigcontext.oldmask`.
fn write_masks(
    mm: &mut crate::mm::AddressSpace,
    arch: &dyn crate::guest::GuestArch,
    uc: u64,
    mask: u64,
) -> Result<(), Errno> {
    arch.write_sigset(mm, GuestAddr::new(uc + UC_SIGMASK), mask)?;
    let low = mm.read_u32(GuestAddr::new(uc + UC_SIGMASK))?;
    mm.write_u32(GuestAddr::new(uc + UC_MCONTEXT + 4 * sc::OLDMASK as u64), low)
}

/// Builds the frame and enters the handler (see the module doc). Errors: `EFAULT` when the
/// stack cannot hold the frame.
pub fn setup_frame(cpu: &mut Cpu<'_>, req: &FrameRequest) -> Result<(), Errno> {
    let arch = cpu.get_data().arch;
    let rt = req.action.flags & sa::SIGINFO != 0;
    let sp = u64::from(reg(cpu, R::SP));
    let size = if rt { RT_SIGFRAME_SIZE } else { SIGFRAME_SIZE };
    let frame = GuestAddr::new(req.stack_top(sp).wrapping_sub(size)).align_down(8);
    let uc = if rt { SIGINFO_SIZE } else { 0 };
    let retcode = uc + UC_SIZE;

    let mut buf = vec![0u8; u64_to_usize(size)];
    put_u32(&mut buf, uc, if rt { 0 } else { UC_FLAGS_OLD });
    fill_ucontext(cpu, &mut buf, uc, req);

    let thumb = req.action.handler & 1 != 0;
    let restorer = if req.action.flags & sa::RESTORER != 0 {
        req.action.restorer & 0xffff_ffff
    } else {
        // As the kernel, copy the return code to `retcode` even though the handler returns
        // through the sigpage.
        let idx = usize::from(thumb) * 2 + if rt { 3 } else { 0 };
        put_u32(&mut buf, retcode, SIGRETURN_CODES[idx]);
        put_u32(&mut buf, retcode + 4, SIGRETURN_CODES.get(idx + 1).copied().unwrap_or(0));
        let tramp = cpu.get_data().sigtramp;
        if tramp == 0 {
            return Err(Errno::EFAULT);
        }
        tramp + if rt { 0 } else { SIGTRAMP_OLD }
    };

    let t = cpu.get_data_mut();
    let mm = &mut t.mm;
    mm.check_writable(frame, size)?;
    mm.write_bytes(frame, &buf)?;
    write_masks(mm, arch, (frame + uc).get(), req.old_mask)?;
    if rt {
        write_siginfo(mm, arch, frame, &req.info)?;
        write_uc_stack(mm, arch, frame + uc + UC_STACK, &req.altstack, frame.get())?;
    }

    let mut cpsr = reg(cpu, R::CPSR) & !(psr::F_FIELD | psr::E | psr::IT_MASK);
    if thumb {
        cpsr |= psr::T;
    } else {
        cpsr &= !psr::T;
    }
    let fpscr = reg(cpu, R::FPSCR) & !FPSCR_LEN_STRIDE;
    let signo = req.guest_signo;
    cpu.set_reg(R::FPSCR, u64::from(fpscr));
    cpu.set_reg(R::R0, signo);
    if rt {
        cpu.set_reg(R::R1, frame.get());
        cpu.set_reg(R::R2, (frame + uc).get());
    }
    cpu.set_reg(R::SP, frame.get());
    cpu.set_reg(R::LR, restorer);
    // CPSR first: unicorn's PC write sets the Thumb state from bit 0 again.
    cpu.set_reg(R::CPSR, u64::from(cpsr));
    cpu.set_reg(R::PC, (req.action.handler & 0xffff_fffe) | u64::from(thumb));
    Ok(())
}

/// `sigreturn` (`rt` false) and `rt_sigreturn`: the handler returned with `sp` at the frame
/// (`sys_sigreturn`, `sys_rt_sigreturn`). Restores the registers, the VFP state, and for `rt`
/// the alternate stack; returns the mask from `uc_sigmask` (both frames keep it there).
/// Errors: `EFAULT` for a misaligned or unreadable frame, a CPSR that is not User mode with
/// IRQs enabled (`valid_user_regs`), or a missing VFP record — the kernel's `badframe`.
pub fn restore_frame(cpu: &mut Cpu<'_>, rt: bool) -> Result<u64, Errno> {
    let arch = cpu.get_data().arch;
    let sp = u64::from(reg(cpu, R::SP));
    if sp & 7 != 0 {
        return Err(Errno::EFAULT);
    }
    let uc = sp + if rt { SIGINFO_SIZE } else { 0 };
    let t = cpu.get_data_mut();
    let mm = &t.mm;
    let mut buf = vec![0u8; u64_to_usize(UC_SIZE)];
    mm.read_bytes(GuestAddr::new(uc), &mut buf)?;
    let mask = arch.read_sigset(mm, GuestAddr::new(uc + UC_SIGMASK))?;
    let altstack = if rt { read_uc_stack(mm, arch, GuestAddr::new(uc + UC_STACK)) } else { None };

    let mc = UC_MCONTEXT;
    let word = |i: usize| get_u32(&buf, mc + 4 * i as u64);
    let cpsr = word(sc::CPSR) & !(psr::F | psr::A);
    if cpsr & psr::I != 0 || cpsr & psr::MODE_MASK != psr::USR_MODE {
        return Err(Errno::EFAULT);
    }
    let vfp = UC_REGSPACE;
    if get_u32(&buf, vfp) != VFP_MAGIC || get_u32(&buf, vfp + 4) != VFP_STORAGE_SIZE {
        return Err(Errno::EFAULT);
    }
    if let Some(st) = altstack {
        t.sig.altstack = st;
    }

    cpu.set_reg(R::CPSR, u64::from(cpsr));
    let ids = gregs_ids();
    for (i, &id) in ids.iter().enumerate().take(15) {
        cpu.set_reg(id, u64::from(word(sc::R0 + i)));
    }
    let thumb = cpsr & psr::T != 0;
    cpu.set_reg(R::PC, u64::from(word(sc::PC) & !1) | u64::from(thumb));

    for (i, id) in dregs_ids().into_iter().enumerate() {
        let at = u64_to_usize(vfp + VFP_FPREGS) + 8 * i;
        let v = u64::from_le_bytes(buf[at..at + 8].try_into().unwrap_or([0; 8]));
        cpu.set_reg(id, v);
    }
    cpu.set_reg(R::FPSCR, u64::from(get_u32(&buf, vfp + VFP_FPSCR)));
    // The kernel keeps VFP enabled and drops a pending exception (`vfp_restore_user_hwstate`).
    let fpexc = (get_u32(&buf, vfp + VFP_FPEXC) | FPEXC_EN) & !(FPEXC_EX | FPEXC_FP2V);
    cpu.set_reg(R::FPEXC, u64::from(fpexc));
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trampolines_are_arm_svc_sequences() {
        let code = sigtramp_code();
        let word = |at: usize| u32::from_le_bytes(code[at..at + 4].try_into().unwrap());
        // mov r7, #173 / #119 (A32 MOV immediate: cond AL, Rd = 7) then svc #0.
        assert_eq!(word(0), 0xe3a0_7000 | 173);
        assert_eq!(word(4), 0xef00_0000);
        let old = u64_to_usize(SIGTRAMP_OLD);
        assert_eq!(word(old), 0xe3a0_7000 | 119);
        assert_eq!(word(old + 4), 0xef00_0000);
        // The Thumb retcode words hold `movs r7, #n` (0x27nn) then `svc 0` (0xdf00).
        assert_eq!(SIGRETURN_CODES[2], 0xdf00 << 16 | 0x2700 | 119);
        assert_eq!(SIGRETURN_CODES[5], 0xdf00 << 16 | 0x2700 | 173);
    }
}
