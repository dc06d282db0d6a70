//! NUMA policy and page moves, as a kernel with `CONFIG_NUMA` on a machine of one memory node
//! answers them (mm/mempolicy.c, mm/migrate.c; mbind(2), get_mempolicy(2), set_mempolicy(2),
//! set_mempolicy_home_node(2), migrate_pages(2), move_pages(2); the constants of
//! include/uapi/linux/mempolicy.h): `mbind`, `get_mempolicy`, `set_mempolicy`,
//! `set_mempolicy_home_node`, `migrate_pages`, `move_pages`.
//!
//! The guest sees node 0 only, whatever the host has: its memory policies are endgate's state
//! (the thread's in [`crate::guest::Task::mempolicy`], a mapping's in
//! [`crate::mm::Vma::policy`]) and are never applied to the host memory behind the guest, as
//! on a one-node machine they would change nothing. The arguments are checked as the kernel
//! checks them (modes, flags, node masks of up to `MAX_NUMNODES` bits, 1024 as in distribution
//! kernels). Where the answer depends on the pages themselves (is a page present, or the shared
//! zero page) the host kernel is asked about the host pages behind the guest's
//! (`move_pages` without moving, `get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR)`), and any host node
//! reads as node 0.
//!
//! Node masks are arrays of guest `unsigned long`s; a 32-bit guest's are read and written as the
//! kernel's compat code does (32-bit words, and `get_mempolicy` writes one of them).

use syscalls::Errno;

use super::SysResult;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{page_ceil, AddressSpace, GuestAddr, MemPolicy, Prot, PAGE_SIZE};

/// Policy modes (`enum` in include/uapi/linux/mempolicy.h).
const MPOL_DEFAULT: u16 = 0;
const MPOL_PREFERRED: u16 = 1;
const MPOL_BIND: u16 = 2;
const MPOL_INTERLEAVE: u16 = 3;
const MPOL_LOCAL: u16 = 4;
const MPOL_PREFERRED_MANY: u16 = 5;
const MPOL_WEIGHTED_INTERLEAVE: u16 = 6;
const MPOL_MAX: u32 = 7;

/// Mode flags, in the mode argument's high bits.
const MPOL_F_STATIC_NODES: u16 = 1 << 15;
const MPOL_F_RELATIVE_NODES: u16 = 1 << 14;
const MPOL_F_NUMA_BALANCING: u16 = 1 << 13;
const MPOL_MODE_FLAGS: u16 = MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING;

/// `get_mempolicy` flags.
const MPOL_F_NODE: u64 = 1;
const MPOL_F_ADDR: u64 = 2;
const MPOL_F_MEMS_ALLOWED: u64 = 4;

/// `mbind`/`move_pages` flags.
const MPOL_MF_STRICT: u64 = 1;
const MPOL_MF_MOVE: u64 = 2;
const MPOL_MF_MOVE_ALL: u64 = 4;
const MPOL_MF_VALID: u64 = MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL;

/// Node-mask bits the kernel keeps (`MAX_NUMNODES`, `CONFIG_NODES_SHIFT` 10).
const MAX_NUMNODES: u64 = 1024;
/// Words of 64 bits in a node mask.
const MASK_WORDS: usize = (MAX_NUMNODES / 64) as usize;

/// `CAP_SYS_NICE`, which `MPOL_MF_MOVE_ALL` and moving to nodes outside the task's own need.
const CAP_SYS_NICE: u32 = 23;

/// A node mask read from the guest (`nodemask_t`).
type Nodes = [u64; MASK_WORDS];

fn empty(n: &Nodes) -> bool {
    n.iter().all(|&w| w == 0)
}

/// Up to 64 bits of the guest bitmap at `mask`, starting at 64-bit word `word`: `bits` bits
/// (`get_bitmap`; a 32-bit guest's words are read as the compat code reads them).
fn read_word(mm: &AddressSpace, mask: GuestAddr, word: u64, bits: u64) -> Result<u64, Errno> {
    let at = mask + word * 8;
    let v = if mm.long_bytes() == 8 {
        mm.read_ulong(at)?
    } else {
        let lo = u64::from(mm.read_u32(at)?);
        if bits > 32 {
            lo | u64::from(mm.read_u32(at + 4)?) << 32
        } else {
            lo
        }
    };
    Ok(if bits % 64 != 0 { v & ((1u64 << (bits % 64)) - 1) } else { v })
}

/// The kernel's `get_nodes`: the node mask of `maxnode` bits at `nmask` (`maxnode - 1` bits
/// are used). Errors: `EINVAL` (more than a page of bits, or a node past `MAX_NUMNODES`),
/// `EFAULT`.
fn get_nodes(mm: &AddressSpace, nmask: GuestAddr, maxnode: u64) -> Result<Nodes, Errno> {
    let mut nodes = [0u64; MASK_WORDS];
    let mut maxnode = maxnode.wrapping_sub(1);
    if maxnode == 0 || nmask.is_null() {
        return Ok(nodes);
    }
    if maxnode > PAGE_SIZE * 8 {
        return Err(Errno::EINVAL);
    }
    // Bits the kernel cannot keep must be zero; it looks at them one word at a time, from
    // the top down.
    while maxnode > MAX_NUMNODES {
        let bits = maxnode.min(64);
        let t = read_word(mm, nmask, (maxnode - 1) / 64, bits)?;
        if maxnode - bits >= MAX_NUMNODES {
            maxnode -= bits;
        } else {
            maxnode = MAX_NUMNODES;
        }
        if t != 0 {
            return Err(Errno::EINVAL);
        }
    }
    let words = maxnode.div_ceil(64);
    for w in 0..words {
        let bits = if w + 1 == words && maxnode % 64 != 0 { maxnode % 64 } else { 64 };
        nodes[usize::try_from(w).unwrap_or(MASK_WORDS - 1)] = read_word(mm, nmask, w, bits)?;
    }
    Ok(nodes)
}

/// The kernel's `sanitize_mpol_flags`: splits `mode` into the mode and its flags. Errors:
/// `EINVAL` (an unknown mode, both node-mask flags, `MPOL_F_NUMA_BALANCING` with a mode other
/// than `MPOL_BIND`/`MPOL_PREFERRED_MANY`).
fn sanitize(mode: i32) -> Result<(u16, u16), Errno> {
    let raw = u32::from_ne_bytes(mode.to_ne_bytes());
    let flags = u16::try_from(raw & u32::from(MPOL_MODE_FLAGS)).unwrap_or(0);
    let mode = raw & !u32::from(MPOL_MODE_FLAGS);
    if mode >= MPOL_MAX {
        return Err(Errno::EINVAL);
    }
    let mode = u16::try_from(mode).map_err(|_| Errno::EINVAL)?;
    if flags & MPOL_F_STATIC_NODES != 0 && flags & MPOL_F_RELATIVE_NODES != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & MPOL_F_NUMA_BALANCING != 0 && mode != MPOL_BIND && mode != MPOL_PREFERRED_MANY {
        return Err(Errno::EINVAL);
    }
    Ok((mode, flags))
}

/// The kernel's `mpol_new` and `mpol_set_nodemask` on a machine whose only node is 0: the
/// policy (`None` for `MPOL_DEFAULT`). Errors: `EINVAL` (nodes given to a mode that takes
/// none, none given to one that needs them, or none of them is node 0 once the allowed nodes
/// are applied).
fn new_policy(mode: u16, flags: u16, nodes: &Nodes) -> Result<Option<MemPolicy>, Errno> {
    let node_flags = flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES);
    let mut mode = mode;
    match mode {
        MPOL_DEFAULT => {
            return if empty(nodes) { Ok(None) } else { Err(Errno::EINVAL) };
        }
        MPOL_PREFERRED if empty(nodes) => {
            if node_flags != 0 {
                return Err(Errno::EINVAL);
            }
            mode = MPOL_LOCAL;
        }
        MPOL_LOCAL if !empty(nodes) || node_flags != 0 => return Err(Errno::EINVAL),
        MPOL_LOCAL => {}
        _ if empty(nodes) => return Err(Errno::EINVAL),
        _ => {}
    }
    let user_mask = flags & MPOL_MODE_FLAGS != 0;
    let reported = if mode == MPOL_LOCAL {
        0
    } else {
        // The nodes the policy uses: the given ones within the allowed {0}, or for relative
        // nodes the given ones folded onto {0}.
        let usable = if flags & MPOL_F_RELATIVE_NODES != 0 { !empty(nodes) } else { nodes[0] & 1 != 0 };
        if !usable {
            return Err(Errno::EINVAL);
        }
        if user_mask {
            nodes[0]
        } else {
            1
        }
    };
    Ok(Some(MemPolicy { mode, flags, nodes: reported, home_node: false }))
}

/// `true` if the host process has `CAP_SYS_NICE` in its effective set.
fn capable_sys_nice() -> bool {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    let mut hdr = Header { version: 0x2008_0522, pid: 0 };
    let mut data = [[0u32; 3]; 2];
    // SAFETY: a version-3 header and room for its two data structs.
    let r = unsafe { libc::syscall(libc::SYS_capget, &mut hdr as *mut Header, data.as_mut_ptr()) };
    r == 0 && data[0][0] & (1 << CAP_SYS_NICE) != 0
}

/// `set_mempolicy(int mode, const unsigned long *nodemask, unsigned long maxnode)`: the calling
/// thread's policy. Errors: `EINVAL`, `EFAULT`.
pub fn set_mempolicy(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (mode, flags) = sanitize(a.int(0))?;
    let nodes = get_nodes(&cpu.get_data().mm, a.ptr(1), a.ulong(2))?;
    let policy = new_policy(mode, flags, &nodes)?;
    cpu.get_data_mut().mempolicy = policy;
    Ok(0)
}

/// The node of the page at guest `addr`, for `get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR)`: the
/// kernel faults the page in for reading (`get_user_pages_fast`), so a page the guest may not
/// read is `EFAULT`, and so is one the host cannot fault in (a file mapping past the end of its
/// file): the host's own `get_mempolicy` on the host page gives that answer.
fn page_node(mm: &AddressSpace, addr: u64) -> Result<i32, Errno> {
    let (_, _, prot) = mm.span_at(addr).ok_or(Errno::EFAULT)?;
    if !prot.contains(Prot::READ) {
        return Err(Errno::EFAULT);
    }
    let host = mm.to_host(addr & !(PAGE_SIZE - 1), PAGE_SIZE).ok_or(Errno::EFAULT)?;
    let mut node: i32 = 0;
    // SAFETY: `node` is a local int; a NULL mask with maxnode 0; the host page is ours.
    let r = unsafe {
        libc::syscall(
            libc::SYS_get_mempolicy,
            &mut node as *mut i32,
            std::ptr::null_mut::<u64>(),
            0u64,
            host,
            MPOL_F_NODE | MPOL_F_ADDR,
        )
    };
    match r {
        0 => Ok(0),
        _ => match Errno::last() {
            Errno::ENOSYS => Ok(0),
            e => Err(e),
        },
    }
}

/// `get_mempolicy(int *mode, unsigned long *nodemask, unsigned long maxnode, void *addr,
/// unsigned long flags)`: the thread's policy, a mapping's (`MPOL_F_ADDR`), the node of a page
/// (`MPOL_F_NODE|MPOL_F_ADDR`) or of the next interleaved allocation (`MPOL_F_NODE`), or the
/// allowed nodes (`MPOL_F_MEMS_ALLOWED`). Errors: `EINVAL` (bad flags, a mask shorter than the
/// machine's nodes or longer than a page, `addr` without `MPOL_F_ADDR`, `MPOL_F_NODE` without an
/// interleaving policy), `EFAULT` (an unmapped `addr`, bad pointers).
pub fn get_mempolicy(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (policy_ptr, nmask, maxnode, addr, flags) = (a.ptr(0), a.ptr(1), a.ulong(2), a.ulong(3), a.ulong(4));
    if !nmask.is_null() && maxnode < 1 {
        return Err(Errno::EINVAL);
    }
    if flags & !(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED) != 0 {
        return Err(Errno::EINVAL);
    }
    let t = cpu.get_data_mut();
    let (pval, nodes): (i32, u64) = if flags & MPOL_F_MEMS_ALLOWED != 0 {
        if flags & (MPOL_F_NODE | MPOL_F_ADDR) != 0 {
            return Err(Errno::EINVAL);
        }
        (0, 1)
    } else {
        let (pol, own) = if flags & MPOL_F_ADDR != 0 {
            let (_, vma) = t.mm.vma_at(addr).ok_or(Errno::EFAULT)?;
            (vma.policy, false)
        } else if addr != 0 {
            return Err(Errno::EINVAL);
        } else {
            (t.mempolicy, true)
        };
        let pval = if flags & MPOL_F_NODE != 0 {
            if flags & MPOL_F_ADDR != 0 {
                page_node(&t.mm, addr)?
            } else if own && pol.is_some_and(|p| p.mode == MPOL_INTERLEAVE || p.mode == MPOL_WEIGHTED_INTERLEAVE) {
                0
            } else {
                return Err(Errno::EINVAL);
            }
        } else {
            pol.map_or(0, |p| i32::from(p.mode | p.flags))
        };
        (pval, pol.map_or(0, |p| p.nodes))
    };
    if !policy_ptr.is_null() {
        t.mm.write_u32(policy_ptr, u32::from_ne_bytes(pval.to_ne_bytes()))?;
    }
    if !nmask.is_null() {
        copy_nodes_to_user(&mut t.mm, nmask, maxnode, nodes)?;
    }
    Ok(0)
}

/// The kernel's `copy_nodes_to_user` for a machine with one node: the mask is as long as the
/// caller says (`maxnode - 1` bits rounded up to 64), but only the first `long` holds nodes
/// (`nr_node_ids` is 1): the rest is cleared. Errors: `EINVAL` (more than a page), `EFAULT`.
fn copy_nodes_to_user(mm: &mut AddressSpace, mask: GuestAddr, maxnode: u64, nodes: u64) -> Result<(), Errno> {
    let copy = (maxnode.wrapping_sub(1).wrapping_add(63) & !63) / 8;
    let long = mm.long_bytes();
    let compat = long == 4;
    let mut words_to_write = if compat { 1 } else { copy.min(8) / 8 };
    if copy > long {
        if copy > PAGE_SIZE {
            return Err(Errno::EINVAL);
        }
        mm.write_bytes(mask + long, &vec![0u8; usize::try_from(copy - long).map_err(|_| Errno::EINVAL)?])?;
        words_to_write = 1;
    }
    if words_to_write == 1 {
        if compat {
            // The compat word: the mask's first 32 bits.
            mm.write_u32(mask, u32::try_from(nodes & 0xffff_ffff).unwrap_or(0))?;
        } else {
            mm.write_ulong(mask, nodes)?;
        }
    }
    Ok(())
}

/// `true` if any page of `[start, end)` is a page of memory present in the host (not absent,
/// not the shared zero page): the pages the kernel's `queue_pages_range` finds on a node.
fn any_present(mm: &AddressSpace, start: u64, end: u64) -> bool {
    let mut page = start;
    while page < end {
        let n = ((end - page) / PAGE_SIZE).min(512) as usize;
        let addrs: Vec<u64> = (0..n as u64).map(|i| page + i * PAGE_SIZE).collect();
        if host_page_status(mm, &addrs).iter().any(|&s| s >= 0) {
            return true;
        }
        page += n as u64 * PAGE_SIZE;
    }
    false
}

/// For each guest page address: the kernel's `move_pages` status on a one-node machine — 0 for
/// a page present in memory, `-EFAULT` outside every mapping or for the shared zero page,
/// `-ENOENT` for a page not present. The host's `move_pages` (without moving) tells the last
/// two apart on the host pages behind the guest's; a host without NUMA has them looked up with
/// `mincore`.
fn host_page_status(mm: &AddressSpace, addrs: &[u64]) -> Vec<i32> {
    let efault = -(Errno::EFAULT.into_raw());
    let mut status = vec![efault; addrs.len()];
    let mut host: Vec<*mut libc::c_void> = Vec::new();
    let mut which = Vec::new();
    for (i, &addr) in addrs.iter().enumerate() {
        if mm.vma_at(addr).is_some() {
            if let Some(h) = mm.to_host(addr, 1) {
                host.push(h.cast());
                which.push(i);
            }
        }
    }
    if host.is_empty() {
        return status;
    }
    let mut got = vec![0i32; host.len()];
    // SAFETY: `host` holds addresses of our own pages; `got` has a status slot for each.
    let r = unsafe {
        libc::syscall(libc::SYS_move_pages, 0, host.len(), host.as_ptr(), std::ptr::null::<i32>(), got.as_mut_ptr(), 0)
    };
    if r != 0 {
        // No NUMA on the host: present or not, from the host's page cache and page tables.
        for (g, h) in got.iter_mut().zip(&host) {
            let page = (*h as usize) & !(HOST_PAGE - 1);
            let mut v = 0u8;
            // SAFETY: one page of ours; `v` receives one byte.
            let ok = unsafe { libc::mincore(page as *mut libc::c_void, 1, &mut v) } == 0;
            *g = if ok && v & 1 != 0 { 0 } else { -(Errno::ENOENT.into_raw()) };
        }
    }
    for (g, i) in got.into_iter().zip(which) {
        status[i] = if g >= 0 { 0 } else { g };
    }
    status
}

/// `mbind(void *addr, unsigned long len, int mode, const unsigned long *nodemask, unsigned long
/// maxnode, unsigned int flags)`: gives `[addr, addr+len)` a policy. Errors: `EINVAL` (bad
/// mode, flags or nodes, an unaligned `addr`, a range that wraps), `EFAULT` (a hole in the range,
/// or no mapping in it for `MPOL_DEFAULT`; bad mask pointer), `EPERM` (`MPOL_MF_MOVE_ALL`
/// without `CAP_SYS_NICE`), `EIO` (`MPOL_MF_STRICT` alone and a present page on a node the
/// mask leaves out).
pub fn mbind(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (start, len, nmask, maxnode) = (a.ulong(0), a.ulong(1), a.ptr(3), a.ulong(4));
    let mut flags = u64::from(a.uint(5));
    let (mode, mode_flags) = sanitize(a.int(2))?;
    let t = cpu.get_data_mut();
    let nodes = get_nodes(&t.mm, nmask, maxnode)?;
    if flags & !MPOL_MF_VALID != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & MPOL_MF_MOVE_ALL != 0 && !capable_sys_nice() {
        return Err(Errno::EPERM);
    }
    if start % PAGE_SIZE != 0 {
        return Err(Errno::EINVAL);
    }
    if mode == MPOL_DEFAULT {
        flags &= !MPOL_MF_STRICT;
    }
    let Some(end) = range_end(start, len)? else { return Ok(0) };
    let policy = new_policy(mode, mode_flags, &nodes)?;
    // queue_pages_range: the range must be mapped without holes (any part of it for the
    // default policy).
    let mut cur = start;
    let mut any = false;
    for (s, v) in t.mm.vmas().skip_while(|(_, v)| v.end <= start).take_while(|(s, _)| *s < end) {
        if s > cur && policy.is_some() {
            return Err(Errno::EFAULT);
        }
        any = true;
        cur = v.end;
    }
    if !any || (cur < end && policy.is_some()) {
        return Err(Errno::EFAULT);
    }
    // Every page is on node 0: one the mask leaves out is misplaced, which STRICT alone
    // reports (with MOVE it would move to node 0, where it is).
    let strict_only = flags & (MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL) == MPOL_MF_STRICT;
    if strict_only && nodes[0] & 1 == 0 && any_present(&t.mm, start, end) {
        return Err(Errno::EIO);
    }
    t.mm.set_policy(start, end, |_| policy);
    Ok(0)
}

/// The end of the `len` bytes from `start`, rounded up to whole pages: `None` for an empty
/// range (the call does nothing), `EINVAL` for one that wraps.
fn range_end(start: u64, len: u64) -> Result<Option<u64>, Errno> {
    let end = start.wrapping_add(page_ceil(len).unwrap_or(0));
    if end < start {
        return Err(Errno::EINVAL);
    }
    Ok((end != start).then_some(end))
}

/// `set_mempolicy_home_node(unsigned long start, unsigned long len, unsigned long home_node,
/// unsigned long flags)`: the home node of the `MPOL_BIND` and `MPOL_PREFERRED_MANY` mappings
/// in the range. Errors: `EINVAL` (unaligned start, flags, a node other than 0, a wrapping
/// range), `EOPNOTSUPP` (a mapping with another policy), `ENOENT` (no mapping in the range has a
/// policy).
pub fn set_mempolicy_home_node(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (start, len, home, flags) = (a.ulong(0), a.ulong(1), a.ulong(2), a.ulong(3));
    if start % PAGE_SIZE != 0 || flags != 0 || home != 0 {
        return Err(Errno::EINVAL);
    }
    let Some(end) = range_end(start, len)? else { return Ok(0) };
    let mm = &mut cpu.get_data_mut().mm;
    // The kernel walks the mappings in order and stops at the first policy it cannot take;
    // those before it keep their new home node.
    let mut result = Err(Errno::ENOENT);
    let mut stop = end;
    for (s, v) in mm.vmas().skip_while(|(_, v)| v.end <= start).take_while(|(s, _)| *s < end) {
        match v.policy {
            None => {}
            Some(p) if p.mode == MPOL_BIND || p.mode == MPOL_PREFERRED_MANY => result = Ok(0),
            Some(_) => {
                result = Err(Errno::EOPNOTSUPP);
                stop = s.max(start);
                break;
            }
        }
    }
    mm.set_policy(start, stop, |p| p.map(|p| MemPolicy { home_node: true, ..p }));
    result
}

/// The pid of the endgate process (the guest's own).
fn own_pid() -> i32 {
    // SAFETY: no arguments.
    unsafe { libc::getpid() }
}

/// `true` if `pid` names the guest itself: 0, its pid, or one of its threads.
fn is_self(pid: i32) -> bool {
    pid == 0 || pid == own_pid() || crate::thread::is_own_thread(pid)
}

/// `migrate_pages(int pid, unsigned long maxnode, const unsigned long *old_nodes, const unsigned
/// long *new_nodes)`: with one node nothing moves, so the answer is 0 once the checks pass.
/// Errors: `EINVAL` (bad masks, or no allowed node in `new_nodes`), `EFAULT`, `ESRCH` (no such
/// process), `EPERM` (not allowed to move the process's pages, or nodes outside the allowed
/// ones without `CAP_SYS_NICE`); another process's existence and permission are the host's
/// answer.
pub fn migrate_pages(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (pid, maxnode) = (a.int(0), a.ulong(1));
    let mm = &cpu.get_data().mm;
    let _old = get_nodes(mm, a.ptr(2), maxnode)?;
    let new = get_nodes(mm, a.ptr(3), maxnode)?;
    if !is_self(pid) {
        check_other_process(pid, |pid| {
            let one: u64 = 1;
            // SAFETY: two one-word node masks of node 0: nothing moves.
            unsafe { libc::syscall(libc::SYS_migrate_pages, pid, 2u64, &one as *const u64, &one as *const u64) }
        })?;
    }
    let outside = new[0] & !1 != 0 || new[1..].iter().any(|&w| w != 0);
    if outside && !capable_sys_nice() {
        return Err(Errno::EPERM);
    }
    if new[0] & 1 == 0 {
        return Err(Errno::EINVAL);
    }
    Ok(0)
}

/// Asks the host whether process `pid` exists and this process may move its pages, with
/// `probe`, a call that moves nothing; a host without NUMA answers with `kill(pid, 0)`.
/// Errors: `ESRCH`, `EPERM`.
fn check_other_process(pid: i32, probe: impl Fn(i32) -> i64) -> Result<(), Errno> {
    if probe(pid) >= 0 {
        return Ok(());
    }
    match Errno::last() {
        Errno::ENOSYS => {
            // SAFETY: signal 0 only checks.
            if unsafe { libc::kill(pid, 0) } == 0 {
                Ok(())
            } else {
                Err(Errno::last())
            }
        }
        e => Err(e),
    }
}

/// The host's page size (4 KiB, as the guest's).
const HOST_PAGE: usize = 4096;

/// Pages `move_pages` looks up per batch (`DO_PAGES_STAT_CHUNK_NR`).
const CHUNK: u64 = 16;

/// `move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status, int
/// flags)`: with `nodes` NULL, the node of each page (or why it has none) in `status`; with
/// `nodes`, each page moved to its node — node 0 is the only one, where every page already
/// is — and its status. Another process's pages cannot be seen from here: after the host's
/// `ESRCH`/`EPERM` checks it answers `EPERM`, as if this process could not reach them.
/// Errors: `EINVAL` (flags), `EPERM`, `ESRCH`, `ENODEV` (a node other than 0), `EFAULT`.
pub fn move_pages(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (pid, count, pages, nodes, status, flags) =
        (a.int(0), a.ulong(1), a.ptr(2), a.ptr(3), a.ptr(4), u64::from(a.uint(5)));
    if flags & !(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL) != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & MPOL_MF_MOVE_ALL != 0 && !capable_sys_nice() {
        return Err(Errno::EPERM);
    }
    if !is_self(pid) {
        check_other_process(pid, |pid| {
            // SAFETY: no pages: the host only finds the process and checks the right to it.
            unsafe {
                libc::syscall(
                    libc::SYS_move_pages,
                    pid,
                    0u64,
                    std::ptr::null::<u64>(),
                    std::ptr::null::<i32>(),
                    std::ptr::null_mut::<i32>(),
                    0,
                )
            }
        })?;
        return if count == 0 { Ok(0) } else { Err(Errno::EPERM) };
    }
    let mm = &mut cpu.get_data_mut().mm;
    let ptr_size = mm.long_bytes();
    let read_page = |mm: &AddressSpace, i: u64| -> Result<u64, Errno> {
        let at = pages + i * ptr_size;
        if ptr_size == 8 {
            mm.read_ulong(at)
        } else {
            Ok(u64::from(mm.read_u32(at)?))
        }
    };
    if nodes.is_null() {
        // do_pages_stat: chunks of pointers in, chunks of status out; a fault ends the walk.
        let mut done = 0;
        while done < count {
            let n = (count - done).min(CHUNK);
            let addrs: Result<Vec<u64>, Errno> = (done..done + n).map(|i| read_page(mm, i)).collect();
            let Ok(addrs) = addrs else { break };
            let st = host_page_status(mm, &addrs);
            let bytes: Vec<u8> = st.iter().flat_map(|&s| guest_int(mm, s)).collect();
            if mm.write_bytes(status + done * 4, &bytes).is_err() {
                break;
            }
            done += n;
        }
        return if done < count { Err(Errno::EFAULT) } else { Ok(0) };
    }
    // do_pages_move: page by page; the target node is checked before the page is looked at,
    // and each status is stored at once.
    for i in 0..count {
        let addr = read_page(mm, i)?;
        let node = i32::from_ne_bytes(mm.read_u32(nodes + i * 4)?.to_ne_bytes());
        if node != 0 {
            return Err(Errno::ENODEV);
        }
        let st = host_page_status(mm, &[addr])[0];
        mm.write_u32(status + i * 4, u32::from_ne_bytes(st.to_ne_bytes()))?;
    }
    Ok(0)
}

/// An `int` in the guest's byte order.
fn guest_int(mm: &AddressSpace, v: i32) -> [u8; 4] {
    match mm.endian() {
        crate::mm::Endian::Little => v.to_le_bytes(),
        crate::mm::Endian::Big => v.to_be_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(bits: &[u64]) -> Nodes {
        let mut n = [0u64; MASK_WORDS];
        for &b in bits {
            n[(b / 64) as usize] |= 1 << (b % 64);
        }
        n
    }

    #[test]
    fn modes_and_flags_are_checked_as_the_kernel_does() {
        assert_eq!(sanitize(2), Ok((MPOL_BIND, 0)));
        assert_eq!(sanitize(7), Err(Errno::EINVAL));
        assert_eq!(sanitize(2 | 1 << 16), Err(Errno::EINVAL));
        assert_eq!(sanitize(2 | 0xc000), Err(Errno::EINVAL));
        assert_eq!(sanitize(3 | 0x2000), Err(Errno::EINVAL));
        assert_eq!(sanitize(5 | 0x2000), Ok((MPOL_PREFERRED_MANY, MPOL_F_NUMA_BALANCING)));
    }

    #[test]
    fn policies_on_one_node() {
        assert_eq!(new_policy(MPOL_DEFAULT, 0, &mask(&[])), Ok(None));
        assert_eq!(new_policy(MPOL_DEFAULT, 0, &mask(&[0])), Err(Errno::EINVAL));
        // PREFERRED without nodes is LOCAL.
        assert_eq!(new_policy(MPOL_PREFERRED, 0, &mask(&[])).unwrap().unwrap().mode, MPOL_LOCAL);
        assert_eq!(new_policy(MPOL_PREFERRED, MPOL_F_STATIC_NODES, &mask(&[])), Err(Errno::EINVAL));
        assert_eq!(new_policy(MPOL_LOCAL, 0, &mask(&[0])), Err(Errno::EINVAL));
        assert_eq!(new_policy(MPOL_BIND, 0, &mask(&[1])), Err(Errno::EINVAL));
        assert_eq!(new_policy(MPOL_BIND, 0, &mask(&[0, 1])).unwrap().unwrap().nodes, 1);
        // A mode flag keeps the caller's mask for get_mempolicy.
        assert_eq!(new_policy(MPOL_BIND, MPOL_F_STATIC_NODES, &mask(&[0, 1])).unwrap().unwrap().nodes, 3);
        assert_eq!(new_policy(MPOL_BIND, MPOL_F_RELATIVE_NODES, &mask(&[1])).unwrap().unwrap().nodes, 2);
        assert_eq!(new_policy(MPOL_BIND, MPOL_F_RELATIVE_NODES, &mask(&[200])).unwrap().unwrap().nodes, 0);
    }
}
