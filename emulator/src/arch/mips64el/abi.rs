//! mips64el (n64) struct layouts and numbering that differ from asm-generic, each from the
//! uapi header named on it (arch/mips/include/uapi/asm/).

// 64-bit MIPS `cp_new_stat` stores device numbers in the 32-bit `new_encode_dev` form.
use crate::abi::stat32::new_encode_dev;
use crate::abi::{int32, low32, signed64, u64_to_usize};
use zerocopy::byteorder::little_endian::{I32, I64, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

/// The 64-bit MIPS `struct stat` (layout: arch/mips/include/uapi/asm/stat.h, the
/// `_MIPS_SIM == _MIPS_SIM_ABI64` one), 104 bytes: 32-bit `st_dev`/`st_rdev` each followed by
/// three reserved words, 32-bit times and `st_blksize`.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
#[allow(missing_docs)]
pub struct Stat {
    pub st_dev: U32,
    pub st_pad0: [U32; 3],
    pub st_ino: U64,
    pub st_mode: U32,
    pub st_nlink: U32,
    pub st_uid: U32,
    pub st_gid: U32,
    pub st_rdev: U32,
    pub st_pad1: [U32; 3],
    pub st_size: I64,
    pub st_atime: U32,
    pub st_atime_nsec: U32,
    pub st_mtime: U32,
    pub st_mtime_nsec: U32,
    pub st_ctime: U32,
    pub st_ctime_nsec: U32,
    pub st_blksize: U32,
    pub st_pad2: U32,
    pub st_blocks: I64,
}

/// The 64-bit MIPS `struct statfs` (layout: arch/mips/include/uapi/asm/statfs.h), 128 bytes:
/// `f_frsize` third and `f_bavail` after `f_ffree`, unlike asm-generic.
#[repr(C)]
#[derive(FromBytes, IntoBytes, Immutable, KnownLayout, Default)]
#[allow(missing_docs)]
pub struct Statfs {
    pub f_type: I64,
    pub f_bsize: I64,
    pub f_frsize: I64,
    pub f_blocks: I64,
    pub f_bfree: I64,
    pub f_files: I64,
    pub f_ffree: I64,
    pub f_bavail: I64,
    pub f_fsid: [I32; 2],
    pub f_namelen: I64,
    pub f_flags: I64,
    pub f_spare: [I64; 5],
}

// The sizes above: stat 104 bytes, statfs 128.
const _: () = assert!(std::mem::size_of::<Stat>() == 104 && std::mem::size_of::<Statfs>() == 128);

impl Statfs {
    /// From the host's `struct statfs`.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_host(s: &libc::statfs) -> Statfs {
        // SAFETY: fsid_t is two ints on Linux hosts.
        let fsid: [i32; 2] = unsafe { std::mem::transmute(s.f_fsid) };
        // The libc crate keeps `f_flags` in its private spare words: the x86_64 kernel's
        // struct statfs has it at byte 80, right after `f_frsize`.
        // SAFETY: reads 8 bytes inside the 120-byte host struct.
        let f_flags =
            unsafe { std::ptr::read_unaligned((s as *const libc::statfs).cast::<u8>().add(80).cast::<i64>()) };
        Statfs {
            f_type: I64::new(s.f_type as i64),
            f_bsize: I64::new(s.f_bsize as i64),
            f_frsize: I64::new(s.f_frsize as i64),
            f_blocks: I64::new(signed64(s.f_blocks)),
            f_bfree: I64::new(signed64(s.f_bfree)),
            f_files: I64::new(signed64(s.f_files)),
            f_ffree: I64::new(signed64(s.f_ffree)),
            f_bavail: I64::new(signed64(s.f_bavail)),
            f_fsid: [I32::new(fsid[0]), I32::new(fsid[1])],
            f_namelen: I64::new(s.f_namelen as i64),
            f_flags: I64::new(f_flags),
            ..Default::default()
        }
    }
}

impl Stat {
    /// From the host's `struct stat`; times are truncated to 32 bits as the kernel does.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_host(s: &libc::stat) -> Stat {
        Stat {
            st_dev: U32::new(new_encode_dev(s.st_dev)),
            st_ino: U64::new(s.st_ino),
            st_mode: U32::new(s.st_mode),
            st_nlink: U32::new(low32(s.st_nlink)),
            st_uid: U32::new(s.st_uid),
            st_gid: U32::new(s.st_gid),
            st_rdev: U32::new(new_encode_dev(s.st_rdev)),
            st_size: I64::new(s.st_size),
            st_atime: U32::new(low32(s.st_atime)),
            st_atime_nsec: U32::new(low32(s.st_atime_nsec)),
            st_mtime: U32::new(low32(s.st_mtime)),
            st_mtime_nsec: U32::new(low32(s.st_mtime_nsec)),
            st_ctime: U32::new(low32(s.st_ctime)),
            st_ctime_nsec: U32::new(low32(s.st_ctime_nsec)),
            st_blksize: U32::new(low32(s.st_blksize)),
            st_blocks: I64::new(s.st_blocks),
            ..Default::default()
        }
    }
}

/// Host (asm-generic) errno -> MIPS errno for the numbers that differ
/// (arch/mips/include/uapi/asm/errno.h); 1-34 and the rest are the same.
const ERRNO: &[(i32, i32)] = &[
    (libc::ENOMSG, 35),
    (libc::EIDRM, 36),
    (libc::ECHRNG, 37),
    (libc::EL2NSYNC, 38),
    (libc::EL3HLT, 39),
    (libc::EL3RST, 40),
    (libc::ELNRNG, 41),
    (libc::EUNATCH, 42),
    (libc::ENOCSI, 43),
    (libc::EL2HLT, 44),
    (libc::EDEADLK, 45),
    (libc::ENOLCK, 46),
    (libc::EBADE, 50),
    (libc::EBADR, 51),
    (libc::EXFULL, 52),
    (libc::ENOANO, 53),
    (libc::EBADRQC, 54),
    (libc::EBADSLT, 55),
    (libc::EBFONT, 59),
    (libc::ENOSTR, 60),
    (libc::ENODATA, 61),
    (libc::ETIME, 62),
    (libc::ENOSR, 63),
    (libc::ENONET, 64),
    (libc::ENOPKG, 65),
    (libc::EREMOTE, 66),
    (libc::ENOLINK, 67),
    (libc::EADV, 68),
    (libc::ESRMNT, 69),
    (libc::ECOMM, 70),
    (libc::EPROTO, 71),
    (libc::EDOTDOT, 73),
    (libc::EMULTIHOP, 74),
    (libc::EBADMSG, 77),
    (libc::ENAMETOOLONG, 78),
    (libc::EOVERFLOW, 79),
    (libc::ENOTUNIQ, 80),
    (libc::EBADFD, 81),
    (libc::EREMCHG, 82),
    (libc::ELIBACC, 83),
    (libc::ELIBBAD, 84),
    (libc::ELIBSCN, 85),
    (libc::ELIBMAX, 86),
    (libc::ELIBEXEC, 87),
    (libc::EILSEQ, 88),
    (libc::ENOSYS, 89),
    (libc::ELOOP, 90),
    (libc::ERESTART, 91),
    (libc::ESTRPIPE, 92),
    (libc::ENOTEMPTY, 93),
    (libc::EUSERS, 94),
    (libc::ENOTSOCK, 95),
    (libc::EDESTADDRREQ, 96),
    (libc::EMSGSIZE, 97),
    (libc::EPROTOTYPE, 98),
    (libc::ENOPROTOOPT, 99),
    (libc::EPROTONOSUPPORT, 120),
    (libc::ESOCKTNOSUPPORT, 121),
    (libc::EOPNOTSUPP, 122),
    (libc::EPFNOSUPPORT, 123),
    (libc::EAFNOSUPPORT, 124),
    (libc::EADDRINUSE, 125),
    (libc::EADDRNOTAVAIL, 126),
    (libc::ENETDOWN, 127),
    (libc::ENETUNREACH, 128),
    (libc::ENETRESET, 129),
    (libc::ECONNABORTED, 130),
    (libc::ECONNRESET, 131),
    (libc::ENOBUFS, 132),
    (libc::EISCONN, 133),
    (libc::ENOTCONN, 134),
    (libc::EUCLEAN, 135),
    (libc::ENOTNAM, 137),
    (libc::ENAVAIL, 138),
    (libc::EISNAM, 139),
    (libc::EREMOTEIO, 140),
    (libc::ESHUTDOWN, 143),
    (libc::ETOOMANYREFS, 144),
    (libc::ETIMEDOUT, 145),
    (libc::ECONNREFUSED, 146),
    (libc::EHOSTDOWN, 147),
    (libc::EHOSTUNREACH, 148),
    (libc::EALREADY, 149),
    (libc::EINPROGRESS, 150),
    (libc::ESTALE, 151),
    (libc::ECANCELED, 158),
    (libc::ENOMEDIUM, 159),
    (libc::EMEDIUMTYPE, 160),
    (libc::ENOKEY, 161),
    (libc::EKEYEXPIRED, 162),
    (libc::EKEYREVOKED, 163),
    (libc::EKEYREJECTED, 164),
    (libc::EOWNERDEAD, 165),
    (libc::ENOTRECOVERABLE, 166),
    (libc::ERFKILL, 167),
    (libc::EHWPOISON, 168),
    (libc::EDQUOT, 1133),
];

/// Host errno -> MIPS errno.
pub fn errno_from_host(e: i32) -> i32 {
    ERRNO.iter().find(|&&(h, _)| h == e).map_or(e, |&(_, g)| g)
}

/// MIPS errno -> host errno (numbers 1-34 and those the table does not name stay).
pub fn errno_to_host(e: i32) -> i32 {
    ERRNO.iter().find(|&&(_, g)| g == e).map_or(e, |&(h, _)| h)
}

/// `poll` bits that differ (arch/mips/include/uapi/asm/poll.h): `POLLWRNORM` is `POLLOUT`
/// (0x4) and `POLLWRBAND` 0x100, where asm-generic has 0x100 and 0x200.
const POLLOUT: i16 = 0x4;
const POLLWRBAND: i16 = 0x100;
const HOST_POLLWRNORM: i16 = 0x100;
const HOST_POLLWRBAND: i16 = 0x200;

/// MIPS `poll` events -> host: `POLLOUT` asks for the host's `POLLOUT | POLLWRNORM`, as the
/// MIPS kernel reads it (fs/select.c `demangle_poll`); the host's `POLLWRBAND` bit has no MIPS
/// meaning and is dropped.
pub fn poll_events_to_host(ev: i16) -> i16 {
    poll_remap(ev, [(POLLOUT, HOST_POLLWRNORM), (POLLWRBAND, HOST_POLLWRBAND)])
}

/// Host `poll` revents -> MIPS.
pub fn poll_events_from_host(ev: i16) -> i16 {
    poll_remap(ev, [(HOST_POLLWRNORM, POLLOUT), (HOST_POLLWRBAND, POLLWRBAND)])
}

/// `ev` without the bits at the host's `POLLWRNORM`/`POLLWRBAND` places, plus `to` for each
/// `(from, to)` whose `from` is set in `ev`.
fn poll_remap(ev: i16, pairs: [(i16, i16); 2]) -> i16 {
    let kept = ev & !(HOST_POLLWRNORM | HOST_POLLWRBAND);
    pairs.iter().filter(|&&(from, _)| ev & from != 0).fold(kept, |out, &(_, to)| out | to)
}

/// MIPS signal number -> host signal number, index = MIPS number
/// (arch/mips/include/uapi/asm/signal.h); 0 where the host has no such signal (7 is SIGEMT).
/// 32 and up are the real-time signals, numbered alike.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // host signal numbers: 1..=31
const SIG_TO_HOST: [u8; 32] = [
    0,
    libc::SIGHUP as u8,
    libc::SIGINT as u8,
    libc::SIGQUIT as u8,
    libc::SIGILL as u8,
    libc::SIGTRAP as u8,
    libc::SIGABRT as u8,
    0, // SIGEMT
    libc::SIGFPE as u8,
    libc::SIGKILL as u8,
    libc::SIGBUS as u8,
    libc::SIGSEGV as u8,
    libc::SIGSYS as u8,
    libc::SIGPIPE as u8,
    libc::SIGALRM as u8,
    libc::SIGTERM as u8,
    libc::SIGUSR1 as u8,
    libc::SIGUSR2 as u8,
    libc::SIGCHLD as u8,
    libc::SIGPWR as u8,
    libc::SIGWINCH as u8,
    libc::SIGURG as u8,
    libc::SIGIO as u8,
    libc::SIGSTOP as u8,
    libc::SIGTSTP as u8,
    libc::SIGCONT as u8,
    libc::SIGTTIN as u8,
    libc::SIGTTOU as u8,
    libc::SIGVTALRM as u8,
    libc::SIGPROF as u8,
    libc::SIGXCPU as u8,
    libc::SIGXFSZ as u8,
];

/// Highest MIPS signal number (`_NSIG` 128); endgate keeps 64 signals, so 65-128 are refused.
pub const NSIG: u64 = 128;

/// MIPS signal number -> host, `None` for SIGEMT and numbers above the host's 64.
pub fn signal_to_host(sig: u64) -> Option<u32> {
    match sig {
        1..=31 => Some(u32::from(SIG_TO_HOST[u64_to_usize(sig)])).filter(|&h| h != 0),
        32..=64 => u32::try_from(sig).ok(),
        _ => None,
    }
}

/// Host signal number -> MIPS; 0 for SIGSTKFLT, which MIPS does not have.
pub fn signal_from_host(sig: u32) -> u64 {
    match sig {
        1..=31 => SIG_TO_HOST.iter().position(|&h| u32::from(h) == sig).map_or(0, |i| i as u64),
        _ => u64::from(sig),
    }
}

/// A MIPS 128-bit `sigset_t` (two little-endian words) -> host-numbered 64-bit mask.
pub fn sigset_to_host(words: [u64; 2]) -> u64 {
    let mut m = 0u64;
    for g in 1..=NSIG {
        let w = words[((g - 1) / 64) as usize];
        if w & (1 << ((g - 1) % 64)) != 0 {
            if let Some(h) = signal_to_host(g) {
                m |= 1 << (h - 1);
            }
        }
    }
    m
}

/// A host-numbered mask -> MIPS `sigset_t` words.
pub fn sigset_from_host(mask: u64) -> [u64; 2] {
    let mut w = [0u64; 2];
    for h in 1..=64u32 {
        if mask & (1 << (h - 1)) != 0 {
            let g = signal_from_host(h);
            if g != 0 {
                w[((g - 1) / 64) as usize] |= 1 << ((g - 1) % 64);
            }
        }
    }
    w
}

/// `open` flags that differ: (MIPS, host) pairs (arch/mips/include/uapi/asm/fcntl.h; the
/// others, O_DIRECTORY and up, are asm-generic's). `O_SYNC` is `__O_SYNC | O_DSYNC` on both.
const OPEN_FLAGS: &[(u64, i32)] = &[
    (0x0008, libc::O_APPEND),
    (0x0010, libc::O_DSYNC),
    (0x0080, libc::O_NONBLOCK),
    (0x0100, libc::O_CREAT),
    (0x0200, libc::O_TRUNC),
    (0x0400, libc::O_EXCL),
    (0x0800, libc::O_NOCTTY),
    (0x1000, libc::O_ASYNC),
    (0x2000, crate::abi::HOST_O_LARGEFILE),
    (0x4000, libc::O_SYNC & !libc::O_DSYNC),
    (0x8000, libc::O_DIRECT),
];

/// Bits of the MIPS open flags that [`OPEN_FLAGS`] covers (above the access mode, which is the
/// same everywhere).
const OPEN_LOW: u64 = 0xfffc;

/// MIPS `open` flags -> host; bits above the table pass through (asm-generic values).
pub fn open_flags_to_host(flags: u64) -> i32 {
    let mut h = int32(flags & !OPEN_LOW);
    for &(g, hb) in OPEN_FLAGS {
        if flags & g != 0 {
            h |= hb;
        }
    }
    h
}

/// Host `open` flags -> MIPS.
pub fn open_flags_from_host(flags: i32) -> u64 {
    let mut rest = flags;
    let mut g = 0u64;
    for &(gb, hb) in OPEN_FLAGS {
        if flags & hb == hb {
            g |= gb;
            rest &= !hb;
        }
    }
    g | u64::from(low32(rest))
}

/// `mmap` flags that differ: (MIPS, generic) pairs (arch/mips/include/uapi/asm/mman.h vs
/// include/uapi/asm-generic/mman*.h); MAP_SHARED/PRIVATE/TYPE/FIXED and MAP_FIXED_NOREPLACE
/// are the same.
const MMAP_FLAGS: &[(u64, u64)] = &[
    (0x0400, 0x4000),   // MAP_NORESERVE
    (0x0800, 0x20),     // MAP_ANONYMOUS
    (0x1000, 0x0100),   // MAP_GROWSDOWN
    (0x2000, 0x0800),   // MAP_DENYWRITE
    (0x4000, 0x1000),   // MAP_EXECUTABLE
    (0x8000, 0x2000),   // MAP_LOCKED
    (0x10000, 0x8000),  // MAP_POPULATE
    (0x20000, 0x10000), // MAP_NONBLOCK
    (0x40000, 0x20000), // MAP_STACK
    (0x80000, 0x40000), // MAP_HUGETLB
];

/// The kernel's `LEGACY_MAP_MASK` in MIPS's values (see [`crate::abi::MMAP_LEGACY_FLAGS`]):
/// MAP_SHARED | MAP_PRIVATE, MAP_FIXED 0x10 and the pairs above, and bits 26-30 (the MAP_HUGE_*
/// page sizes). MIPS has no MAP_SYNC or MAP_UNINITIALIZED, and its 0x20-0x200 (MAP_RENAME,
/// MAP_AUTOGROW, MAP_LOCAL, MAP_AUTORSRV) are not served.
pub const MMAP_LEGACY_FLAGS: u64 = 0x3
    | 0x10
    | 0x400
    | 0x800
    | 0x1000
    | 0x2000
    | 0x4000
    | 0x8000
    | 0x1_0000
    | 0x2_0000
    | 0x4_0000
    | 0x8_0000
    | 0x7c00_0000;

/// MIPS `PROT_SEM` (arch/mips/include/uapi/asm/mman.h; asm-generic's is 0x8).
pub const PROT_SEM: u64 = 0x10;

/// MIPS `mmap` flags -> generic.
pub fn mmap_flags_to_generic(flags: u64) -> u64 {
    let mut out = flags & !0xf_fff0 | (flags & 0x10);
    for &(g, h) in MMAP_FLAGS {
        if flags & g != 0 {
            out |= h;
        }
    }
    out
}

/// `fcntl` commands that differ (arch/mips/include/uapi/asm/fcntl.h): F_GETLK 14,
/// F_SETOWN 24, F_GETOWN 23 (F_SETLK 6 and F_SETLKW 7 are the generic values).
pub fn fcntl_cmd_to_host(cmd: i32) -> i32 {
    match cmd {
        14 => libc::F_GETLK,
        24 => libc::F_SETOWN,
        23 => libc::F_GETOWN,
        // 5, 8 and 9 are free on MIPS; keep them away from the host's F_GETLK/F_SETOWN/F_GETOWN.
        5 | 8 | 9 => -1,
        c => c,
    }
}

/// Terminal ioctl requests (arch/mips/include/uapi/asm/ioctls.h; MIPS `_IOR` is direction 2
/// at bit 29 and `_IOW` 4) -> host (include/uapi/asm-generic/ioctls.h). The `struct termios`
/// of TCGETS/TCSETS* is converted by [`termios_to_host`]/[`termios_from_host`].
pub fn ioctl_to_host(req: u64) -> u64 {
    match req {
        0x5405 => 0x5409,      // TCSBRK
        0x5406 => 0x540A,      // TCXONC
        0x5407 => 0x540B,      // TCFLSH
        0x740d => 0x540C,      // TIOCEXCL
        0x740e => 0x540D,      // TIOCNXCL
        0x5472 => 0x5412,      // TIOCSTI
        0x741d => 0x5415,      // TIOCMGET
        0x741b => 0x5416,      // TIOCMBIS
        0x741c => 0x5417,      // TIOCMBIC
        0x741a => 0x5418,      // TIOCMSET
        0x5470 => 0x5420,      // TIOCPKT
        0x667d => 0x5452,      // FIOASYNC
        0x5480 => 0x540E,      // TIOCSCTTY
        0x5471 => 0x5422,      // TIOCNOTTY
        0x4004_7477 => 0x540F, // TIOCGPGRP
        0x8004_7476 => 0x5410, // TIOCSPGRP
        0x7472 => 0x5411,      // TIOCOUTQ
        0x4008_7468 => 0x5413, // TIOCGWINSZ
        0x8008_7467 => 0x5414, // TIOCSWINSZ
        0x467F => 0x541B,      // FIONREAD
        0x667E => 0x5421,      // FIONBIO
        0x6601 => 0x5451,      // FIOCLEX
        0x6602 => 0x5450,      // FIONCLEX
        0x540D => 0x5401,      // TCGETS
        0x540E => 0x5402,      // TCSETS
        0x540F => 0x5403,      // TCSETSW
        0x5410 => 0x5404,      // TCSETSF
        0x7416 => 0x5429,      // TIOCGSID
        0x5486 => 0x5425,      // TCSBRKP
        0x8004_7478 => 0x541D, // TIOCCONS
        0x7400 => 0x5424,      // TIOCGETD
        0x7401 => 0x5423,      // TIOCSETD
        0x5481 => 0x5419,      // TIOCGSOFTCAR
        0x5482 => 0x541A,      // TIOCSSOFTCAR
        0x5483 => 0x541C,      // TIOCLINUX
        0x5484 => 0x541E,      // TIOCGSERIAL
        0x5485 => 0x541F,      // TIOCSSERIAL
        0x5488 => 0x5453,      // TIOCSERCONFIG
        0x5489 => 0x5454,      // TIOCSERGWILD
        0x548A => 0x5455,      // TIOCSERSWILD
        0x548B => 0x5456,      // TIOCGLCKTRMIOS
        0x548C => 0x5457,      // TIOCSLCKTRMIOS
        0x548D => 0x5458,      // TIOCSERGSTRUCT
        0x548E => 0x5459,      // TIOCSERGETLSR
        0x548F => 0x545A,      // TIOCSERGETMULTI
        0x5490 => 0x545B,      // TIOCSERSETMULTI
        0x5491 => 0x545C,      // TIOCMIWAIT
        0x5492 => 0x545D,      // TIOCGICOUNT
        0x4020_542E => 0x542E, // TIOCGRS485 (a plain number in asm-generic)
        0xC020_542F => 0x542F, // TIOCSRS485
        0x667F => 0x5460,      // FIOQSIZE
        // arch/mips/include/uapi/asm/sockios.h: the socket ioctls as `_IOR`/`_IOW` numbers.
        0x8004_667C => 0x8901, // FIOSETOWN
        0x4004_667B => 0x8903, // FIOGETOWN
        0x8004_7308 => 0x8902, // SIOCSPGRP
        0x4004_7309 => 0x8904, // SIOCGPGRP
        0x4004_7307 => 0x8905, // SIOCATMARK
        // TCGETS2…TCSETSF2: MIPS's `struct termios2` (48 bytes, its own termios and the two
        // speeds) has another `_IOC` size than the host's; the request converts the layout.
        0x4030_542A => 0x802c_542a,
        0x8030_542B => 0x402c_542b,
        0x8030_542C => 0x402c_542c,
        0x8030_542D => 0x402c_542d,
        0x5401..=0x5404 => u64::MAX, // MIPS TCGETA…: struct termio, not served
        r => ioc_to_generic(r),
    }
}

/// A MIPS `_IOC` number in asm-generic's encoding (arch/mips/include/uapi/asm/ioctl.h: a
/// 13-bit size and the direction in the top three bits, `_IOC_NONE` 1, `_IOC_READ` 2,
/// `_IOC_WRITE` 4; asm-generic: a 14-bit size, `_IOC_NONE` 0, `_IOC_WRITE` 1, `_IOC_READ` 2 in
/// the top two). Numbers without a direction (the old terminal ones) stay as they are.
fn ioc_to_generic(req: u64) -> u64 {
    let dir = (req >> 29) & 7;
    if dir == 0 {
        return req;
    }
    let size = (req >> 16) & 0x1fff;
    let generic_dir = match dir {
        1 => 0,
        d => (u64::from(d & 2 != 0) << 1) | u64::from(d & 4 != 0),
    };
    (generic_dir << 30) | (size << 16) | (req & 0xffff)
}

/// Size of the MIPS `struct termios` (arch/mips/include/uapi/asm/termbits.h): four flag words,
/// `c_line`, `c_cc[NCCS = 23]`.
pub const TERMIOS_SIZE: u64 = 40;

/// `c_cc` slots: (MIPS index, asm-generic index) for VINTR VQUIT VERASE VKILL VMIN VTIME VEOL2
/// VSWTC VSTART VSTOP VSUSP VREPRINT VDISCARD VWERASE VLNEXT VEOF VEOL (MIPS's VDSUSP 11 has
/// no generic slot).
const CC: [(usize, usize); 17] = [
    (0, 0),
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 6),
    (5, 5),
    (6, 16),
    (7, 7),
    (8, 8),
    (9, 9),
    (10, 10),
    (12, 12),
    (13, 13),
    (14, 14),
    (15, 15),
    (16, 4),
    (17, 11),
];

/// `c_lflag` bits that differ: (MIPS, generic) for IEXTEN, FLUSHO, TOSTOP; the others
/// (ISIG…ECHOKE, PENDIN, EXTPROC) are the same, as are the other three flag words.
const LFLAG: [(u32, u32); 3] = [(0x100, 0x8000), (0x2000, 0x1000), (0x8000, 0x100)];

fn lflag_map(v: u32, to_generic: bool) -> u32 {
    let moved: u32 = LFLAG.iter().map(|&(m, g)| if to_generic { m } else { g }).fold(0, |a, b| a | b);
    let mut out = v & !moved;
    for &(m, g) in &LFLAG {
        let (from, to) = if to_generic { (m, g) } else { (g, m) };
        if v & from != 0 {
            out |= to;
        }
    }
    out
}

/// A MIPS `struct termios` -> the host kernel's.
pub fn termios_to_host(b: &[u8]) -> crate::abi::shapes::KernelTermios {
    let w = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let mut k = crate::abi::shapes::KernelTermios {
        c_iflag: w(0),
        c_oflag: w(4),
        c_cflag: w(8),
        c_lflag: lflag_map(w(12), true),
        c_line: b[16],
        c_cc: [0; 19],
    };
    for (m, g) in CC {
        k.c_cc[g] = b[17 + m];
    }
    k
}

/// The host kernel's `struct termios` -> MIPS bytes.
pub fn termios_from_host(k: &crate::abi::shapes::KernelTermios) -> Vec<u8> {
    let mut b = vec![0u8; u64_to_usize(TERMIOS_SIZE)];
    for (i, v) in [k.c_iflag, k.c_oflag, k.c_cflag, lflag_map(k.c_lflag, false)].into_iter().enumerate() {
        b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    b[16] = k.c_line;
    for (m, g) in CC {
        b[17 + m] = k.c_cc[g];
    }
    b
}

/// MIPS socket types: SOCK_DGRAM 1, SOCK_STREAM 2 (arch/mips/include/asm/socket.h), and
/// SOCK_NONBLOCK = O_NONBLOCK 0x80.
const SOCK_NONBLOCK: i32 = 0x80;

/// MIPS socket `type` argument -> host.
pub fn socket_type_to_host(ty: i32) -> i32 {
    let base = match ty & 0xf {
        1 => libc::SOCK_DGRAM,
        2 => libc::SOCK_STREAM,
        b => b,
    };
    let mut h = base | (ty & !0xf & !SOCK_NONBLOCK);
    if ty & SOCK_NONBLOCK != 0 {
        h |= libc::SOCK_NONBLOCK;
    }
    h
}

/// Host socket type -> MIPS.
pub fn socket_type_from_host(ty: i32) -> i32 {
    match ty {
        libc::SOCK_DGRAM => 1,
        libc::SOCK_STREAM => 2,
        t => t,
    }
}

/// `SOL_SOCKET` on MIPS (arch/mips/include/uapi/asm/socket.h).
pub const SOL_SOCKET: i32 = 0xffff;

/// MIPS `(level, optname)` -> host; only `SOL_SOCKET` options differ.
pub fn sockopt_to_host(level: i32, name: i32) -> (i32, i32) {
    if level != SOL_SOCKET {
        return (level, name);
    }
    let n = match name {
        0x0001 => libc::SO_DEBUG,
        0x0004 => libc::SO_REUSEADDR,
        0x0008 => libc::SO_KEEPALIVE,
        0x0010 => libc::SO_DONTROUTE,
        0x0020 => libc::SO_BROADCAST,
        0x0080 => libc::SO_LINGER,
        0x0100 => libc::SO_OOBINLINE,
        0x0200 => libc::SO_REUSEPORT,
        0x1001 => libc::SO_SNDBUF,
        0x1002 => libc::SO_RCVBUF,
        0x1003 => libc::SO_SNDLOWAT,
        0x1004 => libc::SO_RCVLOWAT,
        0x1005 => libc::SO_SNDTIMEO,
        0x1006 => libc::SO_RCVTIMEO,
        0x1007 => libc::SO_ERROR,
        0x1008 => libc::SO_TYPE,
        0x1009 => libc::SO_ACCEPTCONN,
        0x1028 => libc::SO_PROTOCOL,
        0x1029 => libc::SO_DOMAIN,
        17 => libc::SO_PASSCRED,
        18 => libc::SO_PEERCRED,
        30 => libc::SO_PEERSEC,
        31 => libc::SO_SNDBUFFORCE,
        // The remaining numbers (SO_NO_CHECK 11 and up) are asm-generic's; the ones MIPS
        // leaves unused must not reach the host's options of that number.
        2 | 3 | 5..=7 | 9 | 10 | 13 | 15 | 19..=21 => -1,
        n => n,
    };
    (libc::SOL_SOCKET, n)
}

/// MIPS `RLIMIT_*` -> host (arch/mips/include/uapi/asm/resource.h: NOFILE 5, AS 6, RSS 7,
/// NPROC 8, MEMLOCK 9).
pub fn rlimit_to_host(r: i32) -> i32 {
    match r {
        5 => int32(libc::RLIMIT_NOFILE),
        6 => int32(libc::RLIMIT_AS),
        7 => int32(libc::RLIMIT_RSS),
        8 => int32(libc::RLIMIT_NPROC),
        9 => int32(libc::RLIMIT_MEMLOCK),
        r => r,
    }
}

/// `rt_sigprocmask` `how` (arch/mips/include/uapi/asm/signal.h: SIG_BLOCK 1, SIG_UNBLOCK 2,
/// SIG_SETMASK 3) -> generic (0, 1, 2).
pub fn sigmask_how_to_generic(how: u64) -> u64 {
    match how {
        1..=3 => how - 1,
        _ => u64::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_round_trip() {
        assert_eq!(signal_to_host(16), Some(libc::SIGUSR1 as u32));
        assert_eq!(signal_to_host(18), Some(libc::SIGCHLD as u32));
        assert_eq!(signal_to_host(7), None);
        for h in (1..=64).filter(|&h| h != libc::SIGSTKFLT as u32) {
            assert_eq!(signal_to_host(signal_from_host(h)), Some(h));
        }
        assert_eq!(signal_from_host(libc::SIGSTKFLT as u32), 0);
        assert_eq!(sigset_from_host(u64::MAX)[1], 0);
        let m = 1u64 << (libc::SIGUSR1 - 1);
        assert_eq!(sigset_from_host(m), [1 << 15, 0]);
        assert_eq!(sigset_to_host([1 << 15, 0]), m);
    }

    #[test]
    fn termios_round_trip() {
        let mut b = vec![0u8; u64_to_usize(TERMIOS_SIZE)];
        b[12] = 0x0b; // ISIG | ICANON | ECHO
        b[13] = 0x01; // IEXTEN (0x100 on MIPS)
        b[17 + 16] = 4; // VEOF (^D) is c_cc[16] on MIPS
        b[17 + 4] = 1; // VMIN is c_cc[4]
        let k = termios_to_host(&b);
        assert_eq!(k.c_lflag, 0x0b | 0x8000);
        assert_eq!((k.c_cc[4], k.c_cc[6]), (4, 1));
        assert_eq!(termios_from_host(&k), b);
    }

    #[test]
    fn flags() {
        // O_WRONLY|O_CREAT|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY
        let g = 1 | 0x0100 | 0x0080 | 0x80000 | 0x10000;
        let h = libc::O_WRONLY | libc::O_CREAT | libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_DIRECTORY;
        assert_eq!(open_flags_to_host(g), h);
        assert_eq!(open_flags_from_host(h), g);
        assert_eq!(open_flags_from_host(libc::O_SYNC), 0x4010);
        assert_eq!(mmap_flags_to_generic(0x802), 0x22);
        assert_eq!(errno_from_host(libc::ENOENT), 2);
        assert_eq!(errno_from_host(libc::ENOSYS), 89);
    }
}
