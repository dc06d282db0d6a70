//! Guest ABI structs shared by several arches, declared once with endian-aware field types.
//!
//! Layouts that only one arch uses live in that arch's `abi.rs`. Each struct names the uapi
//! header it follows. Field types carry their byte order (`zerocopy::byteorder`), so writing a
//! struct into guest memory is a plain byte copy with the swaps already done.

/// The host kernel's `O_LARGEFILE` (asm-generic/fcntl.h, 0o100000). glibc's headers, and so
/// `libc`, define `O_LARGEFILE` as 0 on 64-bit hosts, but the kernel takes this bit in `open`
/// and reports it in `F_GETFL`.
pub const HOST_O_LARGEFILE: i32 = 0o100000;

/// The kernel's `LEGACY_MAP_MASK` (include/linux/mman.h) in asm-generic's `mmap` flag values
/// (include/uapi/asm-generic/mman*.h): MAP_SHARED | MAP_PRIVATE (0x3), MAP_FIXED 0x10,
/// MAP_ANONYMOUS 0x20, MAP_GROWSDOWN 0x100, MAP_DENYWRITE 0x800, MAP_EXECUTABLE 0x1000,
/// MAP_LOCKED 0x2000, MAP_NORESERVE 0x4000, MAP_POPULATE 0x8000, MAP_NONBLOCK 0x10000,
/// MAP_STACK 0x20000, MAP_HUGETLB 0x40000, MAP_UNINITIALIZED 0x400_0000, and the page-size
/// bits of MAP_HUGE_2MB and MAP_HUGE_1GB (21 and 30 << 26: bits 26-30). `MAP_SHARED_VALIDATE`
/// of a file refuses any other bit (`EOPNOTSUPP`); MAP_SYNC (0x80000) and
/// MAP_FIXED_NOREPLACE (0x10_0000) are not in it.
pub const MMAP_LEGACY_FLAGS: u64 = 0x3
    | 0x10
    | 0x20
    | 0x100
    | 0x800
    | 0x1000
    | 0x2000
    | 0x4000
    | 0x8000
    | 0x1_0000
    | 0x2_0000
    | 0x4_0000
    | 0x7c00_0000;

pub mod arm_fcntl;
pub mod at;
pub mod generic;
pub mod model;
pub mod nr;
pub mod shapes;
pub mod stat32;
pub mod thunk;

pub use model::{bits64, int32, low16, low32, low8, signed64, u64_to_usize, DataModel, Endian, GuestAddr};
