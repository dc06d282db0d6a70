//! i386 signal frames: `struct sigframe_ia32` and `struct rt_sigframe_ia32`
//! (arch/x86/include/asm/sigframe.h) with `struct sigcontext_32` and `struct _fpstate_32`
//! (arch/x86/include/uapi/asm/sigcontext.h), built and placed as arch/x86/kernel/signal_32.c,
//! signal.c (`get_sigframe`) and fpu/signal.c do it for a CPU with FXSR and no XSAVE.
//!
//! `struct sigcontext_32` (88 bytes, one 32-bit word each): `gs`, `fs`, `es`, `ds`, `edi`,
//! `esi`, `ebp`, `esp`, `ebx`, `edx`, `ecx`, `eax`, `trapno`, `err`, `eip`, `cs`, `eflags`,
//! `esp_at_signal`, `ss`, `fpstate` (pointer), `oldmask`, `cr2`.
//!
//! The handler's arguments are on the stack (cdecl); `frame` is the stack pointer the handler
//! starts with, and offsets are in bytes:
//! - without `SA_SIGINFO`, `struct sigframe_ia32` (732): `+0` `pretcode` (the return
//!   address), `+4` `sig`, `+8` `sc`, `+96` an unused `struct _fpstate_32` (624), `+720`
//!   `extramask` (the mask's second word), `+724` `retcode` (8); the handler returns through
//!   `sigreturn`, whose restorer pops `sig` first;
//! - with `SA_SIGINFO`, `struct rt_sigframe_ia32` (268): `+0` `pretcode`, `+4` `sig`, `+8`
//!   `pinfo`, `+12` `puc`, `+16` `siginfo_t` (128), `+144` `struct ucontext` (`uc_flags` 0,
//!   `uc_link`, `uc_stack` (12), `uc_mcontext` (88), `uc_sigmask` (8)), `+260` `retcode` (8);
//!   the handler returns through `rt_sigreturn`.
//!
//! Above the frame lies the FP state `sc.fpstate` points to: the 112-byte legacy FSAVE header
//! (`cw`, `sw`, `tag`, `ipoff`, `cssel`, `dataoff`, `datasel`, `st0`-`st7` at 10 bytes each,
//! `status`, `magic` = 0 for "FXSR data follows"), then the 512-byte FXSAVE image, 64-byte
//! aligned. `frame + 4` is 16-byte aligned, as at a function's entry.
//!
//! The handler starts with `eax` = signal (and `edx` = &siginfo, `ecx` = &ucontext for rt,
//! both 0 otherwise: `-mregparm=3` handlers), DF, TF and RF clear, DS and ES = `__USER_DS`,
//! and a fresh FPU (`fpu__clear_user_states`). `gs` (glibc's TLS segment) and `fs` keep their
//! selectors. `retcode` holds the kernel's historic return code (`popl %eax; movl $119,%eax;
//! int $0x80` or `movl $173,%eax; int $0x80`), which gdb still recognises.

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::RegisterX86 as R;

use super::gdt;
use crate::abi::{low16, low32, u64_to_usize};
use crate::guest::sigframe::{
    align_down, get_u32, own_ucontext, put_u32, read_uc_stack, write_siginfo, write_uc_stack, Frames, SIGINFO_SIZE,
    SIGTRAMP_OLD,
};
use crate::guest::Cpu;
use crate::mm::GuestAddr;
use crate::signal::{sa, FrameRequest, SigFields};

/// Bytes of `struct sigcontext_32`.
const SC_SIZE: u64 = 88;
/// Bytes of `struct _fpstate_32`: the FSAVE header and the FXSAVE image.
const FPSTATE_SIZE: u64 = FSAVE_HEADER + FXSAVE_SIZE;
/// Bytes of the legacy header (`struct fregs_state`).
const FSAVE_HEADER: u64 = 112;
/// Bytes of the FXSAVE image.
const FXSAVE_SIZE: u64 = 512;

/// `struct sigframe_ia32`: size, `sc`, `extramask`, `retcode`.
const OLD_SIZE: u64 = 8 + SC_SIZE + FPSTATE_SIZE + 4 + 8;
const OLD_SC: u64 = 8;
const OLD_EXTRAMASK: u64 = 8 + SC_SIZE + FPSTATE_SIZE;
const OLD_RETCODE: u64 = OLD_EXTRAMASK + 4;

/// `struct rt_sigframe_ia32`: size, `info`, `uc`, `retcode`.
const RT_SIZE: u64 = 16 + SIGINFO_SIZE + UC_SIZE + 8;
const RT_INFO: u64 = 16;
const RT_UC: u64 = 16 + SIGINFO_SIZE;
const RT_RETCODE: u64 = RT_UC + UC_SIZE;

/// `struct ucontext` (i386): size, `uc_stack`, `uc_mcontext`, `uc_sigmask`.
const UC_SIZE: u64 = 8 + 12 + SC_SIZE + 8;
const UC_STACK: u64 = own_ucontext::stack(4);
const UC_MCONTEXT: u64 = own_ucontext::mcontext(4);
const UC_SIGMASK: u64 = 20 + SC_SIZE;

// sizeof(struct _fpstate_32) = 624, sizeof(struct sigframe_ia32) = 732 (`extramask` at 720),
// sizeof(struct rt_sigframe_ia32) = 268, sizeof(struct ucontext_ia32) = 116; the rt frame's
// `uc.uc_mcontext.fpstate` at 16 + 128 + 20 + 76.
const _: () = assert!(FPSTATE_SIZE == 624 && OLD_SIZE == 732 && OLD_EXTRAMASK == 720);
const _: () =
    assert!(RT_SIZE == 268 && UC_SIZE == 116 && RT_UC + UC_MCONTEXT + 4 * sc::FPSTATE as u64 == 16 + 128 + 20 + 76);

/// `sigcontext_32` word indices: the data segment registers from `gs` ([`SEGS`]), the general
/// registers from `edi` ([`GREGS`]), then `trapno` and the rest.
mod sc {
    pub const GS: usize = 0;
    pub const EDI: usize = GS + super::SEGS.len();
    pub const TRAPNO: usize = EDI + super::GREGS.len();
    pub const EIP: usize = 14;
    pub const CS: usize = 15;
    pub const EFLAGS: usize = 16;
    pub const ESP_AT_SIGNAL: usize = 17;
    pub const SS: usize = 18;
    pub const FPSTATE: usize = 19;
    pub const OLDMASK: usize = 20;
    pub const CR2: usize = 21;
}

/// The data segment registers from `gs` to `ds`, in `sigcontext_32` order.
const SEGS: [R; 4] = [R::GS, R::FS, R::ES, R::DS];

/// The general registers from `edi` to `eax`, in `sigcontext_32` order.
const GREGS: [R; 8] = [R::EDI, R::ESI, R::EBP, R::ESP, R::EBX, R::EDX, R::ECX, R::EAX];

/// EFLAGS bits a `sigreturn` may change (the kernel's `FIX_EFLAGS`: AC OF DF TF SF ZF AF PF CF
/// RF).
const FIX_EFLAGS: u64 = 0x40000 | 0x800 | 0x400 | 0x100 | 0x80 | 0x40 | 0x10 | 0x4 | 0x1 | 0x10000;
/// EFLAGS DF, TF and RF, cleared for the handler.
const HANDLER_CLEARS: u64 = 0x400 | 0x100 | 0x10000;
/// `MXCSR` bits the CPU implements (`mxcsr_feature_mask`; the model has no DAZ).
const MXCSR_MASK: u32 = 0xffff;

/// `__NR_sigreturn` and `__NR_rt_sigreturn` on i386.
const NR_SIGRETURN: u8 = 119;
const NR_RT_SIGRETURN: u8 = 173;

/// The old frame's `retcode` and trampoline: `popl %eax; movl $119, %eax; int $0x80`.
const RETCODE_OLD: [u8; 8] = [0x58, 0xb8, NR_SIGRETURN, 0, 0, 0, 0xcd, 0x80];
/// The rt frame's `retcode` and trampoline: `movl $173, %eax; int $0x80` (and a pad byte).
const RETCODE_RT: [u8; 8] = [0xb8, NR_RT_SIGRETURN, 0, 0, 0, 0xcd, 0x80, 0];

/// The sigtramp page for handlers without `SA_RESTORER`: the rt return code at 0 and the
/// old one at [`SIGTRAMP_OLD`], as the kernel's vDSO has them (`__kernel_rt_sigreturn`,
/// `__kernel_sigreturn`); `hlt` (a #GP at CPL 3, SIGSEGV) around them.
pub fn sigtramp_code() -> Vec<u8> {
    let mut code = vec![0xf4u8; u64_to_usize(SIGTRAMP_OLD + 8)];
    code[..8].copy_from_slice(&RETCODE_RT);
    code[u64_to_usize(SIGTRAMP_OLD)..].copy_from_slice(&RETCODE_OLD);
    code
}

/// i386's signal frames, for its data row.
pub const FRAMES: Frames = Frames { setup_frame, restore_frame, sigtramp_code: Some(sigtramp_code) };

fn reg(cpu: &Cpu<'_>, r: R) -> u64 {
    cpu.reg(r) & 0xffff_ffff
}

/// Fills `struct sigcontext_32` at `at` in `buf` (`__unsafe_setup_sigcontext32`), but for
/// `oldmask`.
fn fill_sigcontext(cpu: &Cpu<'_>, buf: &mut [u8], at: u64, req: &FrameRequest, fpstate: u64) {
    let w = |i: usize| at + 4 * i as u64;
    for (i, &r) in SEGS.iter().enumerate() {
        put_u32(buf, w(sc::GS + i), (reg(cpu, r) & 0xffff) as u32);
    }
    for (i, &r) in GREGS.iter().enumerate() {
        put_u32(buf, w(sc::EDI + i), low32(reg(cpu, r)));
    }
    // The trap that raised a fault (Intel SDM vol. 3 table 6-1), and CR2 for a page fault.
    let trap = crate::arch::x86_64::trap::take(req.info.signo);
    let last_cr2 = crate::arch::x86_64::trap::last_cr2();
    let (trapno, err, cr2) = match (trap, req.info.fields) {
        (Some((trapno, err)), SigFields::Fault { addr }) => (trapno, err, if trapno == 14 { addr } else { last_cr2 }),
        (None, SigFields::Fault { addr }) => {
            let trapno = crate::arch::x86_64::trap::infer(req.info.signo);
            (trapno, 0, if trapno == 14 { addr } else { last_cr2 })
        }
        _ => {
            let (trapno, err) = crate::arch::x86_64::trap::last_exception();
            (trapno, err, last_cr2)
        }
    };
    put_u32(buf, w(sc::TRAPNO), low32(trapno));
    put_u32(buf, w(sc::TRAPNO + 1), low32(err));
    put_u32(buf, w(sc::EIP), low32(reg(cpu, R::EIP)));
    put_u32(buf, w(sc::CS), (reg(cpu, R::CS) & 0xffff) as u32);
    put_u32(buf, w(sc::EFLAGS), low32(reg(cpu, R::EFLAGS)));
    put_u32(buf, w(sc::ESP_AT_SIGNAL), low32(reg(cpu, R::ESP)));
    put_u32(buf, w(sc::SS), (reg(cpu, R::SS) & 0xffff) as u32);
    put_u32(buf, w(sc::FPSTATE), low32(fpstate));
    put_u32(buf, w(sc::CR2), low32(cr2));
}

/// Builds the frame and enters the handler (see the module doc). Errors: `EFAULT` when the
/// stack cannot hold the frame.
pub fn setup_frame(cpu: &mut Cpu<'_>, req: &FrameRequest) -> Result<(), Errno> {
    let arch = cpu.get_data().arch;
    let rt = req.action.flags & sa::SIGINFO != 0;
    let esp = reg(cpu, R::ESP);
    let top = req.stack_top(esp);
    let fxsave_at = align_down(top.wrapping_sub(FXSAVE_SIZE), 64);
    let fpstate = GuestAddr::new(fxsave_at.wrapping_sub(FSAVE_HEADER));
    let size = if rt { RT_SIZE } else { OLD_SIZE };
    let frame = ((fpstate - size + 4).align_down(16)) - 4;
    let end = fxsave_at.wrapping_add(FXSAVE_SIZE);

    let restorer = if req.action.flags & sa::RESTORER != 0 {
        req.action.restorer & 0xffff_ffff
    } else {
        let tramp = cpu.get_data().sigtramp;
        if tramp == 0 {
            return Err(Errno::EFAULT);
        }
        tramp + if rt { 0 } else { SIGTRAMP_OLD }
    };
    let signo = req.guest_signo;
    let mut buf = vec![0u8; u64_to_usize(size)];
    put_u32(&mut buf, 0, low32(restorer));
    put_u32(&mut buf, 4, low32(signo));
    let sc_off = if rt {
        put_u32(&mut buf, 8, low32((frame + RT_INFO).get()));
        put_u32(&mut buf, 12, low32((frame + RT_UC).get()));
        buf[u64_to_usize(RT_RETCODE)..].copy_from_slice(&RETCODE_RT);
        RT_UC + UC_MCONTEXT
    } else {
        buf[u64_to_usize(OLD_RETCODE)..].copy_from_slice(&RETCODE_OLD);
        OLD_SC
    };
    fill_sigcontext(cpu, &mut buf, sc_off, req, fpstate.get());
    let fp = fpu_save(cpu);

    // The mask: its first word in `sc.oldmask`, the second in `extramask` (old), all of it
    // in `uc_sigmask` (rt). i386 numbers signals as the host does.
    put_u32(&mut buf, sc_off + 4 * sc::OLDMASK as u64, low32(req.old_mask));
    if !rt {
        put_u32(&mut buf, OLD_EXTRAMASK, (req.old_mask >> 32) as u32);
    }

    let t = cpu.get_data_mut();
    let mm = &mut t.mm;
    mm.check_writable(frame, end.wrapping_sub(frame.get()))?;
    mm.write_bytes(fpstate, &fp)?;
    mm.write_bytes(frame, &buf)?;
    if rt {
        arch.write_sigset(mm, frame + RT_UC + UC_SIGMASK, req.old_mask)?;
        write_siginfo(mm, arch, frame + RT_INFO, &req.info)?;
        write_uc_stack(mm, arch, frame + RT_UC + UC_STACK, &req.altstack, frame.get())?;
    }

    for r in [R::DS, R::ES] {
        if reg(cpu, r) & 0xffff != u64::from(gdt::USER_DS) {
            gdt::load_segment(cpu, r, u64::from(gdt::USER_DS)).map_err(|_| Errno::EFAULT)?;
        }
    }
    let flags = reg(cpu, R::EFLAGS) & !HANDLER_CLEARS;
    let (edx, ecx) = if rt { (frame + RT_INFO, frame + RT_UC) } else { (GuestAddr::NULL, GuestAddr::NULL) };
    fpu_init(cpu);
    cpu.set_reg(R::EAX, signo);
    cpu.set_reg(R::EDX, edx.get());
    cpu.set_reg(R::ECX, ecx.get());
    cpu.set_reg(R::ESP, frame.get());
    cpu.set_reg(R::EFLAGS, flags);
    cpu.set_reg(R::EIP, req.action.handler & 0xffff_ffff);
    Ok(())
}

/// `sigreturn` (`rt` false: the restorer popped `sig`, so the frame is at `esp - 8`) and
/// `rt_sigreturn` (the frame at `esp - 4`, after the handler's `ret`): restores the registers
/// (`ia32_restore_sigcontext`: CS and SS forced to RPL 3, only the `FIX_EFLAGS` bits of
/// EFLAGS, the data segments reloaded when they changed), the FP state, and for `rt` the
/// alternate stack. Returns the mask: `sc.oldmask` and `extramask` (old), `uc_sigmask` (rt).
/// Errors: `EFAULT` for an unreadable frame or FP state, or a segment that cannot be loaded.
pub fn restore_frame(cpu: &mut Cpu<'_>, rt: bool) -> Result<u64, Errno> {
    let arch = cpu.get_data().arch;
    let esp = reg(cpu, R::ESP);
    let frame = GuestAddr::new(esp.wrapping_sub(if rt { 4 } else { 8 }));
    let sc_at = frame + if rt { RT_UC + UC_MCONTEXT } else { OLD_SC };
    let t = cpu.get_data_mut();
    let mm = &t.mm;
    let mut scb = [0u8; u64_to_usize(SC_SIZE)];
    mm.read_bytes(sc_at, &mut scb)?;
    let word = |i: usize| u64::from(get_u32(&scb, 4 * i as u64));
    let mask = if rt {
        arch.read_sigset(mm, frame + RT_UC + UC_SIGMASK)?
    } else {
        word(sc::OLDMASK) | u64::from(mm.read_u32(frame + OLD_EXTRAMASK)?) << 32
    };
    let fpstate = word(sc::FPSTATE);
    let fp = if fpstate != 0 {
        let mut b = vec![0u8; u64_to_usize(FPSTATE_SIZE)];
        mm.read_bytes(GuestAddr::new(fpstate), &mut b)?;
        Some(b)
    } else {
        None
    };
    if rt {
        if let Some(st) = read_uc_stack(mm, arch, frame + RT_UC + UC_STACK) {
            t.sig.altstack = st;
        }
    }

    for (i, &r) in GREGS.iter().enumerate() {
        cpu.set_reg(r, word(sc::EDI + i));
    }
    cpu.set_reg(R::EIP, word(sc::EIP));
    let flags = reg(cpu, R::EFLAGS);
    cpu.set_reg(R::EFLAGS, (flags & !FIX_EFLAGS) | (word(sc::EFLAGS) & FIX_EFLAGS));
    // Segment registers: loaded only when they changed (the kernel's `reload_segments`); a
    // null selector of any RPL counts as unchanged null. CS and SS get RPL 3.
    let data_segs = SEGS.iter().enumerate().map(|(i, &r)| (r, sc::GS + i));
    for (r, i) in [(R::CS, sc::CS), (R::SS, sc::SS)].into_iter().chain(data_segs) {
        let sel = (word(i) & 0xffff) | 3;
        let cur = reg(cpu, r) & 0xffff;
        if sel == cur || (sel & !3 == 0 && cur & !3 == 0) {
            continue;
        }
        if gdt::load_segment(cpu, r, sel).is_err() {
            match r {
                // A data segment that cannot be loaded becomes null (`loadsegment`'s fixup).
                R::GS | R::FS | R::DS | R::ES => {
                    let _ = gdt::load_segment(cpu, r, 0);
                }
                _ => return Err(Errno::EFAULT),
            }
        }
    }
    if let Some(fp) = fp {
        fpu_restore(cpu, &fp);
    }
    Ok(mask)
}

const XMM: [R; 8] = [R::XMM0, R::XMM1, R::XMM2, R::XMM3, R::XMM4, R::XMM5, R::XMM6, R::XMM7];
const ST: [R; 8] = [R::ST0, R::ST1, R::ST2, R::ST3, R::ST4, R::ST5, R::ST6, R::ST7];

/// The `struct _fpstate_32` image of the FP state (`save_fsave_header` and an FXSAVE):
/// the FSAVE header (`convert_from_fxsr`: control, status and full tag words with their high
/// halves set, FIP, FCS with the opcode above it, FDP, FDS, the registers in stack order,
/// then `status` and `magic` 0), and the FXSAVE image (Intel SDM vol. 1 table 10-2: FCW,
/// FSW, abridged tag, FOP, FIP, FCS, FDP, FDS, MXCSR, MXCSR_MASK, ST0-7, XMM0-7).
fn fpu_save(cpu: &Cpu<'_>) -> Vec<u8> {
    let mut b = vec![0u8; u64_to_usize(FPSTATE_SIZE)];
    let fcw = low16(reg(cpu, R::FPCW));
    let fsw = low16(reg(cpu, R::FPSW));
    let tag = low16(reg(cpu, R::FPTAG));
    let fop = low16(reg(cpu, R::FOP));
    let fip = low32(reg(cpu, R::FIP));
    let fcs = low16(reg(cpu, R::FCS));
    let fdp = low32(reg(cpu, R::FDP));
    let fds = low16(reg(cpu, R::FDS));
    let mut st = [[0u8; 10]; 8];
    for (i, &r) in ST.iter().enumerate() {
        if let Ok(v) = cpu.reg_read_long(r) {
            let n = v.len().min(10);
            st[i][..n].copy_from_slice(&v[..n]);
        }
    }
    // FSAVE header.
    put_u32(&mut b, 0, 0xffff_0000 | u32::from(fcw));
    put_u32(&mut b, 4, 0xffff_0000 | u32::from(fsw));
    put_u32(&mut b, 8, 0xffff_0000 | u32::from(tag));
    put_u32(&mut b, 12, fip);
    put_u32(&mut b, 16, u32::from(fcs) | u32::from(fop) << 16);
    put_u32(&mut b, 20, fdp);
    put_u32(&mut b, 24, 0xffff_0000 | u32::from(fds));
    for (i, s) in st.iter().enumerate() {
        b[28 + 10 * i..38 + 10 * i].copy_from_slice(s);
    }
    b[108..110].copy_from_slice(&fsw.to_le_bytes());
    // `magic` at 110 = 0 (X86_FXSR_MAGIC): FXSAVE data follows.

    let fx = u64_to_usize(FSAVE_HEADER);
    b[fx..fx + 2].copy_from_slice(&fcw.to_le_bytes());
    b[fx + 2..fx + 4].copy_from_slice(&fsw.to_le_bytes());
    // Abridged tag: one bit per physical register, 1 = not empty.
    b[fx + 4] = (0..8).filter(|i| (tag >> (2 * i)) & 3 != 3).fold(0u8, |a, i| a | 1 << i);
    b[fx + 6..fx + 8].copy_from_slice(&fop.to_le_bytes());
    put_u32(&mut b, fx as u64 + 8, fip);
    b[fx + 12..fx + 14].copy_from_slice(&fcs.to_le_bytes());
    put_u32(&mut b, fx as u64 + 16, fdp);
    b[fx + 20..fx + 22].copy_from_slice(&fds.to_le_bytes());
    put_u32(&mut b, fx as u64 + 24, low32(reg(cpu, R::MXCSR)));
    put_u32(&mut b, fx as u64 + 28, MXCSR_MASK);
    for (i, s) in st.iter().enumerate() {
        b[fx + 32 + 16 * i..fx + 42 + 16 * i].copy_from_slice(s);
    }
    for (i, &r) in XMM.iter().enumerate() {
        if let Ok(v) = cpu.reg_read_long(r) {
            let n = v.len().min(16);
            b[fx + 160 + 16 * i..fx + 160 + 16 * i + n].copy_from_slice(&v[..n]);
        }
    }
    b
}

/// Loads the FP state from a `struct _fpstate_32` image as `__fpu_restore_sig` does for an
/// ia32 frame: the x87 part from the FSAVE header (`convert_to_fxsr`; only empty/non-empty
/// survives of the tag word), MXCSR and the XMM registers from the FXSAVE image.
fn fpu_restore(cpu: &mut Cpu<'_>, b: &[u8]) {
    let fx = FSAVE_HEADER;
    cpu.set_reg(R::FPCW, u64::from(get_u32(b, 0) & 0xffff));
    // FSW before the registers: it holds TOP, which ST(i) is relative to.
    cpu.set_reg(R::FPSW, u64::from(get_u32(b, 4) & 0xffff));
    cpu.set_reg(R::FPTAG, u64::from(get_u32(b, 8) & 0xffff));
    cpu.set_reg(R::FIP, u64::from(get_u32(b, 12)));
    cpu.set_reg(R::FCS, u64::from(get_u32(b, 16) & 0xffff));
    cpu.set_reg(R::FOP, u64::from(get_u32(b, 16) >> 16));
    cpu.set_reg(R::FDP, u64::from(get_u32(b, 20)));
    cpu.set_reg(R::FDS, u64::from(get_u32(b, 24) & 0xffff));
    for (i, &r) in ST.iter().enumerate() {
        cpu.set_reg_long(r, &b[28 + 10 * i..38 + 10 * i]);
    }
    cpu.set_reg(R::MXCSR, u64::from(get_u32(b, fx + 24) & MXCSR_MASK));
    let fx = u64_to_usize(fx);
    for (i, &r) in XMM.iter().enumerate() {
        cpu.set_reg_long(r, &b[fx + 160 + 16 * i..fx + 176 + 16 * i]);
    }
}

/// The FP state a handler starts with (the kernel's `init_fpstate`): control word 0x37f,
/// every register empty and zero, MXCSR 0x1f80.
fn fpu_init(cpu: &mut Cpu<'_>) {
    cpu.set_reg(R::FPCW, 0x37f);
    cpu.set_reg(R::FPSW, 0);
    for &r in &ST {
        cpu.set_reg_long(r, &[0u8; 10]);
    }
    cpu.set_reg(R::FPTAG, 0xffff);
    for r in [R::FIP, R::FCS, R::FOP, R::FDP, R::FDS] {
        cpu.set_reg(r, 0);
    }
    cpu.set_reg(R::MXCSR, 0x1f80);
    for &r in &XMM {
        cpu.set_reg_long(r, &[0u8; 16]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_code_is_the_kernels() {
        // popl %eax (58); movl $119, %eax (b8 imm32); int $0x80 (cd 80).
        assert_eq!(RETCODE_OLD, [0x58, 0xb8, 119, 0, 0, 0, 0xcd, 0x80]);
        let code = sigtramp_code();
        assert_eq!(code[..7], [0xb8, 173, 0, 0, 0, 0xcd, 0x80]);
        assert_eq!(code[u64_to_usize(SIGTRAMP_OLD)..], RETCODE_OLD);
    }
}
