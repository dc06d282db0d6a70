//! The syscall table as data: one row per call endgate serves — which handler, and how
//! `--strace` prints it. A call absent here returns `-ENOSYS` (named once under `--strace`).
//! Each arch's [`super::DispatchTable`] picks the rows its numbering has.

use super::nr::Sys;
use super::{
    aio, capability, epoll, exec, fanotify, fhandle, fork, fs, futex, inotify, io, ioctl, ipc, keys, lsm, mempolicy,
    misc, mm, mount, mqueue, net, ns, old, pidfd, process, process_vm, rseq, sched, seccomp, signal, signalfd,
    socketcall, splice, time, timer, xattr, Handler, SyscallDef,
};
use crate::syscall::strace::ArgFmt::{self, *};
use crate::syscall::strace::RetFmt::{self, Hex as RHex, Int as RInt};

/// A row (of a call whose [`Reach`] is the calling process; [`SyscallDef::reaching`] says
/// otherwise).
pub(crate) const fn d(sys: Sys, handler: Handler, args: &'static [ArgFmt], ret: RetFmt) -> SyscallDef {
    SyscallDef { sys, handler, args, ret, reach: Reach::Process, host_id: None, unlocked: None }
}

/// What a call can change besides the calling process: the table's column that tools running
/// untrusted calls on a real host read (the `syscall_live` fuzz target skips what reaches
/// further than the process, docs/fuzzing.md). Files the call names by path or descriptor
/// count as the process's own (a tool confines those with `--root` and its descriptors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// The calling process, its threads, and the files it names.
    Process,
    /// The process or thread whose id is argument N (0-based): the caller itself, or another
    /// process (a signal, a resource limit, a priority, a CPU set, memory pages, a group).
    Pid(u8),
    /// The process a pidfd, argument N, refers to (a signal, its descriptors, its memory).
    Pidfd(u8),
    /// The whole machine: its name, clocks, mounts, the kernel's key rings and log, another
    /// namespace, files reached around any root (by handle), other processes' file accesses.
    Host,
}

impl SyscallDef {
    /// This row with `reach` instead of [`Reach::Process`].
    pub(crate) const fn reaching(self, reach: Reach) -> SyscallDef {
        SyscallDef { reach, ..self }
    }
    /// This row, made by the dispatcher as the host call `nr` ([`SyscallDef::host_id`]).
    pub(crate) const fn host_id(self, nr: syscalls::Sysno) -> SyscallDef {
        SyscallDef { host_id: Some(nr), ..self }
    }
    /// This row, served by `f` without the global guest lock when it can be
    /// ([`super::unlocked`]).
    pub(crate) const fn unlocked(self, f: super::unlocked::Handler) -> SyscallDef {
        SyscallDef { unlocked: Some(f), ..self }
    }
}

/// Every call endgate serves.
pub static DEFS: &[SyscallDef] = &[
    // io
    d(Sys::read, io::read, &[Fd, BufOut, ULong], RInt).unlocked(io::read_unlocked),
    d(Sys::write, io::write, &[Fd, BufIn(2), ULong], RInt).unlocked(io::write_unlocked),
    d(Sys::pread64, io::pread64, &[Fd, BufOut, ULong, Long], RInt).unlocked(io::pread64_unlocked),
    d(Sys::pwrite64, io::pwrite64, &[Fd, BufIn(2), ULong, Long], RInt).unlocked(io::pwrite64_unlocked),
    d(Sys::readv, io::readv, &[Fd, Ptr, Int], RInt).unlocked(io::readv_unlocked),
    d(Sys::writev, io::writev, &[Fd, Ptr, Int], RInt).unlocked(io::writev_unlocked),
    d(Sys::preadv, io::preadv, &[Fd, Ptr, Int, Long], RInt).unlocked(io::preadv_unlocked),
    d(Sys::pwritev, io::pwritev, &[Fd, Ptr, Int, Long], RInt).unlocked(io::pwritev_unlocked),
    d(Sys::preadv2, io::preadv2, &[Fd, Ptr, Int, Long, Long, Hex], RInt),
    d(Sys::pwritev2, io::pwritev2, &[Fd, Ptr, Int, Long, Long, Hex], RInt),
    d(Sys::lseek, io::lseek, &[Fd, Long, Whence], RInt).unlocked(io::lseek_unlocked),
    d(Sys::sendfile, io::sendfile, &[Fd, Fd, Ptr, ULong], RInt),
    d(Sys::copy_file_range, io::copy_file_range, &[Fd, Ptr, Fd, Ptr, ULong, Hex], RInt),
    d(Sys::close, io::close, &[Fd], RInt).unlocked(io::close_unlocked),
    d(Sys::close_range, io::close_range, &[Int, Int, Hex], RInt),
    d(Sys::dup, io::dup, &[Fd], RInt),
    d(Sys::dup2, io::dup2, &[Fd, Fd], RInt),
    d(Sys::dup3, io::dup3, &[Fd, Fd, OpenFlags], RInt),
    d(Sys::fcntl, io::fcntl, &[Fd, FcntlCmd, FcntlArg], RetFmt::Fcntl),
    d(Sys::ioctl, ioctl::ioctl, &[Fd, IoctlReq, Hex], RInt),
    d(Sys::pipe, io::pipe, &[Ptr], RInt),
    d(Sys::pipe2, io::pipe2, &[Ptr, OpenFlags], RInt),
    d(Sys::poll, io::poll, &[Ptr, ULong, Int], RInt),
    d(Sys::ppoll, io::ppoll, &[Ptr, ULong, Ptr, Ptr, ULong], RInt),
    d(Sys::select, io::select, &[Int, Ptr, Ptr, Ptr, Ptr], RInt),
    // MIPS n64 names its select(2) `_newselect` (arch/mips/kernel/syscalls/syscall_n64.tbl).
    d(Sys::_newselect, io::select, &[Int, Ptr, Ptr, Ptr, Ptr], RInt),
    d(Sys::pselect6, io::pselect6, &[Int, Ptr, Ptr, Ptr, Ptr, Ptr], RInt),
    d(Sys::flock, io::flock, &[Fd, Int], RInt),
    d(Sys::sendfile64, io::sendfile64, &[Fd, Fd, Ptr, ULong], RInt),
    d(Sys::fcntl64, io::fcntl64, &[Fd, FcntlCmd, FcntlArg], RetFmt::Fcntl),
    d(Sys::ppoll_time64, io::ppoll_time64, &[Ptr, ULong, Ptr, Ptr, ULong], RInt),
    d(Sys::pselect6_time64, io::pselect6_time64, &[Int, Ptr, Ptr, Ptr, Ptr, Ptr], RInt),
    // fs
    d(Sys::openat, fs::openat, &[AtFd, Str, OpenFlags, OpenMode(2)], RInt).unlocked(fs::openat_unlocked),
    d(Sys::openat2, fs::openat2, &[AtFd, Str, Ptr, ULong], RInt),
    d(Sys::open, fs::open, &[Str, OpenFlags, OpenMode(1)], RInt),
    d(Sys::creat, fs::creat, &[Str, Mode], RInt),
    d(Sys::newfstatat, fs::newfstatat, &[AtFd, Str, Ptr, AtFlags], RInt).unlocked(fs::newfstatat_unlocked),
    d(Sys::fstat, fs::fstat, &[Fd, Ptr], RInt).unlocked(fs::fstat_unlocked),
    d(Sys::stat, fs::stat, &[Str, Ptr], RInt),
    d(Sys::lstat, fs::lstat, &[Str, Ptr], RInt),
    d(Sys::statx, fs::statx, &[AtFd, Str, AtFlags, Hex, Ptr], RInt).unlocked(fs::statx_unlocked),
    d(Sys::getdents64, fs::getdents64, &[Fd, Ptr, ULong], RInt).unlocked(fs::getdents64_unlocked),
    d(Sys::getdents, fs::getdents, &[Fd, Ptr, ULong], RInt),
    d(Sys::readlinkat, fs::readlinkat, &[AtFd, Str, BufOut, ULong], RInt).unlocked(fs::readlinkat_unlocked),
    d(Sys::readlink, fs::readlink, &[Str, BufOut, ULong], RInt).unlocked(fs::readlink_unlocked),
    d(Sys::faccessat, fs::faccessat, &[AtFd, Str, AccessMode], RInt),
    d(Sys::faccessat2, fs::faccessat2, &[AtFd, Str, AccessMode, AtFlags], RInt),
    d(Sys::access, fs::access, &[Str, AccessMode], RInt),
    d(Sys::mkdirat, fs::mkdirat, &[AtFd, Str, Mode], RInt),
    d(Sys::mkdir, fs::mkdir, &[Str, Mode], RInt),
    d(Sys::mknodat, fs::mknodat, &[AtFd, Str, Mode, Hex], RInt),
    d(Sys::mknod, fs::mknod, &[Str, Mode, Hex], RInt),
    d(Sys::unlinkat, fs::unlinkat, &[AtFd, Str, AtFlags], RInt),
    d(Sys::unlink, fs::unlink, &[Str], RInt),
    d(Sys::rmdir, fs::rmdir, &[Str], RInt),
    d(Sys::renameat2, fs::renameat2, &[AtFd, Str, AtFd, Str, Hex], RInt),
    d(Sys::renameat, fs::renameat, &[AtFd, Str, AtFd, Str], RInt),
    d(Sys::rename, fs::rename, &[Str, Str], RInt),
    d(Sys::linkat, fs::linkat, &[AtFd, Str, AtFd, Str, AtFlags], RInt),
    d(Sys::link, fs::link, &[Str, Str], RInt),
    d(Sys::symlinkat, fs::symlinkat, &[Str, AtFd, Str], RInt),
    d(Sys::symlink, fs::symlink, &[Str, Str], RInt),
    d(Sys::fchmod, fs::fchmod, &[Fd, Mode], RInt),
    d(Sys::fchmodat, fs::fchmodat, &[AtFd, Str, Mode], RInt),
    d(Sys::fchmodat2, fs::fchmodat2, &[AtFd, Str, Mode, AtFlags], RInt),
    d(Sys::chmod, fs::chmod, &[Str, Mode], RInt),
    d(Sys::fchown, fs::fchown, &[Fd, Int, Int], RInt),
    d(Sys::fchownat, fs::fchownat, &[AtFd, Str, Int, Int, AtFlags], RInt),
    d(Sys::chown, fs::chown, &[Str, Int, Int], RInt),
    d(Sys::lchown, fs::lchown, &[Str, Int, Int], RInt),
    d(Sys::utimensat, fs::utimensat, &[AtFd, Str, Ptr, AtFlags], RInt),
    d(Sys::futimesat, fs::futimesat, &[AtFd, Str, Ptr], RInt),
    d(Sys::utimes, fs::utimes, &[Str, Ptr], RInt),
    d(Sys::utime, fs::utime, &[Str, Ptr], RInt),
    d(Sys::utimensat_time64, fs::utimensat_time64, &[AtFd, Str, Ptr, AtFlags], RInt),
    d(Sys::truncate, fs::truncate, &[Str, Long], RInt),
    d(Sys::ftruncate, fs::ftruncate, &[Fd, Long], RInt),
    d(Sys::fallocate, fs::fallocate, &[Fd, Int, Long, Long], RInt),
    d(Sys::fadvise64, fs::fadvise64, &[Fd, Long, Long, Int], RInt),
    d(Sys::fsync, fs::fsync, &[Fd], RInt),
    d(Sys::sync_file_range, fs::sync_file_range, &[Fd, Long, Long, Hex], RInt),
    d(Sys::readahead, fs::readahead, &[Fd, Long, ULong], RInt),
    d(Sys::personality, process::personality, &[Hex], RHex),
    d(Sys::fdatasync, fs::fdatasync, &[Fd], RInt),
    d(Sys::sync, fs::sync, &[], RInt),
    d(Sys::syncfs, fs::syncfs, &[Fd], RInt),
    d(Sys::getcwd, fs::getcwd, &[BufOut, ULong], RInt),
    d(Sys::chdir, fs::chdir, &[Str], RInt),
    d(Sys::fchdir, fs::fchdir, &[Fd], RInt),
    d(Sys::statfs, fs::statfs, &[Str, Ptr], RInt),
    d(Sys::fstatfs, fs::fstatfs, &[Fd, Ptr], RInt),
    d(Sys::umask, fs::umask, &[Mode], RInt),
    // xattr
    d(Sys::getxattr, xattr::getxattr, &[Str, Str, Ptr, ULong], RInt),
    d(Sys::lgetxattr, xattr::lgetxattr, &[Str, Str, Ptr, ULong], RInt),
    d(Sys::fgetxattr, xattr::fgetxattr, &[Fd, Str, Ptr, ULong], RInt),
    d(Sys::setxattr, xattr::setxattr, &[Str, Str, Ptr, ULong, Hex], RInt),
    d(Sys::lsetxattr, xattr::lsetxattr, &[Str, Str, Ptr, ULong, Hex], RInt),
    d(Sys::fsetxattr, xattr::fsetxattr, &[Fd, Str, Ptr, ULong, Hex], RInt),
    d(Sys::listxattr, xattr::listxattr, &[Str, Ptr, ULong], RInt),
    d(Sys::llistxattr, xattr::llistxattr, &[Str, Ptr, ULong], RInt),
    d(Sys::flistxattr, xattr::flistxattr, &[Fd, Ptr, ULong], RInt),
    d(Sys::removexattr, xattr::removexattr, &[Str, Str], RInt),
    d(Sys::lremovexattr, xattr::lremovexattr, &[Str, Str], RInt),
    d(Sys::fremovexattr, xattr::fremovexattr, &[Fd, Str], RInt),
    // mm
    d(Sys::brk, mm::brk, &[Ptr], RHex),
    d(Sys::mmap, mm::mmap, &[Ptr, ULong, ArgFmt::Prot, MmapFlags, Fd, Hex], RHex),
    d(Sys::munmap, mm::munmap, &[Ptr, ULong], RInt),
    d(Sys::mprotect, mm::mprotect, &[Ptr, ULong, ArgFmt::Prot], RInt),
    d(Sys::mremap, mm::mremap, &[Ptr, ULong, ULong, MremapFlags, MremapAddr], RHex),
    d(Sys::madvise, mm::madvise, &[Ptr, ULong, Madvice], RInt).unlocked(mm::madvise_unlocked),
    d(Sys::msync, mm::msync, &[Ptr, ULong, Hex], RInt),
    d(Sys::mlock, mm::mlock, &[Ptr, ULong], RInt),
    d(Sys::munlock, mm::munlock, &[Ptr, ULong], RInt),
    d(Sys::mincore, mm::mincore, &[Ptr, ULong, Ptr], RInt),
    d(Sys::pkey_alloc, mm::pkey_alloc, &[Hex, Hex], RInt),
    d(Sys::pkey_free, mm::pkey_free, &[Int], RInt),
    d(Sys::pkey_mprotect, mm::pkey_mprotect, &[Ptr, ULong, ArgFmt::Prot, Int], RInt),
    d(Sys::remap_file_pages, mm::remap_file_pages, &[Ptr, ULong, ArgFmt::Prot, ULong, Hex], RInt),
    d(Sys::cachestat, mm::cachestat, &[Fd, Ptr, Ptr, Hex], RInt),
    // NUMA (mm/mempolicy.c, mm/migrate.c)
    d(Sys::mbind, mempolicy::mbind, &[Ptr, ULong, Hex, Ptr, ULong, Hex], RInt),
    d(Sys::get_mempolicy, mempolicy::get_mempolicy, &[Ptr, Ptr, ULong, Ptr, Hex], RInt),
    d(Sys::set_mempolicy, mempolicy::set_mempolicy, &[Hex, Ptr, ULong], RInt),
    d(Sys::set_mempolicy_home_node, mempolicy::set_mempolicy_home_node, &[Ptr, ULong, ULong, Hex], RInt),
    d(Sys::migrate_pages, mempolicy::migrate_pages, &[Int, ULong, Ptr, Ptr], RInt).reaching(Reach::Pid(0)),
    d(Sys::move_pages, mempolicy::move_pages, &[Int, ULong, Ptr, Ptr, Ptr, Hex], RInt).reaching(Reach::Pid(0)),
    // process
    d(Sys::exit, process::exit, &[Int], RInt),
    d(Sys::exit_group, process::exit_group, &[Int], RInt),
    d(Sys::getpid, process::getpid, &[], RInt).unlocked(process::getpid_unlocked),
    d(Sys::getppid, process::getppid, &[], RInt).host_id(syscalls::Sysno::getppid),
    d(Sys::gettid, process::gettid, &[], RInt).unlocked(process::gettid_unlocked),
    d(Sys::getuid, process::getuid, &[], RInt).host_id(syscalls::Sysno::getuid),
    d(Sys::geteuid, process::geteuid, &[], RInt).host_id(syscalls::Sysno::geteuid),
    d(Sys::getgid, process::getgid, &[], RInt).host_id(syscalls::Sysno::getgid),
    d(Sys::getegid, process::getegid, &[], RInt).host_id(syscalls::Sysno::getegid),
    d(Sys::getresuid, process::getresuid, &[Ptr, Ptr, Ptr], RInt),
    d(Sys::getresgid, process::getresgid, &[Ptr, Ptr, Ptr], RInt),
    d(Sys::getgroups, process::getgroups, &[Int, Ptr], RInt),
    d(Sys::setgroups, process::setgroups, &[Int, Ptr], RInt),
    d(Sys::setuid, process::setuid, &[Int], RInt),
    d(Sys::setgid, process::setgid, &[Int], RInt),
    d(Sys::setreuid, process::setreuid, &[Int, Int], RInt),
    d(Sys::setregid, process::setregid, &[Int, Int], RInt),
    d(Sys::setresuid, process::setresuid, &[Int, Int, Int], RInt),
    d(Sys::setresgid, process::setresgid, &[Int, Int, Int], RInt),
    d(Sys::getpgid, process::getpgid, &[Int], RInt),
    d(Sys::getpgrp, process::getpgrp, &[], RInt).host_id(syscalls::Sysno::getpgrp),
    d(Sys::setpgid, process::setpgid, &[Int, Int], RInt).reaching(Reach::Pid(0)),
    d(Sys::getsid, process::getsid, &[Int], RInt),
    d(Sys::setsid, process::setsid, &[], RInt),
    d(Sys::set_tid_address, process::set_tid_address, &[Ptr], RInt),
    d(Sys::set_robust_list, process::set_robust_list, &[Ptr, ULong], RInt),
    d(Sys::get_robust_list, process::get_robust_list, &[Int, Ptr, Ptr], RInt),
    d(Sys::rseq, rseq::rseq, &[Ptr, ULong, Hex, Hex], RInt),
    d(Sys::prlimit64, process::prlimit64, &[Int, Rlimit, Ptr, Ptr], RInt).reaching(Reach::Pid(0)),
    d(Sys::getrlimit, process::getrlimit, &[Rlimit, Ptr], RInt),
    d(Sys::setrlimit, process::setrlimit, &[Rlimit, Ptr], RInt),
    d(Sys::getrusage, process::getrusage, &[Int, Ptr], RInt),
    d(Sys::times, process::times, &[Ptr], RInt),
    d(Sys::socketcall, socketcall::socketcall, &[Int, Ptr], RInt).unlocked(socketcall::socketcall_unlocked),
    d(Sys::prctl, process::prctl, &[PrctlOption, Hex, Hex, Hex, Hex], RInt),
    d(Sys::sched_getaffinity, process::sched_getaffinity, &[Int, ULong, Ptr], RInt),
    d(Sys::sched_setaffinity, process::sched_setaffinity, &[Int, ULong, Ptr], RInt).reaching(Reach::Pid(0)),
    d(Sys::sched_yield, process::sched_yield, &[], RInt).unlocked(process::sched_yield_unlocked),
    d(Sys::sched_getscheduler, process::sched_getscheduler, &[Int], RInt),
    d(Sys::sched_getparam, sched::sched_getparam, &[Int, Ptr], RInt),
    d(Sys::sched_setparam, sched::sched_setparam, &[Int, Ptr], RInt).reaching(Reach::Pid(0)),
    d(Sys::sched_setscheduler, sched::sched_setscheduler, &[Int, Int, Ptr], RInt).reaching(Reach::Pid(0)),
    d(Sys::sched_get_priority_max, sched::sched_get_priority_max, &[Int], RInt),
    d(Sys::sched_get_priority_min, sched::sched_get_priority_min, &[Int], RInt),
    d(Sys::sched_rr_get_interval, sched::sched_rr_get_interval, &[Int, Ptr], RInt),
    d(Sys::sched_rr_get_interval_time64, sched::sched_rr_get_interval_time64, &[Int, Ptr], RInt),
    d(Sys::sched_getattr, sched::sched_getattr, &[Int, Ptr, ULong, Hex], RInt),
    d(Sys::sched_setattr, sched::sched_setattr, &[Int, Ptr, Hex], RInt).reaching(Reach::Pid(0)),
    d(Sys::nice, sched::nice, &[Int], RInt),
    d(Sys::setfsuid, process::setfsuid, &[Int], RInt),
    d(Sys::setfsgid, process::setfsgid, &[Int], RInt),
    d(Sys::setfsuid32, process::setfsuid, &[Int], RInt),
    d(Sys::setfsgid32, process::setfsgid, &[Int], RInt),
    d(Sys::getpriority, process::getpriority, &[Int, Int], RInt),
    d(Sys::setpriority, process::setpriority, &[Int, Int, Int], RInt).reaching(Reach::Pid(1)),
    d(Sys::wait4, process::wait4, &[Int, Ptr, WaitOptions, Ptr], RInt),
    d(Sys::waitid, process::waitid, &[Int, Int, Ptr, WaitOptions, Ptr], RInt),
    d(Sys::fork, fork::fork, &[], RInt),
    d(Sys::vfork, fork::vfork, &[], RInt),
    // Printed raw: the argument order is the arch's (GuestArch::clone_args).
    d(Sys::clone, fork::clone, &[CloneArg(0), CloneArg(1), Hex, Hex, Hex], RInt),
    d(Sys::clone3, fork::clone3, &[Ptr, ULong], RInt),
    d(Sys::execve, exec::execve, &[Str, Ptr, Ptr], RInt),
    d(Sys::execveat, exec::execveat, &[AtFd, Str, Ptr, Ptr, AtFlags], RInt),
    d(Sys::kill, process::kill, &[Int, Signal], RInt).reaching(Reach::Pid(0)),
    d(Sys::tgkill, process::tgkill, &[Int, Int, Signal], RInt)
        .reaching(Reach::Pid(0))
        .unlocked(process::tgkill_unlocked),
    d(Sys::tkill, process::tkill, &[Int, Signal], RInt).reaching(Reach::Pid(0)).unlocked(process::tkill_unlocked),
    // signal
    d(Sys::rt_sigaction, signal::rt_sigaction, &[Signal, Ptr, Ptr, ULong], RInt),
    d(Sys::rt_sigprocmask, signal::rt_sigprocmask, &[SigmaskHow, SigsetIn, SigsetOut, ULong], RInt),
    d(Sys::rt_sigpending, signal::rt_sigpending, &[SigsetOut, ULong], RInt),
    d(Sys::rt_sigtimedwait, signal::rt_sigtimedwait, &[SigsetIn, Ptr, Ptr, ULong], RInt),
    d(Sys::rt_sigtimedwait_time64, signal::rt_sigtimedwait_time64, &[SigsetIn, Ptr, Ptr, ULong], RInt),
    d(Sys::sigaltstack, signal::sigaltstack, &[Ptr, Ptr], RInt),
    d(Sys::rt_sigsuspend, signal::rt_sigsuspend, &[SigsetIn, ULong], RInt),
    d(Sys::rt_sigqueueinfo, signal::rt_sigqueueinfo, &[Int, Signal, Ptr], RInt).reaching(Reach::Pid(0)),
    d(Sys::rt_tgsigqueueinfo, signal::rt_tgsigqueueinfo, &[Int, Int, Signal, Ptr], RInt).reaching(Reach::Pid(0)),
    d(Sys::rt_sigreturn, signal::rt_sigreturn, &[], RInt),
    d(Sys::sigreturn, signal::sigreturn, &[], RInt),
    d(Sys::restart_syscall, signal::restart_syscall, &[], RInt),
    // time
    d(Sys::clock_gettime, time::clock_gettime, &[ClockId, Ptr], RInt).unlocked(time::clock_gettime_unlocked),
    d(Sys::clock_getres, time::clock_getres, &[ClockId, Ptr], RInt).unlocked(time::clock_getres_unlocked),
    d(Sys::clock_gettime64, time::clock_gettime64, &[ClockId, Ptr], RInt).unlocked(time::clock_gettime64_unlocked),
    d(Sys::clock_getres_time64, time::clock_getres_time64, &[ClockId, Ptr], RInt)
        .unlocked(time::clock_getres_time64_unlocked),
    d(Sys::clock_nanosleep_time64, time::clock_nanosleep_time64, &[ClockId, Int, Ptr, Ptr], RInt)
        .unlocked(time::clock_nanosleep_time64_unlocked),
    d(Sys::gettimeofday, time::gettimeofday, &[Ptr, Ptr], RInt).unlocked(time::gettimeofday_unlocked),
    d(Sys::time, time::time, &[Ptr], RInt).unlocked(time::time_unlocked),
    d(Sys::nanosleep, time::nanosleep, &[Ptr, Ptr], RInt).unlocked(time::nanosleep_unlocked),
    d(Sys::clock_nanosleep, time::clock_nanosleep, &[ClockId, Int, Ptr, Ptr], RInt)
        .unlocked(time::clock_nanosleep_unlocked),
    d(Sys::alarm, time::alarm, &[Int], RInt),
    d(Sys::setitimer, time::setitimer, &[Int, Ptr, Ptr], RInt),
    d(Sys::getitimer, time::getitimer, &[Int, Ptr], RInt),
    d(Sys::pause, time::pause, &[], RInt),
    d(Sys::adjtimex, time::adjtimex, &[Ptr], RInt).reaching(Reach::Host),
    d(Sys::clock_adjtime, time::clock_adjtime, &[ClockId, Ptr], RInt).reaching(Reach::Host),
    d(Sys::clock_adjtime64, time::clock_adjtime64, &[ClockId, Ptr], RInt).reaching(Reach::Host),
    // futex
    d(Sys::futex, futex::futex, &[Ptr, FutexOp, Int, Hex, Ptr, Hex], RInt).unlocked(futex::futex_unlocked),
    d(Sys::futex_time64, futex::futex_time64, &[Ptr, FutexOp, Int, Hex, Ptr, Hex], RInt)
        .unlocked(futex::futex_time64_unlocked),
    // epoll
    d(Sys::epoll_create, epoll::epoll_create, &[Int], RInt),
    d(Sys::epoll_create1, epoll::epoll_create1, &[OpenFlags], RInt),
    d(Sys::eventfd, epoll::eventfd, &[Int], RInt),
    d(Sys::eventfd2, epoll::eventfd2, &[Int, OpenFlags], RInt),
    d(Sys::signalfd4, signalfd::signalfd4, &[Fd, Ptr, ULong, OpenFlags], RInt),
    d(Sys::signalfd, signalfd::signalfd, &[Fd, Ptr, ULong], RInt),
    d(Sys::inotify_init1, inotify::inotify_init1, &[OpenFlags], RInt),
    d(Sys::inotify_init, inotify::inotify_init, &[], RInt),
    d(Sys::inotify_add_watch, inotify::inotify_add_watch, &[Fd, Str, Hex], RInt),
    d(Sys::inotify_rm_watch, inotify::inotify_rm_watch, &[Fd, Int], RInt),
    d(Sys::memfd_create, mm::memfd_create, &[Str, Hex], RInt),
    d(Sys::capget, capability::capget, &[Ptr, Ptr], RInt),
    d(Sys::shmget, ipc::shmget, &[Hex, ULong, Hex], RInt),
    d(Sys::shmat, ipc::shmat, &[Int, Ptr, Hex], RHex),
    d(Sys::shmdt, ipc::shmdt, &[Ptr], RInt),
    d(Sys::shmctl, ipc::shmctl, &[Int, Int, Ptr], RInt),
    d(Sys::semget, ipc::semget, &[Hex, Int, Hex], RInt),
    d(Sys::semop, ipc::semop, &[Int, Ptr, ULong], RInt),
    d(Sys::semtimedop, ipc::semtimedop, &[Int, Ptr, ULong, Ptr], RInt),
    d(Sys::semtimedop_time64, ipc::semtimedop_time64, &[Int, Ptr, ULong, Ptr], RInt),
    d(Sys::semctl, ipc::semctl, &[Int, Int, Int, Hex], RInt),
    d(Sys::msgget, ipc::msgget, &[Hex, Hex], RInt),
    d(Sys::msgsnd, ipc::msgsnd, &[Int, Ptr, ULong, Hex], RInt),
    d(Sys::msgrcv, ipc::msgrcv, &[Int, Ptr, ULong, Long, Hex], RInt),
    d(Sys::msgctl, ipc::msgctl, &[Int, Int, Ptr], RInt),
    d(Sys::mq_open, mqueue::mq_open, &[Str, OpenFlags, Mode, Ptr], RInt),
    d(Sys::mq_unlink, mqueue::mq_unlink, &[Str], RInt),
    d(Sys::mq_timedsend, mqueue::mq_timedsend, &[Fd, BufIn(2), ULong, Int, Ptr], RInt),
    d(Sys::mq_timedsend_time64, mqueue::mq_timedsend_time64, &[Fd, BufIn(2), ULong, Int, Ptr], RInt),
    d(Sys::mq_timedreceive, mqueue::mq_timedreceive, &[Fd, BufOut, ULong, Ptr, Ptr], RInt),
    d(Sys::mq_timedreceive_time64, mqueue::mq_timedreceive_time64, &[Fd, BufOut, ULong, Ptr, Ptr], RInt),
    d(Sys::mq_notify, mqueue::mq_notify, &[Fd, Ptr], RInt),
    d(Sys::mq_getsetattr, mqueue::mq_getsetattr, &[Fd, Ptr, Ptr], RInt),
    d(Sys::pidfd_open, pidfd::pidfd_open, &[Int, Hex], RInt),
    d(Sys::pidfd_send_signal, pidfd::pidfd_send_signal, &[Fd, Signal, Ptr, Hex], RInt).reaching(Reach::Pidfd(0)),
    d(Sys::pidfd_getfd, pidfd::pidfd_getfd, &[Fd, Int, Hex], RInt).reaching(Reach::Pidfd(0)),
    d(Sys::kcmp, pidfd::kcmp, &[Int, Int, Int, ULong, ULong], RInt),
    d(Sys::splice, splice::splice, &[Fd, Ptr, Fd, Ptr, ULong, Hex], RInt),
    d(Sys::tee, splice::tee, &[Fd, Fd, ULong, Hex], RInt),
    d(Sys::vmsplice, splice::vmsplice, &[Fd, Ptr, ULong, Hex], RInt),
    d(Sys::name_to_handle_at, fhandle::name_to_handle_at, &[AtFd, Str, Ptr, Ptr, AtFlags], RInt),
    d(Sys::open_by_handle_at, fhandle::open_by_handle_at, &[Fd, Ptr, OpenFlags], RInt).reaching(Reach::Host),
    d(Sys::futex_waitv, futex::futex_waitv, &[Ptr, Int, Hex, Ptr, ClockId], RInt),
    d(Sys::futex_wait, futex::futex_wait, &[Ptr, Hex, Hex, Hex, Ptr, ClockId], RInt),
    d(Sys::futex_wake, futex::futex_wake, &[Ptr, Hex, Int, Hex], RInt),
    d(Sys::futex_requeue, futex::futex_requeue, &[Ptr, Hex, Int, Int], RInt),
    d(Sys::mlock2, mm::mlock2, &[Ptr, ULong, Hex], RInt),
    d(Sys::mlockall, mm::mlockall, &[Hex], RInt),
    d(Sys::munlockall, mm::munlockall, &[], RInt),
    d(Sys::membarrier, mm::membarrier, &[Int, Hex, Int], RInt),
    d(Sys::ipc, ipc::ipc, &[Hex, Int, ULong, ULong, Ptr, Long], RInt),
    d(Sys::capset, capability::capset, &[Ptr, Ptr], RInt),
    d(Sys::timer_create, timer::timer_create, &[ClockId, Ptr, Ptr], RInt),
    d(Sys::timer_settime, timer::timer_settime, &[Int, Int, Ptr, Ptr], RInt),
    d(Sys::timer_settime64, timer::timer_settime64, &[Int, Int, Ptr, Ptr], RInt),
    d(Sys::timer_gettime, timer::timer_gettime, &[Int, Ptr], RInt),
    d(Sys::timer_gettime64, timer::timer_gettime64, &[Int, Ptr], RInt),
    d(Sys::timer_getoverrun, timer::timer_getoverrun, &[Int], RInt),
    d(Sys::timer_delete, timer::timer_delete, &[Int], RInt),
    d(Sys::timerfd_create, timer::timerfd_create, &[ClockId, OpenFlags], RInt),
    d(Sys::timerfd_settime, timer::timerfd_settime, &[Int, Int, Ptr, Ptr], RInt),
    d(Sys::timerfd_settime64, timer::timerfd_settime64, &[Int, Int, Ptr, Ptr], RInt),
    d(Sys::timerfd_gettime, timer::timerfd_gettime, &[Int, Ptr], RInt),
    d(Sys::timerfd_gettime64, timer::timerfd_gettime64, &[Int, Ptr], RInt),
    d(Sys::epoll_ctl, epoll::epoll_ctl, &[Fd, Int, Fd, Ptr], RInt).unlocked(epoll::epoll_ctl_unlocked),
    d(Sys::epoll_wait, epoll::epoll_wait, &[Fd, Ptr, Int, Int], RInt),
    d(Sys::epoll_pwait, epoll::epoll_pwait, &[Fd, Ptr, Int, Int, Ptr, ULong], RInt)
        .unlocked(epoll::epoll_pwait_unlocked),
    d(Sys::epoll_pwait2, epoll::epoll_pwait2, &[Fd, Ptr, Int, Ptr, Ptr, ULong], RInt),
    // net
    d(Sys::socket, net::socket, &[Int, Hex, Int], RInt),
    d(Sys::socketpair, net::socketpair, &[Int, Hex, Int, Ptr], RInt),
    d(Sys::bind, net::bind, &[Fd, Ptr, Int], RInt),
    d(Sys::connect, net::connect, &[Fd, Ptr, Int], RInt),
    d(Sys::listen, net::listen, &[Fd, Int], RInt),
    d(Sys::accept, net::accept, &[Fd, Ptr, Ptr], RInt),
    d(Sys::accept4, net::accept4, &[Fd, Ptr, Ptr, Hex], RInt),
    d(Sys::shutdown, net::shutdown, &[Fd, Int], RInt),
    d(Sys::getsockname, net::getsockname, &[Fd, Ptr, Ptr], RInt),
    d(Sys::getpeername, net::getpeername, &[Fd, Ptr, Ptr], RInt),
    d(Sys::setsockopt, net::setsockopt, &[Fd, Int, Int, Ptr, Int], RInt),
    d(Sys::getsockopt, net::getsockopt, &[Fd, Int, Int, Ptr, Ptr], RInt),
    d(Sys::sendto, net::sendto, &[Fd, BufIn(2), ULong, Hex, Ptr, Int], RInt).unlocked(net::sendto_unlocked),
    d(Sys::recvfrom, net::recvfrom, &[Fd, BufOut, ULong, Hex, Ptr, Ptr], RInt).unlocked(net::recvfrom_unlocked),
    d(Sys::sendmsg, net::sendmsg, &[Fd, Ptr, Hex], RInt),
    d(Sys::recvmsg, net::recvmsg, &[Fd, Ptr, Hex], RInt),
    d(Sys::sendmmsg, net::sendmmsg, &[Fd, Ptr, Int, Hex], RInt),
    d(Sys::recvmmsg, net::recvmmsg, &[Fd, Ptr, Int, Hex, Ptr], RInt),
    d(Sys::recvmmsg_time64, net::recvmmsg_time64, &[Fd, Ptr, Int, Hex, Ptr], RInt),
    // misc
    d(Sys::uname, misc::uname, &[Ptr], RInt),
    d(Sys::sysinfo, misc::sysinfo, &[Ptr], RInt),
    d(Sys::getrandom, misc::getrandom, &[BufOut, ULong, GrndFlags], RInt).unlocked(misc::getrandom_unlocked),
    d(Sys::getcpu, time::getcpu, &[Ptr, Ptr, Ptr], RInt).unlocked(time::getcpu_unlocked),
    d(Sys::ioprio_get, misc::ioprio_get, &[Int, Int], RInt),
    d(Sys::ioprio_set, misc::ioprio_set, &[Int, Int, Int], RInt).reaching(Reach::Pid(1)),
    d(Sys::syslog, misc::syslog, &[Int, Ptr, Int], RInt).reaching(Reach::Host),
    // the old forms (i386; arm and s390x have the signal ones)
    d(Sys::oldstat, old::oldstat, &[Str, Ptr], RInt),
    d(Sys::oldlstat, old::oldlstat, &[Str, Ptr], RInt),
    d(Sys::oldfstat, old::oldfstat, &[Fd, Ptr], RInt),
    d(Sys::olduname, old::olduname, &[Ptr], RInt),
    d(Sys::oldolduname, old::oldolduname, &[Ptr], RInt),
    d(Sys::waitpid, old::waitpid, &[Int, Ptr, WaitOptions], RInt),
    d(Sys::signal, old::signal, &[Signal, Ptr], RHex),
    d(Sys::sigaction, old::sigaction, &[Signal, Ptr, Ptr], RInt),
    d(Sys::sigpending, old::sigpending, &[Ptr], RInt),
    d(Sys::sigprocmask, old::sigprocmask, &[SigmaskHow, Ptr, Ptr], RInt),
    d(Sys::sigsuspend, old::sigsuspend, &[Int, Int, Hex], RInt),
    d(Sys::sgetmask, old::sgetmask, &[], RHex),
    d(Sys::ssetmask, old::ssetmask, &[Hex], RHex),
    // fanotify (32-bit arches: compat32's row)
    d(Sys::fanotify_init, fanotify::fanotify_init, &[Hex, OpenFlags], RInt).reaching(Reach::Host),
    d(Sys::fanotify_mark, fanotify::fanotify_mark, &[Fd, Hex, Hex, AtFd, Str], RInt).reaching(Reach::Host),
    // another process's memory
    d(Sys::process_vm_readv, process_vm::process_vm_readv, &[Int, Ptr, ULong, Ptr, ULong, Hex], RInt),
    d(Sys::process_vm_writev, process_vm::process_vm_writev, &[Int, Ptr, ULong, Ptr, ULong, Hex], RInt)
        .reaching(Reach::Pid(0)),
    d(Sys::process_madvise, process_vm::process_madvise, &[Fd, Ptr, ULong, Int, Hex], RInt).reaching(Reach::Pidfd(0)),
    d(Sys::process_mrelease, process_vm::process_mrelease, &[Fd, Hex], RInt).reaching(Reach::Pidfd(0)),
    // keys
    d(Sys::add_key, keys::add_key, &[Str, Str, Ptr, ULong, Int], RInt).reaching(Reach::Host),
    d(Sys::request_key, keys::request_key, &[Str, Str, Str, Int], RInt).reaching(Reach::Host),
    d(Sys::keyctl, keys::keyctl, &[Int, Hex, Hex, Hex, Hex], RInt).reaching(Reach::Host),
    // aio
    d(Sys::io_setup, aio::io_setup, &[Int, Ptr], RInt),
    d(Sys::io_destroy, aio::io_destroy, &[Hex], RInt),
    d(Sys::io_submit, aio::io_submit, &[Hex, Long, Ptr], RInt),
    d(Sys::io_cancel, aio::io_cancel, &[Hex, Ptr, Ptr], RInt),
    d(Sys::io_getevents, aio::io_getevents, &[Hex, Long, Long, Ptr, Ptr], RInt),
    d(Sys::io_pgetevents, aio::io_pgetevents, &[Hex, Long, Long, Ptr, Ptr, Ptr], RInt),
    d(Sys::io_pgetevents_time64, aio::io_pgetevents_time64, &[Hex, Long, Long, Ptr, Ptr, Ptr], RInt),
    // mounts, the root directory, namespaces
    d(Sys::mount, mount::mount, &[Str, Str, Str, Hex, Ptr], RInt).reaching(Reach::Host),
    d(Sys::umount2, mount::umount2, &[Str, Hex], RInt).reaching(Reach::Host),
    d(Sys::umount, mount::umount, &[Str], RInt).reaching(Reach::Host),
    d(Sys::pivot_root, mount::pivot_root, &[Str, Str], RInt).reaching(Reach::Host),
    d(Sys::chroot, mount::chroot, &[Str], RInt),
    d(Sys::fsopen, mount::fsopen, &[Str, Hex], RInt).reaching(Reach::Host),
    d(Sys::fspick, mount::fspick, &[AtFd, Str, Hex], RInt).reaching(Reach::Host),
    d(Sys::fsmount, mount::fsmount, &[Fd, Hex, Hex], RInt).reaching(Reach::Host),
    d(Sys::fsconfig, mount::fsconfig, &[Fd, Int, Str, Ptr, Int], RInt).reaching(Reach::Host),
    d(Sys::open_tree, mount::open_tree, &[AtFd, Str, Hex], RInt).reaching(Reach::Host),
    d(Sys::move_mount, mount::move_mount, &[AtFd, Str, AtFd, Str, Hex], RInt).reaching(Reach::Host),
    d(Sys::mount_setattr, mount::mount_setattr, &[AtFd, Str, AtFlags, Ptr, ULong], RInt).reaching(Reach::Host),
    d(Sys::listmount, mount::listmount, &[Ptr, Ptr, ULong, Hex], RInt),
    d(Sys::statmount, mount::statmount, &[Ptr, Ptr, ULong, Hex], RInt),
    d(Sys::unshare, ns::unshare, &[Hex], RInt),
    d(Sys::setns, ns::setns, &[Fd, Hex], RInt).reaching(Reach::Host),
    d(Sys::sethostname, ns::sethostname, &[BufIn(1), ULong], RInt).reaching(Reach::Host),
    d(Sys::setdomainname, ns::setdomainname, &[BufIn(1), ULong], RInt).reaching(Reach::Host),
    // seccomp, security modules
    d(Sys::seccomp, seccomp::seccomp, &[Int, Hex, Ptr], RInt),
    d(Sys::lsm_get_self_attr, lsm::lsm_get_self_attr, &[Int, Ptr, Ptr, Hex], RInt),
    d(Sys::lsm_set_self_attr, lsm::lsm_set_self_attr, &[Int, Ptr, ULong, Hex], RInt),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn one_row_per_call() {
        let mut seen = HashSet::new();
        for d in DEFS {
            assert!(seen.insert(d.sys), "{} listed twice", d.sys.name());
            assert!(d.args.len() <= 6, "{}", d.sys.name());
        }
    }

    #[test]
    fn reach_is_the_same_in_every_table() {
        // A 32-bit or arch row replacing a row of DEFS keeps its reach.
        let main: std::collections::HashMap<Sys, Reach> = DEFS.iter().map(|d| (d.sys, d.reach)).collect();
        let arch_rows = crate::arch::ALL.iter().flat_map(|(_, a)| super::super::arch::rows_of(*a));
        for d in super::super::compat32::DEFS.iter().chain(arch_rows) {
            if let Some(r) = main.get(&d.sys) {
                assert_eq!(*r, d.reach, "{}", d.sys.name());
            }
        }
        for d in DEFS {
            if let Reach::Pid(n) | Reach::Pidfd(n) = d.reach {
                assert!(usize::from(n) < d.args.len(), "{}", d.sys.name());
            }
        }
        let host: Vec<&str> = DEFS.iter().filter(|d| d.reach == Reach::Host).map(|d| d.sys.name()).collect();
        for name in ["sethostname", "mount", "keyctl", "open_by_handle_at", "setns"] {
            assert!(host.contains(&name), "{name}");
        }
    }

    #[test]
    fn buffer_lengths_point_at_arguments() {
        for d in DEFS {
            for a in d.args {
                if let ArgFmt::BufIn(n) = a {
                    assert!((*n as usize) < d.args.len(), "{}", d.sys.name());
                }
            }
        }
    }
}
