//! x86_64 struct layouts that differ from asm-generic.

use syscalls::Errno;

use crate::abi::thunk::host_bytes;
use crate::mm::{GuestAddr, GuestWrite};

/// Writes x86_64's `struct stat` (layout: arch/x86/include/uapi/asm/stat.h, 144 bytes:
/// `st_nlink` is 64-bit and comes before `st_mode`) at `addr`. It is the x86_64 host's own
/// `struct stat`, so the host's bytes go as they are. Errors: `EFAULT`.
pub fn write_stat(out: &mut dyn GuestWrite, addr: GuestAddr, st: &libc::stat) -> Result<(), Errno> {
    // SAFETY: the host's `struct stat` is integers only, with no implicit padding.
    out.write_bytes(addr, unsafe { host_bytes(st) })
}

// The layout above: the host's struct is the size of x86_64's.
const _: () = assert!(std::mem::size_of::<libc::stat>() == 144);
