//! System calls only MIPS has: `set_thread_area` (the TLS pointer, read back with
//! `rdhwr $3, $29`) and `cacheflush` (arch/mips/mm/cache.c).

use syscalls::Errno;

use crate::arch::{Cpu, SyscallArgs};
use crate::syscall::nr::Sys;
use crate::syscall::SysResult;

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
        _ => return None,
    })
}
