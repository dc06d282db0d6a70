//! riscv64's own calls and rows: `riscv_flush_icache` and `riscv_hwprobe`
//! (arch/riscv/kernel/sys_riscv.c, sys_hwprobe.c; uapi asm/hwprobe.h,
//! Documentation/arch/riscv/hwprobe.rst), and a numbering difference of its table as the
//! `syscalls` crate names it.

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::guest::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{AddressSpace, GuestAddr};
use crate::syscall::strace::ArgFmt::*;
use crate::syscall::strace::RetFmt::Int as RInt;
use crate::syscall::table::d;
use crate::syscall::{fs, SyscallDef};

/// riscv64's own rows.
pub static ROWS: &[SyscallDef] = &[
    // Number 84 is asm-generic's `__NR_sync_file_range` (include/uapi/asm-generic/unistd.h:
    // `sys_sync_file_range` unless the arch wants `sync_file_range2`, which riscv64 does not),
    // with the generic argument order; the crate's table names the slot `sync_file_range2`.
    d(Sys::sync_file_range2, fs::sync_file_range, &[Fd, Long, Long, Hex], RInt),
    d(Sys::riscv_flush_icache, riscv_flush_icache, &[Ptr, Ptr, Hex], RInt),
    d(Sys::riscv_hwprobe, riscv_hwprobe, &[Ptr, ULong, ULong, Ptr, Hex], RInt),
];

/// `SYS_RISCV_FLUSH_ICACHE_LOCAL`, the one flag (`SYS_RISCV_FLUSH_ICACHE_ALL`).
const FLUSH_ICACHE_LOCAL: u64 = 1;

/// `riscv_flush_icache(void *start, void *end, unsigned long flags)`: makes code stored into
/// memory visible to instruction fetch. The engine already sees the thread's own stores into
/// code; the translations of the executable mappings in `[start, end)` are dropped in every
/// thread's engine instance (Linux flushes the whole instruction cache and ignores the range;
/// endgate drops only what the range names). Errors: `EINVAL` for flags other than
/// `SYS_RISCV_FLUSH_ICACHE_LOCAL`.
fn riscv_flush_icache(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.ulong(2) & !FLUSH_ICACHE_LOCAL != 0 {
        return Err(Errno::EINVAL);
    }
    let (start, end) = (a.ulong(0), a.ulong(1));
    if end > start {
        cpu.get_data_mut().mm.drop_code(start, end);
    }
    Ok(0)
}

/// `riscv_hwprobe` keys (uapi asm/hwprobe.h) and their values for the guest CPU, unicorn's
/// SiFive U54: RV64IMAFDC, no vector, no bit-manipulation or cache-block extensions.
mod key {
    pub const MVENDORID: i64 = 0;
    pub const MARCHID: i64 = 1;
    pub const MIMPID: i64 = 2;
    pub const BASE_BEHAVIOR: i64 = 3;
    pub const IMA_EXT_0: i64 = 4;
    pub const CPUPERF_0: i64 = 5;
    pub const ZICBOZ_BLOCK_SIZE: i64 = 6;
    pub const HIGHEST_VIRT_ADDRESS: i64 = 7;
    pub const TIME_CSR_FREQ: i64 = 8;
    pub const MISALIGNED_SCALAR_PERF: i64 = 9;
    pub const MISALIGNED_VECTOR_PERF: i64 = 10;
    /// The highest key Linux 6.18 knows (`RISCV_HWPROBE_MAX_KEY`: 14, the MIPS vendor
    /// extensions); keys 11-14 (vendor extensions, the Zicbom block size) are 0 here.
    pub const MAX: i64 = 14;
}

/// SiFive's JEDEC vendor id, and the U54's architecture and implementation ids.
const SIFIVE_MVENDORID: u64 = 0x489;
const U54_MARCHID: u64 = 0x8000_0000_0000_0007;
const U54_MIMPID: u64 = 0x2018_1004;
/// `RISCV_HWPROBE_BASE_BEHAVIOR_IMA`.
const BASE_IMA: u64 = 1;
/// `RISCV_HWPROBE_IMA_FD | RISCV_HWPROBE_IMA_C`.
const EXT_FD_C: u64 = 1 | 2;
/// `RISCV_HWPROBE_MISALIGNED_SCALAR_FAST`: the engine does misaligned loads and stores itself,
/// without a trap.
const MISALIGNED_FAST: u64 = 3;
/// `RISCV_HWPROBE_MISALIGNED_VECTOR_UNSUPPORTED`: no vector unit.
const MISALIGNED_VECTOR_UNSUPPORTED: u64 = 4;
/// `RISCV_HWPROBE_WHICH_CPUS`.
const WHICH_CPUS: u64 = 1;

/// The value of `key` for the guest CPU (every hart is alike), `None` for a key Linux does not
/// know (`hwprobe_one_pair`).
fn value_of(mm: &AddressSpace, k: i64) -> Option<u64> {
    Some(match k {
        key::MVENDORID => SIFIVE_MVENDORID,
        key::MARCHID => U54_MARCHID,
        key::MIMPID => U54_MIMPID,
        key::BASE_BEHAVIOR => BASE_IMA,
        key::IMA_EXT_0 => EXT_FD_C,
        key::CPUPERF_0 | key::MISALIGNED_SCALAR_PERF => MISALIGNED_FAST,
        key::MISALIGNED_VECTOR_PERF => MISALIGNED_VECTOR_UNSUPPORTED,
        key::ZICBOZ_BLOCK_SIZE => 0,
        key::HIGHEST_VIRT_ADDRESS => mm.task_size - 1,
        key::TIME_CSR_FREQ => crate::arch::riscv64::TIMEBASE_HZ,
        _ if (0..=key::MAX).contains(&k) => 0,
        _ => return None,
    })
}

/// `true` if a hart with `have` for `k` matches the caller's `want` (`riscv_hwprobe_pair_cmp`:
/// the extension and behaviour bitmask keys match when every wanted bit is there).
fn matches(k: i64, have: u64, want: u64) -> bool {
    match k {
        key::BASE_BEHAVIOR | key::IMA_EXT_0 | key::CPUPERF_0 => have & want == want,
        _ => have == want,
    }
}

/// The online CPUs as a `cpumask` of 64-bit words (the host's, which the guest's are).
fn online_cpus() -> Vec<u64> {
    // SAFETY: no arguments.
    let n = usize::try_from(unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) }).unwrap_or(1).max(1);
    let mut mask = vec![0u64; n.div_ceil(64)];
    for cpu in 0..n {
        mask[cpu / 64] |= 1 << (cpu % 64);
    }
    mask
}

/// Reads `len` bytes of a guest CPU set into mask words (little-endian, as riscv64 is).
fn read_cpus(mm: &AddressSpace, at: GuestAddr, len: usize, words: usize) -> Result<Vec<u64>, Errno> {
    let mut bytes = mm.read_vec(at, len)?;
    bytes.resize(words * 8, 0);
    Ok(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect())
}

/// `riscv_hwprobe(struct riscv_hwprobe *pairs, size_t pair_count, size_t cpusetsize,
/// cpu_set_t *cpus, unsigned int flags)`: fills each `{ __s64 key; __u64 value; }` pair with
/// the guest CPU's value (an unknown key becomes -1, value 0); with `RISCV_HWPROBE_WHICH_CPUS`,
/// narrows `cpus` to the harts that have every pair's value (none if a key is unknown).
/// Errors: `EINVAL` (flags, an empty CPU set, no set with `WHICH_CPUS`), `EFAULT`.
fn riscv_hwprobe(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (pairs, count, setsize, cpus, flags) = (a.ptr(0), a.ulong(1), a.size(2), a.ptr(3), u64::from(a.uint(4)));
    let online = online_cpus();
    let size = online.len() * 8;
    let mm = &mut cpu.get_data_mut().mm;
    if flags & WHICH_CPUS != 0 {
        if flags != WHICH_CPUS || setsize == 0 || cpus.is_null() {
            return Err(Errno::EINVAL);
        }
        let setsize = setsize.min(size);
        let mut set = read_cpus(mm, cpus, setsize, online.len())?;
        if set.iter().all(|&w| w == 0) {
            set.clone_from(&online);
        }
        set.iter_mut().zip(&online).for_each(|(w, o)| *w &= o);
        let mut clear_all = false;
        for i in 0..count {
            let at = pairs + i * 16;
            let k = i64::from_ne_bytes(mm.read_u64(at)?.to_ne_bytes());
            let want = mm.read_u64(at + 8)?;
            match value_of(mm, k) {
                None => {
                    clear_all = true;
                    mm.write_u64(at, u64::MAX)?;
                    mm.write_u64(at + 8, 0)?;
                }
                Some(have) if !clear_all && !matches(k, have, want) => set.iter_mut().for_each(|w| *w = 0),
                Some(_) => {}
            }
        }
        if clear_all {
            set.iter_mut().for_each(|w| *w = 0);
        }
        let bytes: Vec<u8> = set.iter().flat_map(|w| w.to_le_bytes()).take(setsize).collect();
        mm.write_bytes(cpus, &bytes)?;
        return Ok(0);
    }
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    if setsize != 0 || !cpus.is_null() {
        let set = read_cpus(mm, cpus, setsize.min(size), online.len())?;
        if set.iter().zip(&online).all(|(w, o)| w & o == 0) {
            return Err(Errno::EINVAL);
        }
    }
    for i in 0..count {
        let at = pairs + i * 16;
        let k = i64::from_ne_bytes(mm.read_u64(at)?.to_ne_bytes());
        let (k, v) = value_of(mm, k).map_or((u64::MAX, 0), |v| (u64::from_ne_bytes(k.to_ne_bytes()), v));
        mm.write_u64(at, k)?;
        mm.write_u64(at + 8, v)?;
    }
    Ok(0)
}
