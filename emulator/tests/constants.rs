//! The constants each guest arch numbers its own way, audited against that arch's own uapi
//! headers. For every guest arch the arch's cross compiler (the one the guest-tests build
//! with, `guest_tests::arch`) preprocesses a family's headers (`-dD -E`: which names there are
//! and which header defines each) and compiles their values into data (`-S`: the assembler
//! listing holds each value as a number). Every value is then put through endgate's data row
//! for that arch (`ArchInfo`: `open_flags_to_host`, `signal_to_host`, `errno_from_host`…) and
//! must come out as the x86_64 host's value of the same name; names endgate passes through
//! unchanged must have the host's value already.
//!
//! `docs/constants.md` is the table of the values that differ from the host's, made from the
//! same data: this test fails when it is out of date
//! (`ENDGATE_BLESS=1 cargo test --release -p endgate --test constants` rewrites it).

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use common::{TempDir, ARCHES};
use endgate::arch::ALL;
use endgate::guest::ArchInfo;
use endgate::signal::Signal;

/// How endgate's data row must map a name's guest value to the host's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// Passed to the host as it is: the guest value must be the host's.
    Same,
    /// `open_flags_to_host` and back with `open_flags_from_host`.
    OpenFlag,
    /// `fcntl_cmd_to_host`.
    FcntlCmd,
    /// `open_flags_to_host` of a flag of a call that makes a descriptor (eventfd2, timerfd,
    /// signalfd4, inotify_init1, epoll_create1: their flags are `O_NONBLOCK`/`O_CLOEXEC`).
    FdFlag,
    /// `poll_events_to_host` (which may add bits the arch's kernel adds) and back with
    /// `poll_events_from_host`.
    Poll,
    /// `mmap_flags_to_generic`.
    MmapFlag,
    /// `map_32bit` holds the flag.
    Map32,
    /// `prot_sem`.
    ProtSem,
    /// `fadvise_to_host`.
    Fadvise,
    /// `sol_socket`.
    SolSocket,
    /// `sockopt_to_host` at the arch's `SOL_SOCKET`.
    SockOpt,
    /// `socket_type_to_host` and back with `socket_type_from_host`.
    SockType,
    /// `socket_type_to_host` of a type flag (`SOCK_NONBLOCK`, `SOCK_CLOEXEC`).
    SockFlag,
    /// `signal_to_host` and back with `signal_from_host`; `guest_only_signals` for a signal
    /// the host lacks.
    Signal,
    /// `sigmask_how_to_generic`.
    SigHow,
    /// `sa_nocld_to_host`.
    SaNocld,
    /// `has_sa_restorer` says whether the arch has it.
    SaRestorer,
    /// An `sa_flags` bit generic code reads in asm-generic's numbering.
    SaFlag,
    /// `nsig`.
    Nsig,
    /// `errno_from_host`, and back with `errno_to_host` (a seccomp filter's errno).
    Errno,
    /// `rlimit_resource_to_host`.
    Rlimit,
    /// A bit or field of the `struct termios` flag word at this index: `termios` converts it.
    TermiosWord(usize),
    /// A `c_cc` index: `termios` moves the slot.
    TermiosCc,
    /// `ioctl_to_host`.
    Ioctl,
    /// `si_code_to_host` and back with `si_code_from_host`.
    SiCode,
    /// Shown in the doc, not checked: a value the guest's C library keeps to itself.
    Unchecked,
}

impl Rule {
    /// Whether the doc prints the values in hex (bits and request numbers) or decimal.
    fn hex(self) -> bool {
        matches!(
            self,
            Rule::OpenFlag
                | Rule::FdFlag
                | Rule::Poll
                | Rule::MmapFlag
                | Rule::Map32
                | Rule::SolSocket
                | Rule::SockOpt
                | Rule::SockFlag
                | Rule::SaNocld
                | Rule::SaRestorer
                | Rule::SaFlag
                | Rule::TermiosWord(_)
                | Rule::Ioctl
        )
    }
}

/// One family of constants: the headers that define them and the rule of each name.
struct Family {
    /// Heading in the doc.
    title: &'static str,
    /// What the doc says of the family: where endgate converts it.
    about: &'static str,
    /// The C source that includes the headers.
    includes: &'static str,
    /// The rule of a name defined in `file` (the installed header's path), `None` when the
    /// name is not one of this family's.
    rule: fn(&str, &str) -> Option<Rule>,
}

/// Names that are not integers (`SIG_DFL` is a pointer) or do not fit 32 bits.
const NOT_VALUES: &[&str] = &[
    "SIG_DFL",
    "SIG_IGN",
    "SIG_ERR",
    "RLIM_INFINITY",
    "SI_MAX_SIZE",
    "SIGSTKSZ",
    "MINSIGSTKSZ",
    "SIGRTMAX",
    "SIGEV_PAD_SIZE",
    "SIGEV_MAX_SIZE",
    "POLLFREE",
];

/// Exceptions to a rule, each with the reason endgate is right anyway: (family title, name,
/// arch, why). The doc prints them under their table.
const EXCEPTIONS: &[(&str, &str, &str, &str)] = &[
    (
        "Signals and sigaction flags",
        "SA_SIGINFO",
        "mips64el",
        "endgate keeps a MIPS `sa_flags` as the guest wrote it and only the other arches' frame \
         builders read `SA_SIGINFO`: a MIPS n64 signal frame always carries `siginfo_t` and \
         `ucontext_t`.",
    ),
    (
        "Memory mappings",
        "MAP_32BIT",
        "i386",
        "x86's header has it for both ABIs; Linux ignores it in a 32-bit process and so does \
         endgate (no `map_32bit` in the i386 row).",
    ),
    (
        "Terminal",
        "TIOCM_*",
        "mips64el",
        "a gap: the modem-line bits of TIOCMGET/TIOCMSET/TIOCMBIS/TIOCMBIC are passed as they \
         are (a pseudo-terminal has no modem lines; only a serial line would show the \
         difference).",
    ),
    (
        "Terminal",
        "TCGETA",
        "mips64el",
        "the `struct termio` requests (TCGETA, TCSETA, TCSETAW, TCSETAF) are not served on MIPS \
         (`ioctl_to_host` refuses them) rather than given another layout's struct.",
    ),
    ("Terminal", "TCSETA", "mips64el", "see TCGETA."),
    ("Terminal", "TCSETAW", "mips64el", "see TCGETA."),
    ("Terminal", "TCSETAF", "mips64el", "see TCGETA."),
];

/// Second names of a value (shown in the doc, checked under their first name): (name, first
/// name, why the second needs no check of its own).
const ALIASES: &[(&str, &str, &str)] = &[
    ("SIGCLD", "SIGCHLD", "MIPS's second name of SIGCHLD."),
    ("SIGIOT", "SIGABRT", "the second name of SIGABRT."),
    ("SIGPOLL", "SIGIO", "the second name of SIGIO."),
    ("SIGUNUSED", "SIGSYS", "the host's old name of SIGSYS (31); MIPS numbers SIGSYS 12 and has no SIGUNUSED."),
    ("SIGSWI", "SIGRTMIN", "arm's old name of signal 32, the first real-time signal."),
    (
        "EDEADLOCK",
        "EDEADLK",
        "a second name of EDEADLK on the host; MIPS gives it a number of its own (56) that its kernel never returns.",
    ),
    ("EWOULDBLOCK", "EAGAIN", "the second name of EAGAIN."),
];

fn prefixed(name: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| name.starts_with(p))
}

/// The fcntl commands (the other `F_*` names are lock types, seals and owner types).
const FCNTL_CMDS: &[&str] = &[
    "F_DUPFD",
    "F_GETFD",
    "F_SETFD",
    "F_GETFL",
    "F_SETFL",
    "F_GETLK",
    "F_SETLK",
    "F_SETLKW",
    "F_SETOWN",
    "F_GETOWN",
    "F_SETSIG",
    "F_GETSIG",
    "F_SETOWN_EX",
    "F_GETOWN_EX",
    "F_GETOWNER_UIDS",
    "F_OFD_GETLK",
    "F_OFD_SETLK",
    "F_OFD_SETLKW",
    "F_SETLEASE",
    "F_GETLEASE",
    "F_NOTIFY",
    "F_DUPFD_QUERY",
    "F_CREATED_QUERY",
    "F_CANCELLK",
    "F_DUPFD_CLOEXEC",
    "F_SETPIPE_SZ",
    "F_GETPIPE_SZ",
    "F_ADD_SEALS",
    "F_GET_SEALS",
    "F_GET_RW_HINT",
    "F_SET_RW_HINT",
    "F_GET_FILE_RW_HINT",
    "F_SET_FILE_RW_HINT",
];

fn open_rule(name: &str, _: &str) -> Option<Rule> {
    if name.starts_with("O_") {
        Some(Rule::OpenFlag)
    } else if FCNTL_CMDS.contains(&name) {
        Some(Rule::FcntlCmd)
    } else if prefixed(name, &["F_", "FD_", "LOCK_", "DN_", "AT_", "RWH_"]) {
        // F_GETLK64 & co: `fcntl64` matches them by their asm-generic numbers.
        Some(Rule::Same)
    } else {
        None
    }
}

fn mman_rule(name: &str, _: &str) -> Option<Rule> {
    match name {
        "MAP_32BIT" => Some(Rule::Map32),
        "PROT_SEM" => Some(Rule::ProtSem),
        "MAP_TYPE" | "MAP_FILE" | "MAP_HUGE_SHIFT" | "MAP_HUGE_MASK" => Some(Rule::Same),
        _ if name.starts_with("MAP_HUGE_") => Some(Rule::Same),
        _ if name.starts_with("MAP_") => Some(Rule::MmapFlag),
        _ if prefixed(name, &["PROT_", "MADV_", "MS_", "MCL_", "MLOCK_", "MREMAP_", "PKEY_", "OVERCOMMIT_"]) => {
            Some(Rule::Same)
        }
        _ => None,
    }
}

fn fdflag_rule(name: &str, _: &str) -> Option<Rule> {
    match name {
        "EFD_SEMAPHORE" => Some(Rule::Same),
        _ if name.ends_with("_NONBLOCK") || name.ends_with("_CLOEXEC") => Some(Rule::FdFlag),
        _ => None,
    }
}

fn poll_rule(name: &str, _: &str) -> Option<Rule> {
    (name.starts_with("POLL") && !name.starts_with("POLL_")).then_some(Rule::Poll)
}

fn fadvise_rule(name: &str, _: &str) -> Option<Rule> {
    name.starts_with("POSIX_FADV_").then_some(Rule::Fadvise)
}

fn socket_rule(name: &str, file: &str) -> Option<Rule> {
    if name == "SOL_SOCKET" {
        Some(Rule::SolSocket)
    } else if name.starts_with("SO_") {
        Some(Rule::SockOpt)
    } else if name.starts_with("SCM_") {
        Some(Rule::Same)
    } else if file.ends_with("sockios.h") && prefixed(name, &["SIOC", "FIO"]) {
        Some(Rule::Ioctl)
    } else {
        None
    }
}

fn socktype_rule(name: &str, _: &str) -> Option<Rule> {
    match name {
        "SOCK_NONBLOCK" | "SOCK_CLOEXEC" => Some(Rule::SockFlag),
        _ if name.starts_with("SOCK_") => Some(Rule::SockType),
        _ if name.starts_with("MSG_") => Some(Rule::Same),
        _ => None,
    }
}

fn signal_rule(name: &str, _: &str) -> Option<Rule> {
    match name {
        "SIG_BLOCK" | "SIG_UNBLOCK" | "SIG_SETMASK" => Some(Rule::SigHow),
        "SA_NOCLDSTOP" | "SA_NOCLDWAIT" => Some(Rule::SaNocld),
        "SA_RESTORER" => Some(Rule::SaRestorer),
        "_NSIG" => Some(Rule::Nsig),
        _ if name.starts_with("SA_") => Some(Rule::SaFlag),
        _ if name.starts_with("SS_") => Some(Rule::Same),
        _ if name.len() > 3
            && name.starts_with("SIG")
            && name[3..].bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) =>
        {
            Some(Rule::Signal)
        }
        _ => None,
    }
}

fn errno_rule(name: &str, _: &str) -> Option<Rule> {
    (name.len() > 1 && name.starts_with('E') && name[1..].bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        .then_some(Rule::Errno)
}

fn rlimit_rule(name: &str, _: &str) -> Option<Rule> {
    if name.starts_with("RLIMIT_") {
        Some(Rule::Rlimit)
    } else if name == "RLIM_NLIMITS" {
        Some(Rule::Unchecked)
    } else {
        None
    }
}

/// `c_iflag`, `c_oflag`, `c_cflag`, `c_lflag` names (include/uapi/asm-generic/termbits*.h).
const TERMIOS_WORDS: [&[&str]; 4] = [
    &[
        "IGNBRK", "BRKINT", "IGNPAR", "PARMRK", "INPCK", "ISTRIP", "INLCR", "IGNCR", "ICRNL", "IUCLC", "IXON", "IXANY",
        "IXOFF", "IMAXBEL", "IUTF8",
    ],
    &[
        "OPOST", "OLCUC", "ONLCR", "OCRNL", "ONOCR", "ONLRET", "OFILL", "OFDEL", "NLDLY", "NL0", "NL1", "CRDLY", "CR0",
        "CR1", "CR2", "CR3", "TABDLY", "TAB0", "TAB1", "TAB2", "TAB3", "XTABS", "BSDLY", "BS0", "BS1", "VTDLY", "VT0",
        "VT1", "FFDLY", "FF0", "FF1",
    ],
    &[
        "CBAUD", "CBAUDEX", "BOTHER", "CSIZE", "CS5", "CS6", "CS7", "CS8", "CSTOPB", "CREAD", "PARENB", "PARODD",
        "HUPCL", "CLOCAL", "CIBAUD", "CMSPAR", "CRTSCTS", "EXTA", "EXTB", "ADDRB",
    ],
    &[
        "ISIG", "ICANON", "XCASE", "ECHO", "ECHOE", "ECHOK", "ECHONL", "NOFLSH", "TOSTOP", "ECHOCTL", "ECHOPRT",
        "ECHOKE", "FLUSHO", "PENDIN", "IEXTEN", "EXTPROC",
    ],
];

fn termios_rule(name: &str, file: &str) -> Option<Rule> {
    let file = file.rsplit('/').next().unwrap_or(file);
    if !(file.starts_with("termbits") || file.starts_with("ioctls") || file.starts_with("termios")) {
        return None;
    }
    if let Some(w) = TERMIOS_WORDS.iter().position(|names| names.contains(&name)) {
        return Some(Rule::TermiosWord(w));
    }
    // Baud rates are c_cflag values.
    if name.len() > 1 && name.starts_with('B') && name[1..].bytes().all(|b| b.is_ascii_digit()) {
        return Some(Rule::TermiosWord(2));
    }
    match name {
        // tcsetattr's `optional_actions` and tcflow/tcflush arguments: C library values
        // (MIPS's TCSANOW… are its request numbers), or ioctl arguments passed as they are.
        "TCSANOW" | "TCSADRAIN" | "TCSAFLUSH" => Some(Rule::Unchecked),
        "TCOOFF" | "TCOON" | "TCIOFF" | "TCION" | "TCIFLUSH" | "TCOFLUSH" | "TCIOFLUSH" => Some(Rule::Same),
        "NCCS" | "IBSHIFT" | "TIOCSER_TEMT" => Some(Rule::Unchecked),
        _ if name.starts_with("TIOCPKT_") || name.starts_with("TIOCM_") || name.starts_with("N_") => Some(Rule::Same),
        _ if name.starts_with('V')
            && name.len() > 1
            && name[1..].bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) =>
        {
            Some(Rule::TermiosCc)
        }
        _ if prefixed(name, &["TC", "TIOC", "FIO"]) => Some(Rule::Ioctl),
        _ => None,
    }
}

fn siginfo_rule(name: &str, _: &str) -> Option<Rule> {
    if name.starts_with("SIGEV_") || (name.starts_with("NSIG") && name.len() > 4) {
        Some(Rule::Same)
    } else if prefixed(name, &["SI_", "ILL_", "FPE_", "SEGV_", "BUS_", "TRAP_", "CLD_", "POLL_", "SYS_", "EMT_"]) {
        Some(Rule::SiCode)
    } else {
        None
    }
}

/// The families, in doc order.
const FAMILIES: &[Family] = &[
    Family {
        title: "Open flags and fcntl",
        about: "`open_flags_to_host`/`open_flags_from_host` (open, openat, fcntl F_GETFL/F_SETFL, \
                pipe2…) and `fcntl_cmd_to_host`.",
        includes: "#include <linux/fcntl.h>\n",
        rule: open_rule,
    },
    Family {
        title: "Memory mappings",
        about: "`mmap_flags_to_generic` (mmap flags) and `map_32bit`; PROT_*, MADV_*, MS_*, MCL_* \
                and MREMAP_* are passed as they are.",
        includes: "#include <linux/mman.h>\n",
        rule: mman_rule,
    },
    Family {
        title: "Descriptor flags",
        about: "`open_flags_to_host` for the flags of the calls that make a descriptor (eventfd2, \
                timerfd_create, signalfd4, inotify_init1, epoll_create1): the C library's names, \
                `O_NONBLOCK` and `O_CLOEXEC` by other names.",
        includes: "#include <sys/eventfd.h>\n#include <sys/timerfd.h>\n#include <sys/signalfd.h>\n\
                   #include <sys/inotify.h>\n#include <sys/epoll.h>\n",
        rule: fdflag_rule,
    },
    Family {
        title: "Poll events",
        about: "`poll_events_to_host`/`poll_events_from_host` (poll, ppoll: `events` and `revents`).",
        includes: "#include <asm/poll.h>\n",
        rule: poll_rule,
    },
    Family {
        title: "File advice",
        about: "`fadvise_to_host` (fadvise64, fadvise64_64, arm_fadvise64_64).",
        includes: "#include <linux/fadvise.h>\n",
        rule: fadvise_rule,
    },
    Family {
        title: "Socket options",
        about: "`sol_socket` and `sockopt_to_host` (setsockopt, getsockopt, cmsg levels); socket \
                ioctls through `ioctl_to_host`.",
        includes: "#include <sys/types.h>\n#include <asm/socket.h>\n#include <asm/sockios.h>\n",
        rule: socket_rule,
    },
    Family {
        title: "Socket types",
        about: "`socket_type_to_host`/`socket_type_from_host` (socket, socketpair, SO_TYPE). These \
                are the C library's names (the kernel keeps `enum sock_type` out of uapi).",
        includes: "#include <sys/socket.h>\n",
        rule: socktype_rule,
    },
    Family {
        title: "Signals and sigaction flags",
        about: "`signal_to_host`/`signal_from_host`, `guest_only_signals`, `nsig`, \
                `sigmask_how_to_generic`, `sa_nocld_to_host`, `has_sa_restorer`.",
        includes: "#include <asm/signal.h>\n",
        rule: signal_rule,
    },
    Family {
        title: "si_code values",
        about: "`si_code_from_host`/`si_code_to_host` (delivered siginfo, rt_sigqueueinfo).",
        includes: "#include <asm/siginfo.h>\n",
        rule: siginfo_rule,
    },
    Family {
        title: "Errno",
        about: "`errno_from_host` (every failing call's return value; SO_ERROR) and `errno_to_host` \
                (the errno a seccomp filter returns).",
        includes: "#include <asm/errno.h>\n",
        rule: errno_rule,
    },
    Family {
        title: "Resource limits",
        about: "`rlimit_resource_to_host` (getrlimit, setrlimit, prlimit64).",
        includes: "#include <asm/resource.h>\n",
        rule: rlimit_rule,
    },
    Family {
        title: "Terminal",
        about: "`termios` (the arch's `struct termios`: flag bits and `c_cc` slots) and \
                `ioctl_to_host` (request numbers).",
        includes: "#include <linux/serial.h>\n#include <asm/termios.h>\n",
        rule: termios_rule,
    },
];

/// One name's value and defining header on each arch (index as [`ARCHES`]).
#[derive(Default, Clone)]
struct Row {
    rule: Option<Rule>,
    values: [Option<u32>; 7],
    sources: [Option<String>; 7],
}

/// The kernel's source arch directory of a guest arch.
fn karch(arch: &str) -> &'static str {
    match arch {
        "x86_64" | "i386" => "x86",
        "aarch64" => "arm64",
        "riscv64" => "riscv",
        "arm" => "arm",
        "s390x" => "s390",
        "mips64el" => "mips",
        other => panic!("no kernel arch for {other}"),
    }
}

/// Where an installed header comes from in the kernel's (or glibc's) source tree.
fn source_of(installed: &str, arch: &str) -> String {
    let base = installed.rsplit('/').next().unwrap_or(installed);
    if installed.contains("/asm-generic/") {
        format!("include/uapi/asm-generic/{base}")
    } else if installed.contains("/asm/") {
        format!("arch/{}/include/uapi/asm/{base}", karch(arch))
    } else if installed.contains("/linux/") {
        format!("include/uapi/linux/{base}")
    } else if installed.contains("/bits/") {
        format!("glibc bits/{base}")
    } else {
        base.to_string()
    }
}

fn compile(arch: &common::Arch, dir: &Path, tag: &str, src: &str, args: &[&str]) -> String {
    let c = dir.join(format!("{}-{tag}.c", arch.name));
    std::fs::write(&c, src).unwrap();
    let out =
        Command::new(arch.cc).args(arch.cflags).args(args).arg("-o").arg("-").arg(&c).output().unwrap_or_else(|e| {
            panic!("{} missing ({e}): install {} (scripts/install-deps.sh)", arch.cc, arch.cc_package)
        });
    assert!(out.status.success(), "{} {args:?} {tag} failed:\n{}", arch.cc, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The object-like macros a family's headers define on `arch`: name -> installed header.
fn names(arch: &common::Arch, dir: &Path, fam: &Family) -> BTreeMap<String, String> {
    let text = compile(arch, dir, "names", fam.includes, &["-dD", "-E"]);
    let mut file = String::new();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            if let Some(f) = rest.split('"').nth(1) {
                file = f.to_string();
            }
        } else if let Some(def) = line.strip_prefix("#define ") {
            let name: String = def.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if def[name.len()..].starts_with('(') || NOT_VALUES.contains(&name.as_str()) {
                continue;
            }
            if (fam.rule)(&name, &file).is_some() {
                out.insert(name, file.clone());
            }
        } else if let Some(undef) = line.strip_prefix("#undef ") {
            out.remove(undef.trim());
        }
    }
    out
}

/// The values of `names` on `arch`, read from the assembler listing of a data array per name.
fn values(arch: &common::Arch, dir: &Path, fam: &Family, names: &[&String]) -> BTreeMap<String, u32> {
    let mut src = fam.includes.to_string();
    for n in names {
        let _ = writeln!(src, "#ifdef {n}\nconst unsigned int v_{n}[2] = {{ 1u, (unsigned int)({n}) }};\n#endif");
    }
    let asm = compile(arch, dir, "values", &src, &["-S"]);
    let mut out = BTreeMap::new();
    let mut lines = asm.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("v_").and_then(|l| l.strip_suffix(':')) else { continue };
        let data: Vec<&str> = lines.by_ref().take(2).collect();
        let words: Vec<&str> = data[1].split_whitespace().collect();
        let v = match words.as_slice() {
            [".long" | ".word" | ".4byte", v] => {
                let v: i64 = v.parse().unwrap_or_else(|_| panic!("{}: {name}: {}", arch.name, data[1]));
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // an unsigned int
                let v = v as u32;
                v
            }
            [".zero" | ".space", "4"] => 0,
            _ => panic!("{}: {name}: unexpected listing line {:?}", arch.name, data[1]),
        };
        out.insert(name.to_string(), v);
    }
    out
}

/// One family's names on one arch (name -> installed header) and their values.
type Found = (BTreeMap<String, String>, BTreeMap<String, u32>);

/// Every family's rows, read from the headers of every arch.
fn table() -> Vec<BTreeMap<String, Row>> {
    let dir = TempDir::new("constants");
    let per_arch: Vec<Vec<Found>> = std::thread::scope(|s| {
        let handles: Vec<_> = ARCHES
            .iter()
            .map(|arch| {
                let dir = dir.path();
                s.spawn(move || {
                    FAMILIES
                        .iter()
                        .map(|fam| {
                            let n = names(arch, dir, fam);
                            let v = values(arch, dir, fam, &n.keys().collect::<Vec<_>>());
                            (n, v)
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    FAMILIES
        .iter()
        .enumerate()
        .map(|(f, fam)| {
            let mut rows: BTreeMap<String, Row> = BTreeMap::new();
            for (a, arch) in ARCHES.iter().enumerate() {
                let (names, values) = &per_arch[a][f];
                for (name, file) in names {
                    let Some(&v) = values.get(name) else { continue };
                    let row = rows.entry(name.clone()).or_default();
                    row.rule = row.rule.or((fam.rule)(name, file));
                    row.values[a] = Some(v);
                    row.sources[a] = Some(source_of(file, arch.name));
                }
            }
            rows
        })
        .collect()
}

fn info(a: usize) -> &'static ArchInfo {
    assert_eq!(ALL[a].0, ARCHES[a].name, "endgate's arch list and the guest-tests' are in one order");
    ALL[a].1.info()
}

#[allow(clippy::cast_possible_wrap)] // the C values are ints
fn int(v: u32) -> i32 {
    v as i32
}

/// What is wrong with endgate's row for one name on one arch (`g` the guest's value, `h` the
/// host's, either absent where the arch has no such name).
fn check(fam: &Family, name: &str, rule: Rule, a: usize, g: Option<u32>, h: Option<u32>) -> Option<String> {
    let i = info(a);
    let arch = ARCHES[a].name;
    let matches = |n: &str| n == name || n.strip_suffix('*').is_some_and(|p| name.starts_with(p));
    if EXCEPTIONS.iter().any(|&(f, n, x, _)| f == fam.title && matches(n) && x == arch) {
        return None;
    }
    if ALIASES.iter().any(|&(n, _, _)| n == name) {
        return None;
    }
    let bad = |what: String| Some(format!("{arch} {name}: {what}"));
    match (rule, g, h) {
        (Rule::Unchecked, _, _) => None,
        (Rule::SaRestorer, g, _) => (g.is_some() != i.has_sa_restorer)
            .then(|| format!("{arch} {name}: has_sa_restorer is {}", i.has_sa_restorer)),
        (Rule::Nsig, Some(g), _) => (u64::from(g) != i.nsig).then(|| format!("{arch} {name}: nsig is {}", i.nsig)),
        (Rule::Map32, g, _) => match (g, i.map_32bit.as_ref()) {
            (Some(g), Some((f, _))) if u64::from(g) == *f => None,
            (None, None) => None,
            (g, m) => bad(format!("guest {g:x?}, map_32bit {:x?}", m.map(|m| m.0))),
        },
        (Rule::Signal, Some(g), None) => (!i.guest_only_signals.iter().any(|&(n, s)| n == u64::from(g) && s == name))
            .then(|| format!("{arch} {name} ({g}): the host has no such signal and guest_only_signals lacks it")),
        (Rule::Signal, None, Some(h)) => {
            let back = (i.signal_from_host)(Signal(h));
            (back != 0).then(|| format!("{arch} {name}: the guest has none, signal_from_host({h}) = {back}"))
        }
        (_, None, _) | (_, _, None) => None,
        (rule, Some(g), Some(h)) => {
            let (gi, hi) = (int(g), int(h));
            match rule {
                Rule::Same => (g != h).then(|| format!("{arch} {name}: guest {g:#x}, host {h:#x}, passed unchanged")),
                Rule::OpenFlag => {
                    let to = (i.open_flags_to_host)(u64::from(g));
                    let from = (i.open_flags_from_host)(hi);
                    (to != hi || from != u64::from(g)).then(|| {
                        format!("{arch} {name}: guest {g:#x} -> host {to:#x} (want {h:#x}); host -> guest {from:#x}")
                    })
                }
                Rule::FdFlag => {
                    let to = (i.open_flags_to_host)(u64::from(g));
                    (to != hi).then(|| format!("{arch} {name}: guest {g:#x} -> host {to:#x} (want {h:#x})"))
                }
                Rule::Poll => {
                    #[allow(clippy::cast_possible_truncation)] // 16-bit poll bits
                    let (g16, h16) = (g as i16, h as i16);
                    let to = (i.poll_events_to_host)(g16);
                    let from = (i.poll_events_from_host)(h16);
                    (to & h16 != h16 || from != g16).then(|| {
                        format!("{arch} {name}: guest {g:#x} -> host {to:#x} (want {h:#x}); host -> guest {from:#x}")
                    })
                }
                Rule::FcntlCmd => {
                    let to = (i.fcntl_cmd_to_host)(gi);
                    (to != hi).then(|| format!("{arch} {name}: guest {g} -> host {to} (want {h})"))
                }
                Rule::MmapFlag => {
                    let to = (i.mmap_flags_to_generic)(u64::from(g));
                    (to != u64::from(h)).then(|| format!("{arch} {name}: guest {g:#x} -> {to:#x} (want {h:#x})"))
                }
                Rule::ProtSem => (u64::from(g) != i.prot_sem)
                    .then(|| format!("{arch} {name}: prot_sem {:#x}, guest {g:#x}", i.prot_sem)),
                Rule::Fadvise => {
                    let to = (i.fadvise_to_host)(gi);
                    (to != hi).then(|| format!("{arch} {name}: guest {g} -> host {to} (want {h})"))
                }
                Rule::SolSocket => {
                    (i.sol_socket != gi).then(|| format!("{arch} {name}: sol_socket {:#x}, guest {g:#x}", i.sol_socket))
                }
                Rule::SockOpt => {
                    let to = (i.sockopt_to_host)(i.sol_socket, gi);
                    (to != (libc::SOL_SOCKET, hi))
                        .then(|| format!("{arch} {name}: guest {g} -> host {to:?} (want {h})"))
                }
                Rule::SockType => {
                    let to = (i.socket_type_to_host)(gi);
                    let from = (i.socket_type_from_host)(hi);
                    (to != hi || from != gi)
                        .then(|| format!("{arch} {name}: guest {g} -> host {to} (want {h}); host -> guest {from}"))
                }
                Rule::SockFlag => {
                    let to = (i.socket_type_to_host)(gi);
                    (to != hi).then(|| format!("{arch} {name}: guest {g:#x} -> host {to:#x} (want {h:#x})"))
                }
                Rule::Signal => {
                    let to = (i.signal_to_host)(u64::from(g));
                    let from = (i.signal_from_host)(Signal(h));
                    (to != Some(Signal(h)) || from != u64::from(g))
                        .then(|| format!("{arch} {name}: guest {g} -> host {to:?} (want {h}); host -> guest {from}"))
                }
                Rule::SigHow => {
                    let to = (i.sigmask_how_to_generic)(u64::from(g));
                    (to != u64::from(h)).then(|| format!("{arch} {name}: guest {g} -> {to} (want {h})"))
                }
                Rule::SaNocld => {
                    let to = (i.sa_nocld_to_host)(u64::from(g));
                    (to != hi).then(|| format!("{arch} {name}: guest {g:#x} -> host {to:#x} (want {h:#x})"))
                }
                Rule::SaFlag => (g != h).then(|| {
                    format!("{arch} {name}: guest {g:#x}, host {h:#x}: endgate reads sa_flags in the host's numbering")
                }),
                Rule::Errno => {
                    let from = (i.errno_from_host)(hi);
                    let to = (i.errno_to_host)(gi);
                    (from != gi || to != hi)
                        .then(|| format!("{arch} {name}: host {h} -> guest {from} (want {g}); guest -> host {to}"))
                }
                Rule::Rlimit => {
                    let to = (i.rlimit_resource_to_host)(gi);
                    (to != hi).then(|| format!("{arch} {name}: guest {g} -> host {to} (want {h})"))
                }
                Rule::Ioctl => {
                    let to = (i.ioctl_to_host)(u64::from(g));
                    (to != u64::from(h)).then(|| format!("{arch} {name}: guest {g:#x} -> host {to:#x} (want {h:#x})"))
                }
                Rule::SiCode => {
                    let to = (i.si_code_to_host)(gi);
                    let from = (i.si_code_from_host)(hi);
                    (to != hi || from != gi)
                        .then(|| format!("{arch} {name}: guest {gi} -> host {to} (want {hi}); host -> guest {from}"))
                }
                Rule::TermiosWord(w) => termios_word(a, w, g, h).map(|e| format!("{arch} {name}: {e}")),
                Rule::TermiosCc => termios_cc(a, g, h).map(|e| format!("{arch} {name}: {e}")),
                Rule::Unchecked | Rule::SaRestorer | Rule::Nsig | Rule::Map32 => None,
            }
        }
    }
}

/// The guest's `struct termios` bytes with flag word `w` (or `c_cc[cc]`) set, as the arch's
/// kernel lays them out: four 32-bit flag words, `c_line`, `c_cc`.
fn termios_bytes(a: usize, size: usize, w: Option<(usize, u32)>, cc: Option<(usize, u8)>) -> Vec<u8> {
    let mut b = vec![0u8; size];
    if let Some((w, v)) = w {
        let bytes = if info(a).endian() == endgate::mm::Endian::Big { v.to_be_bytes() } else { v.to_le_bytes() };
        b[w * 4..w * 4 + 4].copy_from_slice(&bytes);
    }
    if let Some((i, v)) = cc {
        b[17 + i] = v;
    }
    b
}

fn termios_word(a: usize, w: usize, g: u32, h: u32) -> Option<String> {
    let Some(t) = &info(a).termios else {
        return (g != h).then(|| format!("guest {g:#x}, host {h:#x}, and the arch keeps asm-generic's termios"));
    };
    let size = usize::try_from(t.size).unwrap();
    let k = (t.to_host)(&termios_bytes(a, size, Some((w, g)), None));
    let got = [k.c_iflag, k.c_oflag, k.c_cflag, k.c_lflag][w];
    let mut host = k;
    host.c_iflag = if w == 0 { h } else { 0 };
    host.c_oflag = if w == 1 { h } else { 0 };
    host.c_cflag = if w == 2 { h } else { 0 };
    host.c_lflag = if w == 3 { h } else { 0 };
    let back = (t.from_host)(&host);
    let want_back = termios_bytes(a, size, Some((w, g)), None);
    (got != h || back != want_back).then(|| format!("guest {g:#x} -> host {got:#x} (want {h:#x}), or not back"))
}

fn termios_cc(a: usize, g: u32, h: u32) -> Option<String> {
    let Some(t) = &info(a).termios else {
        return (g != h).then(|| format!("guest slot {g}, host slot {h}, and the arch keeps asm-generic's termios"));
    };
    let size = usize::try_from(t.size).unwrap();
    let (gi, hi) = (usize::try_from(g).unwrap(), usize::try_from(h).unwrap());
    let bytes = termios_bytes(a, size, None, Some((gi, 0x5a)));
    let k = (t.to_host)(&bytes);
    let back = (t.from_host)(&k);
    (k.c_cc.get(hi) != Some(&0x5a) || back != bytes).then(|| format!("guest slot {g} does not become host slot {h}"))
}

/// One cell of the doc.
fn cell(v: Option<u32>, rule: Rule) -> String {
    match v {
        None => "—".to_string(),
        Some(v) if rule.hex() => format!("{v:#x}"),
        Some(v) if matches!(rule, Rule::SiCode) => int(v).to_string(),
        Some(v) => v.to_string(),
    }
}

fn render(table: &[BTreeMap<String, Row>]) -> String {
    let mut out = String::from("# Constants that differ between the guest arches\n\n");
    let _ = writeln!(
        out,
        "Made from each arch's own uapi headers (the cross compilers of the guest-tests) by\n\
         `emulator/tests/constants.rs` (`ENDGATE_BLESS=1 cargo test --release -p endgate --test\n\
         constants` rewrites it; the test fails when it is out of date). The same test puts every\n\
         value of a family, not only these, through endgate's data row for the arch\n\
         (`ArchInfo`, emulator/src/guest/info.rs; the values live in each arch's folder,\n\
         `emulator/src/arch/<arch>/abi.rs`, and in `emulator/src/abi/arm_fcntl.rs`) and checks\n\
         that it comes out as the x86_64 host's value of the same name.\n\n\
         A row is a name whose value on some arch is not x86_64's, which is asm-generic's for\n\
         these families except the names only x86 has. — : the arch has no such name. Source:\n\
         the header that defines the differing values, as a path in the kernel's source tree\n\
         (`include/uapi/...`, `arch/<arch>/include/uapi/...`) or glibc's.\n"
    );
    let arches: Vec<&str> = ARCHES.iter().map(|a| a.name).collect();
    for (fam, rows) in FAMILIES.iter().zip(table) {
        let _ = writeln!(out, "## {}\n\n{}\n", fam.title, fam.about.split_whitespace().collect::<Vec<_>>().join(" "));
        let _ = writeln!(out, "| name | {} | source |", arches.join(" | "));
        let _ = writeln!(out, "|---|{}---|", "---:|".repeat(arches.len()));
        let mut any = false;
        for (name, row) in rows {
            let rule = row.rule.unwrap_or(Rule::Same);
            let host = row.values[0];
            if row.values.iter().all(|v| *v == host) {
                continue;
            }
            any = true;
            let mut srcs: Vec<&str> = Vec::new();
            for (v, s) in row.values.iter().zip(&row.sources) {
                if let (true, Some(s)) = (*v != host, s) {
                    if !srcs.contains(&s.as_str()) {
                        srcs.push(s);
                    }
                }
            }
            if srcs.is_empty() {
                // The differing arches lack the name: the headers of those that have it.
                for s in row.sources.iter().flatten() {
                    if !srcs.contains(&s.as_str()) {
                        srcs.push(s);
                    }
                }
            }
            let cells: Vec<String> = row.values.iter().map(|v| cell(*v, rule)).collect();
            let _ = writeln!(out, "| {name} | {} | {} |", cells.join(" | "), srcs.join(", "));
        }
        if !any {
            let _ = writeln!(out, "| (none) |{}|", " |".repeat(arches.len()));
        }
        let notes: Vec<_> = EXCEPTIONS.iter().filter(|e| e.0 == fam.title).collect();
        let aliases: Vec<_> = ALIASES.iter().filter(|a| rows.contains_key(a.0)).collect();
        if !notes.is_empty() || !aliases.is_empty() {
            out.push('\n');
        }
        for (_, name, arch, why) in notes {
            let why = why.split_whitespace().collect::<Vec<_>>().join(" ");
            let _ = writeln!(out, "- {name} on {arch}: {why}");
        }
        for (name, first, why) in aliases {
            let _ = writeln!(out, "- {name} (checked as {first}): {why}");
        }
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn arch_rows_match_uapi_headers_and_doc_is_current() {
    let table = table();
    let mut problems = Vec::new();
    for (fam, rows) in FAMILIES.iter().zip(&table) {
        for (name, row) in rows {
            let Some(rule) = row.rule else { continue };
            for a in 0..ARCHES.len() {
                if let Some(p) = check(fam, name, rule, a, row.values[a], row.values[0]) {
                    problems.push(format!("[{}] {p}", fam.title));
                }
            }
        }
    }
    // Every family found names on every arch (a header that went missing would empty it).
    for (fam, rows) in FAMILIES.iter().zip(&table) {
        for (a, arch) in ARCHES.iter().enumerate() {
            let n = rows.values().filter(|r| r.values[a].is_some()).count();
            assert!(n >= 3, "{}: only {n} names on {}", fam.title, arch.name);
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/constants.md");
    let want = render(&table);
    if std::env::var_os("ENDGATE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    assert!(problems.is_empty(), "{} constants endgate maps wrong:\n{}", problems.len(), problems.join("\n"));
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/constants.md is out of date: run ENDGATE_BLESS=1 cargo test --release -p endgate --test constants"
    );
}
