//! Declarations of the uapi structs whose layout follows from the data model alone (the same
//! members on every arch; only `long` width, 64-bit alignment and byte order differ).
//!
//! Each is converted with [`crate::mm::AddressSpace::write_shape`]/`read_shape` against the
//! host's libc struct of the same name (or a `#[repr(C)]` copy of the kernel's struct, where
//! glibc's differs). Arch-specific structs (`stat`, MIPS `sigaction`) live in `arch/<name>/abi.rs`.

use super::thunk::{Field as F, Plain, Shape};

/// `struct timespec` of the old ABI (`__kernel_old_time_t` seconds, `long` nanoseconds):
/// include/uapi/linux/time.h. 16 bytes on LP64, 8 on ILP32.
pub static TIMESPEC: &Shape = &[F::Long, F::Long];
/// `struct __kernel_timespec` (64-bit seconds on every arch, the `*_time64` calls):
/// include/uapi/linux/time_types.h. 16 bytes. A 32-bit task's `tv_nsec` is its low 32 bits
/// only: the kernel drops the upper half (kernel/time/time.c `get_timespec64`), which 32-bit
/// glibc leaves as stack garbage (its `struct __timespec64` pads `tv_nsec` with an unnamed
/// bit-field). So on ILP32 the member is a `long` and four bytes of padding (little-endian:
/// the low word comes first), on LP64 a 64-bit `long`.
pub static TIMESPEC64: &Shape = &[F::I64, F::Long, F::Ilp32Pad(4)];
/// `struct timeval` / `__kernel_old_timeval`: include/uapi/linux/time.h.
pub static TIMEVAL: &Shape = &[F::Long, F::Long];
/// `struct itimerval`: include/uapi/linux/time.h.
pub static ITIMERVAL: &Shape = &[F::Struct(TIMEVAL), F::Struct(TIMEVAL)];
/// `struct itimerspec` (include/uapi/linux/time.h): interval, value.
pub static ITIMERSPEC: &Shape = &[F::Struct(TIMESPEC), F::Struct(TIMESPEC)];
/// `struct __kernel_itimerspec` of the `*_time64` calls: two 64-bit timespecs.
pub static ITIMERSPEC64: &Shape = &[F::Struct(TIMESPEC64), F::Struct(TIMESPEC64)];
/// `struct rlimit` (`getrlimit`/`setrlimit`): include/uapi/linux/resource.h.
pub static RLIMIT: &Shape = &[F::ULong, F::ULong];
/// `struct rlimit64` (`prlimit64`): include/uapi/linux/resource.h. 16 bytes everywhere.
pub static RLIMIT64: &Shape = &[F::U64, F::U64];
/// `struct rusage`: include/uapi/linux/resource.h (two timevals and 14 `long` counters).
pub static RUSAGE: &Shape = &[F::Struct(TIMEVAL), F::Struct(TIMEVAL), F::Array(&F::Long, 14)];
/// `struct tms` (four `clock_t`): include/uapi/linux/times.h.
pub static TMS: &Shape = &[F::Array(&F::Long, 4)];
/// `struct sysinfo`: include/uapi/linux/sysinfo.h. 112 bytes on LP64, 64 on ILP32 (whose
/// `_f` pad is `20 - 2 * sizeof(long) - sizeof(int)` = 8 bytes).
pub static SYSINFO: &Shape = &[
    F::Long,
    F::Array(&F::ULong, 3),
    F::Array(&F::ULong, 6),
    F::U16,
    F::U16,
    F::ULong,
    F::ULong,
    F::U32,
    F::Ilp32Pad(8),
];
/// `struct pollfd`: include/uapi/asm-generic/poll.h. 8 bytes everywhere.
pub static POLLFD: &Shape = &[F::I32, F::I16, F::I16];
/// `struct iovec`: include/uapi/linux/uio.h.
pub static IOVEC: &Shape = &[F::ULong, F::ULong];
/// `struct flock` (`off_t` members): include/uapi/asm-generic/fcntl.h.
pub static FLOCK: &Shape = &[F::I16, F::I16, F::Long, F::Long, F::I32];
/// `struct flock64` (`fcntl64` on ILP32): include/uapi/asm-generic/fcntl.h. 24 bytes on
/// i386, 32 on arm EABI.
pub static FLOCK64: &Shape = &[F::I16, F::I16, F::I64, F::I64, F::I32];
/// `struct statfs` of asm-generic (`__statfs_word` is `long`-sized, and so are the block
/// counts): include/uapi/asm-generic/statfs.h. 120 bytes on LP64, 64 on ILP32.
pub static STATFS: &Shape =
    &[F::Long, F::Long, F::Array(&F::ULong, 5), F::Array(&F::I32, 2), F::Long, F::Long, F::Long, F::Array(&F::Long, 4)];
/// `struct epoll_event` (not packed; x86_64 packs it, see `GuestArch::epoll_packed`):
/// include/uapi/linux/eventpoll.h. 16 bytes, 12 on i386.
pub static EPOLL_EVENT: &Shape = &[F::U32, F::U64];
/// The kernel's `struct termios` (`TCGETS`/`TCSETS`): include/uapi/asm-generic/termbits.h.
/// 36 bytes; glibc's `struct termios` is a different, larger struct.
pub static TERMIOS: &Shape = &[F::Array(&F::U32, 4), F::U8, F::Bytes(19)];
/// `struct winsize`: include/uapi/asm-generic/termios.h.
pub static WINSIZE: &Shape = &[F::Array(&F::U16, 4)];
/// A single `int` (ioctl and sockopt arguments).
pub static INT: &Shape = &[F::I32];
/// `struct msghdr` as user space passes it to `sendmsg`/`recvmsg`: include/linux/socket.h
/// `user_msghdr`.
pub static MSGHDR: &Shape = &[F::ULong, F::U32, F::ULong, F::ULong, F::ULong, F::ULong, F::U32];
/// `struct cmsghdr` (its data follows at the next `long` boundary): include/linux/socket.h.
pub static CMSGHDR: &Shape = &[F::ULong, F::I32, F::I32];
/// The kernel's `struct sigaction` as `rt_sigaction` takes it on the asm-generic arches,
/// x86 and s390 (handler, flags, restorer, mask): include/uapi/asm-generic/signal.h.
pub static SIGACTION: &Shape = &[F::ULong, F::ULong, F::ULong, F::Sigset];
/// The same for arches that do not define `SA_RESTORER` (riscv): no restorer member.
pub static SIGACTION_NO_RESTORER: &Shape = &[F::ULong, F::ULong, F::Sigset];
/// `struct statx_timestamp`: include/uapi/linux/stat.h.
pub static STATX_TIMESTAMP: &Shape = &[F::I64, F::U32, F::I32];
/// `struct statx`: include/uapi/linux/stat.h. 256 bytes everywhere; only byte order differs.
pub static STATX: &Shape = &[
    F::U32,
    F::U32,
    F::U64,
    F::U32,
    F::U32,
    F::U32,
    F::U16,
    F::U16,
    F::U64,
    F::U64,
    F::U64,
    F::U64,
    F::Array(&F::Struct(STATX_TIMESTAMP), 4),
    F::Array(&F::U32, 4),
    F::U64,
    F::U32,
    F::U32,
    F::Array(&F::U64, 12),
];

/// `struct __old_kernel_stat` of the old `stat` calls (`oldstat`, `oldlstat`, `oldfstat`):
/// seven `unsigned short` (`st_dev`, `st_ino`, `st_mode`, `st_nlink`, `st_uid`, `st_gid`,
/// `st_rdev`), then `st_size` and the three times as `unsigned long`s:
/// arch/x86/include/uapi/asm/stat.h (arm's and s390's are alike; only i386 numbers the
/// calls). 32 bytes on ILP32.
pub static OLD_KERNEL_STAT: &Shape = &[F::Array(&F::U16, 7), F::Array(&F::ULong, 4)];
/// `struct old_sigaction` of the old `sigaction` call: handler, `old_sigset_t` mask (one
/// `unsigned long`), flags, restorer (include/linux/signal_types.h; i386, arm and s390 use it,
/// MIPS has its own, but its n64 table has no `sigaction`). 16 bytes on ILP32, 32 on s390x.
pub static OLD_SIGACTION: &Shape = &[F::Array(&F::ULong, 4)];
/// The fixed part of `struct old_linux_dirent` (`readdir`, fs/readdir.c): `d_ino`,
/// `d_offset`, `d_namlen`; `d_name` and its NUL follow.
pub static OLD_LINUX_DIRENT: &Shape = &[F::ULong, F::ULong, F::U16];
/// `struct timex` (`adjtimex`, `clock_adjtime`): include/uapi/linux/timex.h. `modes`, four
/// `long`s, `status`, three `long`s, a `struct timeval`, `tick`, `ppsfreq`, `jitter`, `shift`,
/// five `long`s, `tai`, and eleven unnamed `int`s. 208 bytes on LP64, 128 on ILP32.
pub static TIMEX: &Shape = &[
    F::U32,
    F::Array(&F::Long, 4),
    F::I32,
    F::Array(&F::Long, 3),
    F::Struct(TIMEVAL),
    F::Array(&F::Long, 3),
    F::I32,
    F::Array(&F::Long, 5),
    F::I32,
    F::Bytes(44),
];
/// `struct __kernel_timex` of `clock_adjtime64` (ILP32 arches): the members of [`TIMEX`] as
/// 64-bit integers, with the explicit padding include/uapi/linux/timex.h gives it, so it is
/// laid out alike everywhere (208 bytes) and is the host's `struct timex`.
pub static KERNEL_TIMEX: &Shape = &[
    F::U32,
    F::Bytes(4),
    F::Array(&F::I64, 4),
    F::I32,
    F::Bytes(4),
    F::Array(&F::I64, 3),
    F::Array(&F::I64, 2),
    F::Array(&F::I64, 3),
    F::I32,
    F::Bytes(4),
    F::Array(&F::I64, 5),
    F::I32,
    F::Bytes(44),
];

/// The kernel's `struct termios` (glibc's differs), for handing to the host's `TCGETS`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
#[allow(missing_docs)]
pub struct KernelTermios {
    pub c_iflag: u32,
    pub c_oflag: u32,
    pub c_cflag: u32,
    pub c_lflag: u32,
    pub c_line: u8,
    pub c_cc: [u8; 19],
}

/// The kernel's `struct sigaction` for `rt_sigaction` on the host (x86_64).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
#[allow(missing_docs)]
pub struct KernelSigaction {
    pub handler: u64,
    pub flags: u64,
    pub restorer: u64,
    pub mask: u64,
}

/// `struct user_msghdr` on the host.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
#[allow(missing_docs)]
pub struct UserMsghdr {
    pub name: u64,
    pub namelen: u32,
    pub iov: u64,
    pub iovlen: u64,
    pub control: u64,
    pub controllen: u64,
    pub flags: u32,
}

// SAFETY: C structs of integers only; every byte pattern is valid.
unsafe impl Plain for KernelTermios {}
// SAFETY: as above.
unsafe impl Plain for KernelSigaction {}
// SAFETY: as above.
unsafe impl Plain for UserMsghdr {}
// SAFETY: an array of integers.
unsafe impl Plain for [u64; 4] {}
// SAFETY: an array of integers.
unsafe impl Plain for [u64; 3] {}
// SAFETY: a single integer.
unsafe impl Plain for i32 {}
// SAFETY: a single integer.
unsafe impl Plain for [u16; 4] {}
// SAFETY: C struct of integers.
unsafe impl Plain for libc::epoll_event {}
// SAFETY: C struct of integers.
unsafe impl Plain for libc::iovec {}

// SysV IPC. The arches lay these out alike but for widths and padding: each variant lists the
// same integer members in the same order, and they are converted member by member across
// variants with `thunk::values`/`from_values` (host side: the x86_64 variants).

/// `struct ipc64_perm` of include/uapi/asm-generic/ipcbuf.h (aarch64, riscv64, x86_64,
/// mips64): key, uid, gid, cuid, cgid, 32-bit mode, seq, `__pad2`, two unused `long`s.
/// 48 bytes on LP64.
pub static IPC64_PERM: &Shape =
    &[F::I32, F::U32, F::U32, F::U32, F::U32, F::U32, F::U16, F::Bytes(2), F::ULong, F::ULong];
/// The same with a 16-bit `__kernel_mode_t` (arm, i386: arch/*/include/uapi/asm/posix_types.h)
/// and `__pad1[2]` after it. 36 bytes on ILP32.
pub static IPC64_PERM_MODE16: &Shape =
    &[F::I32, F::U32, F::U32, F::U32, F::U32, F::U16, F::Bytes(2), F::U16, F::Bytes(2), F::ULong, F::ULong];
/// s390x's (arch/s390/include/uapi/asm/ipcbuf.h): 32-bit mode, `__pad1` *before* `seq`, no
/// `__pad2`. 48 bytes.
pub static IPC64_PERM_S390X: &Shape =
    &[F::I32, F::U32, F::U32, F::U32, F::U32, F::U32, F::Bytes(2), F::U16, F::ULong, F::ULong];

/// `struct shmid64_ds` after its `ipc64_perm` (include/uapi/asm-generic/shmbuf.h, also
/// s390x's, x86's and mips64's): `shm_segsz`, three times each followed on ILP32 by its
/// high word (written 0), creator and last pid, `shm_nattch`, two unused.
pub static SHMID64_DS_TAIL: &[F] = &[
    F::ULong,
    F::Long,
    F::Ilp32Pad(4),
    F::Long,
    F::Ilp32Pad(4),
    F::Long,
    F::Ilp32Pad(4),
    F::I32,
    F::I32,
    F::ULong,
    F::ULong,
    F::ULong,
];
/// `struct semid64_ds` after its perm (asm-generic/sembuf.h, s390x, mips64): `sem_otime`,
/// `sem_ctime` (each with its ILP32 high word), `sem_nsems`, two unused.
pub static SEMID64_DS_TAIL: &[F] = &[F::Long, F::Ilp32Pad(4), F::Long, F::Ilp32Pad(4), F::ULong, F::ULong, F::ULong];
/// x86_64's `semid64_ds` tail (arch/x86/include/uapi/asm/sembuf.h): an unused `long` after
/// each time even on LP64.
pub static SEMID64_DS_TAIL_X86_64: &[F] = &[F::Long, F::Bytes(8), F::Long, F::Bytes(8), F::ULong, F::ULong, F::ULong];
/// `struct msqid64_ds` after its perm (asm-generic/msgbuf.h, also x86's, s390x's and mips64's
/// little-endian form): three times with their ILP32 high words, `msg_cbytes`, `msg_qnum`,
/// `msg_qbytes`, two pids, two unused.
pub static MSQID64_DS_TAIL: &[F] = &[
    F::Long,
    F::Ilp32Pad(4),
    F::Long,
    F::Ilp32Pad(4),
    F::Long,
    F::Ilp32Pad(4),
    F::ULong,
    F::ULong,
    F::ULong,
    F::I32,
    F::I32,
    F::ULong,
    F::ULong,
];
/// `struct sembuf` (include/uapi/linux/sem.h): `sem_num`, `sem_op`, `sem_flg`. 6 bytes.
pub static SEMBUF: &Shape = &[F::U16, F::I16, F::I16];
/// `struct seminfo` (include/uapi/linux/sem.h): ten `int`s.
pub static SEMINFO: &Shape = &[F::Array(&F::I32, 10)];
/// `struct shminfo64` (asm-generic/shmbuf.h; `IPC_INFO`): nine `unsigned long`s.
pub static SHMINFO64: &Shape = &[F::Array(&F::ULong, 9)];
/// `struct shm_info` (include/uapi/linux/shm.h; `SHM_INFO`): `used_ids`, then five
/// `unsigned long` counters.
pub static SHM_INFO: &Shape = &[F::I32, F::Array(&F::ULong, 5)];
/// `struct msginfo` (include/uapi/linux/msg.h; `IPC_INFO`/`MSG_INFO`): seven `int`s and an
/// `unsigned short`.
pub static MSGINFO: &Shape = &[F::Array(&F::I32, 7), F::U16];
/// `struct ipc_kludge` (the `ipc` multiplexer's old `msgrcv`): message pointer, type.
pub static IPC_KLUDGE: &Shape = &[F::ULong, F::Long];
/// `struct mq_attr` (include/uapi/linux/mqueue.h): `mq_flags`, `mq_maxmsg`, `mq_msgsize`,
/// `mq_curmsgs`, four reserved: eight `long`s.
pub static MQ_ATTR: &Shape = &[F::Array(&F::Long, 8)];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::thunk::size_of;
    use crate::abi::DataModel as M;

    /// Every declaration's host layout has the size of the host struct it is converted against.
    #[test]
    fn host_sizes_match_libc() {
        use std::mem::size_of as host;
        let h = M::HOST;
        assert_eq!(size_of(TIMESPEC, h), host::<libc::timespec>());
        assert_eq!(size_of(TIMEVAL, h), host::<libc::timeval>());
        assert_eq!(size_of(ITIMERVAL, h), host::<libc::itimerval>());
        assert_eq!(size_of(ITIMERSPEC, h), host::<libc::itimerspec>());
        assert_eq!(size_of(RLIMIT, h), host::<libc::rlimit>());
        assert_eq!(size_of(RUSAGE, h), host::<libc::rusage>());
        assert_eq!(size_of(TMS, h), host::<libc::tms>());
        assert_eq!(size_of(SYSINFO, h), host::<libc::sysinfo>());
        assert_eq!(size_of(POLLFD, h), host::<libc::pollfd>());
        assert_eq!(size_of(IOVEC, h), host::<libc::iovec>());
        assert_eq!(size_of(FLOCK, h), host::<libc::flock>());
        assert_eq!(size_of(STATFS, h), host::<libc::statfs>());
        assert_eq!(size_of(TERMIOS, h), host::<KernelTermios>());
        assert_eq!(size_of(WINSIZE, h), host::<libc::winsize>());
        assert_eq!(size_of(MSGHDR, h), host::<UserMsghdr>());
        assert_eq!(size_of(SIGACTION, h), host::<KernelSigaction>());
        assert_eq!(size_of(STATX, h), host::<libc::statx>());
        assert_eq!(size_of(TIMEX, h), host::<libc::timex>());
        assert_eq!(size_of(KERNEL_TIMEX, h), host::<libc::timex>());
    }

    /// Sizes on 32-bit guests, as the kernel's compat structs and i386/armhf glibc have them.
    #[test]
    fn ilp32_sizes() {
        let arm = M::ILP32_LE;
        let i386 = M::ILP32_LE_I386;
        assert_eq!(size_of(SYSINFO, arm), 64);
        assert_eq!(size_of(STATFS, arm), 64);
        assert_eq!(size_of(RUSAGE, arm), 72);
        assert_eq!(size_of(FLOCK, arm), 16);
        assert_eq!(size_of(FLOCK64, arm), 32);
        assert_eq!(size_of(FLOCK64, i386), 24);
        assert_eq!(size_of(MSGHDR, arm), 28);
        assert_eq!(size_of(SIGACTION, arm), 20);
        assert_eq!(size_of(STATX, arm), 256);
        assert_eq!(size_of(OLD_KERNEL_STAT, i386), 32);
        assert_eq!(size_of(OLD_SIGACTION, i386), 16);
        assert_eq!(size_of(OLD_SIGACTION, M::LP64_BE), 32);
        assert_eq!(size_of(TIMEX, i386), 128);
        assert_eq!(size_of(KERNEL_TIMEX, i386), 208);
    }
}
