//! The guest registers in the layouts the GDB remote protocol's `g` and `G` packets use: each
//! arch's register set (a `gdbstub_arch` type, or endgate's own where that crate has none:
//! [`super::s390x`], [`super::fpregs`]'s arm and riscv64, and [`super::mips64`]'s description) read from and written to the thread's
//! unicorn instance.
//!
//! Writes change only the registers whose value differs from the instance's: writing an
//! unchanged register can have side effects in the engine (arm's `PC` write takes bit 0 as the
//! Thumb state, x86's segment writes reload descriptors).

use gdbstub::arch::Arch;
use gdbstub_arch::{aarch64, mips, x86};
use unicorn_engine::{RegisterARM, RegisterARM64, RegisterMIPS, RegisterRISCV, RegisterS390X, RegisterX86};

use crate::guard::Checked as _;
use crate::guest::Cpu;

/// An arch whose register set endgate reads from and writes to a unicorn instance.
pub trait GuestRegs: Arch {
    /// Fills `regs` from the instance.
    fn read(cpu: &Cpu<'_>, regs: &mut Self::Registers);
    /// Writes `regs` to the instance.
    fn write(cpu: &mut Cpu<'_>, regs: &Self::Registers);
    /// The target description endgate gives instead of the arch type's own (`None`: the
    /// type's).
    fn description_override() -> Option<&'static str> {
        None
    }
}

fn get(cpu: &Cpu<'_>, id: i32) -> u64 {
    cpu.reg(id)
}

fn get32(cpu: &Cpu<'_>, id: i32) -> u32 {
    crate::abi::low32(get(cpu, id))
}

/// Writes `v` to register `id` when it differs from the instance's value.
fn set(cpu: &mut Cpu<'_>, id: i32, v: u64) {
    if cpu.reg(id) != v {
        cpu.set_reg(id, v);
    }
}

/// A register wider than 64 bits, as `N` little-endian bytes (zero where the engine has none).
fn get_wide<const N: usize>(cpu: &Cpu<'_>, id: i32) -> [u8; N] {
    let mut out = [0u8; N];
    if let Ok(v) = cpu.reg_read_long(id) {
        let n = v.len().min(N);
        out[..n].copy_from_slice(&v[..n]);
    }
    out
}

fn set_wide(cpu: &mut Cpu<'_>, id: i32, v: &[u8]) {
    if cpu.reg_read_long(id).ok().is_some_and(|old| &old[..] != v) {
        cpu.set_reg_long(id, v);
    }
}

impl GuestRegs for aarch64::AArch64 {
    /// The crate's description less its system-register feature (`org.rust.gdb.arm.sys.regs`,
    /// hundreds of EL1-EL3 registers a user-mode guest cannot read, which `info registers`
    /// would list as unavailable): the core and fpu features the `g` packet carries.
    fn description_override() -> Option<&'static str> {
        static XML: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        let xml = XML.get_or_init(|| {
            let full = <Self as Arch>::target_description_xml().unwrap_or("");
            match (full.find("<feature name=\"org.rust.gdb.arm.sys.regs\""), full.rfind("</target>")) {
                (Some(s), Some(e)) if s < e => format!("{}{}", &full[..s], &full[e..]),
                _ => full.to_string(),
            }
        });
        Some(xml.as_str())
    }

    fn read(cpu: &Cpu<'_>, r: &mut Self::Registers) {
        use RegisterARM64 as R;
        for (n, x) in r.x.iter_mut().enumerate() {
            *x = get(cpu, reg_n(R::X0 as i32, n));
        }
        // X29 and X30 are not after X28 in unicorn's numbering.
        r.x[29] = get(cpu, R::X29 as i32);
        r.x[30] = get(cpu, R::X30 as i32);
        r.sp = get(cpu, R::SP as i32);
        r.pc = get(cpu, R::PC as i32);
        r.cpsr = get32(cpu, R::PSTATE as i32);
        for (n, v) in r.v.iter_mut().enumerate() {
            *v = u128::from_le_bytes(get_wide::<16>(cpu, reg_n(R::Q0 as i32, n)));
        }
        r.fpcr = get32(cpu, R::FPCR as i32);
        r.fpsr = get32(cpu, R::FPSR as i32);
    }

    fn write(cpu: &mut Cpu<'_>, r: &Self::Registers) {
        use RegisterARM64 as R;
        for (n, x) in r.x.iter().enumerate().take(29) {
            set(cpu, reg_n(R::X0 as i32, n), *x);
        }
        set(cpu, R::X29 as i32, r.x[29]);
        set(cpu, R::X30 as i32, r.x[30]);
        set(cpu, R::SP as i32, r.sp);
        set(cpu, R::PC as i32, r.pc);
        set(cpu, R::PSTATE as i32, u64::from(r.cpsr));
        for (n, v) in r.v.iter().enumerate() {
            set_wide(cpu, reg_n(R::Q0 as i32, n), &v.to_le_bytes());
        }
        set(cpu, R::FPCR as i32, u64::from(r.fpcr));
        set(cpu, R::FPSR as i32, u64::from(r.fpsr));
    }
}

/// Register `base + n`, for the runs of consecutive ids the engine numbers in order.
fn reg_n(base: i32, n: usize) -> i32 {
    base + i32::try_from(n).unwrap_or(0)
}

/// x86-64's general registers in the protocol's order (rax, rbx, rcx, rdx, rsi, rdi, rbp,
/// rsp, r8-r15).
const X86_64_GPRS: [RegisterX86; 16] = {
    use RegisterX86::*;
    [RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13, R14, R15]
};

/// The x87 and SSE state both x86 layouts share.
fn read_x87(cpu: &Cpu<'_>, st: &mut [[u8; 10]; 8], fpu: &mut x86::reg::X87FpuInternalRegs) -> u32 {
    use RegisterX86 as R;
    for (n, s) in st.iter_mut().enumerate() {
        *s = get_wide::<10>(cpu, reg_n(R::ST0 as i32, n));
    }
    fpu.fctrl = get32(cpu, R::FPCW as i32);
    fpu.fstat = get32(cpu, R::FPSW as i32);
    fpu.ftag = get32(cpu, R::FPTAG as i32);
    fpu.fiseg = get32(cpu, R::FCS as i32);
    fpu.fioff = get32(cpu, R::FIP as i32);
    fpu.foseg = get32(cpu, R::FDS as i32);
    fpu.fooff = get32(cpu, R::FDP as i32);
    fpu.fop = get32(cpu, R::FOP as i32);
    get32(cpu, R::MXCSR as i32)
}

fn write_x87(cpu: &mut Cpu<'_>, st: &[[u8; 10]; 8], fpu: &x86::reg::X87FpuInternalRegs, mxcsr: u32) {
    use RegisterX86 as R;
    for (n, s) in st.iter().enumerate() {
        set_wide(cpu, reg_n(R::ST0 as i32, n), s);
    }
    set(cpu, R::FPCW as i32, u64::from(fpu.fctrl));
    set(cpu, R::FPSW as i32, u64::from(fpu.fstat));
    set(cpu, R::FPTAG as i32, u64::from(fpu.ftag));
    set(cpu, R::MXCSR as i32, u64::from(mxcsr));
}

fn read_segments(cpu: &Cpu<'_>, s: &mut x86::reg::X86SegmentRegs) {
    use RegisterX86 as R;
    s.cs = get32(cpu, R::CS as i32);
    s.ss = get32(cpu, R::SS as i32);
    s.ds = get32(cpu, R::DS as i32);
    s.es = get32(cpu, R::ES as i32);
    s.fs = get32(cpu, R::FS as i32);
    s.gs = get32(cpu, R::GS as i32);
}

impl GuestRegs for x86::X86_64_SSE {
    fn read(cpu: &Cpu<'_>, r: &mut Self::Registers) {
        use RegisterX86 as R;
        for (v, id) in r.regs.iter_mut().zip(X86_64_GPRS) {
            *v = get(cpu, id as i32);
        }
        r.rip = get(cpu, R::RIP as i32);
        r.eflags = get32(cpu, R::EFLAGS as i32);
        read_segments(cpu, &mut r.segments);
        r.mxcsr = read_x87(cpu, &mut r.st, &mut r.fpu);
        for (n, x) in r.xmm.iter_mut().enumerate() {
            *x = u128::from_le_bytes(get_wide::<16>(cpu, reg_n(R::XMM0 as i32, n)));
        }
    }

    fn write(cpu: &mut Cpu<'_>, r: &Self::Registers) {
        use RegisterX86 as R;
        for (v, id) in r.regs.iter().zip(X86_64_GPRS) {
            set(cpu, id as i32, *v);
        }
        set(cpu, R::RIP as i32, r.rip);
        set(cpu, R::EFLAGS as i32, u64::from(r.eflags));
        write_x87(cpu, &r.st, &r.fpu, r.mxcsr);
        for (n, x) in r.xmm.iter().enumerate() {
            set_wide(cpu, reg_n(R::XMM0 as i32, n), &x.to_le_bytes());
        }
    }
}

impl GuestRegs for x86::X86_SSE {
    fn read(cpu: &Cpu<'_>, r: &mut Self::Registers) {
        use RegisterX86 as R;
        r.eax = get32(cpu, R::EAX as i32);
        r.ecx = get32(cpu, R::ECX as i32);
        r.edx = get32(cpu, R::EDX as i32);
        r.ebx = get32(cpu, R::EBX as i32);
        r.esp = get32(cpu, R::ESP as i32);
        r.ebp = get32(cpu, R::EBP as i32);
        r.esi = get32(cpu, R::ESI as i32);
        r.edi = get32(cpu, R::EDI as i32);
        r.eip = get32(cpu, R::EIP as i32);
        r.eflags = get32(cpu, R::EFLAGS as i32);
        read_segments(cpu, &mut r.segments);
        r.mxcsr = read_x87(cpu, &mut r.st, &mut r.fpu);
        for (n, x) in r.xmm.iter_mut().enumerate() {
            *x = u128::from_le_bytes(get_wide::<16>(cpu, reg_n(R::XMM0 as i32, n)));
        }
    }

    fn write(cpu: &mut Cpu<'_>, r: &Self::Registers) {
        use RegisterX86 as R;
        for (id, v) in [
            (R::EAX, r.eax),
            (R::ECX, r.ecx),
            (R::EDX, r.edx),
            (R::EBX, r.ebx),
            (R::ESP, r.esp),
            (R::EBP, r.ebp),
            (R::ESI, r.esi),
            (R::EDI, r.edi),
            (R::EIP, r.eip),
            (R::EFLAGS, r.eflags),
        ] {
            set(cpu, id as i32, u64::from(v));
        }
        write_x87(cpu, &r.st, &r.fpu, r.mxcsr);
        for (n, x) in r.xmm.iter().enumerate() {
            set_wide(cpu, reg_n(R::XMM0 as i32, n), &x.to_le_bytes());
        }
    }
}

impl GuestRegs for super::fpregs::ArmVfp {
    fn read(cpu: &Cpu<'_>, r: &mut Self::Registers) {
        use RegisterARM as R;
        for (n, x) in r.r.iter_mut().enumerate() {
            *x = get32(cpu, reg_n(R::R0 as i32, n));
        }
        r.sp = get32(cpu, R::SP as i32);
        r.lr = get32(cpu, R::LR as i32);
        r.pc = get32(cpu, R::PC as i32) & !1;
        r.cpsr = get32(cpu, R::CPSR as i32);
        for (n, d) in r.d.iter_mut().enumerate() {
            *d = get(cpu, reg_n(R::D0 as i32, n));
        }
        r.fpscr = get32(cpu, R::FPSCR as i32);
    }

    fn write(cpu: &mut Cpu<'_>, r: &Self::Registers) {
        use RegisterARM as R;
        for (n, x) in r.r.iter().enumerate() {
            set(cpu, reg_n(R::R0 as i32, n), u64::from(*x));
        }
        set(cpu, R::SP as i32, u64::from(r.sp));
        set(cpu, R::LR as i32, u64::from(r.lr));
        set(cpu, R::CPSR as i32, u64::from(r.cpsr));
        // The engine takes bit 0 of a PC write as the Thumb state: keep the CPSR's T bit.
        let thumb = u32::from(r.cpsr >> 5 & 1 == 1);
        if get32(cpu, R::PC as i32) & !1 != r.pc & !1 {
            cpu.set_reg(R::PC as i32, u64::from(r.pc & !1 | thumb));
        }
        for (n, d) in r.d.iter().enumerate() {
            set(cpu, reg_n(R::D0 as i32, n), *d);
        }
        set(cpu, R::FPSCR as i32, u64::from(r.fpscr));
    }
}

impl GuestRegs for super::fpregs::Riscv64F {
    fn read(cpu: &Cpu<'_>, r: &mut Self::Registers) {
        use RegisterRISCV as R;
        for (n, x) in r.x.iter_mut().enumerate() {
            *x = get(cpu, reg_n(R::X0 as i32, n));
        }
        r.pc = get(cpu, R::PC as i32);
        for (n, f) in r.f.iter_mut().enumerate() {
            *f = get(cpu, reg_n(R::F0 as i32, n));
        }
        r.fcsr = get32(cpu, R::FCSR as i32);
        r.fflags = r.fcsr & 0x1f;
        r.frm = r.fcsr >> 5 & 7;
    }

    fn write(cpu: &mut Cpu<'_>, r: &Self::Registers) {
        use RegisterRISCV as R;
        for (n, x) in r.x.iter().enumerate().skip(1) {
            set(cpu, reg_n(R::X0 as i32, n), *x);
        }
        set(cpu, R::PC as i32, r.pc);
        for (n, f) in r.f.iter().enumerate() {
            set(cpu, reg_n(R::F0 as i32, n), *f);
        }
        let old = get32(cpu, R::FCSR as i32);
        set(cpu, R::FCSR as i32, u64::from(r.fcsr_written(old)));
    }
}

impl GuestRegs for mips::Mips64 {
    /// `gdbstub_arch` gives none for 64-bit MIPS: GDB's `org.gnu.gdb.mips.cpu`, `cp0` and
    /// `fpu` features as 64-bit registers, numbered in the order of the arch type's `g` packet.
    fn description_override() -> Option<&'static str> {
        Some(include_str!("mips64.xml"))
    }

    fn read(cpu: &Cpu<'_>, r: &mut Self::Registers) {
        use RegisterMIPS as R;
        for (n, x) in r.r.iter_mut().enumerate() {
            *x = get(cpu, reg_n(R::R0 as i32, n));
        }
        r.lo = get(cpu, R::LO as i32);
        r.hi = get(cpu, R::HI as i32);
        r.pc = get(cpu, R::PC as i32);
        r.cp0.status = get(cpu, R::CP0_STATUS as i32);
        for (n, f) in r.fpu.r.iter_mut().enumerate() {
            *f = get(cpu, reg_n(R::F0 as i32, n));
        }
        r.fpu.fcsr = get(cpu, R::FCSR as i32);
        r.fpu.fir = get(cpu, R::FIR as i32);
    }

    fn write(cpu: &mut Cpu<'_>, r: &Self::Registers) {
        use RegisterMIPS as R;
        for (n, x) in r.r.iter().enumerate().skip(1) {
            set(cpu, reg_n(R::R0 as i32, n), *x);
        }
        set(cpu, R::LO as i32, r.lo);
        set(cpu, R::HI as i32, r.hi);
        set(cpu, R::PC as i32, r.pc);
        for (n, f) in r.fpu.r.iter().enumerate() {
            set(cpu, reg_n(R::F0 as i32, n), *f);
        }
        set(cpu, R::FCSR as i32, r.fpu.fcsr);
    }
}

impl GuestRegs for super::s390x::S390x {
    fn read(cpu: &Cpu<'_>, r: &mut Self::Registers) {
        use RegisterS390X as R;
        r.pswm = get(cpu, R::PSWM as i32);
        r.pswa = get(cpu, R::PC as i32);
        for (n, x) in r.r.iter_mut().enumerate() {
            *x = get(cpu, reg_n(R::R0 as i32, n));
        }
        for (n, a) in r.acr.iter_mut().enumerate() {
            *a = get32(cpu, reg_n(R::A0 as i32, n));
        }
        r.fpc = get32(cpu, R::FPC as i32);
        for (n, f) in r.f.iter_mut().enumerate() {
            *f = get(cpu, reg_n(R::F0 as i32, n));
        }
    }

    fn write(cpu: &mut Cpu<'_>, r: &Self::Registers) {
        use RegisterS390X as R;
        set(cpu, R::PC as i32, r.pswa);
        for (n, x) in r.r.iter().enumerate() {
            set(cpu, reg_n(R::R0 as i32, n), *x);
        }
        for (n, a) in r.acr.iter().enumerate() {
            set(cpu, reg_n(R::A0 as i32, n), u64::from(*a));
        }
        set(cpu, R::FPC as i32, u64::from(r.fpc));
        for (n, f) in r.f.iter().enumerate() {
            set(cpu, reg_n(R::F0 as i32, n), *f);
        }
    }
}
