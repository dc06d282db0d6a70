//! System calls whose s390x form differs from the generic handler's: `mmap` takes its six
//! arguments in memory, `ipc` five, and `statfs`/`fstatfs` and their `64` forms (which glibc uses, with
//! the struct size as an extra argument) fill s390's own `struct statfs`. (`socketcall`,
//! which s390x still has and glibc 2.36 still uses for `socketpair`, is the shared
//! [`crate::syscall::socketcall`].) The rows put them in s390x's table over the generic
//! ones. (`GuestArch::statfs_shape` cannot describe s390's `struct statfs`: a shape converts
//! one member list between data models, and s390 has 32-bit members where the host's struct
//! has longs.)

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::arch::s390x::abi::{HostStatfs, MmapArgStruct, Statfs};
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;
use crate::syscall::path::host_path;
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::{Hex as RHex, Int as RInt};
use crate::syscall::table::d;
use crate::syscall::{as_int, host_ret, SyscallDef};

/// s390x's own rows.
pub static ROWS: &[SyscallDef] = &[
    // `old_mmap`: one pointer to the six arguments.
    d(Sys::mmap, old_mmap, &[MmapArgBlock], RHex),
    d(Sys::statfs, statfs, &[Str, Ptr], RInt),
    d(Sys::fstatfs, fstatfs, &[Fd, Ptr], RInt),
    d(Sys::statfs64, statfs64, &[Str, ULong, Ptr], RInt),
    d(Sys::fstatfs64, fstatfs64, &[Fd, ULong, Ptr], RInt),
    d(Sys::ipc, s390_ipc, &[Hex, Int, ULong, ULong, Ptr], RInt),
    d(Sys::s390_runtime_instr, s390_runtime_instr, &[Int, Int], RInt),
    d(Sys::s390_guarded_storage, s390_guarded_storage, &[Int, Ptr], RInt),
    d(Sys::s390_sthyi, s390_sthyi, &[ULong, Ptr, Ptr, Hex], RInt),
];

/// `s390_runtime_instr(int command, int signum)` (arch/s390/kernel/runtime_instr.c): the guest
/// CPU has no runtime-instrumentation facility (64), for which the kernel answers
/// `EOPNOTSUPP` before looking at the arguments.
fn s390_runtime_instr(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    Err(Errno::EOPNOTSUPP)
}

/// `s390_guarded_storage(int command, struct gs_cb *gs_cb)` (arch/s390/kernel/guarded_storage.c):
/// no guarded-storage facility (133) on the guest CPU: `EOPNOTSUPP`, before the arguments.
fn s390_guarded_storage(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    Err(Errno::EOPNOTSUPP)
}

/// `STHYI_FC_CP_IFL_CAP`, the one function code.
const STHYI_FC_CP_IFL_CAP: u64 = 0;
/// Sizes of the header, machine and partition sections of the STHYI response
/// (arch/s390/kernel/sthyi.c `struct hdr_sctn`, `mac_sctn`, `par_sctn`).
const STHYI_HDR_LEN: u16 = 48;
const STHYI_MAC_LEN: u16 = 64;
const STHYI_PAR_LEN: u16 = 56;

/// `s390_sthyi(unsigned long function_code, void *resp_buffer, uint64_t *return_code,
/// unsigned long flags)` (arch/s390/kernel/sthyi.c, s390_sthyi(2)): without the STHYI
/// facility (74) the kernel builds the response page itself from STSI and DIAG 204; with no
/// hypervisor and no LPAR data behind endgate's guest, that is the header with the sections'
/// offsets and lengths, and machine and partition sections without a valid field (their
/// validity bytes 0), return code 0. Errors: `EINVAL` (flags), `EOPNOTSUPP` (another function
/// code), `EFAULT` (the 4096-byte buffer, the return code).
fn s390_sthyi(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (code, buf, rc, flags) = (a.ulong(0), a.ptr(1), a.ptr(2), a.ulong(3));
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    if code != STHYI_FC_CP_IFL_CAP {
        return Err(Errno::EOPNOTSUPP);
    }
    let mut page = vec![0u8; 4096];
    // fill_hdr: infhtotl, infhdln, infmoff, infmlen, infpoff, infplen (big-endian u16s at 8..20).
    let par_off = STHYI_HDR_LEN + STHYI_MAC_LEN;
    let hdr = [par_off + STHYI_PAR_LEN, STHYI_HDR_LEN, STHYI_HDR_LEN, STHYI_MAC_LEN, par_off, STHYI_PAR_LEN];
    for (i, v) in hdr.iter().enumerate() {
        page[8 + 2 * i..10 + 2 * i].copy_from_slice(&v.to_be_bytes());
    }
    let mm = &mut cpu.get_data_mut().mm;
    if !rc.is_null() {
        mm.write_u64(rc, 0)?;
    }
    mm.write_bytes(buf, &page)?;
    Ok(0)
}

/// `ipc(call, first, second, third, ptr)` (arch/s390/kernel/syscall.c `s390_ipc`): five
/// arguments, `third` standing in for the generic multiplexer's sixth (the `semtimedop`
/// timeout, the `msgrcv` type), and only version 0 of each call. Errors: `EINVAL` for another
/// version, then those of [`crate::syscall::ipc::ipc`].
fn s390_ipc(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.uint(0) >> 16 != 0 {
        return Err(Errno::EINVAL);
    }
    crate::syscall::ipc::ipc(cpu, &a.with([a.raw(0), a.raw(1), a.raw(2), a.raw(3), a.raw(4), a.raw(3)]))
}

/// `mmap(struct s390_mmap_arg_struct *args)` (arch/s390/kernel/syscall.c `old_mmap`): reads
/// the six longs at `args` and maps as `mmap(2)` does. Errors: `EFAULT` if the block is not
/// readable, then those of `mmap(2)`.
fn old_mmap(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let m: MmapArgStruct = cpu.get_data().mm.read_struct(a.ptr(0))?;
    let args = a.with([m.addr.get(), m.len.get(), m.prot.get(), m.flags.get(), m.fd.get(), m.offset.get()]);
    crate::syscall::mm::mmap(cpu, &args)
}

/// `statfs(const char *path, struct statfs *buf)` (statfs(2)) with s390's `struct statfs`.
/// Errors: `EFAULT`, and those of the host call.
fn statfs(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    statfs_to(cpu, a.ptr(0), a.ptr(1))
}

/// `statfs64(const char *path, size_t sz, struct statfs64 *buf)`: `struct statfs64` has the
/// same 88-byte layout as `struct statfs` on 64-bit s390. Errors: `EINVAL` if `sz` is not 88,
/// then those of [`statfs`].
fn statfs64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    check_statfs64_size(a.raw(1))?;
    statfs_to(cpu, a.ptr(0), a.ptr(2))
}

/// `fstatfs64(int fd, size_t sz, struct statfs64 *buf)`, as [`statfs64`].
fn fstatfs64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    check_statfs64_size(a.raw(1))?;
    fstatfs_to(cpu, a.raw(0), a.ptr(2))
}

fn check_statfs64_size(sz: u64) -> Result<(), Errno> {
    if sz == std::mem::size_of::<Statfs>() as u64 {
        Ok(())
    } else {
        Err(Errno::EINVAL)
    }
}

fn statfs_to(cpu: &mut Cpu<'_>, path: GuestAddr, buf: GuestAddr) -> SysResult {
    let path = host_path(cpu.get_data(), path)?;
    let mut st = HostStatfs::default();
    // SAFETY: NUL-terminated path and a local out struct of the kernel's size.
    host_ret(unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), &mut st) })?;
    cpu.get_data_mut().mm.write_struct(buf, &Statfs::from_host(&st))?;
    Ok(0)
}

/// `fstatfs(int fd, struct statfs *buf)` (statfs(2)) with s390's `struct statfs`.
/// Errors: `EFAULT`, and those of the host call.
fn fstatfs(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    fstatfs_to(cpu, a.raw(0), a.ptr(1))
}

fn fstatfs_to(cpu: &mut Cpu<'_>, fd: u64, buf: GuestAddr) -> SysResult {
    let mut st = HostStatfs::default();
    // SAFETY: integer fd and a local out struct of the kernel's size.
    host_ret(unsafe { libc::syscall(libc::SYS_fstatfs, as_int(fd), &mut st) })?;
    cpu.get_data_mut().mm.write_struct(buf, &Statfs::from_host(&st))?;
    Ok(0)
}
