//! System calls only MIPS has: `set_thread_area` (the TLS pointer, read back with
//! `rdhwr $3, $29`) and `cacheflush` (arch/mips/mm/cache.c); and MIPS's forms of `statfs`
//! and `fstatfs`, whose `struct statfs` orders its members differently from the host's (a
//! shape cannot reorder), listed in `GuestArch::arch_variants`.

use syscalls::Errno;

use super::abi::Statfs;
use crate::abi::nr::Sys;
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::syscall::path::host_path;
use crate::syscall::{as_int, host_ret};

/// `cacheflush(void *addr, int nbytes, int cache)` cache selectors (asm/cachectl.h):
/// ICACHE 1, DCACHE 2, BCACHE 3.
const BCACHE: u64 = 3;

/// Serves the MIPS-only calls; `None` for any other.
pub fn arch_syscall(cpu: &mut Cpu<'_>, sys: Sys, a: &SyscallArgs) -> Option<SysResult> {
    Some(match sys {
        // set_thread_area(unsigned long addr): CP0 UserLocal (arch/mips/kernel/syscall.c).
        Sys::set_thread_area => {
            let arch = cpu.get_data().arch;
            arch.set_tls(cpu, a.a[0]).map(|()| 0)
        }
        // cacheflush(addr, bytes, cache): drops translations of code in the range, as a
        // store into code would.
        Sys::cacheflush => {
            if a.a[2] == 0 || a.a[2] > BCACHE {
                return Some(Err(Errno::EINVAL));
            }
            let t = cpu.get_data_mut();
            if a.a[1] != 0 {
                t.mm.note_host_write(a.a[0], a.a[1]);
            }
            Ok(0)
        }
        // statfs(const char *path, struct statfs *buf), fstatfs(int fd, struct statfs *buf).
        Sys::statfs | Sys::fstatfs => statfs(cpu, sys, a),
        _ => return None,
    })
}

fn statfs(cpu: &mut Cpu<'_>, sys: Sys, a: &SyscallArgs) -> SysResult {
    // SAFETY: plain C struct of integers.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if sys == Sys::statfs {
        let path = host_path(cpu.get_data(), a.a[0])?;
        // SAFETY: NUL-terminated path; a local statfs.
        host_ret(unsafe { libc::syscall(libc::SYS_statfs, path.as_ptr(), &mut st) })?;
    } else {
        // SAFETY: a local statfs.
        host_ret(unsafe { libc::syscall(libc::SYS_fstatfs, as_int(a.a[0]), &mut st) })?;
    }
    cpu.get_data_mut().mm.write_struct(a.a[1], &Statfs::from_host(&st))?;
    Ok(0)
}
