//! The system calls endgate has no handler for, each answered on purpose: every number of
//! every guest arch's table is either a row of the dispatch table or named here, with the
//! errno the guest gets and why (`emulator/tests/syscall_matrix.rs` checks this, and writes
//! the matrix in `docs/syscalls.md` from it). Names are the kernel's, as the `syscalls` crate
//! spells them in each arch's table.
//!
//! Four kinds of answer:
//! - **Linux's own `ENOSYS`**: calls the kernel removed or never implemented for user space
//!   (`sys_ni_syscall`), or whose feature this kernel configuration and CPU lack;
//! - **refused with `EPERM`**: calls that would change the host itself (modules, reboot,
//!   swap, the clock, host names): a guest never does, whatever its privileges, which is
//!   what Linux answers a process without the capability;
//! - **as a kernel without the feature**: calls whose host service would act on endgate
//!   rather than the guest (Landlock, BPF, perf events), answered as Linux answers where its
//!   configuration lacks the feature, with the reason;
//! - **not served yet (`ENOSYS`)**: calls Linux serves and endgate does not, yet.

use syscalls::Errno;

/// How endgate answers a call it has no handler for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Linux itself answers `ENOSYS` (removed, never implemented, or a feature absent here).
    LinuxEnosys,
    /// Refused: it would change the host.
    Refused,
    /// Answered as Linux answers on a kernel configured without the feature (that
    /// configuration's errno), because serving it would measure or bind endgate itself
    /// rather than the guest; the reason says how.
    Absent,
    /// Linux serves it; endgate does not yet.
    NotYet,
}

/// One group of calls answered alike.
pub struct Group {
    /// How.
    pub kind: Kind,
    /// The errno the guest gets.
    pub errno: Errno,
    /// Why, in one line.
    pub reason: &'static str,
    /// The calls, by kernel name.
    pub names: &'static [&'static str],
}

const fn g(kind: Kind, errno: Errno, reason: &'static str, names: &'static [&'static str]) -> Group {
    Group { kind, errno, reason, names }
}

use Kind::*;

/// Every call without a handler, grouped by answer.
#[rustfmt::skip]
pub static GROUPS: &[Group] = &[
    g(LinuxEnosys, Errno::ENOSYS, "removed from Linux or never implemented (sys_ni_syscall)", &[
        "_sysctl", "afs_syscall", "bdflush", "create_module", "get_kernel_syms", "query_module",
        "nfsservctl", "getpmsg", "putpmsg", "security", "tuxcall", "vserver", "lock", "mpx",
        "prof", "profil", "ftime", "gtty", "stty", "r#break", "idle", "uselib", "epoll_ctl_old",
        "epoll_wait_old", "lookup_dcookie", "reserved177", "reserved193", "timerfd", "sysfs",
        "ustat",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "a 64-bit kernel has no vm86 mode for 32-bit tasks", &[
        "vm86", "vm86old",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "memfd_secret needs secretmem.enable on the kernel command line", &[
        "memfd_secret",
    ]),
    g(Absent, Errno::EOPNOTSUPP, "Landlock, as on a kernel booted without it in lsm=: a guest's domain would bind endgate, which must exec its own binary (execute right on endgate's path) and read the programs it runs (read right, where the guest grants execute), so exec under a domain would fail where Linux succeeds", &[
        "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
    ]),
    g(Absent, Errno::ENOSYS, "BPF, as on a kernel built without CONFIG_BPF_SYSCALL: programs would run in the host kernel on endgate's host calls and structures, not the guest's, and a big-endian guest's bytecode and bpf_attr are the other byte order", &[
        "bpf",
    ]),
    g(Absent, Errno::ENOSYS, "perf events, as on a kernel built without CONFIG_PERF_EVENTS: counters and samples would measure endgate's translator and host calls, not the guest's instructions", &[
        "perf_event_open",
    ]),
    g(Refused, Errno::EPERM, "would change the host's kernel or machine (modules, kexec, reboot, swap, accounting, quotas, I/O ports, PCI)", &[
        "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
        "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "ioperm", "iopl", "vhangup",
        "pciconfig_iobase", "pciconfig_read", "pciconfig_write", "s390_pci_mmio_read",
        "s390_pci_mmio_write",
    ]),
    g(Refused, Errno::EPERM, "would set the host's clock", &[
        "settimeofday", "stime", "clock_settime", "clock_settime64", "clock_adjtime",
        "clock_adjtime64",
    ]),
    g(NotYet, Errno::ENOSYS, "asynchronous I/O (libaio; io_uring)", &[
        "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
        "io_pgetevents_time64", "io_uring_setup", "io_uring_enter", "io_uring_register",
    ]),
    g(NotYet, Errno::ENOSYS, "process memory and ptrace", &[
        "process_vm_readv", "process_vm_writev", "process_madvise", "process_mrelease", "ptrace",
    ]),
    g(NotYet, Errno::ENOSYS, "fanotify", &[
        "fanotify_init", "fanotify_mark",
    ]),
    g(NotYet, Errno::ENOSYS, "memory locking, NUMA policy and page moves", &[
        "mbind", "get_mempolicy", "set_mempolicy",
        "set_mempolicy_home_node", "migrate_pages", "move_pages", "remap_file_pages",
        "userfaultfd", "cachestat", "map_shadow_stack", "pkey_alloc", "pkey_free",
        "pkey_mprotect",
    ]),
    g(NotYet, Errno::ENOSYS, "message batches and newer polling and futex calls", &[
        "futex_wait",
        "futex_wake", "futex_requeue",
    ]),
    g(NotYet, Errno::ENOSYS, "kernel keyrings", &[
        "add_key", "request_key", "keyctl",
    ]),
    g(NotYet, Errno::ENOSYS, "process state: rseq, robust lists, clock tuning", &[
        "rseq", "get_robust_list", "restart_syscall", "adjtimex",
    ]),
    g(NotYet, Errno::ENOSYS, "old forms of calls 32-bit libcs no longer make", &[
        "oldstat", "oldlstat", "oldfstat", "olduname", "oldolduname", "readdir", "waitpid",
        "signal", "sigaction", "sigpending", "sigprocmask", "sigsuspend", "sgetmask", "ssetmask",
        "ulimit",
    ]),
    g(NotYet, Errno::ENOSYS, "arch-specific calls not emulated yet", &[
        "modify_ldt", "get_thread_area", "set_thread_area", "cachectl", "sysmips",
        "riscv_flush_icache", "riscv_hwprobe", "s390_runtime_instr", "s390_guarded_storage",
        "s390_sthyi",
    ]),
];

/// The group `name` belongs to, if any.
pub fn group_of(name: &str) -> Option<&'static Group> {
    GROUPS.iter().find(|g| g.names.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_name_twice() {
        let mut seen = std::collections::HashSet::new();
        for g in GROUPS {
            for n in g.names {
                assert!(seen.insert(*n), "{n} is in two groups");
            }
        }
    }
}
