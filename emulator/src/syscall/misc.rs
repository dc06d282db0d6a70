//! System information: `uname`, `sysinfo`, `getrandom`, `getcpu`, `ioprio_get`/`ioprio_set`,
//! `syslog`.

use super::{host_ret, SysResult};
use crate::abi::shapes::SYSINFO;
use crate::abi::thunk::Plain;
use crate::guest::{Cpu, SyscallArgs, Task};
use syscalls::Errno;

/// Length of each `struct utsname` field in bytes (include/uapi/linux/utsname.h).
pub(crate) const UTS_LEN: usize = 65;

/// `uname(struct utsname *buf)`: the host's answers, except `machine`, which names the guest
/// arch (`aarch64` for an aarch64 guest), as the guest's own kernel would.
pub fn uname(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let fields = utsname(cpu.get_data())?;
    cpu.get_data_mut().mm.write_bytes(a.ptr(0), fields.as_flattened())?;
    Ok(0)
}

/// The six fields of the guest's `struct new_utsname` (`sysname`, `nodename`, `release`,
/// `version`, `machine`, `domainname`), each NUL-padded: the host's, `machine` the guest
/// arch's name (its compat name under `PER_LINUX32`). Errors: the host's.
/// `PER_LINUX32` (include/uapi/linux/personality.h).
const PER_LINUX32: u32 = 0x0008;

pub(crate) fn utsname(t: &Task) -> Result<[[u8; UTS_LEN]; 6], Errno> {
    // SAFETY: plain data, filled by the host.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: local out struct.
    host_ret(i64::from(unsafe { libc::uname(&mut u) }))?;
    let mut out = [[0u8; UTS_LEN]; 6];
    let fields = [&u.sysname, &u.nodename, &u.release, &u.version, &u.machine, &u.domainname];
    for (o, f) in out.iter_mut().zip(fields) {
        for (d, &c) in o.iter_mut().zip(f.iter().take(UTS_LEN - 1)) {
            *d = u8::from_ne_bytes(c.to_ne_bytes());
        }
    }
    // kernel/sys.c `override_architecture`: the compat name in the PER_LINUX32 personality.
    let info = t.arch.info();
    let linux32 = super::process::personality_now() & 0xff == PER_LINUX32;
    let machine = info.compat_name.filter(|_| linux32).unwrap_or(info.name).as_bytes();
    out[4] = [0; UTS_LEN];
    out[4][..machine.len()].copy_from_slice(machine);
    Ok(out)
}

/// `sysinfo(struct sysinfo *info)` ([`SYSINFO`]: 112 bytes on LP64, 64 on ILP32). The host
/// (64-bit) counts bytes (`mem_unit` 1); for an ILP32 guest whose RAM or swap total does not fit
/// 32 bits, the kernel's compat sysinfo counts pages instead (`mem_unit` the page size, every
/// count shifted down to match), and so does this.
pub fn sysinfo(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    t.mm.check_writable(a.ptr(0), t.mm.shape_size(SYSINFO))?;
    let mut si = libc::sysinfo::zeroed();
    // SAFETY: a local struct.
    host_ret(unsafe { libc::syscall(libc::SYS_sysinfo, &mut si) })?;
    if t.mm.long_bytes() == 4 && (si.totalram > u64::from(u32::MAX) || si.totalswap > u64::from(u32::MAX)) {
        let page = u32::try_from(crate::mm::PAGE_SIZE).unwrap_or(4096);
        while si.mem_unit < page {
            si.mem_unit *= 2;
            for v in [
                &mut si.totalram,
                &mut si.freeram,
                &mut si.sharedram,
                &mut si.bufferram,
                &mut si.totalswap,
                &mut si.freeswap,
                &mut si.totalhigh,
                &mut si.freehigh,
            ] {
                *v /= 2;
            }
        }
    }
    t.mm.write_shape(a.ptr(0), SYSINFO, &si)?;
    Ok(0)
}

/// `getrandom(void *buf, size_t len, unsigned flags)` (getrandom(2)); a buffer that runs off
/// the guest's writable memory gets the bytes that fit, as the kernel's copy stops there.
pub fn getrandom(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (p, len) = cpu.get_data_mut().buf_out_partial(a.ptr(0), a.raw(1))?;
    if crate::seed::get().is_some() {
        // -seed: the seeded generator's bytes (flags other than the known ones refused).
        if a.uint(2) & !(libc::GRND_NONBLOCK | libc::GRND_RANDOM | 0x4) != 0 {
            return Err(syscalls::Errno::EINVAL);
        }
        let mut buf = vec![0u8; crate::abi::u64_to_usize(len)];
        crate::seed::fill(&mut buf);
        // SAFETY: `len` guest-writable bytes at `p`.
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), p, buf.len()) };
        return Ok(len);
    }
    // SAFETY: `len` guest-writable bytes.
    host_ret(unsafe { libc::getrandom(p.cast(), crate::abi::u64_to_usize(len), a.uint(2)) } as i64)
}

/// [`getrandom`] without the global guest lock ([`super::unlocked`]): the host fills the
/// guest's buffer in place when the thread's copy of the mappings finds all of it writable
/// (not under `-seed`, whose generator is the process's).
pub fn getrandom_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    if crate::seed::get().is_some() {
        return None;
    }
    let p = ctx.view?.host_range(a.raw(0), a.raw(1), crate::mm::Prot::WRITE)?;
    // SAFETY: the view found the `a.raw(1)` bytes at `p` guest-writable, and the thread runs
    // guest code, so nothing takes them away meanwhile (a host fault is the host's EFAULT).
    let r = host_ret(unsafe { libc::getrandom(p.cast(), crate::abi::u64_to_usize(a.raw(1)), a.uint(2)) } as i64);
    // A host fault (a file page truncated away) is left to the full handler's `EFAULT`.
    (r != Err(Errno::EFAULT)).then_some(r)
}

/// `ioprio_get(int which, int who)` (ioprio_get(2)).
pub fn ioprio_get(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_ioprio_get, a.int(0), a.int(1)) })
}

/// `ioprio_set(int which, int who, int ioprio)` (ioprio_set(2)).
pub fn ioprio_set(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_ioprio_set, a.int(0), a.int(1), a.int(2)) })
}

/// `syslog(int type, char *buf, int len)` (the kernel log; syslog(2)); `buf` is written only
/// by the read actions.
pub fn syslog(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let len = u64::try_from(a.int(2)).unwrap_or(0);
    let buf = cpu.get_data_mut().buf_out_opt(a.ptr(1), len)?;
    // SAFETY: NULL or `len` guest-writable bytes.
    host_ret(unsafe { libc::syscall(libc::SYS_syslog, a.int(0), buf, a.int(2).max(0)) })
}
