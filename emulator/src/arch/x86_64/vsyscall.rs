//! x86_64's legacy vsyscall page: the fixed page at 0xffffffffff600000 that static binaries
//! from before the vDSO call directly (`call 0xffffffffff600000` for `gettimeofday`, `+0x400`
//! for `time`, `+0x800` for `getcpu`; Documentation/ABI and arch/x86/entry/vsyscall/).
//!
//! Linux today traps such calls and emulates them; endgate maps the page execute-only (as
//! Linux's default `vsyscall=xonly`: reading it faults) with what the page held once Linux
//! moved the work into the kernel: at each entry, `mov $nr, %eax; syscall; ret`. The calls
//! then take the ordinary `syscall` path (they are rare; the vDSO is the fast way). A jump to
//! any other address of the page ends in SIGSEGV (`SI_KERNEL`), as Linux's emulation sends
//! for a misaligned vsyscall ([`exception_in_page`]). Shown as `[vsyscall]` (`--xp`) in
//! `/proc/self/maps`.

use crate::mm::{AddressSpace, GuestAddr, Prot, VmaName, PAGE_SIZE};

/// Guest address of the page (`VSYSCALL_ADDR`, arch/x86/include/uapi/asm/vsyscall.h).
pub const VSYSCALL_ADDR: u64 = 0xffff_ffff_ff60_0000;

/// The entries: offset in the page and the x86_64 system call it makes.
const ENTRIES: [(usize, u32); 3] = [(0x000, 96), (0x400, 201), (0x800, 309)]; // gettimeofday, time, getcpu

/// `mov $nr, %eax` (b8 imm32), `syscall`, `ret`.
fn stub(nr: u32) -> [u8; 8] {
    let (n, [syscall0, syscall1]) = (nr.to_le_bytes(), super::SYSCALL);
    [0xb8, n[0], n[1], n[2], n[3], syscall0, syscall1, super::RET]
}

/// Maps the page at [`VSYSCALL_ADDR`] (once per process). The rest of the page is `int3`,
/// whose trap [`exception_in_page`] turns into SIGSEGV. Errors: `ENOMEM` without the window.
pub fn map(mm: &mut AddressSpace) -> Result<(), syscalls::Errno> {
    if mm.vma_at(VSYSCALL_ADDR).is_some() {
        return Ok(());
    }
    mm.map_anon(VSYSCALL_ADDR, PAGE_SIZE, Prot::EXEC, VmaName::Gate("[vsyscall]"))?;
    let mut page = vec![0xccu8; crate::abi::u64_to_usize(PAGE_SIZE)];
    for (off, nr) in ENTRIES {
        page[off..off + 8].copy_from_slice(&stub(nr));
    }
    mm.poke_bytes(GuestAddr::new(VSYSCALL_ADDR), &page)
}

/// `true` if a CPU exception reported at `pc` (after the instruction, for `int3`) was raised
/// by code in the vsyscall page: a call to an address that is no entry.
pub fn exception_in_page(pc: u64) -> bool {
    let page = VSYSCALL_ADDR..VSYSCALL_ADDR + PAGE_SIZE;
    page.contains(&pc) || page.contains(&pc.wrapping_sub(1))
}
