//! `--strace`: one line per guest system call on stderr (in the `-D` file when one is given,
//! as qemu-user's `-strace` writes to its log), in strace(1)'s format:
//! `openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3`, errors as
//! `= -1 ENOENT (No such file or directory)`.
//!
//! Each table row ([`crate::syscall::SyscallDef`]) says how to print its arguments
//! ([`ArgFmt`]) and result ([`RetFmt`]). Inputs are printed as they were at entry; output buffers
//! (`read`'s data) are printed at exit, limited to the length the call returned.

use std::fmt::Write as _;

use syscalls::Errno;

use crate::abi::nr::Sys;
use crate::abi::{int32, low32, signed64};
use crate::guest::{SyscallArgs, Task};
use crate::mm::{GuestAddr, Prot};
use crate::syscall::SyscallDef;

/// How one argument is printed.
#[derive(Clone, Copy, Debug)]
pub enum ArgFmt {
    /// C `int`, decimal.
    Int,
    /// C `long`, decimal.
    Long,
    /// `size_t`/`unsigned long`, decimal.
    ULong,
    /// Hexadecimal.
    Hex,
    /// A pointer: `NULL` or hex.
    Ptr,
    /// A file descriptor.
    Fd,
    /// A directory fd for `*at` calls: `AT_FDCWD` or a number.
    AtFd,
    /// A NUL-terminated string (a path).
    Str,
    /// An input buffer whose length is argument `n`.
    BufIn(u8),
    /// An output buffer whose length is the call's result.
    BufOut,
    /// `open` flags, symbolic.
    OpenFlags,
    /// A mode, octal (`0644`).
    Mode,
    /// `open`'s mode: printed only when the flags in argument `n` create a file (O_CREAT or
    /// O_TMPFILE), as strace does.
    OpenMode(u8),
    /// `access` mode: `F_OK` or `R_OK|W_OK|X_OK`.
    AccessMode,
    /// `AT_*` flags, symbolic.
    AtFlags,
    /// `PROT_*`, symbolic.
    Prot,
    /// `MAP_*`, symbolic.
    MmapFlags,
    /// A signal number, symbolic.
    Signal,
    /// A clock id, symbolic.
    ClockId,
    /// `lseek` whence.
    Whence,
    /// An `ioctl` request: its name where endgate knows it (`super::ioctl::IOCTLS`).
    IoctlReq,
    /// The old `mmap`'s one argument (i386 and s390x number 90): a pointer to `struct
    /// mmap_arg_struct`, six guest `unsigned long`s, printed as `mmap`'s six arguments, as
    /// strace prints them (the pointer if the block is unreadable).
    MmapArgBlock,
    /// An `fcntl` command, symbolic (`F_SETFL`); the arch's numbering.
    FcntlCmd,
    /// `wait4`/`waitid` options, symbolic (`WNOHANG|__WALL`).
    WaitOptions,
    /// `rt_sigprocmask`'s `how`: `SIG_BLOCK`, `SIG_UNBLOCK`, `SIG_SETMASK` (the arch's values).
    SigmaskHow,
    /// A `prctl` option, symbolic (`PR_SET_NAME`).
    PrctlOption,
    /// `clone`'s argument `n`: its flags, symbolic with the exit signal
    /// (`CLONE_CHILD_SETTID|SIGCHLD`), where the arch passes them there
    /// ([`crate::guest::ArchInfo::clone_args`]: first, or second on s390x); hexadecimal otherwise.
    CloneArg(u8),
    /// `fcntl`'s third argument as argument 1's command reads it: open flags for `F_SETFL`,
    /// `FD_CLOEXEC` for `F_SETFD`, a number for `F_DUPFD*` and `F_SETOWN`, a signal for
    /// `F_SETSIG`, a pointer otherwise; left out for the commands that take none (`F_GETFL`),
    /// as strace prints them.
    FcntlArg,
    /// `futex`'s operation, symbolic (`FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME`); the
    /// arguments after it are printed as the operation uses them ([`futex_args`]).
    FutexOp,
    /// `madvise`'s advice, symbolic (`MADV_DONTNEED`).
    Madvice,
    /// A resource of `getrlimit`/`setrlimit`/`prlimit64`, symbolic (`RLIMIT_NOFILE`; MIPS
    /// numbers some differently).
    Rlimit,
    /// x86's `arch_prctl` code, symbolic (`ARCH_SET_FS`).
    ArchPrctlCode,
    /// `getrandom`'s flags, symbolic (`GRND_NONBLOCK`).
    GrndFlags,
    /// `mremap`'s flags, symbolic (`MREMAP_MAYMOVE`).
    MremapFlags,
    /// `mremap`'s new address: printed only when argument 3 has `MREMAP_FIXED`, as strace
    /// prints it.
    MremapAddr,
    /// A pointer to a guest `sigset_t` the call reads: the set (`[INT TERM]`, `~[KILL STOP]`),
    /// `NULL`, or the pointer where it cannot be read.
    SigsetIn,
    /// A pointer to a `sigset_t` the call fills: the set at exit when the call succeeded, else
    /// the pointer.
    SigsetOut,
}

/// How the result is printed.
#[derive(Clone, Copy, Debug)]
pub enum RetFmt {
    /// Decimal.
    Int,
    /// Hexadecimal (addresses).
    Hex,
    /// `fcntl`'s: decoded for the commands whose answer is a set of flags (`F_GETFL`,
    /// `F_GETFD`), as strace prints it (`0x8002 (flags O_RDWR|O_LARGEFILE)`); decimal otherwise.
    Fcntl,
}

/// Formats what can be formatted at entry, as (argument index, text); a `None` text marks an
/// output buffer filled in at exit. Arguments strace omits (a mode without O_CREAT) are left out.
pub fn format_entry(task: &Task, def: Option<&SyscallDef>, a: &SyscallArgs) -> Vec<(usize, Option<String>)> {
    let Some(def) = def else {
        let name = (task.arch.info().numbers)().name_of(a.nr);
        return match name.and_then(unserved_args) {
            Some(fmts) => fmts.iter().enumerate().map(|(i, f)| (i, Some(format_arg(task, *f, a.raw(i), a)))).collect(),
            // strace's form for a call it has no signature for: all six registers, `%#lx`.
            None => unknown_args(&a.a).into_iter().enumerate().map(|(i, s)| (i, Some(s))).collect(),
        };
    };
    if matches!(def.args.get(1), Some(ArgFmt::FutexOp)) {
        return futex_args(task, a);
    }
    def.args
        .iter()
        .enumerate()
        .filter(|(_, f)| match f {
            ArgFmt::OpenMode(n) => {
                let flags = (task.arch.info().open_flags_to_host)(a.raw(*n as usize));
                flags & libc::O_CREAT != 0 || flags & libc::O_TMPFILE == libc::O_TMPFILE
            }
            ArgFmt::FcntlArg => !fcntl_takes_no_arg(fcntl_cmd(task, a.raw(1))),
            ArgFmt::MremapAddr => a.raw(3) & 2 != 0,
            _ => true,
        })
        .map(|(i, f)| match f {
            ArgFmt::BufOut => (i, None),
            ArgFmt::SigsetOut if a.raw(i) != 0 => (i, None),
            f => (i, Some(format_arg(task, *f, a.raw(i), a))),
        })
        .collect()
}

/// The name a line starts with: the call's, or strace's `syscall_0x3e7` for a number without
/// one (`name` empty).
fn call_name(name: &str, nr: u64) -> std::borrow::Cow<'_, str> {
    if name.is_empty() {
        format!("syscall_{nr:#x}").into()
    } else {
        name.into()
    }
}

/// The arguments of a call strace has no signature for: all six registers in `%#lx`.
fn unknown_args(regs: &[u64; 6]) -> Vec<String> {
    regs.iter().map(|&v| hex0(v)).collect()
}

/// C's `%#lx`: `0` for zero, 0x-prefixed otherwise.
fn hex0(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

/// The arguments of calls endgate has no handler for (`super::unserved`) but strace knows,
/// as their kernel prototypes give them (include/linux/syscalls.h); the others print as an
/// unknown call's six.
fn unserved_args(name: &str) -> Option<&'static [ArgFmt]> {
    use ArgFmt::*;
    Some(match name {
        "io_uring_setup" => &[ULong, Ptr],
        "io_uring_enter" => &[Fd, ULong, ULong, Hex, Ptr, ULong],
        "io_uring_register" => &[Fd, ULong, Ptr, ULong],
        "ptrace" => &[Long, Int, Ptr, Ptr],
        "userfaultfd" | "memfd_secret" => &[Hex],
        "bpf" => &[Int, Ptr, ULong],
        "perf_event_open" => &[Ptr, Int, Int, Fd, Hex],
        "landlock_create_ruleset" => &[Ptr, ULong, Hex],
        "landlock_add_rule" => &[Fd, Int, Ptr, Hex],
        "landlock_restrict_self" => &[Fd, Hex],
        "init_module" => &[Ptr, ULong, Str],
        "finit_module" => &[Fd, Str, Hex],
        "delete_module" => &[Str, Hex],
        "swapon" => &[Str, Hex],
        "swapoff" | "acct" => &[Str],
        "reboot" => &[Hex, Hex, Hex, Ptr],
        "settimeofday" => &[Ptr, Ptr],
        "clock_settime" | "clock_settime64" => &[Int, Ptr],
        "vhangup" => &[],
        _ => return None,
    })
}

/// Prints the whole line once the call has returned. `exiting` prints ` = ?` as strace does
/// for calls that do not return.
pub fn print_line(
    task: &Task,
    def: Option<&SyscallDef>,
    a: &SyscallArgs,
    pre: &[(usize, Option<String>)],
    ret: u64,
    exiting: bool,
) {
    let line = format_line(task, def, a, pre, ret, exiting);
    crate::tlog!("{line}");
}

/// The line [`print_line`] prints.
pub fn format_line(
    task: &Task,
    def: Option<&SyscallDef>,
    a: &SyscallArgs,
    pre: &[(usize, Option<String>)],
    ret: u64,
    exiting: bool,
) -> String {
    let name = match def {
        Some(d) => d.sys.name(),
        None => (task.arch.info().numbers)().name_of(a.nr).unwrap_or(""),
    };
    let mut line = String::with_capacity(96);
    let _ = write!(line, "{}(", call_name(name, a.nr));
    for (n, (i, p)) in pre.iter().enumerate() {
        let i = *i;
        if n > 0 {
            line.push_str(", ");
        }
        match p {
            Some(s) => line.push_str(s),
            None => {
                let ok = signed64(ret) >= 0;
                let sigset = matches!(def.and_then(|d| d.args.get(i)), Some(ArgFmt::SigsetOut));
                if ok && sigset {
                    line.push_str(&sigset_at(task, a.raw(i)));
                } else if ok {
                    line.push_str(&buffer(task, a.ptr(i), ret));
                } else {
                    let _ = write!(line, "{:#x}", a.raw(i));
                }
            }
        }
    }
    line.push_str(") = ");
    if exiting {
        line.push('?');
    } else {
        let r = signed64(ret);
        let eintr = r == -i64::from(Errno::EINTR.into_raw());
        if let Some(code) = restart_text(r) {
            // A call undone for a signal, to run again after it, or a restart code that
            // rt_sigreturn gives back (strace's own words).
            let _ = write!(line, "? {code}");
        } else if let Some(code) =
            def.filter(|_| eintr && task.interrupted.is_some()).and_then(|d| restart_code(task, d.sys, a))
        {
            // A call a signal interrupted: the kernel's restart code for it, as strace shows.
            let _ = write!(line, "? {code}");
        } else if (-4095..0).contains(&r) {
            match Errno::new(int32(-r)).name() {
                Some(n) => {
                    // The host's strerror text is the one strace prints.
                    let d = std::io::Error::from_raw_os_error(int32(-r)).to_string();
                    let d = d.split(" (os error").next().unwrap_or(&d);
                    let _ = write!(line, "-1 {n} ({d})");
                }
                None => {
                    let _ = write!(line, "-1 (errno {})", -r);
                }
            }
        } else if matches!(def.map(|d| d.ret), Some(RetFmt::Hex)) {
            let _ = write!(line, "{ret:#x}");
        } else if matches!(def.map(|d| d.ret), Some(RetFmt::Fcntl)) && fcntl_cmd(task, a.raw(1)) == libc::F_GETFL {
            let host = (task.arch.info().open_flags_to_host)(ret);
            let _ = write!(line, "{ret:#x} (flags {})", open_flags(host));
        } else if matches!(def.map(|d| d.ret), Some(RetFmt::Fcntl)) && fcntl_cmd(task, a.raw(1)) == libc::F_GETFD {
            let _ = write!(line, "{ret:#x} (flags {})", flags(ret, &[(1, "FD_CLOEXEC")], "0"));
        } else {
            let _ = write!(line, "{r}");
        }
    }
    line
}

fn format_arg(task: &Task, f: ArgFmt, v: u64, a: &SyscallArgs) -> String {
    match f {
        ArgFmt::Int | ArgFmt::Fd => format!("{}", int32(v)),
        ArgFmt::Long => format!("{}", signed64(v)),
        ArgFmt::ULong => format!("{v}"),
        // C's %#x: "0" for zero, 0x-prefixed otherwise.
        ArgFmt::IoctlReq => super::ioctl::name_of(task, v).map_or_else(|| format!("{v:#x}"), str::to_string),
        ArgFmt::Hex if v == 0 => "0".into(),
        ArgFmt::Hex => format!("{v:#x}"),
        ArgFmt::Ptr | ArgFmt::BufOut | ArgFmt::MremapAddr | ArgFmt::SigsetOut => ptr(v),
        ArgFmt::SigsetIn => sigset_at(task, v),
        ArgFmt::AtFd => {
            if int32(v) == libc::AT_FDCWD {
                "AT_FDCWD".into()
            } else {
                format!("{}", int32(v))
            }
        }
        ArgFmt::Str => match task.mm.read_cstr(GuestAddr::new(v), 4096) {
            Ok(s) => quote(&s, 4096),
            Err(_) => ptr(v),
        },
        ArgFmt::BufIn(n) => buffer(task, GuestAddr::new(v), a.raw(n as usize)),
        ArgFmt::OpenFlags => open_flags((task.arch.info().open_flags_to_host)(v)),
        ArgFmt::Mode | ArgFmt::OpenMode(_) => format!("0{:o}", low32(v)),
        ArgFmt::AccessMode => {
            if v == 0 {
                "F_OK".into()
            } else {
                flags(v, &[(4, "R_OK"), (2, "W_OK"), (1, "X_OK")], "F_OK")
            }
        }
        ArgFmt::AtFlags => flags(
            v,
            &[
                (0x100, "AT_SYMLINK_NOFOLLOW"),
                (0x200, "AT_REMOVEDIR"),
                (0x400, "AT_SYMLINK_FOLLOW"),
                (0x800, "AT_NO_AUTOMOUNT"),
                (0x1000, "AT_EMPTY_PATH"),
            ],
            "0",
        ),
        ArgFmt::MmapArgBlock => {
            let long = if task.arch.info().is_64bit() { 8 } else { 4 };
            let mut w = [0u64; 6];
            for (i, x) in (0u64..).zip(w.iter_mut()) {
                match task.mm.read_ulong(GuestAddr::new(v.wrapping_add(i * long))) {
                    Ok(y) => *x = y,
                    Err(_) => return ptr(v),
                }
            }
            let fmts = [ArgFmt::Ptr, ArgFmt::ULong, ArgFmt::Prot, ArgFmt::MmapFlags, ArgFmt::Fd, ArgFmt::Hex];
            fmts.iter().zip(w).map(|(f, x)| format_arg(task, *f, x, a)).collect::<Vec<_>>().join(", ")
        }
        ArgFmt::Prot => flags(
            v,
            &[
                (1, "PROT_READ"),
                (2, "PROT_WRITE"),
                (4, "PROT_EXEC"),
                (task.arch.info().prot_sem, "PROT_SEM"),
                (0x0100_0000, "PROT_GROWSDOWN"),
                (0x0200_0000, "PROT_GROWSUP"),
            ],
            "PROT_NONE",
        ),
        ArgFmt::MmapFlags => {
            // The arch's values as asm-generic's (MIPS numbers them differently).
            let info = task.arch.info();
            let v = (info.mmap_flags_to_generic)(v);
            let kind = match v & 0xf {
                0 => "0".to_string(),
                1 => "MAP_SHARED".into(),
                2 => "MAP_PRIVATE".into(),
                3 => "MAP_SHARED_VALIDATE".into(),
                8 => "MAP_DROPPABLE".into(),
                k => format!("{k:#x}"),
            };
            // x86's own bits: MAP_32BIT 0x40, MAP_ABOVE4G 0x80 (arch/x86/include/uapi/asm/mman.h).
            let x86 = info.mmap_validate_flags & 0x40 != 0;
            let mut names = vec![(0x10, "MAP_FIXED"), (0x20, "MAP_ANONYMOUS")];
            if x86 {
                names.extend([(0x40, "MAP_32BIT"), (0x80, "MAP_ABOVE4G")]);
            }
            names.extend([
                (0x100, "MAP_GROWSDOWN"),
                (0x800, "MAP_DENYWRITE"),
                (0x1000, "MAP_EXECUTABLE"),
                (0x2000, "MAP_LOCKED"),
                (0x4000, "MAP_NORESERVE"),
                (0x8000, "MAP_POPULATE"),
                (0x1_0000, "MAP_NONBLOCK"),
                (0x2_0000, "MAP_STACK"),
                (0x4_0000, "MAP_HUGETLB"),
                (0x8_0000, "MAP_SYNC"),
                (0x10_0000, "MAP_FIXED_NOREPLACE"),
                (0x400_0000, "MAP_UNINITIALIZED"),
            ]);
            let mut rest = flags(v & !0xf & !(0x3f << 26), &names, "");
            // MAP_HUGE_* page sizes: log2 of the size in bits 26-31, as strace prints them.
            let huge = (v >> 26) & 0x3f;
            if huge != 0 && v & 0x4_0000 != 0 {
                let h = format!("{huge}<<MAP_HUGE_SHIFT");
                rest = if rest.is_empty() { h } else { format!("{rest}|{h}") };
            } else if huge != 0 {
                let h = flags(v & (0x3f << 26), &[(0x400_0000, "MAP_UNINITIALIZED")], "");
                rest = if rest.is_empty() { h } else { format!("{rest}|{h}") };
            }
            if rest.is_empty() {
                kind
            } else {
                format!("{kind}|{rest}")
            }
        }
        ArgFmt::FcntlCmd => {
            let c = fcntl_cmd(task, v);
            fcntl_name(c).map_or_else(|| format!("{}", int32(v)), Into::into)
        }
        ArgFmt::FcntlArg => match fcntl_cmd(task, a.raw(1)) {
            libc::F_SETFL => open_flags((task.arch.info().open_flags_to_host)(v)),
            libc::F_SETFD => flags(v, &[(1, "FD_CLOEXEC")], "0"),
            libc::F_DUPFD | libc::F_DUPFD_CLOEXEC | libc::F_SETOWN | libc::F_SETPIPE_SZ | libc::F_SETLEASE => {
                format!("{}", int32(v))
            }
            super::io::cmd::F_SETSIG => format_arg(task, ArgFmt::Signal, v, a),
            _ => ptr(v),
        },
        ArgFmt::WaitOptions => flags(
            u64::from(low32(v)),
            &[
                (1, "WNOHANG"),
                (2, "WUNTRACED"),
                (4, "WEXITED"),
                (8, "WCONTINUED"),
                (0x0100_0000, "WNOWAIT"),
                (0x2000_0000, "__WNOTHREAD"),
                (0x4000_0000, "__WALL"),
                (0x8000_0000, "__WCLONE"),
            ],
            "0",
        ),
        ArgFmt::SigmaskHow => match (task.arch.info().sigmask_how_to_generic)(v) {
            0 => "SIG_BLOCK".into(),
            1 => "SIG_UNBLOCK".into(),
            2 => "SIG_SETMASK".into(),
            _ => format!("{v:#x} /* SIG_??? */"),
        },
        ArgFmt::PrctlOption => prctl_option(u64::from(low32(v))),
        ArgFmt::CloneArg(n) => {
            // Where the arch's order puts the flags: decode a call whose arguments are their
            // own positions.
            let positions = SyscallArgs { a: [0, 1, 2, 3, 4, 5], ..SyscallArgs::default() };
            if (task.arch.info().clone_args)(&positions).flags == u64::from(n) {
                let sig = v & 0xff;
                let names = flags(v & !0xff, CLONE_FLAGS, "");
                let sig = (sig != 0).then(|| format_arg(task, ArgFmt::Signal, sig, a));
                match (names.is_empty(), sig) {
                    (true, None) => "0".into(),
                    (true, Some(s)) => s,
                    (false, None) => names,
                    (false, Some(s)) => format!("{names}|{s}"),
                }
            } else {
                format_arg(task, ArgFmt::Hex, v, a)
            }
        }
        ArgFmt::Signal => {
            let info = task.arch.info();
            match (info.signal_to_host)(v) {
                // The name of the guest's signal (MIPS numbers them differently).
                Some(s) => s.to_string(),
                None => match info.guest_only_signals.iter().find(|(n, _)| *n == v) {
                    Some((_, name)) => (*name).into(),
                    None => format!("{}", int32(v)),
                },
            }
        }
        ArgFmt::ClockId => match v {
            0 => "CLOCK_REALTIME".into(),
            1 => "CLOCK_MONOTONIC".into(),
            2 => "CLOCK_PROCESS_CPUTIME_ID".into(),
            3 => "CLOCK_THREAD_CPUTIME_ID".into(),
            4 => "CLOCK_MONOTONIC_RAW".into(),
            5 => "CLOCK_REALTIME_COARSE".into(),
            6 => "CLOCK_MONOTONIC_COARSE".into(),
            7 => "CLOCK_BOOTTIME".into(),
            _ => format!("{}", int32(v)),
        },
        ArgFmt::FutexOp => futex_op(v),
        ArgFmt::Madvice => named(v, MADVICES, "MADV"),
        ArgFmt::Rlimit => {
            let host = (task.arch.info().rlimit_resource_to_host)(int32(v));
            u64::try_from(host).ok().and_then(|r| lookup(r, RLIMITS)).map_or_else(|| unknown(v, "RLIMIT"), Into::into)
        }
        ArgFmt::ArchPrctlCode => named(v, ARCH_PRCTL_CODES, "ARCH"),
        ArgFmt::GrndFlags => known_flags(v, &[(1, "GRND_NONBLOCK"), (2, "GRND_RANDOM"), (4, "GRND_INSECURE")], "GRND"),
        ArgFmt::MremapFlags => {
            known_flags(v, &[(1, "MREMAP_MAYMOVE"), (2, "MREMAP_FIXED"), (4, "MREMAP_DONTUNMAP")], "MREMAP")
        }
        ArgFmt::Whence => match v {
            0 => "SEEK_SET".into(),
            1 => "SEEK_CUR".into(),
            2 => "SEEK_END".into(),
            3 => "SEEK_DATA".into(),
            4 => "SEEK_HOLE".into(),
            _ => format!("{v}"),
        },
    }
}

fn ptr(v: u64) -> String {
    if v == 0 {
        "NULL".into()
    } else {
        format!("{v:#x}")
    }
}

/// At most this many bytes of a buffer are shown, as strace's default `-s 32`.
const SHOW: usize = 32;

fn buffer(task: &Task, addr: GuestAddr, len: u64) -> String {
    let n = usize::try_from(len).unwrap_or(usize::MAX).min(SHOW);
    // Readable only, as strace's own process_vm_readv: a PROT_NONE page shows its address (and
    // may be PROT_NONE on the host, mm::AddressSpace::host_prot).
    match task.mm.host_range(addr, n as u64, Prot::READ) {
        Ok(p) => {
            // SAFETY: `n` bytes at `p` are mapped readable (checked just above).
            let bytes = unsafe { std::slice::from_raw_parts(p, n) };
            let mut s = quote(bytes, SHOW);
            if crate::abi::u64_to_usize(len) > n {
                s.push_str("...");
            }
            s
        }
        Err(_) => ptr(addr.get()),
    }
}

/// Quotes bytes as strace does: C escapes for control characters, octal for the rest.
pub fn quote(bytes: &[u8], max: usize) -> String {
    let mut s = String::with_capacity(bytes.len().min(max) + 2);
    s.push('"');
    for &b in bytes.iter().take(max) {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x0b => s.push_str("\\v"),
            0x0c => s.push_str("\\f"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{b:o}");
            }
        }
    }
    s.push('"');
    s
}

/// `clone`'s flags above the exit signal's byte (include/uapi/linux/sched.h).
const CLONE_FLAGS: &[(u64, &str)] = &[
    (0x100, "CLONE_VM"),
    (0x200, "CLONE_FS"),
    (0x400, "CLONE_FILES"),
    (0x800, "CLONE_SIGHAND"),
    (0x1000, "CLONE_PIDFD"),
    (0x2000, "CLONE_PTRACE"),
    (0x4000, "CLONE_VFORK"),
    (0x8000, "CLONE_PARENT"),
    (0x1_0000, "CLONE_THREAD"),
    (0x2_0000, "CLONE_NEWNS"),
    (0x4_0000, "CLONE_SYSVSEM"),
    (0x8_0000, "CLONE_SETTLS"),
    (0x10_0000, "CLONE_PARENT_SETTID"),
    (0x20_0000, "CLONE_CHILD_CLEARTID"),
    (0x40_0000, "CLONE_DETACHED"),
    (0x80_0000, "CLONE_UNTRACED"),
    (0x100_0000, "CLONE_CHILD_SETTID"),
    (0x200_0000, "CLONE_NEWCGROUP"),
    (0x400_0000, "CLONE_NEWUTS"),
    (0x800_0000, "CLONE_NEWIPC"),
    (0x1000_0000, "CLONE_NEWUSER"),
    (0x2000_0000, "CLONE_NEWPID"),
    (0x4000_0000, "CLONE_NEWNET"),
    (0x8000_0000, "CLONE_IO"),
];

/// A `prctl` option by name (include/uapi/linux/prctl.h), or as strace prints one it does not
/// know: hexadecimal with `PR_???`.
fn prctl_option(v: u64) -> String {
    const NAMES: &[(u64, &str)] = &[
        (1, "PR_SET_PDEATHSIG"),
        (2, "PR_GET_PDEATHSIG"),
        (3, "PR_GET_DUMPABLE"),
        (4, "PR_SET_DUMPABLE"),
        (5, "PR_GET_UNALIGN"),
        (6, "PR_SET_UNALIGN"),
        (7, "PR_GET_KEEPCAPS"),
        (8, "PR_SET_KEEPCAPS"),
        (9, "PR_GET_FPEMU"),
        (10, "PR_SET_FPEMU"),
        (11, "PR_GET_FPEXC"),
        (12, "PR_SET_FPEXC"),
        (13, "PR_GET_TIMING"),
        (14, "PR_SET_TIMING"),
        (15, "PR_SET_NAME"),
        (16, "PR_GET_NAME"),
        (19, "PR_GET_ENDIAN"),
        (20, "PR_SET_ENDIAN"),
        (21, "PR_GET_SECCOMP"),
        (22, "PR_SET_SECCOMP"),
        (23, "PR_CAPBSET_READ"),
        (24, "PR_CAPBSET_DROP"),
        (25, "PR_GET_TSC"),
        (26, "PR_SET_TSC"),
        (27, "PR_GET_SECUREBITS"),
        (28, "PR_SET_SECUREBITS"),
        (29, "PR_SET_TIMERSLACK"),
        (30, "PR_GET_TIMERSLACK"),
        (31, "PR_TASK_PERF_EVENTS_DISABLE"),
        (32, "PR_TASK_PERF_EVENTS_ENABLE"),
        (33, "PR_MCE_KILL"),
        (34, "PR_MCE_KILL_GET"),
        (35, "PR_SET_MM"),
        (36, "PR_SET_CHILD_SUBREAPER"),
        (37, "PR_GET_CHILD_SUBREAPER"),
        (38, "PR_SET_NO_NEW_PRIVS"),
        (39, "PR_GET_NO_NEW_PRIVS"),
        (40, "PR_GET_TID_ADDRESS"),
        (41, "PR_SET_THP_DISABLE"),
        (42, "PR_GET_THP_DISABLE"),
        (43, "PR_MPX_ENABLE_MANAGEMENT"),
        (44, "PR_MPX_DISABLE_MANAGEMENT"),
        (45, "PR_SET_FP_MODE"),
        (46, "PR_GET_FP_MODE"),
        (47, "PR_CAP_AMBIENT"),
        (50, "PR_SVE_SET_VL"),
        (51, "PR_SVE_GET_VL"),
        (52, "PR_GET_SPECULATION_CTRL"),
        (53, "PR_SET_SPECULATION_CTRL"),
        (54, "PR_PAC_RESET_KEYS"),
        (55, "PR_SET_TAGGED_ADDR_CTRL"),
        (56, "PR_GET_TAGGED_ADDR_CTRL"),
        (57, "PR_SET_IO_FLUSHER"),
        (58, "PR_GET_IO_FLUSHER"),
        (59, "PR_SET_SYSCALL_USER_DISPATCH"),
        (60, "PR_PAC_SET_ENABLED_KEYS"),
        (61, "PR_PAC_GET_ENABLED_KEYS"),
        (62, "PR_SCHED_CORE"),
        (63, "PR_SME_SET_VL"),
        (64, "PR_SME_GET_VL"),
        (0x5356_4d41, "PR_SET_VMA"),
        (0x5961_6d61, "PR_SET_PTRACER"),
    ];
    NAMES.iter().find(|(n, _)| *n == v).map_or_else(|| format!("{v:#x} /* PR_??? */"), |(_, name)| (*name).into())
}

/// The guest signal set at `addr` as strace prints one; `NULL`, or the pointer when it cannot
/// be read.
fn sigset_at(task: &Task, addr: u64) -> String {
    if addr == 0 {
        return "NULL".into();
    }
    task.arch.read_sigset(&task.mm, GuestAddr::new(addr)).map_or_else(|_| ptr(addr), sigset)
}

/// strace's form of a number its table lacks: `0x4d /* MADV_??? */`.
fn unknown(v: u64, prefix: &str) -> String {
    format!("{v:#x} /* {prefix}_??? */")
}

fn lookup(v: u64, names: &[(u64, &'static str)]) -> Option<&'static str> {
    names.iter().find(|(n, _)| *n == v).map(|(_, name)| *name)
}

/// `v`'s name in `names`, or strace's form for a number without one.
fn named(v: u64, names: &[(u64, &'static str)], prefix: &str) -> String {
    lookup(v, names).map_or_else(|| unknown(v, prefix), Into::into)
}

/// Flags as [`flags`] prints them, `0` for none, but strace's `0x8 /* GRND_??? */` when no
/// bit has a name.
fn known_flags(v: u64, names: &[(u64, &str)], prefix: &str) -> String {
    if v != 0 && names.iter().all(|(bit, _)| v & bit == 0) {
        unknown(v, prefix)
    } else {
        flags(v, names, "0")
    }
}

/// `madvise` advice (include/uapi/asm-generic/mman-common.h; MIPS's are the same numbers).
const MADVICES: &[(u64, &str)] = &[
    (0, "MADV_NORMAL"),
    (1, "MADV_RANDOM"),
    (2, "MADV_SEQUENTIAL"),
    (3, "MADV_WILLNEED"),
    (4, "MADV_DONTNEED"),
    (8, "MADV_FREE"),
    (9, "MADV_REMOVE"),
    (10, "MADV_DONTFORK"),
    (11, "MADV_DOFORK"),
    (12, "MADV_MERGEABLE"),
    (13, "MADV_UNMERGEABLE"),
    (14, "MADV_HUGEPAGE"),
    (15, "MADV_NOHUGEPAGE"),
    (16, "MADV_DONTDUMP"),
    (17, "MADV_DODUMP"),
    (18, "MADV_WIPEONFORK"),
    (19, "MADV_KEEPONFORK"),
    (20, "MADV_COLD"),
    (21, "MADV_PAGEOUT"),
    (22, "MADV_POPULATE_READ"),
    (23, "MADV_POPULATE_WRITE"),
    (24, "MADV_DONTNEED_LOCKED"),
    (25, "MADV_COLLAPSE"),
    (100, "MADV_HWPOISON"),
    (101, "MADV_SOFT_OFFLINE"),
    (102, "MADV_GUARD_INSTALL"),
    (103, "MADV_GUARD_REMOVE"),
];

/// Resources in the host's (asm-generic) numbering (include/uapi/asm-generic/resource.h).
const RLIMITS: &[(u64, &str)] = &[
    (0, "RLIMIT_CPU"),
    (1, "RLIMIT_FSIZE"),
    (2, "RLIMIT_DATA"),
    (3, "RLIMIT_STACK"),
    (4, "RLIMIT_CORE"),
    (5, "RLIMIT_RSS"),
    (6, "RLIMIT_NPROC"),
    (7, "RLIMIT_NOFILE"),
    (8, "RLIMIT_MEMLOCK"),
    (9, "RLIMIT_AS"),
    (10, "RLIMIT_LOCKS"),
    (11, "RLIMIT_SIGPENDING"),
    (12, "RLIMIT_MSGQUEUE"),
    (13, "RLIMIT_NICE"),
    (14, "RLIMIT_RTPRIO"),
    (15, "RLIMIT_RTTIME"),
];

/// x86's `arch_prctl` codes (arch/x86/include/uapi/asm/prctl.h).
const ARCH_PRCTL_CODES: &[(u64, &str)] = &[
    (0x1001, "ARCH_SET_GS"),
    (0x1002, "ARCH_SET_FS"),
    (0x1003, "ARCH_GET_FS"),
    (0x1004, "ARCH_GET_GS"),
    (0x1011, "ARCH_GET_CPUID"),
    (0x1012, "ARCH_SET_CPUID"),
    (0x1021, "ARCH_GET_XCOMP_SUPP"),
    (0x1022, "ARCH_GET_XCOMP_PERM"),
    (0x1023, "ARCH_REQ_XCOMP_PERM"),
    (0x1024, "ARCH_GET_XCOMP_GUEST_PERM"),
    (0x1025, "ARCH_REQ_XCOMP_GUEST_PERM"),
    (0x2001, "ARCH_MAP_VDSO_X32"),
    (0x2002, "ARCH_MAP_VDSO_32"),
    (0x2003, "ARCH_MAP_VDSO_64"),
    (0x4001, "ARCH_GET_UNTAG_MASK"),
    (0x4002, "ARCH_ENABLE_TAGGED_ADDR"),
    (0x4003, "ARCH_GET_MAX_TAG_BITS"),
    (0x4004, "ARCH_FORCE_TAGGED_SVA"),
    (0x5001, "ARCH_SHSTK_ENABLE"),
    (0x5002, "ARCH_SHSTK_DISABLE"),
    (0x5003, "ARCH_SHSTK_LOCK"),
    (0x5004, "ARCH_SHSTK_UNLOCK"),
    (0x5005, "ARCH_SHSTK_STATUS"),
];

/// `futex` commands (include/uapi/linux/futex.h), by `op & 127`.
const FUTEX_CMDS: &[(u64, &str)] = &[
    (0, "FUTEX_WAIT"),
    (1, "FUTEX_WAKE"),
    (2, "FUTEX_FD"),
    (3, "FUTEX_REQUEUE"),
    (4, "FUTEX_CMP_REQUEUE"),
    (5, "FUTEX_WAKE_OP"),
    (6, "FUTEX_LOCK_PI"),
    (7, "FUTEX_UNLOCK_PI"),
    (8, "FUTEX_TRYLOCK_PI"),
    (9, "FUTEX_WAIT_BITSET"),
    (10, "FUTEX_WAKE_BITSET"),
    (11, "FUTEX_WAIT_REQUEUE_PI"),
    (12, "FUTEX_CMP_REQUEUE_PI"),
    (13, "FUTEX_LOCK_PI2"),
];

const FUTEX_PRIVATE_FLAG: u64 = 128;
const FUTEX_CLOCK_REALTIME: u64 = 256;

/// A `futex` operation as strace 6.1 names it: the command, `_PRIVATE` when flagged, and
/// `|FUTEX_CLOCK_REALTIME` on the waits that take it (`FUTEX_WAIT`, `FUTEX_WAIT_BITSET`,
/// `FUTEX_WAIT_REQUEUE_PI`); anything else `0x101 /* FUTEX_??? */`.
fn futex_op(v: u64) -> String {
    let v32 = u64::from(low32(v));
    let cmd = v32 & !(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
    let clock = v32 & FUTEX_CLOCK_REALTIME != 0;
    match lookup(cmd, FUTEX_CMDS) {
        Some(name) if !clock || matches!(cmd, 0 | 9 | 11) => {
            let private = if v32 & FUTEX_PRIVATE_FLAG != 0 { "_PRIVATE" } else { "" };
            let clock = if clock { "|FUTEX_CLOCK_REALTIME" } else { "" };
            format!("{name}{private}{clock}")
        }
        _ => unknown(v32, "FUTEX"),
    }
}

/// `FUTEX_WAKE_OP`'s encoded operation (`FUTEX_OP(op, oparg, cmp, cmparg)`), as strace
/// prints it: `FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1`.
fn futex_wake_op(v: u64) -> String {
    const OPS: &[(u64, &str)] =
        &[(0, "FUTEX_OP_SET"), (1, "FUTEX_OP_ADD"), (2, "FUTEX_OP_OR"), (3, "FUTEX_OP_ANDN"), (4, "FUTEX_OP_XOR")];
    const CMPS: &[(u64, &str)] = &[
        (0, "FUTEX_OP_CMP_EQ"),
        (1, "FUTEX_OP_CMP_NE"),
        (2, "FUTEX_OP_CMP_LT"),
        (3, "FUTEX_OP_CMP_LE"),
        (4, "FUTEX_OP_CMP_GT"),
        (5, "FUTEX_OP_CMP_GE"),
    ];
    let v = u64::from(low32(v));
    let hex = |x: u64| if x == 0 { "0".to_string() } else { format!("{x:#x}") };
    let shift = if v & (8 << 28) != 0 { "FUTEX_OP_OPARG_SHIFT<<28|" } else { "" };
    let (op, cmp) = ((v >> 28) & 7, (v >> 24) & 15);
    let op = lookup(op, OPS).map_or_else(|| format!("{op:#x}<<28 /* FUTEX_OP_??? */"), |n| format!("{n}<<28"));
    let cmp = lookup(cmp, CMPS).map_or_else(|| format!("{cmp:#x}<<24 /* FUTEX_OP_CMP_??? */"), |n| format!("{n}<<24"));
    format!("{shift}{op}|{}<<12|{cmp}|{}", hex((v >> 12) & 0xfff), hex(v & 0xfff))
}

/// `futex`'s arguments as strace 6.1 prints them for the operation (`op & 127`): only the
/// ones it uses (`FUTEX_WAKE`: the count; `FUTEX_WAIT_BITSET`: the value, timeout and bitset),
/// all six for a command it does not know.
fn futex_args(task: &Task, a: &SyscallArgs) -> Vec<(usize, Option<String>)> {
    use ArgFmt::{Hex, Int, Ptr};
    let bitset = |v: u64| {
        if low32(v) == u32::MAX {
            "FUTEX_BITSET_MATCH_ANY".to_string()
        } else {
            format_arg(task, Hex, u64::from(low32(v)), a)
        }
    };
    let rest: &[(usize, ArgFmt)] = match a.raw(1) & 127 {
        0 => &[(2, Int), (3, Ptr)],
        1 | 2 => &[(2, Int)],
        3 => &[(2, Int), (3, Int), (4, Ptr)],
        4 | 12 => &[(2, Int), (3, Int), (4, Ptr), (5, Int)],
        5 => &[(2, Int), (3, Int), (4, Ptr), (5, Hex)],
        6 | 13 => &[(3, Ptr)],
        7 | 8 => &[],
        9 => &[(2, Int), (3, Ptr), (5, Hex)],
        10 => &[(2, Int), (5, Hex)],
        11 => &[(2, Int), (3, Ptr), (4, Ptr)],
        _ => &[(2, Int), (3, Ptr), (4, Ptr), (5, Hex)],
    };
    let cmd = a.raw(1) & 127;
    let mut out = vec![(0, Some(format_arg(task, Ptr, a.raw(0), a))), (1, Some(futex_op(a.raw(1))))];
    for &(i, f) in rest {
        // Argument 5 is the operation of FUTEX_WAKE_OP and the bitset of the bitset calls.
        let text = match (i, cmd) {
            (5, 5) => futex_wake_op(a.raw(i)),
            (5, 9 | 10) => bitset(a.raw(i)),
            _ => format_arg(task, f, a.raw(i), a),
        };
        out.push((i, Some(text)));
    }
    out
}

fn flags(v: u64, names: &[(u64, &str)], zero: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = v;
    for &(bit, name) in names {
        if rest & bit == bit && bit != 0 {
            parts.push(name.into());
            rest &= !bit;
        }
    }
    if rest != 0 {
        parts.push(format!("{rest:#x}"));
    }
    if parts.is_empty() {
        zero.into()
    } else {
        parts.join("|")
    }
}

/// The host's number for the guest's `fcntl` command `v` (MIPS numbers some differently; the
/// 32-bit arches' `F_GETLK64`… are 12-14, which the host, 64-bit, names `F_GETLK`…).
fn fcntl_cmd(task: &Task, v: u64) -> i32 {
    let info = task.arch.info();
    let c = int32(v);
    if !info.is_64bit() && (12..=14).contains(&c) {
        return c - 12 + libc::F_GETLK;
    }
    (info.fcntl_cmd_to_host)(c)
}

/// The name of host `fcntl` command `c` (include/uapi/asm-generic/fcntl.h, linux/fcntl.h).
fn fcntl_name(c: i32) -> Option<&'static str> {
    Some(match c {
        libc::F_DUPFD => "F_DUPFD",
        libc::F_GETFD => "F_GETFD",
        libc::F_SETFD => "F_SETFD",
        libc::F_GETFL => "F_GETFL",
        libc::F_SETFL => "F_SETFL",
        libc::F_GETLK => "F_GETLK",
        libc::F_SETLK => "F_SETLK",
        libc::F_SETLKW => "F_SETLKW",
        libc::F_SETOWN => "F_SETOWN",
        libc::F_GETOWN => "F_GETOWN",
        super::io::cmd::F_SETSIG => "F_SETSIG",
        super::io::cmd::F_GETSIG => "F_GETSIG",
        15 => "F_SETOWN_EX",
        16 => "F_GETOWN_EX",
        17 => "F_GETOWNER_UIDS",
        libc::F_OFD_GETLK => "F_OFD_GETLK",
        libc::F_OFD_SETLK => "F_OFD_SETLK",
        libc::F_OFD_SETLKW => "F_OFD_SETLKW",
        libc::F_SETLEASE => "F_SETLEASE",
        libc::F_GETLEASE => "F_GETLEASE",
        libc::F_NOTIFY => "F_NOTIFY",
        1027 => "F_DUPFD_QUERY",
        1028 => "F_CREATED_QUERY",
        libc::F_DUPFD_CLOEXEC => "F_DUPFD_CLOEXEC",
        libc::F_SETPIPE_SZ => "F_SETPIPE_SZ",
        libc::F_GETPIPE_SZ => "F_GETPIPE_SZ",
        libc::F_ADD_SEALS => "F_ADD_SEALS",
        libc::F_GET_SEALS => "F_GET_SEALS",
        1035 => "F_GET_RW_HINT",
        1036 => "F_SET_RW_HINT",
        1037 => "F_GET_FILE_RW_HINT",
        1038 => "F_SET_FILE_RW_HINT",
        _ => return None,
    })
}

/// `true` for the `fcntl` commands that read no third argument (strace prints two).
fn fcntl_takes_no_arg(c: i32) -> bool {
    matches!(
        c,
        libc::F_GETFD
            | libc::F_GETFL
            | libc::F_GETOWN
            | super::io::cmd::F_GETSIG
            | libc::F_GETLEASE
            | libc::F_GETPIPE_SZ
            | libc::F_GET_SEALS
            | 1028
    )
}

/// Host open flags, symbolic (names follow the host's values, already converted from the guest).
pub fn open_flags(f: i32) -> String {
    let acc = match f & libc::O_ACCMODE {
        libc::O_RDONLY => "O_RDONLY",
        libc::O_WRONLY => "O_WRONLY",
        libc::O_RDWR => "O_RDWR",
        _ => "O_ACCMODE",
    };
    let rest = flags(
        u64::from(low32(f & !libc::O_ACCMODE)),
        &[
            (libc::O_CREAT as u64, "O_CREAT"),
            (libc::O_EXCL as u64, "O_EXCL"),
            (libc::O_NOCTTY as u64, "O_NOCTTY"),
            (libc::O_TRUNC as u64, "O_TRUNC"),
            (libc::O_APPEND as u64, "O_APPEND"),
            (libc::O_NONBLOCK as u64, "O_NONBLOCK"),
            (libc::O_SYNC as u64, "O_SYNC"),
            (libc::O_DSYNC as u64, "O_DSYNC"),
            (libc::O_DIRECT as u64, "O_DIRECT"),
            (crate::abi::HOST_O_LARGEFILE as u64, "O_LARGEFILE"),
            (libc::O_TMPFILE as u64, "O_TMPFILE"),
            (libc::O_DIRECTORY as u64, "O_DIRECTORY"),
            (libc::O_NOFOLLOW as u64, "O_NOFOLLOW"),
            (libc::O_NOATIME as u64, "O_NOATIME"),
            (libc::O_CLOEXEC as u64, "O_CLOEXEC"),
            (libc::O_PATH as u64, "O_PATH"),
            // strace names it last.
            (libc::O_ASYNC as u64, "FASYNC"),
        ],
        "",
    );
    if rest.is_empty() {
        acc.into()
    } else {
        format!("{acc}|{rest}")
    }
}

/// A signal's `siginfo` as strace shows it on its `--- SIG… {…} ---` line: `si_signo`, the
/// `si_code` by name, then the union fields that code selects (strace's `printsiginfo`): for a
/// code from user space (`si_code` <= 0) the sender (`si_pid`, `si_uid`), with the value of a
/// `sigqueue` or message queue, or a POSIX timer's id, overrun and value; for the kernel's own
/// codes, by signal: the fault address of SIGILL, SIGFPE, SIGSEGV, SIGBUS and SIGTRAP, a
/// child's state for SIGCHLD, the band and descriptor for SIGPOLL, the call for SIGSYS.
pub fn siginfo(info: &crate::signal::SigInfo) -> String {
    use crate::signal::{SigFields as F, Signal};
    use std::fmt::Write as _;
    let sig = info.signo;
    let mut s = format!("{{si_signo={sig}, si_code={}", si_code_name(sig, info.code));
    let ptr_or_null = |v: u64| if v == 0 { "NULL".to_string() } else { format!("{v:#x}") };
    let value = |v: u64| format!(", si_int={}, si_ptr={}", crate::abi::int32(v), ptr_or_null(v));
    let by_signal =
        |s: Signal| [Signal::SIGILL, Signal::SIGFPE, Signal::SIGSEGV, Signal::SIGBUS, Signal::SIGTRAP].contains(&s);
    let _ = match info.fields {
        F::Kill { pid, uid } if info.code <= 0 => write!(s, ", si_pid={pid}, si_uid={uid}"),
        F::Rt { pid, uid, value: v } if info.code <= 0 => write!(s, ", si_pid={pid}, si_uid={uid}{}", value(v)),
        F::Timer { tid, overrun, value: v } if info.code <= 0 => {
            let id = if tid == 0 { "0".to_string() } else { format!("{tid:#x}") };
            write!(s, ", si_timerid={id}, si_overrun={overrun}{}", value(v))
        }
        F::Fault { addr } if info.code > 0 && by_signal(sig) => write!(s, ", si_addr={}", ptr_or_null(addr)),
        F::Chld { pid, uid, status, utime, stime } if info.code > 0 && sig == Signal::SIGCHLD => {
            use crate::signal::si_code::CLD_EXITED;
            let st =
                if info.code == CLD_EXITED { status.to_string() } else { Signal(status.unsigned_abs()).to_string() };
            write!(s, ", si_pid={pid}, si_uid={uid}, si_status={st}, si_utime={utime}, si_stime={stime}")
        }
        F::Poll { band, fd } if info.code > 0 => write!(s, ", si_band={band}, si_fd={fd}"),
        F::Sys { call_addr, syscall, arch } if info.code > 0 => {
            write!(s, ", si_call_addr={}, si_syscall={syscall}, si_arch={arch:#x}", ptr_or_null(call_addr))
        }
        _ => Ok(()),
    };
    s.push('}');
    s
}

/// `si_code`'s name (include/uapi/asm-generic/siginfo.h): the codes any signal may carry, then
/// those of the signal's own family for positive codes; a number when there is none.
fn si_code_name(sig: crate::signal::Signal, code: i32) -> String {
    use crate::signal::Signal;
    let generic = match code {
        0 => Some("SI_USER"),
        0x80 => Some("SI_KERNEL"),
        -1 => Some("SI_QUEUE"),
        -2 => Some("SI_TIMER"),
        -3 => Some("SI_MESGQ"),
        -4 => Some("SI_ASYNCIO"),
        -5 => Some("SI_SIGIO"),
        -6 => Some("SI_TKILL"),
        -7 => Some("SI_DETHREAD"),
        -60 => Some("SI_ASYNCNL"),
        _ => None,
    };
    let family: &[&str] = match sig {
        Signal::SIGILL => &[
            "ILL_ILLOPC",
            "ILL_ILLOPN",
            "ILL_ILLADR",
            "ILL_ILLTRP",
            "ILL_PRVOPC",
            "ILL_PRVREG",
            "ILL_COPROC",
            "ILL_BADSTK",
            "ILL_BADIADDR",
        ],
        Signal::SIGFPE => &[
            "FPE_INTDIV",
            "FPE_INTOVF",
            "FPE_FLTDIV",
            "FPE_FLTOVF",
            "FPE_FLTUND",
            "FPE_FLTRES",
            "FPE_FLTINV",
            "FPE_FLTSUB",
        ],
        Signal::SIGSEGV => &[
            "SEGV_MAPERR",
            "SEGV_ACCERR",
            "SEGV_BNDERR",
            "SEGV_PKUERR",
            "SEGV_ACCADI",
            "SEGV_ADIDERR",
            "SEGV_ADIPERR",
            "SEGV_MTEAERR",
            "SEGV_MTESERR",
            "SEGV_CPERR",
        ],
        Signal::SIGBUS => &["BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO"],
        Signal::SIGTRAP => &["TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT", "TRAP_UNK", "TRAP_PERF"],
        Signal::SIGCHLD => &["CLD_EXITED", "CLD_KILLED", "CLD_DUMPED", "CLD_TRAPPED", "CLD_STOPPED", "CLD_CONTINUED"],
        // SIGIO, which SIGPOLL is.
        Signal(29) => &["POLL_IN", "POLL_OUT", "POLL_MSG", "POLL_ERR", "POLL_PRI", "POLL_HUP"],
        Signal::SIGSYS => &["SYS_SECCOMP", "SYS_USER_DISPATCH"],
        _ => &[],
    };
    let own = usize::try_from(code).ok().filter(|&c| c >= 1).and_then(|c| family.get(c - 1)).copied();
    own.or(generic).map_or_else(|| code.to_string(), str::to_string)
}

/// strace's words for the kernel's restart codes (include/linux/errno.h: ERESTARTSYS 512,
/// ERESTARTNOINTR 513, ERESTARTNOHAND 514, ERESTART_RESTARTBLOCK 516) as a return value `r`.
fn restart_text(r: i64) -> Option<&'static str> {
    Some(match r {
        -512 => "ERESTARTSYS (To be restarted if SA_RESTART is set)",
        -513 => "ERESTARTNOINTR (To be restarted)",
        -514 => "ERESTARTNOHAND (To be restarted if no handler)",
        -516 => "ERESTART_RESTARTBLOCK (Interrupted by signal)",
        _ => return None,
    })
}

/// What Linux returns from call `sys` (arguments `a`) when a signal interrupts it, as strace
/// shows it: the restart codes the kernel turns into a restart or `EINTR` on the way out
/// (include/linux/errno.h), or `None` for the calls that return `EINTR` itself. Found by
/// interrupting each call with a handler under strace 6.1 on Linux 6.18 (x86_64):
/// `ERESTARTNOHAND` for `pause`, `rt_sigsuspend`, `select`, `pselect6`, `ppoll`, `msgrcv`,
/// `msgsnd` and an absolute `clock_nanosleep`; `ERESTART_RESTARTBLOCK` for `poll`, a relative
/// `nanosleep`/`clock_nanosleep` and a `futex` wait with a timeout; `EINTR` for
/// `epoll_wait`, `semop`, `rt_sigtimedwait`, `io_getevents` and socket calls under a
/// `SO_RCVTIMEO`/`SO_SNDTIMEO` timeout (the kernel's `sock_intr_errno`); `ERESTARTSYS` for
/// the rest (`read`, `write`, `wait4`, `waitid`, `flock`, `fcntl(F_SETLKW)`, a FIFO's `open`,
/// `accept`, `recv`, `mq_timedreceive`, a `futex` wait without one…).
fn restart_code(task: &Task, sys: Sys, a: &SyscallArgs) -> Option<&'static str> {
    const NOHAND: &str = "ERESTARTNOHAND (To be restarted if no handler)";
    const BLOCK: &str = "ERESTART_RESTARTBLOCK (Interrupted by signal)";
    const SYS: &str = "ERESTARTSYS (To be restarted if SA_RESTART is set)";
    // include/uapi/linux/futex.h: FUTEX_WAIT 0, FUTEX_WAIT_BITSET 9; the command's bits.
    const FUTEX_CMD_MASK: u64 = 0x7f;
    // TIMER_ABSTIME (include/uapi/linux/time.h).
    const TIMER_ABSTIME: u64 = 1;
    match sys {
        Sys::pause
        | Sys::rt_sigsuspend
        | Sys::sigsuspend
        | Sys::select
        | Sys::_newselect
        | Sys::pselect6
        | Sys::pselect6_time64
        | Sys::ppoll
        | Sys::ppoll_time64
        | Sys::msgrcv
        | Sys::msgsnd => Some(NOHAND),
        Sys::poll | Sys::nanosleep => Some(BLOCK),
        Sys::clock_nanosleep | Sys::clock_nanosleep_time64 => {
            Some(if a.raw(1) & TIMER_ABSTIME != 0 { NOHAND } else { BLOCK })
        }
        Sys::futex | Sys::futex_time64 => match a.raw(1) & FUTEX_CMD_MASK {
            0 | 9 if a.raw(3) != 0 => Some(BLOCK),
            _ => Some(SYS),
        },
        Sys::epoll_wait
        | Sys::epoll_pwait
        | Sys::epoll_pwait2
        | Sys::semop
        | Sys::semtimedop
        | Sys::semtimedop_time64
        | Sys::rt_sigtimedwait
        | Sys::rt_sigtimedwait_time64
        | Sys::io_getevents
        | Sys::io_pgetevents
        | Sys::io_pgetevents_time64 => None,
        // A socket call under a timeout gives EINTR; so do the waits signal(7) says never
        // restart (System V IPC through `ipc`).
        _ if !crate::syscall::signal::restarts_after_handler(sys, a, &task.mm) => None,
        _ => Some(SYS),
    }
}

/// A signal set (host numbering, bit `n - 1` for signal `n`) as strace prints one: the names
/// without `SIG` in brackets (`[INT TERM]`), or `~[…]` naming those not in it when more than
/// half of the 64 are.
pub fn sigset(mask: u64) -> String {
    let (neg, m) = if mask.count_ones() > 32 { ("~", !mask) } else { ("", mask) };
    let names: Vec<String> = (1..=64u32)
        .filter(|n| m & (1u64 << (n - 1)) != 0)
        .map(|n| {
            if n == 32 {
                "RTMIN".to_string()
            } else {
                crate::signal::Signal(n).to_string().trim_start_matches("SIG").to_string()
            }
        })
        .collect();
    format!("{neg}[{}]", names.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_matches_strace() {
        assert_eq!(quote(b"hi\n\0\x7f", 32), "\"hi\\n\\0\\177\"");
    }

    #[test]
    fn unknown_numbers_print_as_strace_prints_them() {
        // strace 6.x natively: syscall(999, 1, 2, 3, 4, 5, 6) and syscall(999) with zeros.
        assert_eq!(call_name("", 999), "syscall_0x3e7");
        assert_eq!(unknown_args(&[1, 2, 3, 4, 5, 6]).join(", "), "0x1, 0x2, 0x3, 0x4, 0x5, 0x6");
        assert_eq!(unknown_args(&[0, 0xffff_ffff_ffff_ff80, 0, 0, 0, 0])[..2], ["0", "0xffffffffffffff80"]);
        assert_eq!(call_name("getpid", 39), "getpid");
    }

    #[test]
    fn unserved_calls_have_their_prototypes_argument_count() {
        // io_uring_setup(u32 entries, struct io_uring_params *p): strace prints `io_uring_setup(1, NULL)`.
        let f = unserved_args("io_uring_setup").expect("io_uring_setup");
        assert_eq!(f.len(), 2);
        assert!(matches!(f, [ArgFmt::ULong, ArgFmt::Ptr]));
        assert_eq!(unserved_args("io_uring_enter").map(<[_]>::len), Some(6));
        assert_eq!(unserved_args("io_uring_register").map(<[_]>::len), Some(4));
        assert_eq!(unserved_args("vhangup").map(<[_]>::len), Some(0));
        assert!(unserved_args("no_such_call").is_none());
        assert_eq!(ptr(0), "NULL");
    }

    #[test]
    fn restart_codes_in_strace_words() {
        // strace 6.1 natively, for rt_sigreturn giving back a restart code (-512, -516).
        assert_eq!(restart_text(-512), Some("ERESTARTSYS (To be restarted if SA_RESTART is set)"));
        assert_eq!(restart_text(-516), Some("ERESTART_RESTARTBLOCK (Interrupted by signal)"));
        assert_eq!(restart_text(-4), None);
        // Any return value, i64::MIN included (found by the strace_format fuzz target).
        assert_eq!(restart_text(i64::MIN), None);
    }

    #[test]
    fn signal_sets_as_strace_prints_them() {
        // strace 6.1: rt_sigprocmask(SIG_BLOCK, [INT TERM], …) and, for glibc's block of
        // every signal but the ones it may not, ~[KILL STOP RTMIN RT_1].
        assert_eq!(sigset(0), "[]");
        assert_eq!(sigset((1 << 1) | (1 << 14)), "[INT TERM]");
        assert_eq!(sigset(!((1 << 8) | (1 << 18) | (1 << 31) | (1 << 32))), "~[KILL STOP RTMIN RT_1]");
    }

    #[test]
    fn prctl_options_by_name() {
        // strace 6.x natively: prctl(PR_SET_NAME, "x"), prctl(PR_GET_NAME, ...),
        // prctl(0x3e7 /* PR_??? */, ...).
        assert_eq!(prctl_option(15), "PR_SET_NAME");
        assert_eq!(prctl_option(16), "PR_GET_NAME");
        assert_eq!(prctl_option(0x5961_6d61), "PR_SET_PTRACER");
        assert_eq!(prctl_option(999), "0x3e7 /* PR_??? */");
    }

    #[test]
    fn futex_operations_as_strace_prints_them() {
        // strace 6.1 natively (Debian 12, x86_64).
        assert_eq!(futex_op(128 | 1), "FUTEX_WAKE_PRIVATE");
        assert_eq!(futex_op(9 | 128 | 256), "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME");
        assert_eq!(futex_op(256), "FUTEX_WAIT|FUTEX_CLOCK_REALTIME");
        assert_eq!(futex_op(13), "FUTEX_LOCK_PI2");
        assert_eq!(futex_op(256 | 1), "0x101 /* FUTEX_??? */");
        assert_eq!(futex_op(13 | 128 | 256), "0x18d /* FUTEX_??? */");
        assert_eq!(futex_op(99), "0x63 /* FUTEX_??? */");
        assert_eq!(futex_wake_op(0x0400_0001), "FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1");
        assert_eq!(futex_wake_op(0x1234_5678), "FUTEX_OP_ADD<<28|0x345<<12|FUTEX_OP_CMP_LT<<24|0x678");
        assert_eq!(
            futex_wake_op(0x9876_5432),
            "FUTEX_OP_OPARG_SHIFT<<28|FUTEX_OP_ADD<<28|0x765<<12|0x8<<24 /* FUTEX_OP_CMP_??? */|0x432"
        );
        assert_eq!(futex_wake_op(0x7000_0000), "0x7<<28 /* FUTEX_OP_??? */|0<<12|FUTEX_OP_CMP_EQ<<24|0");
    }

    #[test]
    fn advice_resources_and_flags_by_name() {
        // strace 6.1 natively: madvise(…, MADV_DONTNEED), madvise(…, 0x4d /* MADV_??? */),
        // getrandom(…, GRND_NONBLOCK|GRND_INSECURE), mremap(…, MREMAP_MAYMOVE|MREMAP_DONTUNMAP).
        assert_eq!(named(4, MADVICES, "MADV"), "MADV_DONTNEED");
        assert_eq!(named(77, MADVICES, "MADV"), "0x4d /* MADV_??? */");
        assert_eq!(named(7, RLIMITS, "RLIMIT"), "RLIMIT_NOFILE");
        assert_eq!(named(0x1002, ARCH_PRCTL_CODES, "ARCH"), "ARCH_SET_FS");
        let grnd = [(1, "GRND_NONBLOCK"), (2, "GRND_RANDOM"), (4, "GRND_INSECURE")];
        assert_eq!(known_flags(5, &grnd, "GRND"), "GRND_NONBLOCK|GRND_INSECURE");
        assert_eq!(known_flags(0, &grnd, "GRND"), "0");
        assert_eq!(known_flags(8, &grnd, "GRND"), "0x8 /* GRND_??? */");
        let mremap = [(1, "MREMAP_MAYMOVE"), (2, "MREMAP_FIXED"), (4, "MREMAP_DONTUNMAP")];
        assert_eq!(known_flags(5, &mremap, "MREMAP"), "MREMAP_MAYMOVE|MREMAP_DONTUNMAP");
    }

    #[test]
    fn open_flags_symbolic() {
        assert_eq!(open_flags(libc::O_RDONLY | libc::O_CLOEXEC), "O_RDONLY|O_CLOEXEC");
        // 32-bit glibc's open passes O_LARGEFILE; strace names it (it printed 0x8000).
        assert_eq!(open_flags(crate::abi::HOST_O_LARGEFILE | libc::O_DIRECTORY), "O_RDONLY|O_LARGEFILE|O_DIRECTORY");
        assert_eq!(open_flags(libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC), "O_WRONLY|O_CREAT|O_TRUNC");
    }
}
