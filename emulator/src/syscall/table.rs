//! The syscall table as data: one row per call endgate serves — which handler, and how
//! `--strace` prints it. A call absent here returns `-ENOSYS` (named once under `--strace`).
//! Each arch's [`super::DispatchTable`] picks the rows its numbering has.

use super::nr::Sys;
use super::{
    capability, epoll, exec, fork, fs, futex, inotify, io, misc, mm, net, process, signal, socketcall, time, timer,
    xattr, Handler, SyscallDef,
};
use crate::syscall::strace::ArgFmt::{self, *};
use crate::syscall::strace::RetFmt::{self, Hex as RHex, Int as RInt};

/// A row.
pub(crate) const fn d(sys: Sys, handler: Handler, args: &'static [ArgFmt], ret: RetFmt) -> SyscallDef {
    SyscallDef { sys, handler, args, ret }
}

/// Every call endgate serves.
pub static DEFS: &[SyscallDef] = &[
    // io
    d(Sys::read, io::read, &[Fd, BufOut, ULong], RInt),
    d(Sys::write, io::write, &[Fd, BufIn(2), ULong], RInt),
    d(Sys::pread64, io::pread64, &[Fd, BufOut, ULong, Long], RInt),
    d(Sys::pwrite64, io::pwrite64, &[Fd, BufIn(2), ULong, Long], RInt),
    d(Sys::readv, io::readv, &[Fd, Ptr, Int], RInt),
    d(Sys::writev, io::writev, &[Fd, Ptr, Int], RInt),
    d(Sys::preadv, io::preadv, &[Fd, Ptr, Int, Long], RInt),
    d(Sys::pwritev, io::pwritev, &[Fd, Ptr, Int, Long], RInt),
    d(Sys::lseek, io::lseek, &[Fd, Long, Whence], RInt),
    d(Sys::sendfile, io::sendfile, &[Fd, Fd, Ptr, ULong], RInt),
    d(Sys::copy_file_range, io::copy_file_range, &[Fd, Ptr, Fd, Ptr, ULong, Hex], RInt),
    d(Sys::close, io::close, &[Fd], RInt),
    d(Sys::close_range, io::close_range, &[Int, Int, Hex], RInt),
    d(Sys::dup, io::dup, &[Fd], RInt),
    d(Sys::dup2, io::dup2, &[Fd, Fd], RInt),
    d(Sys::dup3, io::dup3, &[Fd, Fd, OpenFlags], RInt),
    d(Sys::fcntl, io::fcntl, &[Fd, Int, Hex], RInt),
    d(Sys::ioctl, io::ioctl, &[Fd, Hex, Hex], RInt),
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
    d(Sys::fcntl64, io::fcntl64, &[Fd, Int, Hex], RInt),
    d(Sys::ppoll_time64, io::ppoll_time64, &[Ptr, ULong, Ptr, Ptr, ULong], RInt),
    d(Sys::pselect6_time64, io::pselect6_time64, &[Int, Ptr, Ptr, Ptr, Ptr, Ptr], RInt),
    // fs
    d(Sys::openat, fs::openat, &[AtFd, Str, OpenFlags, OpenMode(2)], RInt),
    d(Sys::open, fs::open, &[Str, OpenFlags, OpenMode(1)], RInt),
    d(Sys::creat, fs::creat, &[Str, Mode], RInt),
    d(Sys::newfstatat, fs::newfstatat, &[AtFd, Str, Ptr, AtFlags], RInt),
    d(Sys::fstat, fs::fstat, &[Fd, Ptr], RInt),
    d(Sys::stat, fs::stat, &[Str, Ptr], RInt),
    d(Sys::lstat, fs::lstat, &[Str, Ptr], RInt),
    d(Sys::statx, fs::statx, &[AtFd, Str, AtFlags, Hex, Ptr], RInt),
    d(Sys::getdents64, fs::getdents64, &[Fd, Ptr, ULong], RInt),
    d(Sys::getdents, fs::getdents, &[Fd, Ptr, ULong], RInt),
    d(Sys::readlinkat, fs::readlinkat, &[AtFd, Str, BufOut, ULong], RInt),
    d(Sys::readlink, fs::readlink, &[Str, BufOut, ULong], RInt),
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
    d(Sys::chmod, fs::chmod, &[Str, Mode], RInt),
    d(Sys::fchown, fs::fchown, &[Fd, Int, Int], RInt),
    d(Sys::fchownat, fs::fchownat, &[AtFd, Str, Int, Int, AtFlags], RInt),
    d(Sys::chown, fs::chown, &[Str, Int, Int], RInt),
    d(Sys::lchown, fs::lchown, &[Str, Int, Int], RInt),
    d(Sys::utimensat, fs::utimensat, &[AtFd, Str, Ptr, AtFlags], RInt),
    d(Sys::utimensat_time64, fs::utimensat_time64, &[AtFd, Str, Ptr, AtFlags], RInt),
    d(Sys::truncate, fs::truncate, &[Str, Long], RInt),
    d(Sys::ftruncate, fs::ftruncate, &[Fd, Long], RInt),
    d(Sys::fallocate, fs::fallocate, &[Fd, Int, Long, Long], RInt),
    d(Sys::fadvise64, fs::fadvise64, &[Fd, Long, Long, Int], RInt),
    d(Sys::fsync, fs::fsync, &[Fd], RInt),
    d(Sys::sync_file_range, fs::sync_file_range, &[Fd, Long, Long, Hex], RInt),
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
    d(Sys::mremap, mm::mremap, &[Ptr, ULong, ULong, Hex, Ptr], RHex),
    d(Sys::madvise, mm::madvise, &[Ptr, ULong, Int], RInt),
    d(Sys::msync, mm::msync, &[Ptr, ULong, Hex], RInt),
    d(Sys::mlock, mm::mlock, &[Ptr, ULong], RInt),
    d(Sys::munlock, mm::munlock, &[Ptr, ULong], RInt),
    d(Sys::mincore, mm::mincore, &[Ptr, ULong, Ptr], RInt),
    // process
    d(Sys::exit, process::exit, &[Int], RInt),
    d(Sys::exit_group, process::exit_group, &[Int], RInt),
    d(Sys::getpid, process::getpid, &[], RInt),
    d(Sys::getppid, process::getppid, &[], RInt),
    d(Sys::gettid, process::gettid, &[], RInt),
    d(Sys::getuid, process::getuid, &[], RInt),
    d(Sys::geteuid, process::geteuid, &[], RInt),
    d(Sys::getgid, process::getgid, &[], RInt),
    d(Sys::getegid, process::getegid, &[], RInt),
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
    d(Sys::getpgrp, process::getpgrp, &[], RInt),
    d(Sys::setpgid, process::setpgid, &[Int, Int], RInt),
    d(Sys::getsid, process::getsid, &[Int], RInt),
    d(Sys::setsid, process::setsid, &[], RInt),
    d(Sys::set_tid_address, process::set_tid_address, &[Ptr], RInt),
    d(Sys::set_robust_list, process::set_robust_list, &[Ptr, ULong], RInt),
    d(Sys::prlimit64, process::prlimit64, &[Int, Int, Ptr, Ptr], RInt),
    d(Sys::getrlimit, process::getrlimit, &[Int, Ptr], RInt),
    d(Sys::setrlimit, process::setrlimit, &[Int, Ptr], RInt),
    d(Sys::getrusage, process::getrusage, &[Int, Ptr], RInt),
    d(Sys::times, process::times, &[Ptr], RInt),
    d(Sys::socketcall, socketcall::socketcall, &[Int, Ptr], RInt),
    d(Sys::prctl, process::prctl, &[Int, Hex, Hex, Hex, Hex], RInt),
    d(Sys::sched_getaffinity, process::sched_getaffinity, &[Int, ULong, Ptr], RInt),
    d(Sys::sched_setaffinity, process::sched_setaffinity, &[Int, ULong, Ptr], RInt),
    d(Sys::sched_yield, process::sched_yield, &[], RInt),
    d(Sys::sched_getscheduler, process::sched_getscheduler, &[Int], RInt),
    d(Sys::getpriority, process::getpriority, &[Int, Int], RInt),
    d(Sys::setpriority, process::setpriority, &[Int, Int, Int], RInt),
    d(Sys::wait4, process::wait4, &[Int, Ptr, Int, Ptr], RInt),
    d(Sys::waitid, process::waitid, &[Int, Int, Ptr, Hex, Ptr], RInt),
    d(Sys::fork, fork::fork, &[], RInt),
    d(Sys::vfork, fork::vfork, &[], RInt),
    // Printed raw: the argument order is the arch's (GuestArch::clone_args).
    d(Sys::clone, fork::clone, &[Hex, Hex, Hex, Hex, Hex], RInt),
    d(Sys::clone3, fork::clone3, &[Ptr, ULong], RInt),
    d(Sys::execve, exec::execve, &[Str, Ptr, Ptr], RInt),
    d(Sys::execveat, exec::execveat, &[AtFd, Str, Ptr, Ptr, AtFlags], RInt),
    d(Sys::kill, process::kill, &[Int, Signal], RInt),
    d(Sys::tgkill, process::tgkill, &[Int, Int, Signal], RInt),
    d(Sys::tkill, process::tkill, &[Int, Signal], RInt),
    // signal
    d(Sys::rt_sigaction, signal::rt_sigaction, &[Signal, Ptr, Ptr, ULong], RInt),
    d(Sys::rt_sigprocmask, signal::rt_sigprocmask, &[Int, Ptr, Ptr, ULong], RInt),
    d(Sys::rt_sigpending, signal::rt_sigpending, &[Ptr, ULong], RInt),
    d(Sys::rt_sigtimedwait, signal::rt_sigtimedwait, &[Ptr, Ptr, Ptr, ULong], RInt),
    d(Sys::rt_sigtimedwait_time64, signal::rt_sigtimedwait_time64, &[Ptr, Ptr, Ptr, ULong], RInt),
    d(Sys::sigaltstack, signal::sigaltstack, &[Ptr, Ptr], RInt),
    d(Sys::rt_sigsuspend, signal::rt_sigsuspend, &[Ptr, ULong], RInt),
    d(Sys::rt_sigqueueinfo, signal::rt_sigqueueinfo, &[Int, Signal, Ptr], RInt),
    d(Sys::rt_tgsigqueueinfo, signal::rt_tgsigqueueinfo, &[Int, Int, Signal, Ptr], RInt),
    d(Sys::rt_sigreturn, signal::rt_sigreturn, &[], RInt),
    d(Sys::sigreturn, signal::sigreturn, &[], RInt),
    // time
    d(Sys::clock_gettime, time::clock_gettime, &[ClockId, Ptr], RInt),
    d(Sys::clock_getres, time::clock_getres, &[ClockId, Ptr], RInt),
    d(Sys::clock_gettime64, time::clock_gettime64, &[ClockId, Ptr], RInt),
    d(Sys::clock_getres_time64, time::clock_getres_time64, &[ClockId, Ptr], RInt),
    d(Sys::clock_nanosleep_time64, time::clock_nanosleep_time64, &[ClockId, Int, Ptr, Ptr], RInt),
    d(Sys::gettimeofday, time::gettimeofday, &[Ptr, Ptr], RInt),
    d(Sys::time, time::time, &[Ptr], RInt),
    d(Sys::nanosleep, time::nanosleep, &[Ptr, Ptr], RInt),
    d(Sys::clock_nanosleep, time::clock_nanosleep, &[ClockId, Int, Ptr, Ptr], RInt),
    d(Sys::alarm, time::alarm, &[Int], RInt),
    d(Sys::setitimer, time::setitimer, &[Int, Ptr, Ptr], RInt),
    d(Sys::getitimer, time::getitimer, &[Int, Ptr], RInt),
    d(Sys::pause, time::pause, &[], RInt),
    // futex
    d(Sys::futex, futex::futex, &[Ptr, Int, Int, Hex, Ptr, Hex], RInt),
    d(Sys::futex_time64, futex::futex_time64, &[Ptr, Int, Int, Hex, Ptr, Hex], RInt),
    // epoll
    d(Sys::epoll_create, epoll::epoll_create, &[Int], RInt),
    d(Sys::epoll_create1, epoll::epoll_create1, &[OpenFlags], RInt),
    d(Sys::eventfd, epoll::eventfd, &[Int], RInt),
    d(Sys::eventfd2, epoll::eventfd2, &[Int, OpenFlags], RInt),
    d(Sys::inotify_init1, inotify::inotify_init1, &[OpenFlags], RInt),
    d(Sys::inotify_init, inotify::inotify_init, &[], RInt),
    d(Sys::inotify_add_watch, inotify::inotify_add_watch, &[Fd, Str, Hex], RInt),
    d(Sys::inotify_rm_watch, inotify::inotify_rm_watch, &[Fd, Int], RInt),
    d(Sys::memfd_create, mm::memfd_create, &[Str, Hex], RInt),
    d(Sys::capget, capability::capget, &[Ptr, Ptr], RInt),
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
    d(Sys::epoll_ctl, epoll::epoll_ctl, &[Fd, Int, Fd, Ptr], RInt),
    d(Sys::epoll_wait, epoll::epoll_wait, &[Fd, Ptr, Int, Int], RInt),
    d(Sys::epoll_pwait, epoll::epoll_pwait, &[Fd, Ptr, Int, Int, Ptr, ULong], RInt),
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
    d(Sys::sendto, net::sendto, &[Fd, BufIn(2), ULong, Hex, Ptr, Int], RInt),
    d(Sys::recvfrom, net::recvfrom, &[Fd, BufOut, ULong, Hex, Ptr, Ptr], RInt),
    d(Sys::sendmsg, net::sendmsg, &[Fd, Ptr, Hex], RInt),
    d(Sys::recvmsg, net::recvmsg, &[Fd, Ptr, Hex], RInt),
    // misc
    d(Sys::uname, misc::uname, &[Ptr], RInt),
    d(Sys::sysinfo, misc::sysinfo, &[Ptr], RInt),
    d(Sys::getrandom, misc::getrandom, &[BufOut, ULong, Hex], RInt),
    d(Sys::getcpu, time::getcpu, &[Ptr, Ptr, Ptr], RInt),
    d(Sys::ioprio_get, misc::ioprio_get, &[Int, Int], RInt),
    d(Sys::ioprio_set, misc::ioprio_set, &[Int, Int, Int], RInt),
    d(Sys::syslog, misc::syslog, &[Int, Ptr, Int], RInt),
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
