//! aarch64's own rows: numbering differences of its table as the `syscalls` crate names it.

use crate::abi::nr::Sys;
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::{fs, SyscallDef};

/// aarch64's own rows.
pub static ROWS: &[SyscallDef] = &[
    // Number 84 is asm-generic's `__NR_sync_file_range` (include/uapi/asm-generic/unistd.h:
    // `sys_sync_file_range` unless the arch wants `sync_file_range2`, which aarch64 does not),
    // with the generic argument order; the crate's table names the slot `sync_file_range2`.
    d(Sys::sync_file_range2, fs::sync_file_range, &[Fd, Long, Long, Hex], RInt),
    // arm64 has user shadow stacks (GCS): see the handler.
    d(Sys::map_shadow_stack, crate::syscall::mm::map_shadow_stack, &[Ptr, ULong, Hex], RInt),
];
