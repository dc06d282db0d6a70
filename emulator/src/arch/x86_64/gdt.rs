//! x86_64's Global Descriptor Table, and the start of the guest at CPL 3.
//!
//! Guest code runs at CPL 3, as under Linux: `hlt`, `cli`/`sti`, `lgdt`, moves to and from
//! control registers, `rdmsr`/`wrmsr`, `clts`, `invd`/`wbinvd`, `swapgs` raise #GP (SIGSEGV
//! `SI_KERNEL`, trapno 13, arch/x86/kernel/traps.c `exc_general_protection`); unicorn's reset
//! state, CPL 0, runs them. Port I/O (`in`, `out`) faults too, through unicorn patch 0034
//! (the I/O permission check, which unicorn 2.1.5 skipped, finds no I/O bitmap).
//!
//! The table holds the user segments of Linux's x86_64 GDT (arch/x86/include/asm/segment.h,
//! `CONFIG_X86_64`): entry 4 `__USER32_CS` (0x23, flat 32-bit code), 5 `__USER_DS` (0x2b,
//! flat data), 6 `__USER_CS` (0x33, 64-bit code). So a guest's `mov %ss`, `iretq` or far
//! return to compatibility mode finds the descriptors it finds on Linux. The table lives at
//! a kernel-half address, linear = unicorn physical, as the LDT does
//! ([`super::LDT_LINEAR`]): no guest mapping reaches it, and its TLB fill hook grants reads
//! only to instructions that load descriptors ([`crate::arch::i386::gdt::loads_descriptor_at`]),
//! so the guest can neither read nor write it.
//!
//! The CPU gets to CPL 3 as the i386 guest's does: one `iretq` from a scratch page before the
//! program starts ([`crate::arch::i386::gdt::iret_to_user`]), with RIP, CS = 0x33,
//! RFLAGS = 0x202, RSP and SS = 0x2b in its frame. A new thread's instance takes the CPU
//! state, CPL included, from its creator's context; [`install`] gives each instance the table.

use unicorn_engine::unicorn_const::{uc_error, uc_reg_write, uc_x86_mmr};
use unicorn_engine::{MemType, Prot, RegisterX86, TlbEntry};

use crate::arch::i386::gdt::{
    descriptor, flat_user, iret_to_user, loads_descriptor_at, Scratch, TYPE_ACCESSED, TYPE_CODE, TYPE_RW,
};
use crate::guest::Cpu;
use crate::mm::{GuestAddr, PAGE_SIZE};

/// Linear and physical address of the table: the page after the LDT's 64 KiB.
const GDT: u64 = super::LDT_LINEAR + 0x1_0000;
/// The scratch page of the start-up `iretq`.
const SCRATCH: u64 = GDT + PAGE_SIZE;
/// Descriptors in the table (`GDT_ENTRIES`, 16 on x86_64).
const GDT_ENTRIES: u32 = 16;
/// `__USER32_CS`: flat 32-bit code (entry 4).
pub const USER32_CS: u16 = 4 * 8 + 3;
/// `__USER_DS`: flat data and stack (entry 5).
pub const USER_DS: u16 = 5 * 8 + 3;
/// `__USER_CS`: 64-bit code (entry 6).
pub const USER_CS: u16 = 6 * 8 + 3;
/// The L bit of a code descriptor: 64-bit code (Intel SDM vol. 3, 3.4.5).
const LONG: u64 = 1 << 53;

/// Maps the table into this instance, with its fill hook, and points GDTR at it.
pub fn install(cpu: &mut Cpu<'static>) -> Result<(), uc_error> {
    // Physical permissions: all (the scratch page holds code); the fill hooks decide.
    cpu.mem_map(GDT, 2 * PAGE_SIZE, Prot::ALL)?;
    cpu.add_tlb_hook(GDT, GDT + PAGE_SIZE - 1, |cpu, _, access| {
        crate::guard::guarded(&"GDT TLB fill", || {
            let allowed = access == MemType::READ && crate::guest::locked(cpu, |cpu| loads_descriptor_at(cpu, true));
            allowed.then_some(TlbEntry { paddr: GDT, perms: Prot::READ })
        })
    })?;
    let mut table = vec![0u8; crate::abi::u64_to_usize(u64::from(GDT_ENTRIES) * 8)];
    let code64 = descriptor(0, 0xf_ffff, TYPE_CODE | TYPE_RW | TYPE_ACCESSED, true, 3, true, false, false, true) | LONG;
    for (sel, d) in [(USER32_CS, flat_user(TYPE_CODE | TYPE_RW)), (USER_DS, flat_user(TYPE_RW)), (USER_CS, code64)] {
        let at = usize::from(sel & !7);
        table[at..at + 8].copy_from_slice(&d.to_le_bytes());
    }
    cpu.mem_write(GDT, &table)?;
    let gdtr = uc_x86_mmr { selector: 0, base: GDT, limit: GDT_ENTRIES * 8 - 1, flags: 0 };
    // SAFETY: a live handle; UC_X86_REG_GDTR takes a `uc_x86_mmr`, which `gdtr` is.
    unsafe { uc_reg_write(cpu.get_handle(), RegisterX86::GDTR as i32, (&gdtr as *const uc_x86_mmr).cast()) }.into()
}

/// Starts the guest at CPL 3 at `entry` with stack `sp` (see the module doc). Errors: the
/// engine's, or `EXCEPTION` if the CPU did not arrive at `entry` in 64-bit user code.
pub fn enter_user_mode(cpu: &mut Cpu<'_>, entry: GuestAddr, sp: GuestAddr) -> Result<(), uc_error> {
    let frame = [entry.get(), u64::from(USER_CS), 0x202, sp.get(), u64::from(USER_DS)];
    let bytes: Vec<u8> = frame.iter().flat_map(|w| w.to_le_bytes()).collect();
    const IRETQ: [u8; 2] = [0x48, 0xcf];
    let pages = Scratch { linear: SCRATCH, phys: SCRATCH };
    iret_to_user(cpu, pages, &bytes, &IRETQ, RegisterX86::RSP, RegisterX86::RIP, (entry.get(), USER_CS))
}
