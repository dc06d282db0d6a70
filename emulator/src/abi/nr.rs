//! The generic system-call enum and the per-architecture number tables.
//!
//! Every guest architecture numbers its system calls differently (x86_64 `openat` is 257,
//! aarch64 `openat` is 56). The numbers come from the `syscalls` crate, which generates them
//! from the kernel's own tables; this module maps each arch's numbers onto one enum, [`Sys`],
//! keyed by the kernel's name for the call, so that handlers never see an arch number.

use std::collections::HashMap;

macro_rules! generic_syscalls {
    ($($name:ident),* $(,)?) => {
        /// A Linux system call, named as in the kernel's syscall tables (`newfstatat`,
        /// `rt_sigaction`). Calls that exist only on some arches (x86_64 `open`, `arch_prctl`)
        /// are members too; an arch's [`NumberTable`] simply never produces the others.
        #[allow(non_camel_case_types, missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Sys { $($name),* }

        impl Sys {
            /// Every member, in declaration order.
            pub const ALL: &'static [Sys] = &[$(Sys::$name),*];

            /// Every member's kernel name, in declaration order.
            const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The kernel's name for the call, e.g. `"openat"`. One load from a table: every
            /// dispatched call names its handler ([`crate::guard::enter_handler`]), and a
            /// `match` compiled to a call of a jump table cost 2-3 ns of a gate system call.
            #[inline(always)]
            pub const fn name(self) -> &'static str {
                Sys::NAMES[self as usize]
            }

            /// [`Sys::name`] by reference, one word ([`crate::guard::Name`]).
            #[inline(always)]
            pub const fn name_ref(self) -> &'static &'static str {
                &Sys::NAMES[self as usize]
            }

            /// The member whose kernel name is `name`, if endgate knows the call.
            pub fn from_name(name: &str) -> Option<Sys> {
                match name { $(stringify!($name) => Some(Sys::$name),)* _ => None }
            }
        }
    };
}

generic_syscalls! {
    // io
    read, write, readv, writev, pread64, pwrite64, preadv, pwritev, preadv2, pwritev2,
    lseek, ioctl, fcntl, dup, dup2, dup3, pipe, pipe2, poll, ppoll, select, pselect6,
    sendfile, copy_file_range, splice, close, close_range, flock,
    // fs
    open, openat, openat2, creat, stat, lstat, fstat, newfstatat, statx, getdents64, getdents,
    readlink, readlinkat, access, faccessat, faccessat2, mkdir, mkdirat, unlink, unlinkat, rmdir,
    rename, renameat, renameat2, link, linkat, symlink, symlinkat, chmod, fchmod, fchmodat,
    fchmodat2, chown, lchown, fchown, fchownat, utimensat, utimes, utime, futimesat, truncate,
    ftruncate, fsync, fdatasync, sync, syncfs, getcwd, chdir, fchdir, statfs, fstatfs, statfs64,
    fstatfs64, mknod,
    mknodat, fallocate, fadvise64, chroot, umask, getxattr, lgetxattr, fgetxattr, setxattr,
    lsetxattr, fsetxattr, listxattr, llistxattr, flistxattr, removexattr, lremovexattr,
    fremovexattr,
    // mm
    brk, mmap, munmap, mprotect, mremap, madvise, msync, mlock, munlock, mincore,
    // process
    exit, exit_group, getpid, getppid, gettid, getuid, geteuid, getgid, getegid, getresuid,
    getresgid, getgroups, setuid, setgid, setreuid, setregid, setresuid, setresgid, setgroups,
    getpgid, getpgrp, setpgid, getsid, setsid, set_tid_address, set_robust_list, get_robust_list,
    prlimit64, getrlimit, setrlimit, getrusage, times, arch_prctl, prctl, sched_getaffinity,
    sched_setaffinity, sched_yield, sched_getscheduler, sched_getparam, sched_setparam,
    sched_setscheduler, sched_get_priority_min, sched_get_priority_max, sched_rr_get_interval,
    sched_rr_get_interval_time64, sched_getattr, sched_setattr, nice, setfsuid, setfsgid,
    setfsuid32, setfsgid32, getpriority, setpriority,
    uname, sysinfo, getrandom, rseq, wait4, waitid, kill, tkill, tgkill, clone, clone3, fork,
    vfork, execve, execveat, membarrier, personality, getcpu, capget, capset,
    // signal
    rt_sigaction, rt_sigprocmask, rt_sigreturn, sigreturn, rt_sigpending, rt_sigsuspend, rt_sigtimedwait,
    rt_sigqueueinfo, rt_tgsigqueueinfo, sigaltstack, pause, alarm, setitimer, getitimer,
    // time
    clock_gettime, clock_getres, clock_settime, clock_nanosleep, gettimeofday, settimeofday,
    nanosleep, time,
    // futex
    futex,
    // SysV IPC
    shmget, shmat, shmdt, shmctl, semget, semop, semtimedop, semtimedop_time64, semctl, msgget,
    msgsnd, msgrcv, msgctl, ipc,
    // POSIX message queues
    mq_open, mq_unlink, mq_timedsend, mq_timedsend_time64, mq_timedreceive, mq_timedreceive_time64,
    mq_notify, mq_getsetattr,
    // pidfds, pipes
    pidfd_open, pidfd_send_signal, pidfd_getfd, kcmp, tee, vmsplice, epoll_pwait2, sendmmsg, recvmmsg, recvmmsg_time64,
    name_to_handle_at, open_by_handle_at, futex_waitv, mlock2, mlockall, munlockall,
    // native AIO, fanotify, keys, another process's memory
    io_setup, io_destroy, io_submit, io_cancel, io_getevents, io_pgetevents, io_pgetevents_time64,
    fanotify_init, fanotify_mark, add_key, request_key, keyctl, process_vm_readv,
    process_vm_writev, process_madvise, process_mrelease,
    // net (for later issues; numbers only)
    socket, socketpair, bind, connect, listen, accept, accept4, sendto, recvfrom, sendmsg,
    recvmsg, shutdown, getsockname, getpeername, setsockopt, getsockopt, socketcall,
    // ILP32 forms with 64-bit offsets or 64-bit time
    sendfile64, fcntl64, ppoll_time64, pselect6_time64, futex_time64, utimensat_time64,
    rt_sigtimedwait_time64, clock_gettime64, clock_getres_time64, clock_nanosleep_time64,
    // misc
    eventfd, eventfd2, epoll_create, epoll_create1, epoll_ctl, epoll_wait, epoll_pwait, timerfd_create, signalfd4, signalfd,
    timerfd_settime, timerfd_gettime, timerfd_settime64, timerfd_gettime64, timer_create, timer_settime,
    timer_gettime, timer_getoverrun, timer_delete, timer_settime64, timer_gettime64,
    inotify_init1, inotify_init, inotify_add_watch, inotify_rm_watch, memfd_create, ioprio_get,
    ioprio_set, syslog,
    // mounts, the root directory, namespaces, seccomp, security modules
    mount, umount2, umount, statmount, listmount, pivot_root, fsopen, fspick, fsmount, fsconfig,
    open_tree, move_mount, mount_setattr, unshare, setns, sethostname, setdomainname, seccomp,
    lsm_get_self_attr, lsm_set_self_attr,
    // 32-bit guests only (syscall/compat32.rs)
    _llseek, mmap2, stat64, lstat64, fstat64, fstatat64, truncate64,
    readahead, ftruncate64, fadvise64_64, arm_fadvise64_64, sync_file_range, sync_file_range2, arm_sync_file_range, ugetrlimit,
    _newselect, send, recv, getuid32, getgid32, geteuid32, getegid32, setuid32, setgid32,
    setreuid32, setregid32, setresuid32, setresgid32, getresuid32, getresgid32, getgroups32, setgroups32,
    chown32, lchown32, fchown32,
    // i386 and MIPS: TLS (set_thread_area); i386: old_select, the 16-bit-id calls
    // (kernel/uid16.c); MIPS: cacheflush
    set_thread_area, get_thread_area, old_select, getuid16, geteuid16, getgid16,
    getegid16, setuid16, setgid16, setreuid16, setregid16, setresuid16, setresgid16,
    getresuid16, getresgid16, getgroups16, setgroups16, chown16, lchown16, fchown16,
    setfsuid16, setfsgid16,
    cacheflush,
    // the old forms of 32-bit arches and s390 (syscall/old.rs)
    oldstat, oldlstat, oldfstat, olduname, oldolduname, readdir, waitpid, signal, sigaction,
    sigpending, sigprocmask, sigsuspend, sgetmask, ssetmask,
    // process state, clock tuning, futex2
    restart_syscall, adjtimex, clock_adjtime, clock_adjtime64, futex_wait, futex_wake,
    futex_requeue,
    // NUMA policy, protection keys and other memory calls
    mbind, get_mempolicy, set_mempolicy, set_mempolicy_home_node, migrate_pages, move_pages,
    remap_file_pages, cachestat, map_shadow_stack, pkey_alloc, pkey_free, pkey_mprotect,
    // arch-specific: riscv64, s390x, MIPS, x86
    riscv_flush_icache, riscv_hwprobe, s390_runtime_instr, s390_guarded_storage, s390_sthyi, sysmips,
    modify_ldt,
}

/// The generic name for an arch table's spelling of a call: the `syscalls` crate names
/// asm-generic number 79 `fstatat`, which is the call x86_64 names `newfstatat` (both take a
/// `struct stat`; see include/uapi/asm-generic/unistd.h `__NR3264_fstatat`).
fn canonical_name(name: &str) -> &str {
    match name {
        "fstatat" => "newfstatat",
        other => other,
    }
}

/// One guest architecture's numbering: arch number -> [`Sys`], and the kernel name of every
/// number the arch defines (so an unknown call can still be named under `--strace`).
pub struct NumberTable {
    by_nr: Vec<Option<Sys>>,
    names: Vec<Option<&'static str>>,
    nr_of: HashMap<Sys, u64>,
}

impl NumberTable {
    /// Builds a table from `(number, kernel name)` pairs, e.g. from
    /// `syscalls::aarch64::Sysno::iter()`.
    pub fn new(entries: impl Iterator<Item = (u64, &'static str)>) -> Self {
        let mut by_nr = Vec::new();
        let mut names = Vec::new();
        let mut nr_of = HashMap::new();
        for (nr, name) in entries {
            let Ok(idx) = usize::try_from(nr) else { continue };
            if idx >= by_nr.len() {
                by_nr.resize(idx + 1, None);
                names.resize(idx + 1, None);
            }
            let sys = Sys::from_name(canonical_name(name));
            by_nr[idx] = sys;
            names[idx] = Some(name);
            if let Some(sys) = sys {
                nr_of.insert(sys, nr);
            }
        }
        NumberTable { by_nr, names, nr_of }
    }

    /// The generic call for arch number `nr`, if endgate knows it.
    #[inline]
    pub fn lookup(&self, nr: u64) -> Option<Sys> {
        usize::try_from(nr).ok().and_then(|i| self.by_nr.get(i).copied().flatten())
    }

    /// The kernel's name for arch number `nr`, known or not to endgate.
    pub fn name_of(&self, nr: u64) -> Option<&'static str> {
        usize::try_from(nr).ok().and_then(|i| self.names.get(i).copied().flatten())
    }

    /// Every number the arch defines, with its kernel name, in number order.
    pub fn entries(&self) -> impl Iterator<Item = (u64, &'static str)> + '_ {
        self.names.iter().enumerate().filter_map(|(i, n)| n.map(|n| (i as u64, n)))
    }

    /// This arch's number for `sys`, if the arch has the call.
    pub fn number_of(&self, sys: Sys) -> Option<u64> {
        self.nr_of.get(&sys).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &s in Sys::ALL {
            assert_eq!(Sys::from_name(s.name()), Some(s));
        }
    }

    #[test]
    fn arch_tables_use_kernel_numbers() {
        let x = NumberTable::new(syscalls::x86_64::Sysno::iter().map(|s| (u64::try_from(s.id()).unwrap(), s.name())));
        let a = NumberTable::new(syscalls::aarch64::Sysno::iter().map(|s| (u64::try_from(s.id()).unwrap(), s.name())));
        // Numbers from arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h.
        assert_eq!(x.lookup(257), Some(Sys::openat));
        assert_eq!(x.lookup(39), Some(Sys::getpid));
        assert_eq!(x.lookup(158), Some(Sys::arch_prctl));
        assert_eq!(a.lookup(56), Some(Sys::openat));
        assert_eq!(a.lookup(79), Some(Sys::newfstatat));
        assert_eq!(a.lookup(172), Some(Sys::getpid));
        assert_eq!(a.number_of(Sys::open), None);
    }
}
