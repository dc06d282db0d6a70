//! The i386 guest's Global Descriptor Table: flat user code and data segments, and the three
//! TLS entries that `set_thread_area` fills and glibc then loads into `%gs`.
//!
//! # Where the table lives
//! In 32-bit mode unicorn ignores writes to the FS/GS base registers; a segment base comes
//! only from a descriptor, which the CPU reads through the GDTR from *linear* memory, so the
//! table must be reachable through unicorn's TLB. It lives in unicorn *physical* memory above
//! 4 GiB ([`GDT_PHYS`]), which no 32-bit guest address reaches, and is seen at linear address
//! [`GDT_LINEAR`] (0xffffe000, the guest's `TASK_SIZE`, where no guest mapping can exist) through a TLB fill hook bounded to that one page. The hook grants **read
//! only**, and only to descriptor loads: QEMU keeps separate TLB entries for the CPU's own
//! ("kernel") accesses and for user accesses, and the hook, which is not told which one it
//! fills, looks at the instruction at EIP: a segment-loading instruction (`mov` to a segment
//! register, `pop` of one, `lgs`…, far `jmp`/`call`/`ret`, `iret`, `lar`/`lsl`/`verr`/`verw`)
//! or endgate itself (a segment load of its own, [`load_segment`], or starting the guest) gets the page; anything
//! else is refused and raises SIGSEGV as on Linux. (The one hole: `mov 0xfffff000, %gs`,
//! whose memory operand is a user read made by a segment-loading instruction, reads two bytes
//! of the table: `mov 0xffffe000, %gs` of the GDT, `mov 0xfffff000, %gs` of the LDT.) So the guest can neither map over the table, write it, nor read it. Every
//! descriptor is written with its accessed bit set (as the kernel's `fill_ldt` does), so the
//! CPU never writes the table when it loads a segment. endgate writes it with physical-memory
//! writes (`mem_write`), which bypass the TLB.
//!
//! # The LDT
//! `modify_ldt` fills a Local Descriptor Table of up to 8192 entries, one per process as in
//! Linux: a 64 KiB host buffer ([`ldt_buffer`]) that every thread's instance maps at physical
//! [`LDT_PHYS`] (so a thread sees the entries another one writes, and `fork` copies them). The
//! CPU's `LDTR` points at linear [`LDT_LINEAR`] with the full 64 KiB limit from the start (an
//! entry never written is all zeros, which a segment load refuses with #GP just as it refuses a
//! selector past a shorter table). The table runs from 0xfffff000 to 0x1_0000_f000: the CPU
//! computes descriptor addresses as 64-bit sums in unicorn's x86_64 core, while guest
//! addresses in 32-bit code wrap at 4 GiB, so the pages above 4 GiB are reachable by
//! descriptor loads only; a fill hook for those 16 linear pages grants reads on the same terms
//! as the GDT's.
//!
//! # Privilege level
//! Guest code runs at CPL 3, as under Linux: `hlt`, `cli`, port I/O and other privileged
//! instructions raise #GP (SIGSEGV), and segment loads get user-mode checks. Unicorn starts a
//! 32-bit CPU at CPL 0 and takes the CPL from the SS descriptor, which it refuses to load with
//! DPL 3 from CPL 0 — so [`enter_user_mode`] runs one `iret` from a scratch page before the
//! program starts, which loads CS, SS, ESP, EIP and EFLAGS as the kernel's return to user
//! mode does.
//!
//! Selectors and entry numbers are those of a native i386 kernel
//! (arch/x86/include/asm/segment.h, `CONFIG_X86_32`): TLS entries 6-8, `__USER_CS` 0x73,
//! `__USER_DS` 0x7b. (An x86_64 kernel running i386 code uses entries 12-14 and 0x23/0x2b;
//! glibc asks for a free entry and uses whichever it gets.)

use crate::guard::Checked;
use syscalls::Errno;
use unicorn_engine::unicorn_const::{uc_error, uc_reg_write, uc_x86_mmr};
use unicorn_engine::{MemType, Prot, RegisterX86, TlbEntry};

use super::abi::{user_desc as ud, UserDesc};
use crate::abi::{low32, u64_to_usize};
use crate::guest::Cpu;
use crate::guest::SysResult;
use crate::mm::{GuestAddr, PAGE_SIZE};

/// Linear address of the GDT (the first page above the guest's `TASK_SIZE`).
pub const GDT_LINEAR: u64 = 0xffff_e000;
/// Unicorn physical address of the GDT: above 4 GiB, out of any 32-bit guest address's reach.
pub const GDT_PHYS: u64 = 0x1_0000_0000;
/// Physical page of the one-time `iret` to user mode (see the module doc).
const SCRATCH_PHYS: u64 = GDT_PHYS + PAGE_SIZE;
/// Linear address of the LDT (`LDTR.base`): the last page below 4 GiB, and from there on the
/// 64-bit sums `base + selector` the CPU forms for its descriptor reads, which no 32-bit guest
/// address reaches (see "The LDT" in the module doc).
pub const LDT_LINEAR: u64 = 0xffff_f000;
/// Descriptors an LDT holds (`LDT_ENTRIES`, arch/x86/include/uapi/asm/ldt.h).
pub const LDT_ENTRIES: u32 = 8192;
/// Bytes of the LDT.
const LDT_BYTES: u64 = LDT_ENTRIES as u64 * 8;
/// The same, as a host length.
const LDT_LEN: usize = LDT_ENTRIES as usize * 8;
/// Unicorn physical address of the LDT: the process's one LDT buffer, mapped into every
/// thread's instance.
const LDT_PHYS: u64 = GDT_PHYS + 0x10000;
/// Linear page of that `iret` and its stack frame: below `mmap_min_addr`, never a guest page.
/// It is reachable only while [`enter_user_mode`] runs.
const SCRATCH_LINEAR: u64 = 0xe000;

/// Descriptors in the table (`GDT_ENTRIES`, arch/x86/include/asm/segment.h).
pub const GDT_ENTRIES: u32 = 32;
/// First TLS entry (`GDT_ENTRY_TLS_MIN`).
pub const TLS_MIN: u32 = 6;
/// Last TLS entry (`GDT_ENTRY_TLS_MAX`, `TLS_MIN + GDT_ENTRY_TLS_ENTRIES - 1`).
pub const TLS_MAX: u32 = 8;
/// Flat 4 GiB user code segment, entry 14 (`__USER_CS`).
pub const USER_CS: u16 = 14 * 8 + 3;
/// Flat 4 GiB user data and stack segment, entry 15 (`__USER_DS`).
pub const USER_DS: u16 = 15 * 8 + 3;

/// Descriptor type bits (Intel SDM vol. 3, 3.4.5.1): accessed, writable/readable, code.
pub(crate) const TYPE_ACCESSED: u64 = 1;
pub(crate) const TYPE_RW: u64 = 2;
pub(crate) const TYPE_CODE: u64 = 8;

/// A segment descriptor from its parts (Intel SDM vol. 3, figure 3-8): 32-bit `base`, 20-bit
/// `limit`, 4-bit `ty`, and the S, DPL, P, AVL, D/B and G bits.
#[allow(clippy::too_many_arguments)]
pub(crate) fn descriptor(
    base: u32,
    limit: u32,
    ty: u64,
    s: bool,
    dpl: u64,
    present: bool,
    avl: bool,
    db: bool,
    g: bool,
) -> u64 {
    let base = u64::from(base);
    let limit = u64::from(limit);
    (limit & 0xffff)
        | (base & 0xff_ffff) << 16
        | (ty & 0xf) << 40
        | u64::from(s) << 44
        | (dpl & 3) << 45
        | u64::from(present) << 47
        | (limit >> 16 & 0xf) << 48
        | u64::from(avl) << 52
        | u64::from(db) << 54
        | u64::from(g) << 55
        | (base >> 24 & 0xff) << 56
}

/// A flat 4 GiB DPL-3 segment of type `ty` (the kernel's `GDT_ENTRY_INIT(0xc0fb/0xc0f3, 0,
/// 0xfffff)`).
pub(crate) fn flat_user(ty: u64) -> u64 {
    descriptor(0, 0xf_ffff, ty | TYPE_ACCESSED, true, 3, true, false, true, true)
}

/// `true` for the `struct user_desc` that means "no segment" (the kernel's `LDT_empty`).
fn ldt_empty(u: &UserDesc) -> bool {
    u.base_addr.get() == 0 && u.limit.get() == 0 && u.flags.get() & ud::ALL == ud::READ_EXEC_ONLY | ud::SEG_NOT_PRESENT
}

/// `true` for an all-zero `struct user_desc`, which Linux also takes as "no segment"
/// (`LDT_zero`).
fn ldt_zero(u: &UserDesc) -> bool {
    u.base_addr.get() == 0 && u.limit.get() == 0 && u.flags.get() & ud::ALL == 0
}

/// The kernel's `tls_desc_okay`: TLS entries must be present 32-bit data segments (or empty).
fn tls_desc_okay(u: &UserDesc) -> bool {
    let f = u.flags.get();
    ldt_zero(u) || (f & ud::SEG_32BIT != 0 && (f >> ud::CONTENTS_SHIFT) & 3 <= 1 && f & ud::SEG_NOT_PRESENT == 0)
}

/// The descriptor for a `struct user_desc` (the kernel's `fill_ldt`, or 0 for an empty one).
pub fn from_user_desc(u: &UserDesc) -> u64 {
    if ldt_empty(u) || ldt_zero(u) {
        return 0;
    }
    let f = u.flags.get();
    let contents = u64::from((f >> ud::CONTENTS_SHIFT) & 3);
    let ty = u64::from(f & ud::READ_EXEC_ONLY == 0) << 1 | contents << 2 | TYPE_ACCESSED;
    descriptor(
        u.base_addr.get(),
        u.limit.get(),
        ty,
        true,
        3,
        f & ud::SEG_NOT_PRESENT == 0,
        f & ud::USEABLE != 0,
        f & ud::SEG_32BIT != 0,
        f & ud::LIMIT_IN_PAGES != 0,
    )
}

/// The `struct user_desc` describing descriptor `d` at entry `idx` (the kernel's
/// `fill_user_desc`).
pub fn to_user_desc(idx: u32, d: u64) -> UserDesc {
    let base = (d >> 16 & 0xff_ffff) | (d >> 56 & 0xff) << 24;
    let limit = (d & 0xffff) | (d >> 48 & 0xf) << 16;
    let ty = d >> 40 & 0xf;
    let bit = |n: u32| d >> n & 1 != 0;
    let mut f = 0;
    f |= if bit(54) { ud::SEG_32BIT } else { 0 };
    f |= ((ty >> 2) as u32 & 3) << ud::CONTENTS_SHIFT;
    f |= if ty & TYPE_RW == 0 { ud::READ_EXEC_ONLY } else { 0 };
    f |= if bit(55) { ud::LIMIT_IN_PAGES } else { 0 };
    f |= if bit(47) { 0 } else { ud::SEG_NOT_PRESENT };
    f |= if bit(52) { ud::USEABLE } else { 0 };
    UserDesc { entry_number: idx.into(), base_addr: low32(base).into(), limit: low32(limit).into(), flags: f.into() }
}

thread_local! {
    /// Set while endgate itself loads segment registers: while it drops the CPU to user mode,
    /// and in [`load_segment`] (set_thread_area, sigreturn, a signal frame), when the CPU
    /// reads the table with EIP on the guest's next instruction. No guest instruction runs
    /// meanwhile, so every read of the table then is a descriptor load.
    static ENDGATE_LOADS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (endgate loading segment registers) with descriptor loads allowed.
pub fn as_endgate<R>(f: impl FnOnce() -> R) -> R {
    let was = ENDGATE_LOADS.replace(true);
    let r = f();
    ENDGATE_LOADS.set(was);
    r
}

/// `true` if the instruction at EIP loads a segment register or reads a descriptor
/// (Intel SDM vol. 2 opcode map; prefixes skipped).
fn loads_descriptor(cpu: &Cpu<'_>) -> bool {
    loads_descriptor_at(cpu, false)
}

/// [`loads_descriptor`] for 32-bit code, or with `long_mode` for 64-bit code (RIP, REX
/// prefixes, and no `pop es/ss/ds`, `les`/`lds`, direct far `jmp`/`call`, which 64-bit mode
/// lacks). Also `true` while endgate itself loads segments ([`as_endgate`]).
pub(crate) fn loads_descriptor_at(cpu: &Cpu<'_>, long_mode: bool) -> bool {
    if ENDGATE_LOADS.get() {
        return true;
    }
    let (reg, mask) = if long_mode { (RegisterX86::RIP, !0) } else { (RegisterX86::EIP, 0xffff_ffff) };
    let Ok(eip) = cpu.reg_read(reg) else { return false };
    let mm = &cpu.get_data().mm;
    let byte = |i: u64| {
        let mut b = [0u8];
        mm.read_bytes(GuestAddr::new(eip.wrapping_add(i) & mask), &mut b).ok().map(|()| b[0])
    };
    let mut i = 0;
    while let Some(p) = byte(i) {
        let prefix = matches!(p, 0x26 | 0x2e | 0x36 | 0x3e | 0x64 | 0x65 | 0x66 | 0x67 | 0xf0 | 0xf2 | 0xf3)
            || (long_mode && (0x40..=0x4f).contains(&p));
        if !prefix {
            break;
        }
        i += 1;
        if i > 14 {
            return false;
        }
    }
    let modrm_reg = |at: u64| byte(at).map(|m| (m >> 3) & 7);
    match byte(i) {
        // mov Sreg; iret; retf.
        Some(0x8e | 0xcf | 0xca | 0xcb) => true,
        // pop es/ss/ds; les/lds; far jmp/call (32-bit code only).
        Some(0x07 | 0x17 | 0x1f | 0xc4 | 0xc5 | 0xea | 0x9a) => !long_mode,
        // call/jmp far indirect (ff /3, ff /5).
        Some(0xff) => matches!(modrm_reg(i + 1), Some(3 | 5)),
        Some(0x0f) => match byte(i + 1) {
            // pop fs/gs; lss/lfs/lgs; lar; lsl.
            Some(0xa1 | 0xa9 | 0xb2 | 0xb4 | 0xb5 | 0x02 | 0x03) => true,
            // verr/verw (0f 00 /4, /5).
            Some(0x00) => matches!(modrm_reg(i + 2), Some(4 | 5)),
            _ => false,
        },
        _ => false,
    }
}

/// Loads segment register `reg` with `sel` on endgate's behalf (the table is readable for it).
pub(crate) fn load_segment(cpu: &mut Cpu<'_>, reg: RegisterX86, sel: u64) -> Result<(), uc_error> {
    as_endgate(|| cpu.reg_write(reg, sel))
}

/// Maps the GDT's physical pages and installs the read-only fill hook for [`GDT_LINEAR`].
/// Called once per CPU, before any other TLB fill hook would answer for that page (the
/// generic hook answers "unmapped" there and unicorn then asks this one).
pub fn install(cpu: &mut Cpu<'static>) -> Result<(), uc_error> {
    // Physical permissions: all (the scratch page holds code); what the guest may do is what
    // the fill hooks grant.
    cpu.mem_map(GDT_PHYS, 2 * PAGE_SIZE, Prot::ALL)?;
    cpu.add_tlb_hook(GDT_LINEAR, GDT_LINEAR + PAGE_SIZE - 1, |cpu, _, access| {
        crate::guard::guarded(&"GDT TLB fill", || {
            let allowed = access == MemType::READ
                && (ENDGATE_LOADS.get() || crate::guest::locked(cpu, |cpu| loads_descriptor(cpu)));
            allowed.then_some(TlbEntry { paddr: GDT_PHYS, perms: Prot::READ })
        })
    })?;
    install_ldt(cpu, LDT_LINEAR, LDT_PHYS, false)?;
    let mut table = vec![0u8; (GDT_ENTRIES * 8) as usize];
    table[14 * 8..15 * 8].copy_from_slice(&flat_user(TYPE_CODE | TYPE_RW).to_le_bytes());
    table[15 * 8..16 * 8].copy_from_slice(&flat_user(TYPE_RW).to_le_bytes());
    cpu.mem_write(GDT_PHYS, &table)?;
    let gdtr = uc_x86_mmr { selector: 0, base: GDT_LINEAR, limit: GDT_ENTRIES * 8 - 1, flags: 0 };
    // SAFETY: a live handle; UC_X86_REG_GDTR takes a `uc_x86_mmr`, which `gdtr` is.
    let r: Result<(), uc_error> =
        unsafe { uc_reg_write(cpu.get_handle(), RegisterX86::GDTR as i32, (&gdtr as *const uc_x86_mmr).cast()) }.into();
    r
}

/// Starts the guest at CPL 3: runs one `iret` (from the scratch page, see the module doc) whose
/// frame sets EIP = `entry`, CS = [`USER_CS`], EFLAGS = 0x202 (IF and the reserved bit), ESP =
/// `sp`, SS = [`USER_DS`], then sets DS and ES to [`USER_DS`] and FS and GS to the null
/// selector. Errors: the engine's, or `EXCEPTION` if the CPU did not arrive at `entry` in
/// user mode.
pub fn enter_user_mode(cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), uc_error> {
    let frame = [low32(entry.get()), u32::from(USER_CS), 0x202, low32(sp.get()), u32::from(USER_DS)];
    let bytes: Vec<u8> = frame.iter().flat_map(|w| w.to_le_bytes()).collect();
    // Unicorn's reset state: a 16-bit SS with base 0, so the `iret` pops from SS:SP = ESP & 0xffff.
    let pages = Scratch { linear: SCRATCH_LINEAR, phys: SCRATCH_PHYS };
    iret_to_user(cpu, pages, &bytes, &[IRET], RegisterX86::ESP, RegisterX86::EIP, (entry.get(), USER_CS))?;
    load_segment(cpu, RegisterX86::DS, u64::from(USER_DS))?;
    load_segment(cpu, RegisterX86::ES, u64::from(USER_DS))?;
    load_segment(cpu, RegisterX86::FS, 0)?;
    load_segment(cpu, RegisterX86::GS, 0)?;
    Ok(())
}

/// `iret`.
const IRET: u8 = 0xcf;

/// The page [`iret_to_user`] runs from: its linear address, out of the guest's reach, and the
/// unicorn physical page behind it (mapped already).
pub(crate) struct Scratch {
    pub linear: u64,
    pub phys: u64,
}

/// Runs one `iret` (`iret`, `bytes` `[0xcf]`; `iretq`, `[0x48, 0xcf]`) at CPL 0 from the
/// scratch page with `frame` (the words it pops) on its stack, as the kernel's return to user
/// mode does. The page is reachable only while this runs. Errors: the engine's, or
/// `EXCEPTION` if the CPU did not arrive at `want` (`pc_reg`, CS).
pub(crate) fn iret_to_user(
    cpu: &mut Cpu<'_>,
    pages: Scratch,
    frame: &[u8],
    iret: &[u8],
    sp_reg: RegisterX86,
    pc_reg: RegisterX86,
    want: (u64, u16),
) -> Result<(), uc_error> {
    const FRAME: usize = 0x800;
    const CODE: usize = 0xf00;
    const NOP: u8 = 0x90;
    let Scratch { linear, phys } = pages;
    let mut page = vec![0u8; u64_to_usize(PAGE_SIZE)];
    page[FRAME..FRAME + frame.len()].copy_from_slice(frame);
    page[CODE..CODE + iret.len()].copy_from_slice(iret);
    page[CODE + iret.len()] = NOP;
    page[CODE + iret.len() + 1] = NOP;
    cpu.mem_write(phys, &page)?;
    let hook = cpu.add_tlb_hook(linear, linear + PAGE_SIZE - 1, move |_, _, _| {
        crate::guard::guarded(&"start-up TLB fill", || Some(TlbEntry { paddr: phys, perms: Prot::READ | Prot::EXEC }))
    })?;
    cpu.reg_write(sp_reg, linear + FRAME as u64)?;
    let code = linear + CODE as u64;
    let nop = code + iret.len() as u64;
    // The `iret` is endgate's (its page is not guest memory the hook could decode). Run exactly
    // that one instruction (count 1): stopping with `until` = `entry` instead ends in
    // UC_ERR_EXCEPTION in unicorn 2.1.5 when `entry` starts a page (seen with a freestanding
    // program whose `_start` is at 0x8049000).
    let run = as_endgate(|| cpu.emu_start(code, 0, 0, 1));
    let arrived = (cpu.reg_read(pc_reg)?, cpu.reg_read(RegisterX86::CS)?);
    // A count run leaves unicorn's instruction-count hook in place, and the next `emu_start`
    // (count 0) deletes it, invalidating the code it saw: the `iret`, whose page must then
    // still be reachable — else the invalidation's TLB fill fails outside the CPU loop,
    // records UC_ERR_EXCEPTION for that later run and long-jumps out of it. So delete it now,
    // with a count-0 run of one `nop` that stops at the next.
    let flush = as_endgate(|| cpu.emu_start(nop, nop + 1, 0, 0));
    cpu.reg_write(pc_reg, arrived.0)?;
    // Drop the translated code while its page is still reachable, then the page itself.
    cpu.remove_cache(linear, linear + PAGE_SIZE);
    cpu.remove_hook(hook)?;
    cpu.ctl_flush_tlb()?;
    run?;
    flush?;
    if arrived != (want.0, u64::from(want.1)) {
        return Err(uc_error::EXCEPTION);
    }
    Ok(())
}

/// The whole table as bytes (for a new thread's instance, [`set_table`]).
pub fn table(cpu: &Cpu<'_>) -> Vec<u8> {
    let mut b = vec![0u8; (GDT_ENTRIES * 8) as usize];
    if cpu.mem_read(GDT_PHYS, &mut b).is_err() {
        b.clear();
    }
    b
}

/// Replaces the table with `bytes` from [`table`] of another instance (a new thread's
/// instance, after [`install`]; segment registers keep their loaded descriptors).
pub fn set_table(cpu: &mut Cpu<'_>, bytes: &[u8]) -> Result<(), uc_error> {
    if bytes.len() != (GDT_ENTRIES * 8) as usize {
        return Err(uc_error::ARG);
    }
    cpu.mem_write(GDT_PHYS, bytes)
}

/// Reads descriptor `idx`.
fn read_entry(cpu: &Cpu<'_>, idx: u32) -> Result<u64, Errno> {
    let mut b = [0u8; 8];
    cpu.mem_read(GDT_PHYS + u64::from(idx) * 8, &mut b).map_err(|_| Errno::EFAULT)?;
    Ok(u64::from_le_bytes(b))
}

/// Writes descriptor `idx`, then reloads every data segment register that selects it, as the
/// kernel does after changing a TLS entry (a register whose entry became unusable gets the
/// null selector, as the kernel's fault fixup leaves it).
fn write_entry(cpu: &mut Cpu<'_>, idx: u32, d: u64) -> Result<(), Errno> {
    cpu.mem_write(GDT_PHYS + u64::from(idx) * 8, &d.to_le_bytes()).map_err(|_| Errno::EFAULT)?;
    let sel = u64::from(idx * 8 + 3);
    for reg in [RegisterX86::DS, RegisterX86::ES, RegisterX86::FS, RegisterX86::GS] {
        if cpu.reg_read(reg).map_err(|_| Errno::EINVAL)? & 0xffff == sel && load_segment(cpu, reg, sel).is_err() {
            let _ = load_segment(cpu, reg, 0);
        }
    }
    Ok(())
}

/// The base address of the segment register `reg` selects, from its GDT descriptor (unicorn
/// reads no GS base in 32-bit mode); 0 for the null selector, `None` for an LDT selector or one
/// past the table.
pub fn segment_base(cpu: &Cpu<'_>, reg: RegisterX86) -> Option<u64> {
    let sel = cpu.reg_read(reg).ok()? & 0xffff;
    let idx = u32::try_from(sel >> 3).ok()?;
    if sel & 4 != 0 || idx >= GDT_ENTRIES {
        return None;
    }
    if idx == 0 {
        return Some(0);
    }
    let d = read_entry(cpu, idx).ok()?;
    Some(u64::from(to_user_desc(idx, d).base_addr.get()))
}

/// `set_thread_area(struct user_desc *u_info)` and the TLS part of `clone(CLONE_SETTLS)`
/// (the kernel's `do_set_thread_area`): installs the segment `u_info` describes in TLS entry
/// `u_info->entry_number`; with `can_allocate` (the system call, not clone), entry number -1
/// picks the first empty TLS entry and writes its number back. Errors: `EFAULT`, `EINVAL`
/// (an entry outside 6-8, a code, 16-bit or not-present segment), `ESRCH` (no free entry).
pub fn set_thread_area(cpu: &mut Cpu<'_>, u_info: GuestAddr, can_allocate: bool) -> SysResult {
    let info: UserDesc = cpu.get_data().mm.read_struct(u_info)?;
    if !tls_desc_okay(&info) {
        return Err(Errno::EINVAL);
    }
    let mut idx = info.entry_number.get();
    if idx == u32::MAX && can_allocate {
        idx = (TLS_MIN..=TLS_MAX).find(|&i| read_entry(cpu, i).is_ok_and(|d| d == 0)).ok_or(Errno::ESRCH)?;
        cpu.get_data_mut().mm.write_u32(u_info, idx)?;
    }
    if !(TLS_MIN..=TLS_MAX).contains(&idx) {
        return Err(Errno::EINVAL);
    }
    write_entry(cpu, idx, from_user_desc(&info))?;
    Ok(0)
}

/// Gives `cpu` the process's LDT: the buffer mapped at physical `phys`, a fill hook granting
/// descriptor reads of linear `linear` (64-bit code's decoding with `long_mode`), and `LDTR`
/// pointing there with the full 64 KiB limit. Shared by the i386 and x86_64 engines.
pub(crate) fn install_ldt(cpu: &mut Cpu<'static>, linear: u64, phys: u64, long_mode: bool) -> Result<(), uc_error> {
    let ldt = ldt_buffer().ok_or(uc_error::NOMEM)?;
    // SAFETY: the buffer is the process's, allocated once and never freed; every instance maps
    // the same bytes.
    unsafe { cpu.mem_map_ptr(phys, LDT_BYTES, Prot::READ, ldt.cast()) }?;
    cpu.add_tlb_hook(linear, linear + LDT_BYTES - 1, move |cpu, va, access| {
        crate::guard::guarded(&"LDT TLB fill", || {
            let allowed =
                access == MemType::READ && crate::guest::locked(cpu, |cpu| loads_descriptor_at(cpu, long_mode));
            allowed.then_some(TlbEntry { paddr: phys + (va - linear), perms: Prot::READ })
        })
    })?;
    // A present LDT descriptor's flags (type 2, P): what `lldt` would have loaded.
    let ldtr = uc_x86_mmr { selector: 0, base: linear, limit: LDT_ENTRIES * 8 - 1, flags: 0x8200 };
    // SAFETY: a live handle; UC_X86_REG_LDTR takes a `uc_x86_mmr`, which `ldtr` is.
    let r: Result<(), uc_error> =
        unsafe { uc_reg_write(cpu.get_handle(), RegisterX86::LDTR as i32, (&ldtr as *const uc_x86_mmr).cast()) }.into();
    r
}

/// The process's LDT: 64 KiB of host memory, made on first use; `None` if the host refuses.
fn ldt_buffer() -> Option<*mut u8> {
    static BUF: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let p = *BUF.get_or_init(|| {
        // SAFETY: a fresh private anonymous mapping, kept for the life of the process.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                LDT_LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            0
        } else {
            p as usize
        }
    });
    (p != 0).then_some(p as *mut u8)
}

/// Entries the LDT has (`mm->context.ldt->nr_entries`; 0: the process has no LDT yet).
static LDT_USED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// `modify_ldt(0, ptr, bytecount)` (arch/x86/kernel/ldt.c `read_ldt`): copies the LDT's
/// entries, at most `bytecount` bytes and 64 KiB, zero-filling the rest of `bytecount`.
/// Returns the bytes written (`bytecount`, capped), 0 without an LDT. Errors: `EFAULT`.
pub fn read_ldt(cpu: &mut Cpu<'_>, ptr: GuestAddr, bytecount: u64) -> SysResult {
    let used = u64::from(LDT_USED.load(std::sync::atomic::Ordering::Relaxed));
    if used == 0 {
        return Ok(0);
    }
    let count = usize::try_from(bytecount).unwrap_or(LDT_LEN).min(LDT_LEN);
    let have = usize::try_from(used * 8).unwrap_or(LDT_LEN).min(count);
    let mut out = vec![0u8; count];
    let buf = ldt_buffer().ok_or(Errno::ENOMEM)?;
    // SAFETY: `have` bytes of the 64 KiB buffer.
    out[..have].copy_from_slice(unsafe { std::slice::from_raw_parts(buf, have) });
    cpu.get_data_mut().mm.write_bytes(ptr, &out)?;
    Ok(bytecount.min(LDT_BYTES))
}

/// `modify_ldt(2, ptr, bytecount)` (`read_default_ldt`): zeros, at most 128 bytes (an x86_64
/// kernel's size). Errors: `EFAULT`.
pub fn read_default_ldt(cpu: &mut Cpu<'_>, ptr: GuestAddr, bytecount: u64) -> SysResult {
    let count = bytecount.min(128);
    cpu.get_data_mut().mm.write_bytes(ptr, &vec![0u8; usize::try_from(count).unwrap_or(128)])?;
    Ok(count)
}

/// `modify_ldt(1 or 0x11, ptr, bytecount)` (`write_ldt`): sets LDT entry
/// `ptr->entry_number` from a `struct user_desc`, or clears it (an empty descriptor, or with
/// the old form `1` a zero base and limit); the table grows to hold it. The old form also
/// clears the `useable` bit. Segment registers that select an LDT entry are loaded again, as
/// the kernel's `refresh_ldt_segments` does. Errors: `EINVAL` (`bytecount` not 16, entry past
/// 8191, a call gate (`contents` 3) in the old form or present), `EFAULT`.
pub fn write_ldt(cpu: &mut Cpu<'_>, ptr: GuestAddr, bytecount: u64, oldmode: bool) -> SysResult {
    if bytecount != 16 {
        return Err(Errno::EINVAL);
    }
    let info: UserDesc = cpu.get_data().mm.read_struct(ptr)?;
    let idx = info.entry_number.get();
    if idx >= LDT_ENTRIES {
        return Err(Errno::EINVAL);
    }
    let f = info.flags.get();
    if (f >> ud::CONTENTS_SHIFT) & 3 == 3 && (oldmode || f & ud::SEG_NOT_PRESENT == 0) {
        return Err(Errno::EINVAL);
    }
    let clear = (oldmode && info.base_addr.get() == 0 && info.limit.get() == 0) || ldt_empty(&info);
    let d = if clear {
        0
    } else {
        let mut d = from_user_desc(&info);
        // fill_ldt on a 64-bit kernel: the `lm` bit is the descriptor's L bit.
        d |= u64::from(f >> 7 & 1) << 53;
        if oldmode {
            d &= !(1 << 52);
        }
        d
    };
    let buf = ldt_buffer().ok_or(Errno::ENOMEM)?;
    // SAFETY: entry `idx` < 8192 lies in the 64 KiB buffer.
    unsafe { std::ptr::write_unaligned(buf.add(idx as usize * 8).cast::<u64>(), d.to_le()) };
    LDT_USED.fetch_max(idx + 1, std::sync::atomic::Ordering::Relaxed);
    // The buffer changed behind unicorn's TLB: nothing caches descriptors there, but segment
    // registers hold what they loaded.
    for reg in [RegisterX86::DS, RegisterX86::ES, RegisterX86::FS, RegisterX86::GS] {
        let sel = cpu.reg_read(reg).map_err(|_| Errno::EINVAL)? & 0xffff;
        if sel & 4 != 0 && load_segment(cpu, reg, sel).is_err() {
            let _ = load_segment(cpu, reg, 0);
        }
    }
    Ok(0)
}

/// `get_thread_area(struct user_desc *u_info)`: describes TLS entry `u_info->entry_number`.
/// Errors: `EFAULT`, `EINVAL` (an entry outside 6-8).
pub fn get_thread_area(cpu: &mut Cpu<'_>, u_info: GuestAddr) -> SysResult {
    let idx = cpu.get_data().mm.read_u32(u_info)?;
    if !(TLS_MIN..=TLS_MAX).contains(&idx) {
        return Err(Errno::EINVAL);
    }
    let d = read_entry(cpu, idx)?;
    cpu.get_data_mut().mm.write_struct(u_info, &to_user_desc(idx, d))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(base: u32, limit: u32, flags: u32) -> UserDesc {
        UserDesc { entry_number: u32::MAX.into(), base_addr: base.into(), limit: limit.into(), flags: flags.into() }
    }

    #[test]
    fn flat_segments_match_linux() {
        // GDT_ENTRY_INIT(0xc0fb, 0, 0xfffff) and (0xc0f3, 0, 0xfffff) in arch/x86/kernel/cpu/common.c.
        assert_eq!(flat_user(TYPE_CODE | TYPE_RW), 0x00cf_fb00_0000_ffff);
        assert_eq!(flat_user(TYPE_RW), 0x00cf_f300_0000_ffff);
    }

    #[test]
    fn glibc_tls_descriptor_round_trips() {
        // What glibc's TLS_INIT_TP passes: seg_32bit, limit 0xfffff in pages, useable.
        let u = desc(0x0809_a840, 0xf_ffff, ud::SEG_32BIT | ud::LIMIT_IN_PAGES | ud::USEABLE);
        assert!(tls_desc_okay(&u));
        let d = from_user_desc(&u);
        assert_eq!(d, 0x08df_f309_a840_ffff);
        let back = to_user_desc(6, d);
        assert_eq!(back.base_addr.get(), 0x0809_a840);
        assert_eq!(back.limit.get(), 0xf_ffff);
        assert_eq!(back.flags.get(), u.flags.get());
        assert_eq!(back.entry_number.get(), 6);
    }

    #[test]
    fn rejected_and_empty_descriptors() {
        assert!(!tls_desc_okay(&desc(0x1000, 0xfff, 0)), "16-bit segment");
        assert!(!tls_desc_okay(&desc(0x1000, 0xfff, ud::SEG_32BIT | 2 << ud::CONTENTS_SHIFT)), "code");
        assert!(!tls_desc_okay(&desc(0x1000, 0xfff, ud::SEG_32BIT | ud::SEG_NOT_PRESENT)));
        let empty = desc(0, 0, ud::READ_EXEC_ONLY | ud::SEG_NOT_PRESENT);
        assert_eq!(from_user_desc(&empty), 0);
        assert_eq!(from_user_desc(&desc(0, 0, 0)), 0);
        // An empty entry reads back as LDT_empty, as on Linux.
        assert_eq!(to_user_desc(7, 0).flags.get(), ud::READ_EXEC_ONLY | ud::SEG_NOT_PRESENT);
    }
}
