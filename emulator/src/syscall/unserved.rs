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
    g(LinuxEnosys, Errno::ENOSYS, "numbered but never implemented: i386's ulimit (libc's ulimit(3) uses getrlimit); the 64-bit s390 kernel's readdir (only its 31-bit compat table has old_readdir)", &[
        "ulimit", "readdir",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "a 64-bit kernel has no vm86 mode for 32-bit tasks", &[
        "vm86", "vm86old",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "memfd_secret needs secretmem.enable on the kernel command line", &[
        "memfd_secret",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "no user shadow stacks in this arch's Linux (x86_64 and aarch64 serve map_shadow_stack)", &[
        "map_shadow_stack",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "MIPS cachectl: \"not implemented yet\" in Linux itself (arch/mips/kernel/syscall.c)", &[
        "cachectl",
    ]),
    g(LinuxEnosys, Errno::ENOSYS, "x86_64's table keeps numbers 205 and 211 for the i386 TLS calls, as sys_ni_syscall (arch/x86/entry/syscalls/syscall_64.tbl)", &[
        "get_thread_area", "set_thread_area",
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
    // adjtimex, clock_adjtime and clock_adjtime64 are served for what any process may do
    // (reading, modes 0 and ADJ_OFFSET_SS_READ); a mode that would change a clock gets the
    // same EPERM from their handler (syscall/time.rs), after the clock's own errors.
    g(Refused, Errno::EPERM, "would set the host's clock", &[
        "settimeofday", "stime", "clock_settime", "clock_settime64",
    ]),
    g(NotYet, Errno::ENOSYS, "asynchronous I/O through io_uring", &[
        "io_uring_setup", "io_uring_enter", "io_uring_register",
    ]),
    g(NotYet, Errno::ENOSYS, "ptrace", &[
        "ptrace",
    ]),
    // userfaultfd: endgate owns the guest's page faults. A guest page is host memory that
    // unicorn's TLB reaches from inside a translated instruction, with the guest lock held; a
    // fault a host userfaultfd caught there would stop the host thread inside unicorn until
    // another guest thread answered it with UFFDIO_COPY, and that thread needs the lock to run:
    // a deadlock, and a lone thread would wait for itself. Serving it means endgate's TLB fill
    // hook reporting missing pages as events and completing the faulting instruction itself;
    // answering EPERM (vm.unprivileged_userfaultfd=0) would be untrue for a guest with
    // CAP_SYS_PTRACE or asking UFFD_USER_MODE_ONLY, which Linux serves.
    g(NotYet, Errno::ENOSYS, "userfaultfd (guest page faults are endgate's, inside the engine)", &[
        "userfaultfd",
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
