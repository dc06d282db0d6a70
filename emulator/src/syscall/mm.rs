//! Memory-management calls: `brk`, `mmap`, `munmap`, `mprotect`, `mremap`, `madvise`, `msync`,
//! `mlock`/`munlock`, `mincore`, the protection-key calls, `remap_file_pages`, `cachestat`,
//! `map_shadow_stack`. The checks follow Linux's mm/mmap.c and mm/mremap.c; the work
//! is done by [`crate::mm::AddressSpace`].

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::Pkeys;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{page_ceil, page_floor, FileMap, Prot, VmaName, MMAP_MIN_ADDR, PAGE_SIZE};

/// `mmap` flag bits (include/uapi/asm-generic/mman-common.h and mman.h; x86_64 and aarch64
/// use these values).
mod flag {
    pub const MAP_SHARED: u64 = 0x01;
    pub const MAP_PRIVATE: u64 = 0x02;
    pub const MAP_SHARED_VALIDATE: u64 = 0x03;
    pub const MAP_DROPPABLE: u64 = 0x08;
    pub const MAP_TYPE: u64 = 0x0f;
    pub const MAP_FIXED: u64 = 0x10;
    pub const MAP_ANONYMOUS: u64 = 0x20;
    pub const MAP_FIXED_NOREPLACE: u64 = 0x10_0000;
    pub const MAP_LOCKED: u64 = 0x2000;
    pub const MAP_GROWSDOWN: u64 = 0x0100;
    pub const MAP_HUGETLB: u64 = 0x4_0000;
    pub const MAP_SYNC: u64 = 0x8_0000;
}
use flag::*;

/// `PROT_GROWSDOWN`, `PROT_GROWSUP` (asm-generic/mman-common.h; MIPS's are the same).
const PROT_GROWSDOWN: u64 = 0x0100_0000;
const PROT_GROWS: u64 = PROT_GROWSDOWN | 0x0200_0000;

/// `true` if the call `sys` may take pages away from the guest (unmap them, lower their
/// permissions, put other pages in their place, or cut a mapped file short): the dispatcher
/// then stops every other thread running guest code before serving it
/// (`crate::thread::running::quiesce`), so no instance uses a TLB entry or translation the
/// call makes stale, and the host pages under such an entry never change while it is in use.
/// This is the role of the kernel's TLB shootdown, which completes before `munmap` returns.
///
/// `mmap` counts whether or not `MAP_FIXED` is given (the old single-argument `mmap` of i386
/// and s390x keeps its flags in memory); `open`, `openat` and `creat` count when they truncate.
/// A cheap first look for the dispatcher's fast path: [`takes_pages_from`] then asks the
/// address space whether the call really does.
pub fn takes_pages_away(sys: crate::abi::nr::Sys, a: &SyscallArgs) -> bool {
    use crate::abi::nr::Sys;
    const O_TRUNC: u64 = 0o1000;
    match sys {
        Sys::mmap
        | Sys::mmap2
        | Sys::munmap
        | Sys::mprotect
        | Sys::pkey_mprotect
        | Sys::mremap
        | Sys::brk
        | Sys::remap_file_pages
        | Sys::shmat
        | Sys::shmdt
        | Sys::ipc
        | Sys::truncate
        | Sys::truncate64
        | Sys::ftruncate
        | Sys::ftruncate64
        | Sys::creat
        | Sys::openat2 => true,
        Sys::open => a.raw(1) & O_TRUNC != 0,
        Sys::openat => a.raw(2) & O_TRUNC != 0,
        _ => false,
    }
}

/// [`takes_pages_away`] once the address space can be asked, for a call it named: `false` for
/// one that only adds to private anonymous memory, which no other thread's instance can be
/// using in a way the call makes stale: an anonymous `mmap` placed in free space (no
/// `MAP_FIXED`), or with `MAP_FIXED` over holes and inaccessible anonymous memory (a
/// reservation made `PROT_NONE` first, as Go's heap and glibc's thread stacks are); a
/// `munmap` of holes and inaccessible anonymous memory; an `mprotect` of private anonymous
/// memory that keeps every permission it had and does not make writable memory executable
/// ([`crate::mm::only_gains`]; glibc's arenas grow so); a `brk` that does not
/// lower the break. An inaccessible page has no TLB entry and no translation in any
/// instance, and a permission added shows itself to another instance at its next TLB miss.
/// Anything else (files, shared memory, a lowered permission, the old single-argument
/// `mmap`, protection keys) stops the other threads as before. A call with bad arguments
/// answers `true` or changes nothing.
pub fn takes_pages_from(def: &super::SyscallDef, a: &SyscallArgs, t: &crate::guest::Task) -> bool {
    use crate::abi::nr::Sys;
    let range = |start: u64, len: u64| page_ceil(len).and_then(|len| Some((start, start.checked_add(len)?)));
    let inaccessible = |(start, end): (u64, u64)| t.mm.only_private_anon(start, end, |p| p == Prot::NONE);
    // After pages were taken away without stopping the others, a stale entry of theirs may
    // reach new pages there with the old ones' permissions: a store faults in a read-only or
    // inaccessible one (`AddressSpace::private_host_prot`) but not in an executable one, whose
    // code would miss it.
    let oversteps = |new: Prot| t.mm.taken_unstopped && new.contains(Prot::EXEC);
    match def.sys {
        Sys::mmap | Sys::mmap2 if def.args.len() > 1 => {
            let flags = (t.arch.info().mmap_flags_to_generic)(a.raw(3));
            if flags & MAP_ANONYMOUS == 0 || flags & MAP_TYPE != MAP_PRIVATE {
                return true;
            }
            if Prot::from_guest(a.raw(2) & 7).is_none_or(oversteps) {
                return true;
            }
            flags & MAP_FIXED != 0 && !range(a.raw(0), a.raw(1)).is_some_and(inaccessible)
        }
        Sys::munmap => !range(a.raw(0), a.raw(1)).is_some_and(inaccessible),
        Sys::mprotect => {
            let Some(new) = Prot::from_guest(a.raw(2) & 7).filter(|_| a.raw(2) & PROT_GROWS == 0) else { return true };
            oversteps(new)
                || !range(a.raw(0), a.raw(1))
                    .is_some_and(|(s, e)| t.mm.only_private_anon(s, e, |old| crate::mm::only_gains(old, new)))
        }
        Sys::brk => a.raw(0) < t.mm.brk,
        _ => true,
    }
}

/// What the dispatcher does before a call [`takes_pages_away`] named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Nothing: the call only adds ([`takes_pages_from`] said no).
    Nothing,
    /// The call takes pages away without stopping the other threads ([`takes_away_unstopped`]).
    Unstopped,
    /// Every other running thread stops first (`crate::thread::running::quiesce`).
    Others,
}

/// [`Stop`] for a call [`takes_pages_away`] named.
pub fn stop_for(def: &super::SyscallDef, a: &SyscallArgs, t: &crate::guest::Task) -> Stop {
    if !takes_pages_from(def, a, t) {
        Stop::Nothing
    } else if takes_away_unstopped(def, a, t) {
        Stop::Unstopped
    } else {
        Stop::Others
    }
}

/// `true` for a `munmap` or a lowering `mprotect` that may take pages away without stopping the
/// other threads: every page in the range is private anonymous memory that is not executable
/// (nor becomes so), and the host pages behind the change refuse what the guest lost (unmapped:
/// released to `PROT_NONE`; made inaccessible: `PROT_NONE`; made read-only: `PROT_READ`,
/// `AddressSpace::private_host_prot`). An access through another instance's stale TLB entry
/// then faults in the host and comes back to the engine as a TLB miss, which finds what the
/// guest may do now and raises its `SIGSEGV` ([`crate::mm::AddressSpace::host_faults_reach_guest`]);
/// the others catch up with the published invalidation at their next block start, as after any
/// change they were not stopped for, and no instance can be translating code from such pages.
/// This is how the kernel's own `munmap` and `mprotect` look to the other threads: once they
/// return, the others' accesses fault. Until the next stop, a new executable mapping there
/// still stops them ([`crate::mm::AddressSpace::taken_unstopped`]). A program that frees large
/// `malloc` blocks in several threads (glibc returns them with `munmap`), or write-protects
/// its own memory while other threads run, no longer stops every thread for each.
pub fn takes_away_unstopped(def: &super::SyscallDef, a: &SyscallArgs, t: &crate::guest::Task) -> bool {
    use crate::abi::nr::Sys;
    let (start, len) = (a.raw(0), a.raw(1));
    let never_executable = match def.sys {
        Sys::munmap => true,
        Sys::mprotect => {
            a.raw(2) & PROT_GROWS == 0 && Prot::from_guest(a.raw(2)).is_some_and(|p| !p.contains(Prot::EXEC))
        }
        _ => false,
    };
    never_executable
        && t.mm.host_faults_reach_guest()
        && start % PAGE_SIZE == 0
        && page_ceil(len).and_then(|l| start.checked_add(l)).is_some_and(|end| {
            t.mm.only_private_anon(start, end, |p| !p.contains(Prot::EXEC)) && !t.mm.is_free(start, end - start)
        })
}

/// `brk(void *addr)`: moves the program break, returning the new one, or the old one when the
/// request cannot be met (the kernel's convention; libc turns that into ENOMEM).
pub fn brk(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mm = &mut cpu.get_data_mut().mm;
    let want = a.raw(0);
    if want < mm.brk_start {
        return Ok(mm.brk);
    }
    let old_top = page_ceil(mm.brk).unwrap_or(mm.brk);
    let Some(new_top) = page_ceil(want) else { return Ok(mm.brk) };
    if new_top > old_top {
        // The heap keeps a page of room below the next mapping (mm/mmap.c `brk`:
        // `newbrk + PAGE_SIZE > vm_start_gap(next)` refuses).
        if !mm.is_placeable(old_top, new_top - old_top) || !mm.is_free(old_top, new_top - old_top + PAGE_SIZE) {
            return Ok(mm.brk);
        }
        if mm.map_anon(old_top, new_top - old_top, Prot::READ | Prot::WRITE, VmaName::Heap).is_err() {
            return Ok(mm.brk);
        }
    } else if new_top < old_top {
        mm.unmap(new_top, old_top - new_top)?;
    }
    mm.brk = want;
    Ok(want)
}

/// `mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)` (mmap(2)), in
/// mm/mmap.c `do_mmap`'s order of checks. `prot` bits other than PROT_READ, PROT_WRITE and
/// PROT_EXEC are ignored, as `calc_vm_prot_bits` ignores them. Errors: `EINVAL` (zero length,
/// unaligned offset or fixed address, a map type other than MAP_SHARED, MAP_PRIVATE,
/// MAP_SHARED_VALIDATE of a file and MAP_DROPPABLE of anonymous memory, MAP_GROWSDOWN of a file
/// or of shared or droppable memory, MAP_HUGETLB of a file outside hugetlbfs), `EOPNOTSUPP`
/// (MAP_SHARED_VALIDATE of a file with a flag outside the arch's `LEGACY_MAP_MASK`, MAP_SYNC of
/// a regular file: endgate maps no file as DAX, so a DAX file's MAP_SYNC is refused too), `ENOMEM` (no room, outside the address space),
/// `EEXIST` (MAP_FIXED_NOREPLACE over a mapping), `EPERM` (fixed below mmap_min_addr, or
/// `PROT_EXEC` of a file on a `noexec` mount), `EBADF`/`EACCES` from the host for file
/// mappings.
pub fn mmap(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (addr, len, prot, fd, off) = (a.raw(0), a.raw(1), a.raw(2), a.int(4), a.raw(5));
    let info = cpu.get_data().arch.info();
    let flags = (info.mmap_flags_to_generic)(a.raw(3));
    let prot = Prot::from_guest(prot & 7).ok_or(Errno::EINVAL)?;
    if off % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let anon = flags & MAP_ANONYMOUS != 0;
    if !anon && !mappable_fd(fd) {
        // ksys_mmap_pgoff: `fget` first (an O_PATH descriptor is not one it gives).
        return Err(Errno::EBADF);
    }
    if !anon && flags & MAP_HUGETLB != 0 && !on_hugetlbfs(fd) {
        // mm/mmap.c ksys_mmap_pgoff: MAP_HUGETLB needs a hugetlbfs file.
        return Err(Errno::EINVAL);
    }
    if len == 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_ceil(len).ok_or(Errno::ENOMEM)?;
    let t = cpu.get_data_mut();
    let low32 = t.arch.info().map_32bit.clone().filter(|(bit, _)| flags & bit != 0).map(|(_, range)| range);
    let mm = &mut t.mm;
    let fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE) != 0;
    let at = if fixed {
        if addr % PAGE_SIZE != 0 {
            return Err(Errno::EINVAL);
        }
        if addr < MMAP_MIN_ADDR {
            return Err(Errno::EPERM);
        }
        if !mm.is_placeable(addr, len) {
            return Err(Errno::ENOMEM);
        }
        if flags & MAP_FIXED == 0 && !mm.is_free(addr, len) {
            return Err(Errno::EEXIST);
        }
        addr
    } else {
        let info = t.arch.info();
        let hint = if info.mmap_hint_rounds_down { page_floor(addr) } else { page_ceil(addr).unwrap_or(0) };
        // A hint is taken where the range is free and not in the gap Linux keeps below a
        // stack (`vm_start_gap`); else the usual top-down placement.
        if let Some(range) = low32 {
            mm.find_free_in(range.start, range.end, len).ok_or(Errno::ENOMEM)?
        } else if hint != 0
            && mm.is_placeable(hint, len)
            && mm.is_free(hint, len)
            && mm.clear_of_stack_gap(hint, len)
            && mm.ensure_window(hint, len).is_ok()
        {
            hint
        } else {
            mm.find_free(len).ok_or(Errno::ENOMEM)?
        }
    };
    // The map type, as do_mmap checks it once the address is known.
    let kind = flags & MAP_TYPE;
    let droppable = anon && kind == MAP_DROPPABLE;
    if anon && flags & MAP_HUGETLB != 0 {
        // Huge pages come from the host's pool (ENOMEM when it has none, as here natively);
        // endgate then maps ordinary pages.
        host_probe(len, prot, flags & (MAP_TYPE | MAP_ANONYMOUS | MAP_HUGETLB | (0x3f << 26)), -1, 0)?;
    }
    let shared = if anon {
        match kind {
            MAP_SHARED if flags & MAP_GROWSDOWN == 0 => true,
            MAP_PRIVATE => false,
            // Anonymous MAP_HUGETLB memory is a hugetlbfs file to do_mmap, which has no
            // droppable files.
            MAP_DROPPABLE if flags & (MAP_LOCKED | MAP_GROWSDOWN | MAP_HUGETLB) == 0 => false,
            _ => return Err(Errno::EINVAL),
        }
    } else {
        let shared = match kind {
            MAP_SHARED => true,
            // MAP_SYNC is in the mask of a file system that has synchronous faults (ext4, xfs
            // decide in their own mmap); the probe below asks the host.
            MAP_SHARED_VALIDATE
                if a.raw(3) & !info.mmap_validate_flags != 0
                    && (info.mmap_flags_to_generic)(a.raw(3) & !info.mmap_validate_flags) != MAP_SYNC =>
            {
                return Err(Errno::EOPNOTSUPP)
            }
            MAP_SHARED_VALIDATE => true,
            MAP_PRIVATE => false,
            _ => return Err(Errno::EINVAL),
        };
        if flags & (MAP_SYNC | MAP_GROWSDOWN) != 0 {
            // The file's own checks decide, in their order: the access mode (EACCES), a file
            // without mmap (ENODEV), MAP_GROWSDOWN (EINVAL), MAP_SYNC where the file system
            // has no synchronous faults (EOPNOTSUPP; tmpfs takes it). The host is asked the
            // same mapping and its answer is the guest's; endgate then maps without them.
            host_probe(len, prot, flags & (MAP_TYPE | MAP_SYNC | MAP_GROWSDOWN), fd, off)?;
        }
        if prot.contains(Prot::EXEC) && on_noexec_mount(fd) {
            // do_mmap: `path_noexec` refuses executable mappings of such files.
            return Err(Errno::EPERM);
        }
        shared
    };
    if anon {
        if shared {
            mm.map_shared_anon(at, len, prot)?;
        } else {
            if flags & MAP_GROWSDOWN != 0 {
                mm.map_anon_grows_down(at, len, prot)?;
            } else {
                mm.map_anon(at, len, prot, VmaName::Anon)?;
                if droppable {
                    // MAP_DROPPABLE (Linux 6.11): the kernel may drop the pages under memory
                    // pressure (reads then see zeros), which keeping them always satisfies,
                    // and a forked child gets them zeroed (VM_WIPEONFORK), which the host
                    // pages do with the same advice.
                    wipe_on_fork(mm, at, len, true)?;
                    mm.droppable.push((at, at + len));
                }
            }
        }
    } else {
        let name = super::selfref::fd_link(fd).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        mm.map_file(at, len, prot, VmaName::File(name), FileMap { fd, offset: off, shared })?;
    }
    if flags & MAP_LOCKED != 0 || mm.lock_future.is_some() {
        // As Linux, a mapping that cannot be locked is still made (mm/mmap.c `mm_populate`).
        let _ = lock_host(mm, at, len, LockOp::Lock { on_fault: mm.lock_future == Some(true) });
    }
    Ok(at)
}

/// What to do to a range's host pages.
#[derive(Clone, Copy)]
enum LockOp {
    /// `mlock2`, with `MLOCK_ONFAULT` if `on_fault`.
    Lock { on_fault: bool },
    /// `munlock`.
    Unlock,
}

/// Locks or unlocks the host pages of the guest range `[start, start+len)`, which must be
/// mapped. Errors: `ENOMEM` (unmapped), the host's (`EAGAIN`, `ENOMEM` over `RLIMIT_MEMLOCK`,
/// `EPERM`).
fn lock_host(mm: &crate::mm::AddressSpace, start: u64, len: u64, op: LockOp) -> SysResult {
    mm.check_mapped(start, len)?;
    let host = mm.to_host(start, len).ok_or(Errno::ENOMEM)?;
    // SAFETY: the range is mapped by us.
    host_ret(unsafe {
        match op {
            LockOp::Lock { on_fault } => {
                libc::syscall(libc::SYS_mlock2, host, crate::abi::u64_to_usize(len), u32::from(on_fault))
            }
            LockOp::Unlock => libc::syscall(libc::SYS_munlock, host, crate::abi::u64_to_usize(len)),
        }
    })
}

/// `MLOCK_ONFAULT` (include/uapi/asm-generic/mman-common.h); `MCL_*` of mlockall(2).
const MLOCK_ONFAULT: u32 = 1;
const MCL_CURRENT: i32 = 1;
const MCL_FUTURE: i32 = 2;
const MCL_ONFAULT: i32 = 4;

/// `mlock2(const void *addr, size_t len, unsigned int flags)` (mlock(2)). Errors: `EINVAL`
/// (unknown flags, a range that wraps around the address space), `ENOMEM` (unmapped), the
/// host's.
pub fn mlock2(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    if a.uint(2) & !MLOCK_ONFAULT != 0 {
        return Err(Errno::EINVAL);
    }
    let mm = &cpu.get_data().mm;
    match lock_range(mm, a.raw(0), a.raw(1))? {
        Some((start, len)) => lock_host(mm, start, len, LockOp::Lock { on_fault: a.uint(2) != 0 }),
        None => Ok(0),
    }
}

/// The page range `mlock`/`munlock`/`mlock2` act on, computed as mm/mlock.c does in the
/// guest's `unsigned long`: the length grows by the start's offset in its page and is
/// rounded up to pages (wrapping), the start rounded down; a range whose end wraps past the
/// top of the address space is `EINVAL`, an empty one (a length that rounds to 0, as
/// `SIZE_MAX` does) is `None`, nothing to do.
fn lock_range(mm: &crate::mm::AddressSpace, addr: u64, len: u64) -> Result<Option<(u64, u64)>, Errno> {
    let mask = if mm.long_bytes() == 4 { u64::from(u32::MAX) } else { u64::MAX };
    let (addr, len) = (addr & mask, len & mask);
    let len = len.wrapping_add(addr % PAGE_SIZE).wrapping_add(PAGE_SIZE - 1) & !(PAGE_SIZE - 1) & mask;
    let start = page_floor(addr);
    let end = start.wrapping_add(len) & mask;
    if end < start {
        return Err(Errno::EINVAL);
    }
    Ok((end > start).then_some((start, len)))
}

/// `mlockall(int flags)`: locks every guest mapping (`MCL_CURRENT`) and those to come
/// (`MCL_FUTURE`); endgate's own memory is not the guest's to lock. Errors: `EINVAL`
/// (no or unknown flags, `MCL_ONFAULT` alone), the host's (`ENOMEM`, `EPERM`).
pub fn mlockall(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let f = a.int(0);
    if f == 0 || f & !(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) != 0 || f == MCL_ONFAULT {
        return Err(Errno::EINVAL);
    }
    let on_fault = f & MCL_ONFAULT != 0;
    let mm = &mut cpu.get_data_mut().mm;
    if f & MCL_CURRENT != 0 {
        let ranges: Vec<(u64, u64)> = mm.vmas().map(|(s, v)| (s, v.end - s)).collect();
        for (s, len) in ranges {
            lock_host(mm, s, len, LockOp::Lock { on_fault })?;
        }
    }
    mm.lock_future = (f & MCL_FUTURE != 0).then_some(on_fault);
    Ok(0)
}

/// `munlockall(void)`: unlocks every guest mapping and ends `MCL_FUTURE`.
pub fn munlockall(cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    let mm = &mut cpu.get_data_mut().mm;
    let ranges: Vec<(u64, u64)> = mm.vmas().map(|(s, v)| (s, v.end - s)).collect();
    for (s, len) in ranges {
        lock_host(mm, s, len, LockOp::Unlock)?;
    }
    mm.lock_future = None;
    Ok(0)
}

/// `membarrier(int cmd, unsigned int flags, int cpu_id)` (membarrier(2)): the host's, whose
/// threads are the guest's threads. Errors: the host's (`EINVAL`, `EPERM` before
/// registration).
pub fn membarrier(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_membarrier, a.int(0), a.uint(1), a.int(2)) })
}

/// `munmap(void *addr, size_t length)` (munmap(2)). Errors: `EINVAL` for an unaligned address,
/// a zero length or a range past the end of the address space; unmapped parts of the range
/// are not an error.
pub fn munmap(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (addr, len) = (a.raw(0), a.raw(1));
    if addr % PAGE_SIZE != 0 || len == 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_ceil(len).ok_or(Errno::EINVAL)?;
    let mm = &mut cpu.get_data_mut().mm;
    // mm/vma.c `do_vmi_munmap`: a range reaching past TASK_SIZE is EINVAL.
    if addr > mm.task_size || len > mm.task_size - addr {
        return Err(Errno::EINVAL);
    }
    mm.unmap(addr, len)?;
    Ok(0)
}

/// `mprotect(void *addr, size_t len, int prot)` (mprotect(2)). Errors: `EINVAL` (unaligned,
/// bad bits), `ENOMEM` (part of the range unmapped).
pub fn mprotect(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_mprotect_pkey(cpu, a.raw(0), a.raw(1), a.raw(2), -1)
}

/// The kernel's `do_mprotect_pkey` (mm/mprotect.c), for `mprotect` (`pkey` -1) and
/// `pkey_mprotect`, in its order of checks: both grow flags, an unaligned start (`EINVAL`); a
/// zero length (0, whatever the rest); a range that wraps (`ENOMEM`); bad `prot` bits
/// (`EINVAL`); a key the process has not allocated (`EINVAL`); a hole (`ENOMEM`).
fn do_mprotect_pkey(cpu: &mut Cpu<'_>, start: u64, len: u64, prot: u64, pkey: i32) -> SysResult {
    if prot & PROT_GROWS == PROT_GROWS || start % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    if len == 0 {
        return Ok(0);
    }
    let len = page_ceil(len).unwrap_or(0);
    if start.checked_add(len).is_none_or(|end| end <= start) {
        return Err(Errno::ENOMEM);
    }
    let t = cpu.get_data_mut();
    let grows = prot & PROT_GROWS;
    // `PROT_SEM` (the arch's number): every arch's `arch_validate_prot` accepts it, nothing uses it.
    let prot = Prot::from_guest(prot & !PROT_GROWS & !t.arch.info().prot_sem).ok_or(Errno::EINVAL)?;
    if pkey != -1 && !pkey_allocated(t.arch.info().pkeys, t.mm.pkey_map, pkey) {
        return Err(Errno::EINVAL);
    }
    let mut start = start;
    let mut len = len;
    if grows != 0 {
        // PROT_GROWSDOWN applies from the start of a grows-down mapping (`MAP_GROWSDOWN`, the
        // main stack); PROT_GROWSUP needs a grows-up one, which none of these arches has.
        let end = start + len;
        let (vstart, vma) = t.mm.vma_find(start, end).ok_or(Errno::ENOMEM)?;
        if grows == PROT_GROWSDOWN {
            if !vma.grows_down {
                return Err(Errno::EINVAL);
            }
            start = vstart;
            len = end - vstart;
        } else {
            return Err(if vstart > start { Errno::ENOMEM } else { Errno::EINVAL });
        }
    }
    t.mm.protect(start, len, prot)?;
    Ok(0)
}

/// The protection-key allocation map a process starts with: x86's is empty without OSPKE
/// (arch/x86/include/asm/mmu_context.h sets it only with the feature), arm64's reserves key 0
/// (`init_new_context`).
fn pkey_initial_map(model: Pkeys) -> u16 {
    match model {
        Pkeys::Arm64 => 1,
        Pkeys::X86 | Pkeys::Generic => 0,
    }
}

/// The kernel's `mm_pkey_is_allocated` on a CPU without protection keys: x86 knows one key,
/// 0, which it takes for the execute-only key (never usable); arm64 has 8 and looks at the
/// map; without `ARCH_HAS_PKEYS` key 0 is always allocated (include/linux/pkeys.h).
fn pkey_allocated(model: Pkeys, map: Option<u16>, pkey: i32) -> bool {
    let map = map.unwrap_or(pkey_initial_map(model));
    match model {
        Pkeys::X86 => false,
        Pkeys::Arm64 => (0..8).contains(&pkey) && map & (1 << pkey) != 0,
        Pkeys::Generic => pkey == 0,
    }
}

/// `pkey_alloc(unsigned int flags, unsigned int access_rights)` (pkey_alloc(2)) on a CPU
/// without protection keys, which every guest CPU is. Errors: `EINVAL` (flags, unknown rights
/// bits), `ENOSPC` (no key to give). On x86 the first call of a process is `EINVAL`: the
/// kernel hands out key 0 from its empty map, fails to set its rights without PKRU, and the
/// key stays taken (xstate.c `arch_set_user_pkey_access`); later calls find no key.
pub fn pkey_alloc(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let model = t.arch.info().pkeys;
    // PKEY_ACCESS_MASK: disable access and write; arm64 adds disable execute and read.
    let rights = if model == Pkeys::Arm64 { 0xf } else { 0x3 };
    if a.raw(0) != 0 || a.raw(1) & !rights != 0 {
        return Err(Errno::EINVAL);
    }
    match model {
        Pkeys::X86 if t.mm.pkey_map.unwrap_or(0) & 1 == 0 => {
            t.mm.pkey_map = Some(1);
            Err(Errno::EINVAL)
        }
        _ => Err(Errno::ENOSPC),
    }
}

/// `pkey_free(int pkey)`: frees an allocated key (arm64's reserved key 0 is one). Errors:
/// `EINVAL` (not allocated: any key on x86 and on arches without keys).
pub fn pkey_free(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let model = t.arch.info().pkeys;
    let pkey = a.int(0);
    if model != Pkeys::Arm64 || !pkey_allocated(model, t.mm.pkey_map, pkey) {
        return Err(Errno::EINVAL);
    }
    let map = t.mm.pkey_map.unwrap_or(pkey_initial_map(model));
    t.mm.pkey_map = Some(map & !(1 << pkey));
    Ok(0)
}

/// `pkey_mprotect(void *addr, size_t len, int prot, int pkey)`: `mprotect` with a key; key -1
/// is plain `mprotect`, and another key must be allocated. Errors: `mprotect`'s, `EINVAL`.
pub fn pkey_mprotect(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_mprotect_pkey(cpu, a.raw(0), a.raw(1), a.raw(2), a.int(3))
}

/// `remap_file_pages(void *addr, size_t size, int prot, size_t pgoff, int flags)`
/// (remap_file_pages(2)): Linux emulates it by mapping the file again with `MAP_FIXED` at page
/// offset `pgoff` over `[addr, addr+size)` (mm/mmap.c); endgate has the host do the same to its
/// own shared mapping. Errors: `EINVAL` (`prot` not 0, an empty or wrapping range, `pgoff`
/// wrapping, a range not inside shared mappings of one file with the same permissions).
pub fn remap_file_pages(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (start, size, prot, pgoff) = (a.ulong(0), a.ulong(1), a.ulong(2), a.ulong(3));
    if prot != 0 {
        return Err(Errno::EINVAL);
    }
    let start = page_floor(start);
    let size = page_floor(size);
    let end = start.checked_add(size).filter(|&e| e > start).ok_or(Errno::EINVAL)?;
    if pgoff.checked_add(size / PAGE_SIZE).is_none() {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data_mut();
    let (_, first) = t.mm.vma_at(start).ok_or(Errno::EINVAL)?;
    if !first.shared {
        return Err(Errno::EINVAL);
    }
    // The range may run over several mappings, contiguous, of the same file and flags.
    let (mut cur, name, prot) = (first.end, first.name.clone(), first.prot);
    while cur < end {
        let next = t.mm.vma_at(cur).filter(|(s, v)| *s == cur && v.shared && v.name == name && v.prot == prot);
        let (_, v) = next.ok_or(Errno::EINVAL)?;
        cur = v.end;
    }
    t.mm.remap_file_pages(start, size, pgoff)?;
    Ok(0)
}

/// `cachestat(unsigned int fd, struct cachestat_range *range, struct cachestat *cstat,
/// unsigned int flags)` (cachestat(2), include/uapi/linux/mman.h: `{ __u64 off, len; }` in,
/// five `__u64` counters out, in the guest's byte order): the host's answer for the file.
/// Errors: the host's, in its order (`EBADF`, `EFAULT` for the range, `EOPNOTSUPP`, `EPERM`,
/// `EINVAL` for flags), `EFAULT` for `cstat`, `ENOSYS` from a host kernel without the call.
pub fn cachestat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let mm = &cpu.get_data().mm;
    let range: Option<[u64; 2]> = (|| Some([mm.read_u64(a.ptr(1)).ok()?, mm.read_u64(a.ptr(1) + 8).ok()?]))();
    let mut out = [0u64; 5];
    // An unreadable guest range is an unreadable host pointer, so the host reports it in its
    // own order among its checks (a page-aligned kernel address faults in copy_from_user).
    let range_ptr = range.as_ref().map_or(usize::MAX & !0xfff, |r| r.as_ptr() as usize);
    // SAFETY: `range_ptr` is our two-word range (or an address the host refuses), `out` has
    // room for the five counters.
    let r = unsafe { libc::syscall(451, a.uint(0), range_ptr, out.as_mut_ptr(), a.uint(3)) };
    host_ret(r)?;
    let mm = &mut cpu.get_data_mut().mm;
    mm.check_writable(a.ptr(2), 40)?;
    for (i, v) in out.iter().enumerate() {
        mm.write_u64(a.ptr(2) + 8 * i as u64, *v)?;
    }
    Ok(0)
}

/// Flags `map_shadow_stack` knows (`SHADOW_STACK_SET_TOKEN`, arm64's `SHADOW_STACK_SET_MARKER`):
/// never all bits.
const SHADOW_STACK_PROBE_FLAGS: u64 = 0xffff_ffff;

/// `map_shadow_stack(unsigned long addr, unsigned long size, unsigned int flags)` on x86_64 and
/// aarch64, whose Linux has user shadow stacks (x86 SHSTK, arm64 GCS): the guest CPUs lack the
/// feature, so a kernel built with it answers `EOPNOTSUPP`; one built without it (as this
/// host's may be) has no such call, `ENOSYS`. The host kernel is asked which it is, with flags
/// it refuses before mapping anything.
pub fn map_shadow_stack(_cpu: &mut Cpu<'_>, _a: &SyscallArgs) -> SysResult {
    static BUILT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let built = *BUILT.get_or_init(|| {
        // SAFETY: invalid flags: the host kernel answers before mapping anything.
        let r = unsafe { libc::syscall(453, 0u64, 0u64, SHADOW_STACK_PROBE_FLAGS) };
        !(r < 0 && Errno::last() == Errno::ENOSYS)
    });
    Err(if built { Errno::EOPNOTSUPP } else { Errno::ENOSYS })
}

const MREMAP_MAYMOVE: u64 = 1;
const MREMAP_FIXED: u64 = 2;
/// Since Linux 5.7 (any mapping since 5.13): move the pages, leave the old range mapped and
/// empty (uapi/linux/mman.h).
const MREMAP_DONTUNMAP: u64 = 4;

/// `mremap(void *old, size_t old_size, size_t new_size, int flags, void *new)` (mremap(2)).
/// With `MREMAP_DONTUNMAP` the pages move and the old range stays mapped as it was, its pages
/// read afresh (zero for anonymous memory, the file's for a private file mapping).
/// Errors: `EINVAL` (unaligned, bad flags, zero sizes, a new size beyond `TASK_SIZE`, FIXED or
/// DONTUNMAP without MAYMOVE, DONTUNMAP with a size change), `EFAULT` (the old range is not one
/// mapping), `ENOMEM` (cannot grow in place and may not move).
pub fn mremap(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (old, old_len, new_len, flags, new_addr) = (a.raw(0), a.raw(1), a.raw(2), a.raw(3), a.raw(4));
    if old % PAGE_SIZE != 0 || flags & !(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP) != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & (MREMAP_FIXED | MREMAP_DONTUNMAP) != 0 && flags & MREMAP_MAYMOVE == 0 {
        return Err(Errno::EINVAL);
    }
    let keep = flags & MREMAP_DONTUNMAP != 0;
    if keep && page_ceil(old_len) != page_ceil(new_len) {
        return Err(Errno::EINVAL);
    }
    let old_len = page_ceil(old_len).ok_or(Errno::EINVAL)?;
    let new_len = page_ceil(new_len).ok_or(Errno::EINVAL)?;
    if new_len == 0 {
        return Err(Errno::EINVAL);
    }
    let mm = &mut cpu.get_data_mut().mm;
    // A size no process can have (larger than the address space): EINVAL, as Linux checks it
    // before looking at the mapping.
    if new_len > mm.task_size {
        return Err(Errno::EINVAL);
    }
    let (_, vma) = mm.vma_at(old).ok_or(Errno::EFAULT)?;
    if old + old_len > vma.end {
        return Err(Errno::EFAULT);
    }
    if old_len == 0 {
        // A second view of a shared mapping's pages (mm/mremap.c: "duplicate" with a zero old
        // size): refused for private ones, and it can only go to a new place.
        if !vma.shared {
            return Err(Errno::EINVAL);
        }
        let to = if flags & MREMAP_FIXED != 0 {
            if new_addr % PAGE_SIZE != 0 || !mm.is_placeable(new_addr, new_len) {
                return Err(Errno::EINVAL);
            }
            mm.unmap(new_addr, new_len)?;
            new_addr
        } else if flags & MREMAP_MAYMOVE != 0 {
            mm.find_free(new_len).ok_or(Errno::ENOMEM)?
        } else {
            return Err(Errno::ENOMEM);
        };
        mm.move_mapping(old, 0, to, new_len, false)?;
        return Ok(to);
    }
    if flags & MREMAP_FIXED != 0 {
        if new_addr % PAGE_SIZE != 0 || !mm.is_placeable(new_addr, new_len) {
            return Err(Errno::EINVAL);
        }
        mm.unmap(new_addr, new_len)?;
        mm.move_mapping(old, old_len, new_addr, new_len, keep)?;
        return Ok(new_addr);
    }
    if keep {
        let to = mm.find_free(new_len).ok_or(Errno::ENOMEM)?;
        mm.move_mapping(old, old_len, to, new_len, true)?;
        return Ok(to);
    }
    if new_len <= old_len {
        if new_len < old_len {
            mm.unmap(old + new_len, old_len - new_len)?;
        }
        return Ok(old);
    }
    if mm.is_placeable(old, new_len) && mm.is_free(old + old_len, new_len - old_len) {
        mm.grow_in_place(old, old_len, new_len)?;
        return Ok(old);
    }
    if flags & MREMAP_MAYMOVE == 0 {
        return Err(Errno::ENOMEM);
    }
    let to = mm.find_free(new_len).ok_or(Errno::ENOMEM)?;
    mm.move_mapping(old, old_len, to, new_len, false)?;
    Ok(to)
}

/// `madvise` advice values (asm-generic/mman-common.h).
mod advice {
    pub const MADV_NORMAL: u64 = 0;
    pub const MADV_RANDOM: u64 = 1;
    pub const MADV_SEQUENTIAL: u64 = 2;
    pub const MADV_WILLNEED: u64 = 3;
    pub const MADV_DONTNEED: u64 = 4;
    pub const MADV_FREE: u64 = 8;
    pub const MADV_REMOVE: u64 = 9;
    pub const MADV_DONTFORK: u64 = 10;
    pub const MADV_DOFORK: u64 = 11;
    pub const MADV_MERGEABLE: u64 = 12;
    pub const MADV_UNMERGEABLE: u64 = 13;
    pub const MADV_HUGEPAGE: u64 = 14;
    pub const MADV_NOHUGEPAGE: u64 = 15;
    pub const MADV_DONTDUMP: u64 = 16;
    pub const MADV_DODUMP: u64 = 17;
    pub const MADV_WIPEONFORK: u64 = 18;
    pub const MADV_KEEPONFORK: u64 = 19;
    pub const MADV_COLD: u64 = 20;
    pub const MADV_PAGEOUT: u64 = 21;
}

/// `madvise(void *addr, size_t length, int advice)` (madvise(2)). `MADV_DONTNEED` discards
/// the pages (they read back as zero or as the file); `MADV_REMOVE` punches the hole in the
/// backing file or shared memory through the host's own pages (`EACCES` for a mapping that is
/// not shared and writable, `EINVAL` without a file, as the host answers for its mirror of the
/// guest's mapping); `MADV_FREE` keeps them (allowed: the
/// kernel may free them lazily or not at all); `MADV_WIPEONFORK`/`MADV_KEEPONFORK` go to the
/// host pages (a fork of endgate is the guest's fork); other hints are accepted after the range
/// check.
/// Errors: `EINVAL` (unaligned, unknown advice), `ENOMEM` (part of the range unmapped).
pub fn madvise(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    use advice::*;
    let (addr, len, adv) = (a.raw(0), a.raw(1), a.raw(2));
    if addr % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_ceil(len).ok_or(Errno::EINVAL)?;
    let mm = &mut cpu.get_data_mut().mm;
    match adv {
        // A forked child's copy of the range is zeroed (or no longer): the host pages carry
        // the same advice, since the guest's fork is endgate's.
        // madvise_vma_behavior: VM_DROPPABLE memory stays wipe-on-fork.
        MADV_KEEPONFORK if len > 0 && mm.any_droppable(addr, addr + len) => Err(Errno::EINVAL),
        MADV_WIPEONFORK | MADV_KEEPONFORK if len > 0 => wipe_on_fork(mm, addr, len, adv == MADV_WIPEONFORK),
        // A forked child (a fork of endgate) does not get the range: it is unmapped there.
        MADV_DONTFORK | MADV_DOFORK if len > 0 => {
            mm.check_mapped(addr, len)?;
            mm.set_dontfork(addr, addr + len, adv == MADV_DONTFORK);
            Ok(0)
        }
        MADV_DONTNEED => {
            if len > 0 {
                mm.discard(addr, len)?;
            }
            Ok(0)
        }
        MADV_REMOVE => {
            if len > 0 {
                mm.remove_backing(addr, len)?;
            }
            Ok(0)
        }
        MADV_NORMAL | MADV_RANDOM | MADV_SEQUENTIAL | MADV_WILLNEED | MADV_FREE | MADV_DONTFORK | MADV_DOFORK
        | MADV_MERGEABLE | MADV_UNMERGEABLE | MADV_HUGEPAGE | MADV_NOHUGEPAGE | MADV_DONTDUMP | MADV_DODUMP
        | MADV_WIPEONFORK | MADV_KEEPONFORK | MADV_COLD | MADV_PAGEOUT => {
            mm.check_mapped(addr, len)?;
            Ok(0)
        }
        _ => Err(Errno::EINVAL),
    }
}

/// [`madvise`] without the global guest lock ([`super::unlocked`]): advice that changes none
/// of endgate's own state (the host's `MADV_DONTNEED` on the guest's pages, or nothing, as
/// under the lock) on a page-aligned range inside one span of the thread's view that is not
/// executable, so that discarding its pages drops no translation
/// ([`crate::mm::fill_view::FillView::advice_range`]). Another thread that touches the pages
/// meanwhile reads them as they were or as the discard left them, as on Linux. Anything else
/// (the fork advice, `MADV_REMOVE`, a range the view does not hold whole, an error) is served
/// under the lock.
pub fn madvise_unlocked(ctx: &super::unlocked::Ctx<'_>, a: &SyscallArgs) -> Option<SysResult> {
    use advice::*;
    let (addr, adv) = (a.raw(0), a.raw(2));
    let len = page_ceil(a.raw(1)).filter(|_| addr % PAGE_SIZE == 0)?;
    let host = ctx.view?.advice_range(addr, len)?;
    match adv {
        MADV_DONTNEED => {
            // SAFETY: the guest's own pages inside a window's reservation (the view's span);
            // this thread counts as running, so no change takes them away meanwhile.
            let r = unsafe { libc::madvise(host.cast(), crate::abi::u64_to_usize(len), libc::MADV_DONTNEED) };
            (r == 0).then_some(Ok(0))
        }
        MADV_NORMAL | MADV_RANDOM | MADV_SEQUENTIAL | MADV_WILLNEED | MADV_FREE | MADV_MERGEABLE | MADV_UNMERGEABLE
        | MADV_HUGEPAGE | MADV_NOHUGEPAGE | MADV_DONTDUMP | MADV_DODUMP | MADV_COLD | MADV_PAGEOUT => Some(Ok(0)),
        _ => None,
    }
}

/// `msync(void *addr, size_t length, int flags)` (msync(2)). Errors: `EINVAL`, `ENOMEM`.
pub fn msync(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (addr, len) = (a.raw(0), a.raw(1));
    if addr % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_ceil(len).ok_or(Errno::ENOMEM)?;
    let mm = &cpu.get_data().mm;
    mm.check_mapped(addr, len)?;
    let host = mm.to_host(addr, len).ok_or(Errno::ENOMEM)?;
    // SAFETY: the range is mapped by us inside the reservation.
    host_ret(i64::from(unsafe { libc::msync(host.cast(), crate::abi::u64_to_usize(len), a.int(2)) }))
}

/// `mlock(const void *addr, size_t len)` / `munlock`: checks the range is mapped; the host
/// pages are locked or unlocked. A range that wraps around the address space is `EINVAL`, one
/// whose length rounds to nothing is done at once ([`lock_range`]).
pub fn mlock(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lock(cpu, a, true)
}

/// `munlock(const void *addr, size_t len)`.
pub fn munlock(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    lock(cpu, a, false)
}

fn lock(cpu: &mut Cpu<'_>, a: &SyscallArgs, on: bool) -> SysResult {
    let op = if on { LockOp::Lock { on_fault: false } } else { LockOp::Unlock };
    let mm = &cpu.get_data().mm;
    match lock_range(mm, a.raw(0), a.raw(1))? {
        Some((start, len)) => lock_host(mm, start, len, op),
        None => Ok(0),
    }
}

/// `mincore(void *addr, size_t length, unsigned char *vec)` (mincore(2)).
pub fn mincore(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (addr, len) = (a.raw(0), a.raw(1));
    if addr % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    let len = page_ceil(len).ok_or(Errno::ENOMEM)?;
    let t = cpu.get_data_mut();
    t.mm.check_mapped(addr, len)?;
    let host = t.mm.to_host(addr, len).ok_or(Errno::ENOMEM)?;
    let vec = t.buf_out(a.ptr(2), len / PAGE_SIZE)?;
    // SAFETY: mapped range; `vec` holds one byte per page.
    host_ret(i64::from(unsafe { libc::mincore(host.cast(), crate::abi::u64_to_usize(len), vec) }))
}

/// `memfd_create(const char *name, unsigned int flags)` (memfd_create(2)): an anonymous file;
/// `MFD_CLOEXEC` 1, `MFD_ALLOW_SEALING` 2, `MFD_HUGETLB` 4 and the huge-page size bits are the
/// same on every arch. Errors: `EFAULT`, `EINVAL` (a name of 250 bytes or more, unknown
/// flags: the host's).
pub fn memfd_create(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // The kernel's limit: 249 bytes of name, then the NUL (MFD_NAME_MAX_LEN).
    let name = match cpu.get_data().mm.read_cstr(a.ptr(0), 250) {
        Err(Errno::ENAMETOOLONG) => return Err(Errno::EINVAL),
        r => r?,
    };
    let name = std::ffi::CString::new(name).map_err(|_| Errno::EINVAL)?;
    // SAFETY: a NUL-terminated name and an integer argument.
    super::host_ret(unsafe { libc::syscall(libc::SYS_memfd_create, name.as_ptr(), a.uint(1)) })
}

/// `true` if `fd` is a file on a file system mounted `noexec` (`ST_NOEXEC` from fstatvfs).
/// `true` if `fd` is an open descriptor `mmap` can take (not `O_PATH`).
fn mappable_fd(fd: i32) -> bool {
    // SAFETY: an integer query.
    let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    fl >= 0 && fl & libc::O_PATH == 0
}

/// Asks the host for a mapping of `fd` with the guest's `prot` and generic `flags` (the host's
/// numbering) anywhere, and undoes it: `Ok` if the host makes it, else the host's error.
fn host_probe(len: u64, prot: Prot, flags: u64, fd: i32, off: u64) -> Result<(), Errno> {
    let (len, flags) = (crate::abi::u64_to_usize(len), i32::try_from(flags).map_err(|_| Errno::EINVAL)?);
    let off = i64::try_from(off).map_err(|_| Errno::EINVAL)?;
    // SAFETY: a new mapping at an address the host picks, unmapped below before anything uses it.
    let p = unsafe { libc::mmap(std::ptr::null_mut(), len, i32::from(prot.0), flags, fd, off) };
    if p == libc::MAP_FAILED {
        return Err(Errno::last());
    }
    // SAFETY: the mapping just made.
    unsafe { libc::munmap(p, len) };
    Ok(())
}

/// `true` if `fd` is a file on hugetlbfs (`HUGETLBFS_MAGIC`, include/uapi/linux/magic.h).
fn on_hugetlbfs(fd: i32) -> bool {
    const HUGETLBFS_MAGIC: i64 = 0x9584_58f6;
    // SAFETY: a local statfs for the host to fill.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above; an integer fd.
    unsafe { libc::fstatfs(fd, &mut st) == 0 && st.f_type == HUGETLBFS_MAGIC }
}

/// Sets (`wipe`) or clears wipe-on-fork on the host pages of the mapped guest range
/// `[start, start+len)`: `MADV_WIPEONFORK`/`MADV_KEEPONFORK` (madvise(2)), so a forked child,
/// which is a fork of endgate, gets them zeroed as the guest's child would. Errors: `ENOMEM`
/// (unmapped), the host's (`EINVAL` for memory that is not private and anonymous).
fn wipe_on_fork(mm: &crate::mm::AddressSpace, start: u64, len: u64, wipe: bool) -> SysResult {
    mm.check_mapped(start, len)?;
    let host = mm.to_host(start, len).ok_or(Errno::ENOMEM)?;
    let advice = if wipe { libc::MADV_WIPEONFORK } else { libc::MADV_KEEPONFORK };
    // SAFETY: the range is mapped by us inside the reservation; advice changes no contents.
    host_ret(i64::from(unsafe { libc::madvise(host.cast(), crate::abi::u64_to_usize(len), advice) }))
}

fn on_noexec_mount(fd: i32) -> bool {
    // SAFETY: a local statvfs for the host to fill.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above; an integer fd.
    unsafe { libc::fstatvfs(fd, &mut st) == 0 && st.f_flag & libc::ST_NOEXEC != 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protection_keys_on_cpus_without_them() {
        // x86: key 0 is the execute-only key, never usable; nothing else exists.
        assert!(!pkey_allocated(Pkeys::X86, None, 0));
        assert!(!pkey_allocated(Pkeys::X86, Some(1), 0));
        assert!(!pkey_allocated(Pkeys::X86, None, 1));
        // arm64: key 0 is reserved in the map until freed; keys 1-7 never allocated.
        assert!(pkey_allocated(Pkeys::Arm64, None, 0));
        assert!(!pkey_allocated(Pkeys::Arm64, Some(0), 0));
        assert!(!pkey_allocated(Pkeys::Arm64, None, 1));
        assert!(!pkey_allocated(Pkeys::Arm64, None, 8));
        // Without ARCH_HAS_PKEYS, key 0 is always allocated.
        assert!(pkey_allocated(Pkeys::Generic, None, 0));
        assert!(!pkey_allocated(Pkeys::Generic, None, -1));
    }
}
