//! Restartable sequences: `rseq(2)` (include/uapi/linux/rseq.h, kernel/rseq.c).
//!
//! A thread registers a `struct rseq` (32 bytes, 32-byte aligned): the kernel keeps its
//! `cpu_id_start`, `cpu_id`, `node_id` and `mm_cid` true whenever the thread runs user code,
//! and when it delivers a signal while the thread's program counter is inside the critical
//! section that `rseq_cs` points at (`[start_ip, start_ip + post_commit_offset)`), moves it
//! to `abort_ip` first, so the handler's frame and the thread's return go there. glibc 2.35
//! and later register an area for every thread at start; `sched_getcpu` then reads `cpu_id`.
//!
//! endgate writes the fields at registration and again whenever the host CPU the thread is
//! on has changed, which it looks at after every system call and before the thread runs guest
//! code again after a stop ([`refresh`]): the CPU is the one `getcpu` and the vDSO give the
//! guest (the host's), `node_id` the host's node for it, and `mm_cid` 0, which is exact
//! because one guest thread runs at a time. Between two system calls a host migration is not
//! seen (the kernel would rewrite `cpu_id` on the way back to user space). The critical
//! section is checked, as the kernel's `rseq_ip_fixup` does, when a signal is delivered
//! ([`fixup_ip`]) and when the thread resumes after it gave the guest lock to another guest
//! thread, which is endgate's preemption. A malformed `rseq_cs` (bad version, flags, range or
//! abort signature) or an area that cannot be read or written then gets the thread a
//! SIGSEGV, as the kernel's `force_sigsegv`.

use syscalls::Errno;

use super::SysResult;
use crate::guest::{Cpu, Rseq, SyscallArgs, Task};
use crate::mm::GuestAddr;
use crate::signal::{SigInfo, Signal};

/// `RSEQ_FLAG_UNREGISTER`.
const FLAG_UNREGISTER: i32 = 1;
/// The size of the original `struct rseq`, and its alignment (`ORIG_RSEQ_SIZE`).
const ORIG_RSEQ_SIZE: u32 = 32;
/// `RSEQ_CPU_ID_UNINITIALIZED`: `cpu_id` of an area not registered.
const CPU_ID_UNINITIALIZED: u32 = u32::MAX;

/// Offsets of `struct rseq`'s members.
mod off {
    pub const CPU_ID_START: u64 = 0;
    pub const CPU_ID: u64 = 4;
    pub const RSEQ_CS: u64 = 8;
    pub const FLAGS: u64 = 16;
    pub const NODE_ID: u64 = 20;
    pub const MM_CID: u64 = 24;
}

/// `rseq(struct rseq *rseq, u32 rseq_len, int flags, u32 sig)` (rseq(2)): registers the
/// calling thread's area, or with `RSEQ_FLAG_UNREGISTER` unregisters it (its `cpu_id` becomes
/// `RSEQ_CPU_ID_UNINITIALIZED`). A registration clears a stale `rseq_cs` and fills the CPU
/// fields. Errors: `EINVAL` (other flags; a length under 32 or an area not 32-byte aligned;
/// another area or length than the registered one), `EPERM` (another signature than the
/// registered one), `EBUSY` (the same area again), `EFAULT`.
pub fn rseq(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let (area, len, flags, sig) = (a.ptr(0), a.uint(1), a.int(2), a.uint(3));
    let t = cpu.get_data_mut();
    if flags & FLAG_UNREGISTER != 0 {
        if flags != FLAG_UNREGISTER {
            return Err(Errno::EINVAL);
        }
        let Some(r) = t.rseq.filter(|r| r.area == area) else { return Err(Errno::EINVAL) };
        if len != r.len {
            return Err(Errno::EINVAL);
        }
        if sig != r.sig {
            return Err(Errno::EPERM);
        }
        write_ids(t, area, [0, CPU_ID_UNINITIALIZED, 0, 0])?;
        t.rseq = None;
        return Ok(0);
    }
    if flags != 0 {
        return Err(Errno::EINVAL);
    }
    if let Some(r) = t.rseq {
        if r.area != area || r.len != len {
            return Err(Errno::EINVAL);
        }
        if r.sig != sig {
            return Err(Errno::EPERM);
        }
        return Err(Errno::EBUSY);
    }
    if len < ORIG_RSEQ_SIZE || area.get() % u64::from(ORIG_RSEQ_SIZE) != 0 {
        return Err(Errno::EINVAL);
    }
    if area.checked_add(u64::from(len)).is_none_or(|end| end.get() > t.mm.task_size) {
        return Err(Errno::EFAULT);
    }
    if t.mm.read_u64(area + off::RSEQ_CS)? != 0 {
        t.mm.write_u64(area + off::RSEQ_CS, 0)?;
    }
    t.rseq = Some(Rseq { area, len, sig, cpu: u32::MAX });
    refresh(t);
    Ok(0)
}

/// Writes `cpu_id_start`, `cpu_id`, `node_id` and `mm_cid` of the area at `area`.
fn write_ids(t: &mut Task, area: GuestAddr, [start, cpu, node, cid]: [u32; 4]) -> Result<(), Errno> {
    t.mm.write_u32(area + off::CPU_ID_START, start)?;
    t.mm.write_u32(area + off::CPU_ID, cpu)?;
    t.mm.write_u32(area + off::NODE_ID, node)?;
    t.mm.write_u32(area + off::MM_CID, cid)
}

/// Brings the registered area's CPU fields up to date with the host CPU the thread is on (a
/// look at the host's own rseq area when nothing changed). An area that can no longer be
/// written gets the thread a SIGSEGV.
#[inline]
pub fn refresh(t: &mut Task) {
    let Some(cpu) = t.rseq.map(|r| r.cpu) else { return };
    match host_cpu() {
        Some(now) if now != cpu => moved(t, now),
        _ => {}
    }
}

/// [`refresh`] for a thread that has moved to host CPU `now`.
#[cold]
#[inline(never)]
fn moved(t: &mut Task, now: u32) {
    let Some(r) = t.rseq else { return };
    let (mut c, mut node) = (now, 0u32);
    // SAFETY: two local u32s to fill and a NULL cache.
    if unsafe { libc::syscall(libc::SYS_getcpu, &mut c, &mut node, 0usize) } != 0 {
        c = now;
    }
    match write_ids(t, r.area, [c, c, node, 0]) {
        Ok(()) => t.rseq = Some(Rseq { cpu: c, ..r }),
        Err(_) => force_sigsegv(t),
    }
}

/// The host CPU the calling thread runs on: `cpu_id` of the rseq area the host's glibc
/// registered for the thread (at `__rseq_offset` from the thread pointer, which glibc 2.35 and
/// later export with `__rseq_size`, 0 when it registered none), a load instead of a call of
/// `sched_getcpu` (which reads the same field) after every system call; `sched_getcpu` when the
/// area is missing or not registered (`cpu_id` negative: `RSEQ_CPU_ID_UNINITIALIZED`,
/// `RSEQ_CPU_ID_REGISTRATION_FAILED`). `None` if the host cannot tell.
#[inline]
pub(crate) fn host_cpu() -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if let Some(off) = host_rseq_offset() {
        let tp: usize;
        // SAFETY: on x86_64 glibc keeps the thread control block's own address at %fs:0.
        unsafe {
            std::arch::asm!("mov {}, qword ptr fs:[0]", out(reg) tp, options(nostack, readonly, preserves_flags))
        };
        let at = tp.wrapping_add_signed(off).wrapping_add(4) as *const u32;
        // SAFETY: glibc placed this thread's registered `struct rseq` at `off` from its thread
        // pointer; `cpu_id` is its second word, which the kernel updates (hence volatile).
        let cpu = unsafe { at.read_volatile() };
        if i32::try_from(cpu).is_ok() {
            return Some(cpu);
        }
    }
    // SAFETY: no arguments; the host glibc reads its own rseq area or asks the kernel.
    u32::try_from(unsafe { libc::sched_getcpu() }).ok()
}

/// glibc's `__rseq_offset`, if it exports it and registered an area (`__rseq_size` != 0);
/// looked up once.
#[cfg(target_arch = "x86_64")]
#[inline]
fn host_rseq_offset() -> Option<isize> {
    static OFFSET: std::sync::OnceLock<Option<isize>> = std::sync::OnceLock::new();
    *OFFSET.get_or_init(|| {
        // SAFETY: looking up data symbols by name; both are read only if found, with the types
        // glibc declares them with (`const unsigned int`, `const ptrdiff_t`).
        unsafe {
            let size = libc::dlsym(libc::RTLD_DEFAULT, c"__rseq_size".as_ptr()).cast::<u32>();
            let off = libc::dlsym(libc::RTLD_DEFAULT, c"__rseq_offset".as_ptr()).cast::<isize>();
            (!size.is_null() && !off.is_null() && size.read() != 0).then(|| off.read())
        }
    })
}

/// Queues the SIGSEGV the kernel forces on a thread whose rseq area or critical-section
/// descriptor is unusable (`si_code` `SI_KERNEL`); it is delivered before the thread runs
/// guest code again.
fn force_sigsegv(t: &mut Task) {
    t.sync_fault = Some(SigInfo::fault(Signal::SIGSEGV, 0x80, 0));
}

/// The kernel's `rseq_ip_fixup` at a signal delivery or a preemption: if the thread's
/// `rseq_cs` names a critical section and the program counter is inside it, `rseq_cs` is
/// cleared and the program counter moved to the section's `abort_ip`; a descriptor for
/// somewhere else is only cleared. Called outside hooks, before a handler's frame is built.
/// `Err` when the descriptor is malformed or unreadable: the caller forces SIGSEGV.
pub fn fixup_ip(cpu: &mut Cpu<'_>) -> Result<(), Errno> {
    let t = cpu.get_data();
    let Some(r) = t.rseq else { return Ok(()) };
    let mm = &t.mm;
    let ptr = mm.read_u64(r.area + off::RSEQ_CS)?;
    if ptr == 0 {
        return Ok(());
    }
    let limit = mm.task_size;
    if ptr >= limit {
        return Err(Errno::EINVAL);
    }
    // struct rseq_cs: u32 version, u32 flags, u64 start_ip, post_commit_offset, abort_ip.
    let cs = GuestAddr::new(ptr);
    let (version, flags) = (mm.read_u32(cs)?, mm.read_u32(cs + 4)?);
    let (start, len, abort) = (mm.read_u64(cs + 8)?, mm.read_u64(cs + 16)?, mm.read_u64(cs + 24)?);
    let end = start.checked_add(len).ok_or(Errno::EINVAL)?;
    if start >= limit || end >= limit || abort >= limit || version > 0 {
        return Err(Errno::EINVAL);
    }
    // The abort handler must not be inside the section, and must follow the signature.
    if abort.wrapping_sub(start) < len {
        return Err(Errno::EINVAL);
    }
    if mm.read_u32(GuestAddr::new(abort.wrapping_sub(4)))? != r.sig {
        return Err(Errno::EINVAL);
    }
    let arch = t.arch;
    let ip = arch.insn_pointer(cpu);
    let inside = ip.wrapping_sub(start) < len;
    if inside && (flags != 0 || mm.read_u32(r.area + off::FLAGS)? != 0) {
        // The RSEQ_CS_FLAG_NO_RESTART_ON_* flags are refused since Linux 6.0.
        return Err(Errno::EINVAL);
    }
    cpu.get_data_mut().mm.write_u64(r.area + off::RSEQ_CS, 0)?;
    if inside {
        arch.set_insn_pointer(cpu, abort);
    }
    Ok(())
}

/// [`fixup_ip`], with its failure turned into the thread's SIGSEGV.
pub fn fixup_or_segv(cpu: &mut Cpu<'_>) {
    if cpu.get_data().rseq.is_some() && fixup_ip(cpu).is_err() {
        force_sigsegv(cpu.get_data_mut());
    }
}
