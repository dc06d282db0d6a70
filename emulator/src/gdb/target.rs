//! The guest as `gdbstub` sees it: registers and memory of the stopped thread (or of any other
//! guest thread, which waits for the global guest lock meanwhile), resume actions,
//! breakpoints and watchpoints, caught system calls, and the `qXfer` objects and `vFile`
//! files GDB reads.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::num::NonZeroUsize;

use gdbstub::common::{Pid, Signal, Tid};
use gdbstub::stub::MultiThreadStopReason;
use gdbstub::target::ext::base::multithread::{
    MultiThreadBase, MultiThreadResume, MultiThreadResumeOps, MultiThreadSingleStep, MultiThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwBreakpoint, HwBreakpointOps, HwWatchpoint, HwWatchpointOps, SwBreakpoint,
    SwBreakpointOps, WatchKind,
};
use gdbstub::target::ext::catch_syscalls::{CatchSyscallPosition, CatchSyscalls, CatchSyscallsOps, SyscallNumbers};
use gdbstub::target::ext::extended_mode::{
    Args, AttachKind, CurrentActivePid, CurrentActivePidOps, ExtendedMode, ExtendedModeOps, ShouldTerminate,
};
use gdbstub::target::ext::host_io::{
    FsKind, HostIo, HostIoClose, HostIoCloseOps, HostIoErrno, HostIoError, HostIoOpen, HostIoOpenFlags, HostIoOpenMode,
    HostIoOpenOps, HostIoOps, HostIoPread, HostIoPreadOps, HostIoReadlink, HostIoReadlinkOps, HostIoResult,
    HostIoSetfs, HostIoSetfsOps,
};
use gdbstub::target::{Target, TargetError, TargetResult};
use num_traits::{FromPrimitive, ToPrimitive};

use super::regs::GuestRegs;
use super::{Event, Point, Resume};
use crate::guest::Cpu;
use crate::mm::{GuestAddr, Prot};

/// The target: the stopped thread's instance while a stop is served, and GDB's requests.
pub struct Debuggee<A> {
    /// The stopped thread's instance (null between stops).
    cpu: *mut Cpu<'static>,
    /// The stopped thread.
    tid: i32,
    /// What GDB asked the stopped thread to do (`vCont`).
    resume: Resume,
    /// `vFile` files GDB opened: generated contents by descriptor.
    files: HashMap<u32, Vec<u8>>,
    next_fd: u32,
    /// The program's path for `qXfer:exec-file` and `/proc/PID/exe` (the host file, which GDB
    /// reads; under `--root` its path inside the root).
    exe: Vec<u8>,
    _arch: PhantomData<fn() -> A>,
}

impl<A: GuestRegs> Debuggee<A> {
    pub(super) fn new(cpu: &mut Cpu<'_>) -> Self {
        let host = cpu.get_data().exe.host_path.as_os_str().as_encoded_bytes().to_vec();
        // Under `--root`, GDB reads the program through `vFile`, whose paths are the guest's:
        // the path inside the root.
        let exe = if crate::syscall::rootfs::active() {
            crate::syscall::rootfs::guest_view(&host).unwrap_or(host)
        } else {
            host
        };
        Debuggee {
            cpu: std::ptr::null_mut(),
            tid: 0,
            resume: Resume::default(),
            files: HashMap::new(),
            next_fd: 1,
            exe,
            _arch: PhantomData,
        }
    }

    pub(super) fn attach(&mut self, cpu: &mut Cpu<'_>, tid: i32) {
        self.cpu = std::ptr::from_mut(cpu).cast();
        self.tid = tid;
    }

    pub(super) fn detach_cpu(&mut self) {
        self.cpu = std::ptr::null_mut();
    }

    /// The stopped thread's instance (to change), during a stop.
    pub(super) fn stopped_cpu(&mut self) -> Option<&mut Cpu<'static>> {
        self.me_mut()
    }

    /// The stopped thread.
    pub(super) fn stopped_tid(&self) -> i32 {
        self.tid
    }

    pub(super) fn take_resume(&mut self) -> Resume {
        std::mem::take(&mut self.resume)
    }

    /// The stopped thread's instance.
    fn me(&self) -> Option<&Cpu<'static>> {
        // SAFETY: set by `attach` for the duration of one stop, in which the owning thread is
        // inside `Session::stop` and does not touch the instance itself.
        unsafe { self.cpu.as_ref() }
    }

    /// The stopped thread's instance, to change.
    fn me_mut(&mut self) -> Option<&mut Cpu<'static>> {
        // SAFETY: as for `me`.
        unsafe { self.cpu.as_mut() }
    }

    /// Thread `tid`'s instance: the stopped thread's, or another guest thread's, which is not
    /// running guest code (it waits for the global guest lock the stopped thread holds, or is
    /// blocked in a host system call and takes the lock before it goes on).
    fn cpu_of(&mut self, tid: Tid) -> Option<&mut Cpu<'static>> {
        let tid = i32::try_from(tid.get()).ok()?;
        if tid == self.tid {
            return self.me_mut();
        }
        let p = super::thread_cpu(tid)? as *mut Cpu<'static>;
        // SAFETY: the thread registered its instance and removes it before the instance ends;
        // while the stop is served it does not run (see above).
        unsafe { p.as_mut() }
    }
}

fn to_u64<U: ToPrimitive>(v: U) -> u64 {
    v.to_u64().unwrap_or(0)
}

fn tid_of(tid: i32) -> Tid {
    NonZeroUsize::new(usize::try_from(tid).unwrap_or(1)).unwrap_or(NonZeroUsize::MIN)
}

/// Linux signal `sig` in GDB's numbering (the remote protocol's, `gdb/signals.def`).
pub fn gdb_signal(sig: u32) -> Signal {
    let named = [
        Signal::SIGZERO,
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGQUIT,
        Signal::SIGILL,
        Signal::SIGTRAP,
        Signal::SIGABRT,
        Signal::SIGBUS,
        Signal::SIGFPE,
        Signal::SIGKILL,
        Signal::SIGUSR1,
        Signal::SIGSEGV,
        Signal::SIGUSR2,
        Signal::SIGPIPE,
        Signal::SIGALRM,
        Signal::SIGTERM,
        Signal::UNKNOWN, // SIGSTKFLT has no GDB number
        Signal::SIGCHLD,
        Signal::SIGCONT,
        Signal::SIGSTOP,
        Signal::SIGTSTP,
        Signal::SIGTTIN,
        Signal::SIGTTOU,
        Signal::SIGURG,
        Signal::SIGXCPU,
        Signal::SIGXFSZ,
        Signal::SIGVTALRM,
        Signal::SIGPROF,
        Signal::SIGWINCH,
        Signal::SIGIO,
        Signal::SIGPWR,
        Signal::SIGSYS,
    ];
    match sig {
        0..=31 => named[sig as usize],
        32 => Signal::SIG32,
        33..=63 => Signal(u8::try_from(sig + 12).unwrap_or(0)),
        64 => Signal::SIG64,
        _ => Signal::UNKNOWN,
    }
}

/// GDB signal `s` as a Linux signal number (0 when Linux has none).
pub fn linux_signal(s: Signal) -> u32 {
    (1..=64).find(|&n| gdb_signal(n) == s).unwrap_or(0)
}

/// The stop packet for `event` of thread `tid` (`None` for the initial stop, which GDB asks
/// for with `?`).
pub(super) fn stop_reason<U: FromPrimitive + num_traits::PrimInt>(
    event: Event,
    tid: i32,
) -> Option<MultiThreadStopReason<U>> {
    let tid = tid_of(tid);
    let word = |v: u64| U::from_u64(v).unwrap_or_else(U::zero);
    Some(match event {
        Event::Initial => return None,
        Event::Break { hw: false } => MultiThreadStopReason::SwBreak(tid),
        Event::Break { hw: true } => MultiThreadStopReason::HwBreak(tid),
        Event::Watch { kind, addr } => MultiThreadStopReason::Watch { tid, kind, addr: word(addr) },
        // With the thread (`T05thread:…`, as `gdbserver` and qemu-user answer a step; a bare
        // `S05` makes GDB guess the thread of a multithreaded guest).
        Event::Step => MultiThreadStopReason::SignalWithThread { tid, signal: Signal::SIGTRAP },
        Event::Syscall { nr, entry } => MultiThreadStopReason::CatchSyscall {
            tid: Some(tid),
            number: word(nr),
            position: if entry { CatchSyscallPosition::Entry } else { CatchSyscallPosition::Return },
        },
        Event::Signal(sig) => MultiThreadStopReason::SignalWithThread { tid, signal: gdb_signal(sig) },
        Event::Interrupt => MultiThreadStopReason::SignalWithThread { tid, signal: Signal::SIGINT },
        Event::Fork { child } => MultiThreadStopReason::Fork { cur_tid: tid, new_tid: tid_of(child) },
        Event::ForkChild => return None,
    })
}

/// Copies the part of `data` from `offset` (at most `length` bytes) into `buf`.
fn copy_range(data: &[u8], offset: u64, length: usize, buf: &mut [u8]) -> usize {
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(data.len());
    let n = length.min(buf.len()).min(data.len() - start);
    buf[..n].copy_from_slice(&data[start..start + n]);
    n
}

impl<A: GuestRegs> Target for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    type Arch = A;
    type Error = &'static str;

    fn base_ops(&mut self) -> BaseOps<'_, A, &'static str> {
        BaseOps::MultiThread(self)
    }

    /// Acknowledgements stay on: the packets endgate answers itself are acknowledged like
    /// `gdbstub`'s (`super::packets`).
    fn use_no_ack_mode(&self) -> bool {
        false
    }

    /// Fork events (`fork-events+`), unless `ENDGATE_GDB_FORK=wait` gives each process a GDB
    /// of its own (docs/gdb.md, "Fork").
    fn use_fork_stop_reason(&self) -> bool {
        super::offers_fork_events()
    }

    fn use_vfork_stop_reason(&self) -> bool {
        false
    }

    fn use_vforkdone_stop_reason(&self) -> bool {
        false
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }

    /// For the current process's pid (`p<PID>.<TID>` thread ids name the host process, which
    /// is the guest's, so that a fork child is a process of its own to GDB); `run` and
    /// `attach` are refused.
    fn support_extended_mode(&mut self) -> Option<ExtendedModeOps<'_, Self>> {
        Some(self)
    }

    fn support_catch_syscalls(&mut self) -> Option<CatchSyscallsOps<'_, Self>> {
        Some(self)
    }

    fn support_host_io(&mut self) -> Option<HostIoOps<'_, Self>> {
        Some(self)
    }

    fn support_exec_file(&mut self) -> Option<gdbstub::target::ext::exec_file::ExecFileOps<'_, Self>> {
        Some(self)
    }

    fn support_auxv(&mut self) -> Option<gdbstub::target::ext::auxv::AuxvOps<'_, Self>> {
        Some(self)
    }

    fn support_memory_map(&mut self) -> Option<gdbstub::target::ext::memory_map::MemoryMapOps<'_, Self>> {
        Some(self)
    }

    fn support_target_description_xml_override(
        &mut self,
    ) -> Option<gdbstub::target::ext::target_description_xml_override::TargetDescriptionXmlOverrideOps<'_, Self>> {
        A::description_override().map(|_| self as _)
    }
}

impl<A: GuestRegs> ExtendedMode for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn run(&mut self, _filename: Option<&[u8]>, _args: Args<'_, '_>) -> TargetResult<Pid, Self> {
        Err(TargetError::NonFatal)
    }

    fn attach(&mut self, _pid: Pid) -> TargetResult<(), Self> {
        Err(TargetError::NonFatal)
    }

    /// `0`: the server started the process (as `gdbserver PROG` and qemu-user answer), so GDB
    /// kills it on `quit` and at the end of a batch instead of detaching.
    fn query_if_attached(&mut self, _pid: Pid) -> TargetResult<AttachKind, Self> {
        Ok(AttachKind::Run)
    }

    fn kill(&mut self, _pid: Option<Pid>) -> TargetResult<ShouldTerminate, Self> {
        Ok(ShouldTerminate::Yes)
    }

    fn restart(&mut self) -> Result<(), &'static str> {
        Err("restart is not supported")
    }

    fn support_current_active_pid(&mut self) -> Option<CurrentActivePidOps<'_, Self>> {
        Some(self)
    }
}

impl<A: GuestRegs> CurrentActivePid for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn current_active_pid(&mut self) -> Result<Pid, &'static str> {
        Pid::new(usize::try_from(std::process::id()).unwrap_or(1)).ok_or("pid 0")
    }
}

impl<A: GuestRegs> MultiThreadBase for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn read_registers(&mut self, regs: &mut A::Registers, tid: Tid) -> TargetResult<(), Self> {
        let cpu = self.cpu_of(tid).ok_or(TargetError::NonFatal)?;
        A::read(cpu, regs);
        Ok(())
    }

    fn write_registers(&mut self, regs: &A::Registers, tid: Tid) -> TargetResult<(), Self> {
        let cpu = self.cpu_of(tid).ok_or(TargetError::NonFatal)?;
        A::write(cpu, regs);
        Ok(())
    }

    /// Reads as ptrace does: any page the guest can read (or execute: text), up to the first
    /// one it cannot.
    fn read_addrs(&mut self, start: A::Usize, data: &mut [u8], _tid: Tid) -> TargetResult<usize, Self> {
        let cpu = self.me().ok_or(TargetError::NonFatal)?;
        let mm = &cpu.get_data().mm;
        let mut done = 0usize;
        let mut at = to_u64(start);
        while done < data.len() {
            let Some((_, end, prot)) = mm.span_at(at) else { break };
            if !prot.contains(Prot::READ) {
                break;
            }
            let n = usize::try_from(end - at).unwrap_or(usize::MAX).min(data.len() - done);
            if mm.read_bytes(GuestAddr::new(at), &mut data[done..done + n]).is_err() {
                break;
            }
            done += n;
            at += n as u64;
        }
        if done == 0 && !data.is_empty() {
            return Err(TargetError::Errno(14));
        }
        Ok(done)
    }

    /// Writes as ptrace does: writable pages, and private read-only ones (text, for a
    /// breakpoint instruction GDB writes itself); the translated code of those bytes is dropped.
    fn write_addrs(&mut self, start: A::Usize, data: &[u8], _tid: Tid) -> TargetResult<(), Self> {
        let cpu = self.me_mut().ok_or(TargetError::NonFatal)?;
        let addr = to_u64(start);
        let mm = &mut cpu.get_data_mut().mm;
        let mut at = addr;
        let end = addr.saturating_add(data.len() as u64);
        while at < end {
            let Some((_, v)) = mm.vma_at(at) else { return Err(TargetError::Errno(14)) };
            if v.prot == Prot::NONE || (v.shared && !v.prot.contains(Prot::WRITE)) {
                return Err(TargetError::Errno(14));
            }
            at = v.end;
        }
        mm.poke_bytes(GuestAddr::new(addr), data).map_err(|_| TargetError::Errno(14))?;
        mm.note_host_write(addr, data.len() as u64);
        Ok(())
    }

    fn list_active_threads(&mut self, thread_is_active: &mut dyn FnMut(Tid)) -> Result<(), &'static str> {
        let ids = super::thread_ids();
        if ids.is_empty() {
            thread_is_active(tid_of(self.tid));
        }
        for t in ids {
            thread_is_active(tid_of(t));
        }
        Ok(())
    }

    fn support_resume(&mut self) -> Option<MultiThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl<A: GuestRegs> MultiThreadResume for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn resume(&mut self) -> Result<(), &'static str> {
        Ok(())
    }

    fn clear_resume_actions(&mut self) -> Result<(), &'static str> {
        self.resume = Resume::default();
        Ok(())
    }

    fn set_resume_action_continue(&mut self, tid: Tid, signal: Option<Signal>) -> Result<(), &'static str> {
        if tid == tid_of(self.tid) {
            self.resume.signal = signal.map(linux_signal).filter(|&s| s != 0);
        }
        Ok(())
    }

    fn support_single_step(&mut self) -> Option<MultiThreadSingleStepOps<'_, Self>> {
        Some(self)
    }

    fn support_scheduler_locking(
        &mut self,
    ) -> Option<gdbstub::target::ext::base::multithread::MultiThreadSchedulerLockingOps<'_, Self>> {
        Some(self)
    }
}

impl<A: GuestRegs> gdbstub::target::ext::base::multithread::MultiThreadSchedulerLocking for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    /// Other threads do not run while the stopped one steps: they wait for the global guest
    /// lock, which the stepping thread holds, unless the step blocks in a system call.
    fn set_resume_action_scheduler_lock(&mut self) -> Result<(), &'static str> {
        Ok(())
    }
}

impl<A: GuestRegs> MultiThreadSingleStep for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    /// Only the stopped thread steps; GDB steps the thread it reported.
    fn set_resume_action_step(&mut self, tid: Tid, signal: Option<Signal>) -> Result<(), &'static str> {
        if tid == tid_of(self.tid) {
            self.resume.step = true;
            self.resume.signal = signal.map(linux_signal).filter(|&s| s != 0);
        }
        Ok(())
    }
}

impl<A: GuestRegs> Breakpoints for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_breakpoint(&mut self) -> Option<HwBreakpointOps<'_, Self>> {
        Some(self)
    }

    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

fn add_point(p: Point) -> bool {
    super::points_changed(|set| {
        if !set.contains(&p) {
            set.push(p);
        }
        true
    });
    true
}

fn remove_point(p: Point) -> bool {
    super::points_changed(|set| {
        let before = set.len();
        set.retain(|q| *q != p);
        set.len() != before
    })
}

impl<A: GuestRegs> SwBreakpoint for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn add_sw_breakpoint(&mut self, addr: A::Usize, _kind: A::BreakpointKind) -> TargetResult<bool, Self> {
        Ok(add_point(Point::Break { addr: to_u64(addr), hw: false }))
    }

    /// Always `OK`, as putting an instruction's bytes back into memory (how a native
    /// debugger removes a software breakpoint) cannot fail: GDB may remove one it believes a
    /// fork child inherited in memory after the child dropped it.
    fn remove_sw_breakpoint(&mut self, addr: A::Usize, _kind: A::BreakpointKind) -> TargetResult<bool, Self> {
        remove_point(Point::Break { addr: to_u64(addr), hw: false });
        Ok(true)
    }
}

impl<A: GuestRegs> HwBreakpoint for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn add_hw_breakpoint(&mut self, addr: A::Usize, _kind: A::BreakpointKind) -> TargetResult<bool, Self> {
        Ok(add_point(Point::Break { addr: to_u64(addr), hw: true }))
    }

    fn remove_hw_breakpoint(&mut self, addr: A::Usize, _kind: A::BreakpointKind) -> TargetResult<bool, Self> {
        Ok(remove_point(Point::Break { addr: to_u64(addr), hw: true }))
    }
}

fn watch_code(kind: WatchKind) -> u8 {
    match kind {
        WatchKind::Write => 0,
        WatchKind::Read => 1,
        WatchKind::ReadWrite => 2,
    }
}

impl<A: GuestRegs> HwWatchpoint for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn add_hw_watchpoint(&mut self, addr: A::Usize, len: A::Usize, kind: WatchKind) -> TargetResult<bool, Self> {
        Ok(add_point(Point::Watch { addr: to_u64(addr), len: to_u64(len), kind: watch_code(kind) }))
    }

    fn remove_hw_watchpoint(&mut self, addr: A::Usize, len: A::Usize, kind: WatchKind) -> TargetResult<bool, Self> {
        Ok(remove_point(Point::Watch { addr: to_u64(addr), len: to_u64(len), kind: watch_code(kind) }))
    }
}

impl<A: GuestRegs> CatchSyscalls for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn enable_catch_syscalls(&mut self, filter: Option<SyscallNumbers<'_, A::Usize>>) -> TargetResult<(), Self> {
        super::set_catching(Some(filter.map(|f| f.map(to_u64).collect()).unwrap_or_default()));
        Ok(())
    }

    fn disable_catch_syscalls(&mut self) -> TargetResult<(), Self> {
        super::set_catching(None);
        Ok(())
    }
}

impl<A: GuestRegs> gdbstub::target::ext::exec_file::ExecFile for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn get_exec_file(
        &self,
        _pid: Option<Pid>,
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        Ok(copy_range(&self.exe, offset, length, buf))
    }
}

impl<A: GuestRegs> gdbstub::target::ext::auxv::Auxv for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    /// The guest's auxiliary vector as its `/proc/self/auxv` shows it (guest word size and
    /// byte order).
    fn get_auxv(&self, offset: u64, length: usize, buf: &mut [u8]) -> TargetResult<usize, Self> {
        let cpu = self.me().ok_or(TargetError::NonFatal)?;
        let data = crate::syscall::procfs::generate(cpu.get_data(), crate::syscall::procfs::ProcFile::Auxv);
        Ok(copy_range(&data, offset, length, buf))
    }
}

impl<A: GuestRegs> gdbstub::target::ext::memory_map::MemoryMap for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    /// The guest's mappings in GDB's memory-map format ([`memory_map`]).
    fn memory_map_xml(&self, offset: u64, length: usize, buf: &mut [u8]) -> TargetResult<usize, Self> {
        let cpu = self.me().ok_or(TargetError::NonFatal)?;
        let xml = memory_map(cpu);
        Ok(copy_range(xml.as_bytes(), offset, length, buf))
    }
}

/// The memory-map document (GDB manual, "Memory Map Format"): each run of neighbouring guest
/// mappings a region, and each stretch of unmapped user address space between them (from 0
/// to `TASK_SIZE`) a region too. GDB reads the map once per connection and refuses, without
/// asking, any address outside it; so that memory the guest maps later (its heap, `mmap`)
/// stays readable, the map leaves no part of the address space out, and a read of an
/// unmapped address fails here (`E0e`, EFAULT) instead. Every region is `ram`: `rom` would
/// make GDB refuse writes that ptrace allows (a patched instruction in text).
pub fn memory_map(cpu: &Cpu<'_>) -> String {
    use std::fmt::Write as _;
    let mm = &cpu.get_data().mm;
    let mut regions: Vec<(u64, u64)> = Vec::new();
    for (start, v) in mm.vmas() {
        match regions.last_mut() {
            Some(last) if last.1 == start => last.1 = v.end,
            _ => regions.push((start, v.end)),
        }
    }
    let mut out = String::from(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE memory-map PUBLIC \"+//IDN gnu.org//DTD GDB Memory Map V1.0//EN\" \"http://sourceware.org/gdb/gdb-memory-map.dtd\">\n<memory-map>\n",
    );
    let mut region = |s: u64, e: u64| {
        let _ = writeln!(out, "<memory type=\"ram\" start=\"{s:#x}\" length=\"{:#x}\"/>", e - s);
    };
    let mut at = 0;
    for (s, e) in regions {
        if s > at {
            region(at, s);
        }
        region(s, e);
        at = at.max(e);
    }
    if at < mm.task_size {
        region(at, mm.task_size);
    }
    out.push_str("</memory-map>\n");
    out
}

impl<A: GuestRegs> gdbstub::target::ext::target_description_xml_override::TargetDescriptionXmlOverride for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn target_description_xml(
        &self,
        annex: &[u8],
        offset: u64,
        length: usize,
        buf: &mut [u8],
    ) -> TargetResult<usize, Self> {
        if annex != b"target.xml" {
            return Err(TargetError::NonFatal);
        }
        let xml = A::description_override().unwrap_or("");
        Ok(copy_range(xml.as_bytes(), offset, length, buf))
    }
}

impl<A: GuestRegs> HostIo for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn support_open(&mut self) -> Option<HostIoOpenOps<'_, Self>> {
        Some(self)
    }

    fn support_close(&mut self) -> Option<HostIoCloseOps<'_, Self>> {
        Some(self)
    }

    fn support_pread(&mut self) -> Option<HostIoPreadOps<'_, Self>> {
        Some(self)
    }

    fn support_readlink(&mut self) -> Option<HostIoReadlinkOps<'_, Self>> {
        Some(self)
    }

    fn support_setfs(&mut self) -> Option<HostIoSetfsOps<'_, Self>> {
        Some(self)
    }
}

impl<A: GuestRegs> HostIoOpen for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    /// Opens `/proc/PID/X` for the files endgate generates for the guest (`maps` for GDB's
    /// `info proc mappings`, `cmdline`, `auxv`, `status`…), whatever PID GDB names (the
    /// guest is its only process), and other paths as the guest would see them (under `-L`),
    /// read-only.
    fn open(&mut self, filename: &[u8], flags: HostIoOpenFlags, _mode: HostIoOpenMode) -> HostIoResult<u32, Self> {
        if flags != HostIoOpenFlags::O_RDONLY {
            return Err(HostIoError::Errno(HostIoErrno::EACCES));
        }
        let cpu = self.me().ok_or(HostIoError::Errno(HostIoErrno::EIO))?;
        let task = cpu.get_data();
        let own = proc_self_path(filename);
        let data = match crate::syscall::procfs::lookup(&own) {
            Some(f) => crate::syscall::procfs::generate(task, f),
            None => {
                let host = crate::syscall::path::sysroot_path(&task.opts, filename);
                std::fs::read(host)?
            }
        };
        let fd = self.next_fd;
        self.next_fd += 1;
        self.files.insert(fd, data);
        Ok(fd)
    }
}

/// `/proc/PID/rest` and `/proc/PID/task/TID/rest` with any numbers (GDB names its own
/// process and thread ids) as `/proc/self/rest`; other paths unchanged.
fn proc_self_path(path: &[u8]) -> Vec<u8> {
    let number = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let Some(rest) = path.strip_prefix(b"/proc/") else { return path.to_vec() };
    let parts: Vec<&[u8]> = rest.splitn(4, |&b| b == b'/').collect();
    let tail: &[&[u8]] = match parts.as_slice() {
        [pid, b"task", tid, rest] if number(pid) && number(tid) => &[rest],
        [pid, rest @ ..] if number(pid) => rest,
        _ => return path.to_vec(),
    };
    let mut p = b"/proc/self".to_vec();
    for t in tail {
        p.push(b'/');
        p.extend_from_slice(t);
    }
    p
}

impl<A: GuestRegs> HostIoClose for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn close(&mut self, fd: u32) -> HostIoResult<(), Self> {
        self.files.remove(&fd).map(|_| ()).ok_or(HostIoError::Errno(HostIoErrno::EBADF))
    }
}

impl<A: GuestRegs> HostIoPread for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn pread(&mut self, fd: u32, count: usize, offset: u64, buf: &mut [u8]) -> HostIoResult<usize, Self> {
        let data = self.files.get(&fd).ok_or(HostIoError::Errno(HostIoErrno::EBADF))?;
        Ok(copy_range(data, offset, count, buf))
    }
}

impl<A: GuestRegs> HostIoReadlink for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    /// `/proc/PID/exe` is the program, `/proc/PID/cwd` the guest's working directory (as the
    /// guest's `getcwd` gives it, inside `--root`); other links are not followed.
    fn readlink(&mut self, filename: &[u8], buf: &mut [u8]) -> HostIoResult<usize, Self> {
        match proc_self_path(filename).as_slice() {
            b"/proc/self/exe" => Ok(copy_range(&self.exe, 0, buf.len(), buf)),
            b"/proc/self/cwd" => {
                let host = std::env::current_dir().map_err(|_| HostIoError::Errno(HostIoErrno::ENOENT))?;
                let host = host.as_os_str().as_encoded_bytes().to_vec();
                let cwd = if crate::syscall::rootfs::active() {
                    crate::syscall::rootfs::guest_view(&host).ok_or(HostIoError::Errno(HostIoErrno::ENOENT))?
                } else {
                    host
                };
                Ok(copy_range(&cwd, 0, buf.len(), buf))
            }
            _ => Err(HostIoError::Errno(HostIoErrno::ENOENT)),
        }
    }
}

impl<A: GuestRegs> HostIoSetfs for Debuggee<A>
where
    A::Usize: ToPrimitive + FromPrimitive,
{
    fn setfs(&mut self, _fs: FsKind) -> HostIoResult<(), Self> {
        Ok(())
    }
}
