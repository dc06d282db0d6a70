//! System calls only arm has, with the rows that put them in arm's table:
//! `arm_fadvise64_64` and `arm_sync_file_range` (the kernel's `sync_file_range2`): the
//! generic calls with the 32-bit argument moved forward so the two 64-bit arguments land
//! in aligned register pairs. (The ARM-private calls from 0xf0000 are served by the trap
//! hook, `crate::arch::arm`'s `traps.rs`.)

use crate::abi::nr::Sys;
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::syscall::compat32::{host_sync_file_range, ArgCursor};
use crate::syscall::fs;
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::SyscallDef;

/// arm's own rows.
pub static ROWS: &[SyscallDef] = &[
    d(Sys::arm_fadvise64_64, arm_fadvise64_64, &[Fd, Int, Hex, Hex, Hex, Hex], RInt),
    d(Sys::arm_sync_file_range, arm_sync_file_range, &[Fd, Hex, Hex, Hex, Hex, Hex], RInt),
];

/// `arm_fadvise64_64(int fd, int advice, loff_t offset, loff_t len)` (posix_fadvise(2)).
fn arm_fadvise64_64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = ArgCursor::new(cpu.get_data().arch, a);
    let (fd, advice, off, len) = (c.word(), c.word(), c.pair(), c.pair());
    fs::fadvise64(cpu, &a.with([fd, off, len, advice, 0, 0]))
}

/// `arm_sync_file_range(int fd, unsigned flags, loff_t offset, loff_t nbytes)`
/// (sync_file_range2 in sync_file_range(2)).
fn arm_sync_file_range(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mut c = ArgCursor::new(cpu.get_data().arch, a);
    let (fd, flags, off, n) = (c.word(), c.word(), c.pair(), c.pair());
    host_sync_file_range(fd, off, n, flags)
}
