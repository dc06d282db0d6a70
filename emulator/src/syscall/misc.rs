//! System information: `uname`, `sysinfo`, `getrandom`, `getcpu`, `ioprio_get`/`ioprio_set`,
//! `syslog`.

use super::{host_ret, SysResult};
use crate::arch::{Cpu, SyscallArgs};

/// Length of each `struct utsname` field in bytes (include/uapi/linux/utsname.h).
const UTS_LEN: usize = 65;

/// `uname(struct utsname *buf)`: the host's answers, except `machine`, which names the guest
/// arch (`aarch64` for an aarch64 guest), as the guest's own kernel would.
pub fn uname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: plain data, filled by the host.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::uname(&mut u) }))?;
    let t = cpu.get_data_mut();
    let mut buf = [0u8; UTS_LEN * 6];
    let fields = [&u.sysname, &u.nodename, &u.release, &u.version, &u.machine, &u.domainname];
    for (i, f) in fields.iter().enumerate() {
        let bytes: Vec<u8> = f.iter().take(UTS_LEN - 1).map(|&c| c as u8).collect();
        buf[i * UTS_LEN..i * UTS_LEN + bytes.len()].copy_from_slice(&bytes);
    }
    let machine = t.arch.name().as_bytes();
    let m = &mut buf[4 * UTS_LEN..5 * UTS_LEN];
    m.fill(0);
    m[..machine.len()].copy_from_slice(machine);
    t.mm.write_bytes(a.a[0], &buf)?;
    Ok(0)
}

/// `sysinfo(struct sysinfo *info)`: 112 bytes on LP64 guests, the host's layout.
pub fn sysinfo(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let p = cpu.get_data_mut().buf_out(a.a[0], 112)?;
    // SAFETY: 112 guest-writable bytes.
    host_ret(unsafe { libc::syscall(libc::SYS_sysinfo, p) })
}

/// `getrandom(void *buf, size_t len, unsigned flags)` (getrandom(2)).
pub fn getrandom(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let p = cpu.get_data_mut().buf_out(a.a[0], a.a[1])?;
    // SAFETY: `len` guest-writable bytes.
    host_ret(unsafe { libc::getrandom(p.cast(), a.a[1] as usize, a.a[2] as u32) } as i64)
}

/// `getcpu(unsigned *cpu, unsigned *node, void *tcache)`; either pointer may be NULL.
pub fn getcpu(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let c = t.buf_out_opt(a.a[0], 4)?;
    let n = t.buf_out_opt(a.a[1], 4)?;
    // SAFETY: NULL or 4 guest-writable bytes each.
    host_ret(unsafe { libc::syscall(libc::SYS_getcpu, c, n, std::ptr::null::<u8>()) })
}

/// `ioprio_get(int which, int who)` (ioprio_get(2)).
pub fn ioprio_get(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_ioprio_get, a.a[0] as i32, a.a[1] as i32) })
}

/// `ioprio_set(int which, int who, int ioprio)` (ioprio_set(2)).
pub fn ioprio_set(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_ioprio_set, a.a[0] as i32, a.a[1] as i32, a.a[2] as i32) })
}

/// `syslog(int type, char *buf, int len)` (the kernel log; syslog(2)); `buf` is written only
/// by the read actions.
pub fn syslog(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let len = (a.a[2] as u32 as i32).max(0) as u64;
    let buf = cpu.get_data_mut().buf_out_opt(a.a[1], len)?;
    // SAFETY: NULL or `len` guest-writable bytes.
    host_ret(unsafe { libc::syscall(libc::SYS_syslog, a.a[0] as i32, buf, len as i32) })
}
