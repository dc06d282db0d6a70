//! The system calls endgate has no handler for, each answered on purpose: every number of
//! every guest arch's table is either a row of the dispatch table or named here, with the
//! errno the guest gets and why (`emulator/tests/syscall_matrix.rs` checks this, and writes
//! the matrix in `docs/syscalls.md` from it). Names are the kernel's, as the `syscalls` crate
//! spells them in each arch's table.
//!
//! Three kinds of answer:
//! - **Linux's own `ENOSYS`**: calls the kernel removed or never implemented for user space
//!   (`sys_ni_syscall`), or whose feature this kernel configuration and CPU lack;
//! - **refused with `EPERM`**: calls that would change the host itself (modules, reboot,
//!   swap, the clock, mounts of the host, host names): a guest never does, whatever its
//!   privileges, which is what Linux answers a process without the capability;
//! - **not served yet (`ENOSYS`)**: calls Linux serves and endgate does not, yet.

use syscalls::Errno;

/// How endgate answers a call it has no handler for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Linux itself answers `ENOSYS` (removed, never implemented, or a feature absent here).
    LinuxEnosys,
    /// Refused: it would change the host.
    Refused,
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
    g(LinuxEnosys, Errno::ENOSYS, "numbered but never implemented: i386's ulimit (libc's ulimit(3) uses getrlimit); the 64-bit s390 kernel's readdir (only its 31-bit compat table has old_readdir)", &[
        "ulimit", "readdir",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "a 64-bit kernel has no vm86 mode for 32-bit tasks", &[
        "vm86", "vm86old",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "memfd_secret needs secretmem.enable on the kernel command line", &[
        "memfd_secret",
    ]),
    g(Refused, Errno::EPERM, "would change the host's kernel or machine (modules, kexec, reboot, swap, accounting, quotas, I/O ports, PCI)", &[
        "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
        "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "ioperm", "iopl", "vhangup",
        "pciconfig_iobase", "pciconfig_read", "pciconfig_write", "s390_pci_mmio_read",
        "s390_pci_mmio_write",
    ]),
    // adjtimex, clock_adjtime and clock_adjtime64 are served for what any process may do
    // (reading, modes 0 and ADJ_OFFSET_SS_READ); a mode that would change a clock gets the
    // same EPERM from their handler (syscall/time.rs), after the clock's own errors.
    g(Refused, Errno::EPERM, "would set the host's clock or names", &[
        "settimeofday", "stime", "clock_settime", "clock_settime64", "sethostname",
        "setdomainname",
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
    g(NotYet, Errno::ENOSYS, "mounts, namespaces and the root directory (passed to the host where it allows, later)", &[
        "mount", "umount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen",
        "fsmount", "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr", "listmount",
        "statmount",
    ]),
    g(NotYet, Errno::ENOSYS, "keys, security modules, seccomp, landlock, BPF and perf", &[
        "add_key", "request_key", "keyctl", "lsm_get_self_attr", "lsm_set_self_attr", "seccomp",
        "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self", "bpf",
        "perf_event_open",
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
