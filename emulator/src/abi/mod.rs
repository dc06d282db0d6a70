//! Guest ABI structs shared by several arches, declared once with endian-aware field types.
//!
//! Layouts that only one arch uses live in that arch's `abi.rs`. Each struct names the uapi
//! header it follows. Field types carry their byte order (`zerocopy::byteorder`), so writing a
//! struct into guest memory is a plain byte copy with the swaps already done.

/// The host kernel's `O_LARGEFILE` (asm-generic/fcntl.h, 0o100000). glibc's headers, and so
/// `libc`, define `O_LARGEFILE` as 0 on 64-bit hosts, but the kernel takes this bit in `open`
/// and reports it in `F_GETFL`.
pub const HOST_O_LARGEFILE: i32 = 0o100000;

pub mod arm_fcntl;
pub mod at;
pub mod generic;
pub mod model;
pub mod nr;
pub mod shapes;
pub mod stat32;
pub mod thunk;

pub use model::{bits64, int32, low16, low32, low8, signed64, u64_to_usize, DataModel, Endian, GuestAddr};
