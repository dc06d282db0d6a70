//! x86_64 struct layouts that differ from asm-generic.

use syscalls::Errno;

use crate::abi::thunk::host_bytes;
use crate::mm::{AddressSpace, GuestAddr};

/// Writes x86_64's `struct stat` (layout: arch/x86/include/uapi/asm/stat.h, 144 bytes:
/// `st_nlink` is 64-bit and comes before `st_mode`) at `addr`. It is the x86_64 host's own
/// `struct stat`, so the host's bytes go as they are. Errors: `EFAULT`.
pub fn write_stat(mm: &mut AddressSpace, addr: GuestAddr, st: &libc::stat) -> Result<(), Errno> {
    // SAFETY: the host's `struct stat` is integers only, with no implicit padding.
    mm.write_bytes(addr, unsafe { host_bytes(st) })
}

// The layout above: the host's struct is the size of x86_64's.
const _: () = assert!(std::mem::size_of::<libc::stat>() == 144);

/// `arch_prctl` codes (arch/x86/include/uapi/asm/prctl.h).
pub mod arch_prctl {
    /// Set the GS base.
    pub const ARCH_SET_GS: u64 = 0x1001;
    /// Set the FS base (TLS).
    pub const ARCH_SET_FS: u64 = 0x1002;
    /// Read the FS base.
    pub const ARCH_GET_FS: u64 = 0x1003;
    /// Read the GS base.
    pub const ARCH_GET_GS: u64 = 0x1004;
    /// Whether `cpuid` runs (1) or faults.
    pub const ARCH_GET_CPUID: u64 = 0x1011;
    /// Makes `cpuid` fault (0) or run (1); needs CPUID faulting.
    pub const ARCH_SET_CPUID: u64 = 0x1012;
}
