//! `ioctl(2)` as data: one row per request endgate serves, with its number, how its third
//! argument is passed and converted, and its name for `--strace`.
//!
//! A guest's request number first becomes the host's (`ArchInfo::ioctl_to_host`: MIPS numbers
//! its terminal requests differently and encodes `_IOC` directions in other bits), then is
//! looked up here. The row's `nr` is the host's (x86_64, LP64) number; `nr_ilp32` is the number
//! an ILP32 guest uses where the request's `_IOC` size is a `long` or `size_t` (the kernel's
//! `compat_ioctl` numbers, e.g. `FS_IOC32_GETFLAGS`). The argument, by [`Arg`]:
//! - an integer or nothing, handed on;
//! - a pointer to a struct the kernel reads, writes or both, declared as an
//!   [`crate::abi::thunk::Shape`] and converted member by member (width, byte order);
//! - open flags (`TIOCGPTPEER`), converted to the host's numbering;
//! - a request with its own code (termios, the `SIOCGIF*` family, `FIDEDUPERANGE`).
//!
//! Unknown requests fail with `ENOTTY` (`EBADF` for an fd that is not open), named once under
//! `--strace`. Errors come in the kernel's order (fs/ioctl.c: the fd is looked up, then the
//! file's own code matches the request, then copies the argument): `EBADF`, then what the file
//! answers to a request it does not take (`ENOTTY`, `EINVAL`…), then `EFAULT`. So when the
//! guest's argument cannot be read or written, the host is asked the same request with an
//! address no process can reach ([`guest_fault`]), and its answer is the guest's. Sources:
//! include/uapi asm-generic/ioctls.h (terminals), linux/fs.h (files, blocks, `fiemap.h`,
//! `struct fsxattr`), linux/loop.h, linux/random.h, linux/if_tun.h, linux/rtc.h,
//! linux/sockios.h, asm-generic/sockios.h, asm-generic/termbits.h (`struct termios2`),
//! linux/serial.h, linux/nsfs.h, linux/pidfd.h.

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::{KernelTermios, INT, TERMIOS, TIMESPEC, TIMEVAL, WINSIZE};
use crate::abi::thunk::{self, Field as F, Plain, Shape};
use crate::abi::DataModel;
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::GuestAddr;

/// How a request's third argument is passed.
#[derive(Clone, Copy)]
pub enum Arg {
    /// An integer (or nothing), handed on unchanged.
    Int,
    /// A pointer to a struct the kernel reads (`_IOW`).
    In(&'static Shape),
    /// A pointer to a struct the kernel writes (`_IOR`).
    Out(&'static Shape),
    /// A pointer to a struct the kernel reads and writes back (`_IOWR`).
    InOut(&'static Shape),
    /// Open flags in the guest's numbering.
    OpenFlags,
    /// Its own code: `(task, fd, host request, argument)`.
    Custom(fn(&mut Task, i32, u64, u64) -> SysResult),
}

/// One request.
pub struct IoctlDef {
    /// The kernel's name, for `--strace`.
    pub name: &'static str,
    /// The host's number.
    pub nr: u64,
    /// The number an ILP32 guest uses, where it differs (0: the same).
    pub nr_ilp32: u64,
    /// The argument.
    pub arg: Arg,
}

const fn r(name: &'static str, nr: u64, arg: Arg) -> IoctlDef {
    IoctlDef { name, nr, nr_ilp32: 0, arg }
}

const fn r32(name: &'static str, nr: u64, nr_ilp32: u64, arg: Arg) -> IoctlDef {
    IoctlDef { name, nr, nr_ilp32, arg }
}

/// `struct loop_info64` (include/uapi/linux/loop.h): five `__u64`s, four `__u32`s, the file
/// and crypt names (64 bytes each) and the key (32), two `__u64`s. 232 bytes.
static LOOP_INFO64: &Shape = &[F::Array(&F::U64, 5), F::Array(&F::U32, 4), F::Bytes(160), F::Array(&F::U64, 2)];
/// `struct loop_config`: `__u32 fd, block_size`, a `loop_info64`, eight reserved `__u64`s.
static LOOP_CONFIG: &Shape = &[F::U32, F::U32, F::Struct(LOOP_INFO64), F::Array(&F::U64, 8)];
/// `struct file_clone_range` (linux/fs.h): `__s64 src_fd`, `__u64 src_offset, src_length,
/// dest_offset`.
static FILE_CLONE_RANGE: &Shape = &[F::I64, F::U64, F::U64, F::U64];
/// `struct rtc_time` (linux/rtc.h): nine `int`s.
static RTC_TIME: &Shape = &[F::Array(&F::I32, 9)];
/// `struct ifreq` as `TUNSETIFF`/`TUNGETIFF` use it: the name, `ifr_flags`, and the rest of the
/// union (24 bytes on LP64, 16 on ILP32: `struct ifmap` holds `unsigned long`s).
static IFREQ_FLAGS: &Shape = &[F::Bytes(16), F::I16, F::Bytes(6), F::ULong, F::ULong];
/// Two `__s64` (`SIOCGSTAMP_NEW`).
static I64X2: &Shape = &[F::I64, F::I64];
/// One `__u64` (`BLKGETSIZE64`), two (`BLKDISCARD`'s range).
static U64: &Shape = &[F::U64];
static U64X2: &Shape = &[F::U64, F::U64];
/// An `unsigned long` (`BLKGETSIZE`, `RTC_IRQP_READ`).
static ULONG: &Shape = &[F::ULong];
/// One `char` (`TIOCSTI`).
static CHAR: &Shape = &[F::U8];
/// Three `__u64` (`struct fstrim_range`: start, len, minlen).
static U64X3: &Shape = &[F::U64, F::U64, F::U64];
/// An `unsigned short` (`BLKSECTGET`, `BLKROTATIONAL`).
static U16: &Shape = &[F::U16];
/// A file system label, `char[FSLABEL_MAX]` (256; linux/fs.h).
static FSLABEL: &Shape = &[F::Bytes(256)];
/// `struct serial_icounter_struct` (linux/serial.h): twenty `int`s.
static ICOUNT: &Shape = &[F::Array(&F::I32, 20)];
/// `struct fsxattr` (linux/fs.h): `__u32 fsx_xflags, fsx_extsize, fsx_nextents, fsx_projid,
/// fsx_cowextsize; unsigned char fsx_pad[8];`.
static FSXATTR: &Shape = &[F::Array(&F::U32, 5), F::Bytes(8)];

/// `struct sockaddr`: a host-order `sa_family`, then 14 bytes as they are.
static SOCKADDR: &Shape = &[F::U16, F::Bytes(14)];
/// `struct arpreq` (linux/if_arp.h): `struct sockaddr arp_pa, arp_ha; int arp_flags; struct
/// sockaddr arp_netmask; char arp_dev[16];`.
static ARPREQ: &Shape = &[F::Struct(SOCKADDR), F::Struct(SOCKADDR), F::I32, F::Struct(SOCKADDR), F::Bytes(16)];

/// Every request endgate serves.
pub static IOCTLS: &[IoctlDef] = &[
    // Terminals and ptys (asm-generic/ioctls.h).
    r("TCGETS", 0x5401, Arg::Custom(termios)),
    r("TCSETS", 0x5402, Arg::Custom(termios)),
    r("TCSETSW", 0x5403, Arg::Custom(termios)),
    r("TCSETSF", 0x5404, Arg::Custom(termios)),
    r("TCSBRK", 0x5409, Arg::Int),
    r("TCXONC", 0x540A, Arg::Int),
    r("TCFLSH", 0x540B, Arg::Int),
    r("TIOCEXCL", 0x540C, Arg::Int),
    r("TIOCNXCL", 0x540D, Arg::Int),
    r("TIOCSCTTY", 0x540E, Arg::Int),
    r("TIOCGPGRP", 0x540F, Arg::Out(INT)),
    r("TIOCSPGRP", 0x5410, Arg::In(INT)),
    r("TIOCOUTQ", 0x5411, Arg::Out(INT)),
    r("TIOCGWINSZ", 0x5413, Arg::Out(WINSIZE)),
    r("TIOCSWINSZ", 0x5414, Arg::In(WINSIZE)),
    r("TIOCMGET", 0x5415, Arg::Out(INT)),
    r("TIOCMBIS", 0x5416, Arg::In(INT)),
    r("TIOCMBIC", 0x5417, Arg::In(INT)),
    r("TIOCMSET", 0x5418, Arg::In(INT)),
    r("TIOCSTI", 0x5412, Arg::In(CHAR)),
    r("TIOCPKT", 0x5420, Arg::In(INT)),
    r("FIONREAD", 0x541B, Arg::Out(INT)),
    r("FIONBIO", 0x5421, Arg::In(INT)),
    r("TIOCNOTTY", 0x5422, Arg::Int),
    r("TIOCGSID", 0x5429, Arg::Out(INT)),
    r("TIOCGPTN", 0x8004_5430, Arg::Out(INT)),
    r("TIOCSPTLCK", 0x4004_5431, Arg::In(INT)),
    r("TIOCGPKT", 0x8004_5438, Arg::Out(INT)),
    r("TIOCGPTLCK", 0x8004_5439, Arg::Out(INT)),
    r("TIOCGEXCL", 0x8004_5440, Arg::Out(INT)),
    r("TIOCGPTPEER", 0x5441, Arg::OpenFlags),
    r("FIONCLEX", 0x5450, Arg::Int),
    r("FIOCLEX", 0x5451, Arg::Int),
    r("TIOCCONS", 0x541D, Arg::Int),
    r("TIOCSETD", 0x5423, Arg::In(INT)),
    r("TIOCGETD", 0x5424, Arg::Out(INT)),
    r("TIOCSBRK", 0x5427, Arg::Int),
    r("TIOCCBRK", 0x5428, Arg::Int),
    r("TCGETS2", 0x802c_542a, Arg::Custom(termios)),
    r("TCSETS2", 0x402c_542b, Arg::Custom(termios)),
    r("TCSETSW2", 0x402c_542c, Arg::Custom(termios)),
    r("TCSETSF2", 0x402c_542d, Arg::Custom(termios)),
    r("TIOCGDEV", 0x8004_5432, Arg::Out(INT)),
    r("TIOCSIG", 0x4004_5436, Arg::Custom(tty_signal)),
    r("TIOCVHANGUP", 0x5437, Arg::Int),
    r("TIOCGLCKTRMIOS", 0x5456, Arg::Custom(termios)),
    r("TIOCSLCKTRMIOS", 0x5457, Arg::Custom(termios)),
    r("TIOCSERGETLSR", 0x5459, Arg::Out(INT)),
    r("TIOCMIWAIT", 0x545C, Arg::Int),
    r("TIOCGICOUNT", 0x545D, Arg::Out(ICOUNT)),
    r("FIOASYNC", 0x5452, Arg::In(INT)),
    // Sockets (asm-generic/sockios.h, linux/sockios.h); SIOCINQ is FIONREAD, SIOCOUTQ
    // TIOCOUTQ.
    r("SIOCATMARK", 0x8905, Arg::Out(INT)),
    // The last packet's time (SIOCGSTAMP_OLD, SIOCGSTAMPNS_OLD: the old ABI's `long`s; the
    // `_NEW` forms 32-bit libcs use with a 64-bit `time_t`: two `__s64`).
    r("SIOCGSTAMP", 0x8906, Arg::Out(TIMEVAL)),
    r("SIOCGSTAMPNS", 0x8907, Arg::Out(TIMESPEC)),
    r("SIOCGSTAMP_NEW", 0x8010_8906, Arg::Out(I64X2)),
    r("SIOCGSTAMPNS_NEW", 0x8010_8907, Arg::Out(I64X2)),
    r("SIOCGIFCONF", 0x8912, Arg::Custom(netdevice)),
    r("SIOCGIFNAME", 0x8910, Arg::Custom(netdevice)),
    r("SIOCGIFFLAGS", 0x8913, Arg::Custom(netdevice)),
    r("SIOCGIFADDR", 0x8915, Arg::Custom(netdevice)),
    r("SIOCGIFDSTADDR", 0x8917, Arg::Custom(netdevice)),
    r("SIOCGIFBRDADDR", 0x8919, Arg::Custom(netdevice)),
    r("SIOCGIFNETMASK", 0x891b, Arg::Custom(netdevice)),
    r("SIOCGIFMETRIC", 0x891d, Arg::Custom(netdevice)),
    r("SIOCGIFMTU", 0x8921, Arg::Custom(netdevice)),
    r("SIOCGIFHWADDR", 0x8927, Arg::Custom(netdevice)),
    r("SIOCGIFINDEX", 0x8933, Arg::Custom(netdevice)),
    r("SIOCGIFTXQLEN", 0x8942, Arg::Custom(netdevice)),
    r("SIOCGIFPFLAGS", 0x8935, Arg::Custom(netdevice)),
    r("SIOCGIFMAP", 0x8970, Arg::Custom(netdevice)),
    r("SIOCSIFFLAGS", 0x8914, Arg::Custom(netdevice)),
    r("SIOCSIFADDR", 0x8916, Arg::Custom(netdevice)),
    r("SIOCSIFDSTADDR", 0x8918, Arg::Custom(netdevice)),
    r("SIOCSIFBRDADDR", 0x891a, Arg::Custom(netdevice)),
    r("SIOCSIFNETMASK", 0x891c, Arg::Custom(netdevice)),
    r("SIOCSIFMETRIC", 0x891e, Arg::Custom(netdevice)),
    r("SIOCSIFMTU", 0x8922, Arg::Custom(netdevice)),
    r("SIOCSIFNAME", 0x8923, Arg::Custom(netdevice)),
    r("SIOCSIFHWADDR", 0x8924, Arg::Custom(netdevice)),
    r("SIOCADDMULTI", 0x8931, Arg::Custom(netdevice)),
    r("SIOCDELMULTI", 0x8932, Arg::Custom(netdevice)),
    r("SIOCSIFPFLAGS", 0x8934, Arg::Custom(netdevice)),
    r("SIOCDIFADDR", 0x8936, Arg::Custom(netdevice)),
    r("SIOCETHTOOL", 0x8946, Arg::Custom(ethtool)),
    // ARP table entries (arp(7)): `struct arpreq`.
    r("SIOCDARP", 0x8953, Arg::In(ARPREQ)),
    r("SIOCGARP", 0x8954, Arg::InOut(ARPREQ)),
    r("SIOCSARP", 0x8955, Arg::In(ARPREQ)),
    r("SIOCSIFHWBROADCAST", 0x8937, Arg::Custom(netdevice)),
    r("SIOCSIFTXQLEN", 0x8943, Arg::Custom(netdevice)),
    r("SIOCSIFMAP", 0x8971, Arg::Custom(netdevice)),
    // Files (linux/fs.h). The FS_IOC flag requests say `long` but pass an `int`.
    r32("FS_IOC_GETFLAGS", 0x8008_6601, 0x8004_6601, Arg::Out(INT)),
    r32("FS_IOC_SETFLAGS", 0x4008_6602, 0x4004_6602, Arg::In(INT)),
    r32("FS_IOC_GETVERSION", 0x8008_7601, 0x8004_7601, Arg::Out(INT)),
    r("FIBMAP", 0x0001, Arg::InOut(INT)),
    r("FIGETBSZ", 0x0002, Arg::Out(INT)),
    r("FICLONE", 0x4004_9409, Arg::Int),
    r("FICLONERANGE", 0x4020_940d, Arg::In(FILE_CLONE_RANGE)),
    r("FIDEDUPERANGE", 0xc018_9436, Arg::Custom(dedupe_range)),
    r("FS_IOC_FIEMAP", 0xc020_660b, Arg::Custom(fiemap)),
    r("FS_IOC_FSGETXATTR", 0x801c_581f, Arg::Out(FSXATTR)),
    r("FS_IOC_FSSETXATTR", 0x401c_5820, Arg::In(FSXATTR)),
    r("FIFREEZE", 0xc004_5877, Arg::Int),
    r("FITHAW", 0xc004_5878, Arg::Int),
    r("FITRIM", 0xc018_5879, Arg::InOut(U64X3)),
    r("FS_IOC_GETFSLABEL", 0x8100_9431, Arg::Out(FSLABEL)),
    r("FS_IOC_SETFSLABEL", 0x4100_9432, Arg::In(FSLABEL)),
    // Namespaces (linux/nsfs.h): the answers are descriptors, a type or a uid.
    r("NS_GET_USERNS", 0xb701, Arg::Int),
    r("NS_GET_PARENT", 0xb702, Arg::Int),
    r("NS_GET_NSTYPE", 0xb703, Arg::Int),
    r("NS_GET_OWNER_UID", 0xb704, Arg::Out(INT)),
    // A pidfd's namespaces (linux/pidfd.h, Linux 6.11): descriptors.
    r("PIDFD_GET_CGROUP_NAMESPACE", 0xff01, Arg::Int),
    r("PIDFD_GET_IPC_NAMESPACE", 0xff02, Arg::Int),
    r("PIDFD_GET_MNT_NAMESPACE", 0xff03, Arg::Int),
    r("PIDFD_GET_NET_NAMESPACE", 0xff04, Arg::Int),
    r("PIDFD_GET_PID_NAMESPACE", 0xff05, Arg::Int),
    r("PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE", 0xff06, Arg::Int),
    r("PIDFD_GET_TIME_NAMESPACE", 0xff07, Arg::Int),
    r("PIDFD_GET_TIME_FOR_CHILDREN_NAMESPACE", 0xff08, Arg::Int),
    r("PIDFD_GET_USER_NAMESPACE", 0xff09, Arg::Int),
    r("PIDFD_GET_UTS_NAMESPACE", 0xff0a, Arg::Int),
    // Block devices (linux/fs.h).
    r("BLKROSET", 0x125d, Arg::In(INT)),
    r("BLKRASET", 0x1262, Arg::Int),
    r("BLKRAGET", 0x1263, Arg::Out(ULONG)),
    r("BLKSECTGET", 0x1267, Arg::Out(U16)),
    // The `_IOC` size is a `size_t`, but the argument an `int` (block/ioctl.c).
    r32("BLKBSZGET", 0x8008_1270, 0x8004_1270, Arg::Out(INT)),
    r32("BLKBSZSET", 0x4008_1271, 0x4004_1271, Arg::In(INT)),
    r("BLKDISCARDZEROES", 0x127c, Arg::Out(INT)),
    r("BLKROTATIONAL", 0x127e, Arg::Out(U16)),
    r("BLKZEROOUT", 0x127f, Arg::In(U64X2)),
    r("BLKROGET", 0x125e, Arg::Out(INT)),
    r("BLKRRPART", 0x125f, Arg::Int),
    r("BLKGETSIZE", 0x1260, Arg::Out(ULONG)),
    r("BLKFLSBUF", 0x1261, Arg::Int),
    r("BLKSSZGET", 0x1268, Arg::Out(INT)),
    r32("BLKGETSIZE64", 0x8008_1272, 0x8004_1272, Arg::Out(U64)),
    r("BLKDISCARD", 0x1277, Arg::In(U64X2)),
    r("BLKIOMIN", 0x1278, Arg::Out(INT)),
    r("BLKIOOPT", 0x1279, Arg::Out(INT)),
    r("BLKPBSZGET", 0x127b, Arg::Out(INT)),
    // Loop devices (linux/loop.h).
    r("LOOP_SET_FD", 0x4C00, Arg::Int),
    r("LOOP_CLR_FD", 0x4C01, Arg::Int),
    r("LOOP_SET_STATUS64", 0x4C04, Arg::In(LOOP_INFO64)),
    r("LOOP_GET_STATUS64", 0x4C05, Arg::Out(LOOP_INFO64)),
    r("LOOP_CHANGE_FD", 0x4C06, Arg::Int),
    r("LOOP_SET_CAPACITY", 0x4C07, Arg::Int),
    r("LOOP_SET_DIRECT_IO", 0x4C08, Arg::Int),
    r("LOOP_SET_BLOCK_SIZE", 0x4C09, Arg::Int),
    r("LOOP_CONFIGURE", 0x4C0A, Arg::In(LOOP_CONFIG)),
    r("LOOP_CTL_ADD", 0x4C80, Arg::Int),
    r("LOOP_CTL_REMOVE", 0x4C81, Arg::Int),
    r("LOOP_CTL_GET_FREE", 0x4C82, Arg::Int),
    // /dev/random (linux/random.h).
    r("RNDGETENTCNT", 0x8004_5200, Arg::Out(INT)),
    // tun/tap (linux/if_tun.h).
    r("TUNSETIFF", 0x4004_54ca, Arg::InOut(IFREQ_FLAGS)),
    r("TUNGETIFF", 0x8004_54d2, Arg::Out(IFREQ_FLAGS)),
    r("TUNGETFEATURES", 0x8004_54cf, Arg::Out(INT)),
    r("TUNSETPERSIST", 0x4004_54cb, Arg::Int),
    r("TUNSETOWNER", 0x4004_54cc, Arg::Int),
    r("TUNSETGROUP", 0x4004_54ce, Arg::Int),
    // Real-time clocks (linux/rtc.h).
    r("RTC_AIE_ON", 0x7001, Arg::Int),
    r("RTC_AIE_OFF", 0x7002, Arg::Int),
    r("RTC_UIE_ON", 0x7003, Arg::Int),
    r("RTC_UIE_OFF", 0x7004, Arg::Int),
    r("RTC_RD_TIME", 0x8024_7009, Arg::Out(RTC_TIME)),
    r("RTC_SET_TIME", 0x4024_700a, Arg::In(RTC_TIME)),
    r32("RTC_IRQP_READ", 0x8008_700b, 0x8004_700b, Arg::Out(ULONG)),
];

/// The row for host request `req` from a guest of data model `m`.
pub fn lookup(req: u64, m: DataModel) -> Option<&'static IoctlDef> {
    IOCTLS.iter().find(|d| if m.long_bytes == 4 && d.nr_ilp32 != 0 { d.nr_ilp32 == req } else { d.nr == req })
}

/// The name of guest request `req`, for `--strace`.
pub fn name_of(t: &Task, req: u64) -> Option<&'static str> {
    lookup((t.arch.info().ioctl_to_host)(req & 0xffff_ffff), t.mm.model()).map(|d| d.name)
}

/// `ioctl(int fd, unsigned long request, ...)` (ioctl(2)). Errors: `ENOTTY` for a request
/// endgate does not know (named once under `--strace`), `EFAULT`, the host's.
pub fn ioctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let (fd, req, arg) = (a.int(0), (t.arch.info().ioctl_to_host)(a.raw(1) & 0xffff_ffff), a.raw(2));
    let Some(def) = lookup(req, t.mm.model()) else {
        if t.opts.trace.has(crate::cli::DebugItem::Unimp) {
            crate::dlog!("Unsupported ioctl: fd {fd} cmd={req:#x}\n");
        }
        if t.opts.strace && t.warned.insert(0x1_0000_0000 | req) {
            crate::tlog!("endgate: ioctl request {req:#x} is not supported: -ENOTTY");
        }
        // `F_GETLEASE` fails with EBADF exactly where ioctl does (no such fd, or an O_PATH
        // one) and changes nothing.
        // SAFETY: an fcntl that only reads.
        if unsafe { libc::fcntl(fd, libc::F_GETLEASE) } < 0 {
            return Err(Errno::EBADF);
        }
        return Err(Errno::ENOTTY);
    };
    let host = def.nr;
    match def.arg {
        // SAFETY: the argument is an integer for these requests.
        Arg::Int => host_ret(i64::from(unsafe { libc::ioctl(fd, host as libc::c_ulong, arg) })),
        Arg::OpenFlags => {
            let flags = (t.arch.info().open_flags_to_host)(arg);
            // SAFETY: an integer argument.
            host_ret(i64::from(unsafe { libc::ioctl(fd, host as libc::c_ulong, flags) }))
        }
        Arg::In(s) => with_struct(t, fd, host, GuestAddr::new(arg), s, true, false),
        Arg::Out(s) => with_struct(t, fd, host, GuestAddr::new(arg), s, false, true),
        Arg::InOut(s) => with_struct(t, fd, host, GuestAddr::new(arg), s, true, true),
        Arg::Custom(f) => f(t, fd, host, arg),
    }
}

/// An address in the kernel's half, which every copy from or to user memory refuses.
const UNREACHABLE: u64 = 0xffff_ffff_ffff_f000;

/// The error of request `req` on `fd` whose guest argument endgate could not read or write:
/// what the host answers for the same request with an argument no process can reach (`EBADF`
/// for a closed fd, `ENOTTY` for a file that does not take the request, …), else `EFAULT`.
pub fn guest_fault(fd: i32, req: u64) -> Errno {
    // SAFETY: the kernel checks the address and refuses it before copying anything.
    let r = unsafe { libc::ioctl(fd, req as libc::c_ulong, UNREACHABLE) };
    match std::io::Error::last_os_error().raw_os_error() {
        Some(e) if r < 0 && e != libc::EFAULT => Errno::new(e),
        _ => Errno::EFAULT,
    }
}

/// A request whose argument points to a struct of `shape`: read in from the guest (`read`),
/// handed to the host in its layout, written back (`write`). Errors: `EFAULT` (after the
/// host's own answer to the request, see [`guest_fault`]), the host's.
fn with_struct(t: &mut Task, fd: i32, req: u64, arg: GuestAddr, shape: &Shape, read: bool, write: bool) -> SysResult {
    let m = t.mm.model();
    let mut host = vec![0u8; thunk::size_of(shape, DataModel::HOST)];
    if read {
        let g = t.mm.read_vec(arg, thunk::size_of(shape, m)).map_err(|_| guest_fault(fd, req))?;
        thunk::convert(shape, m, &g, DataModel::HOST, &mut host);
    }
    if write {
        t.mm.check_writable(arg, thunk::size_of(shape, m) as u64).map_err(|_| guest_fault(fd, req))?;
    }
    // SAFETY: a local buffer of the request's host struct size.
    let n = host_ret(i64::from(unsafe { libc::ioctl(fd, req as libc::c_ulong, host.as_mut_ptr()) }))?;
    if write {
        let mut guest = vec![0u8; thunk::size_of(shape, m)];
        thunk::convert(shape, DataModel::HOST, &host, m, &mut guest);
        t.mm.write_bytes(arg, &guest)?;
    }
    Ok(n)
}

/// The terminal requests: the kernel's `struct termios`, which MIPS lays out its own way
/// (`TCGETS`, `TCSETS*`, `TIOC[GS]LCKTRMIOS`), and `struct termios2` (`TCGETS2`, `TCSETS*2`:
/// the same followed by `speed_t c_ispeed, c_ospeed`, asm-generic/termbits.h and MIPS's).
fn termios(t: &mut Task, fd: i32, req: u64, arg: u64) -> SysResult {
    /// The host's `struct termios2`.
    #[repr(C)]
    struct KernelTermios2 {
        t: KernelTermios,
        speeds: [u32; 2],
    }
    let arg = GuestAddr::new(arg);
    let out = matches!(req, 0x5401 | 0x5456 | 0x802c_542a);
    let two = req & 0xffff >= 0x542a && req & 0xffff <= 0x542d;
    let mut v = KernelTermios2 { t: KernelTermios::zeroed(), speeds: [0; 2] };
    let fault = |_| guest_fault(fd, req);
    let size = t.arch.info().termios.map_or_else(|| t.mm.shape_size(TERMIOS), |at| at.size);
    let speeds_at = arg + size;
    let whole = size + if two { 8 } else { 0 };
    match t.arch.info().termios {
        _ if out => t.mm.check_writable(arg, whole).map_err(fault)?,
        None => v.t = t.mm.read_shape(arg, TERMIOS).map_err(fault)?,
        Some(at) => v.t = (at.to_host)(&t.mm.read_vec(arg, crate::abi::u64_to_usize(at.size)).map_err(fault)?),
    }
    if two && !out {
        v.speeds = [t.mm.read_u32(speeds_at).map_err(fault)?, t.mm.read_u32(speeds_at + 4).map_err(fault)?];
    }
    // SAFETY: a local kernel termios2 (a termios request uses its first part).
    let n = host_ret(i64::from(unsafe { libc::ioctl(fd, req as libc::c_ulong, &mut v as *mut KernelTermios2) }))?;
    if out {
        match t.arch.info().termios {
            None => t.mm.write_shape(arg, TERMIOS, &v.t)?,
            Some(at) => t.mm.write_bytes(arg, &(at.from_host)(&v.t))?,
        }
        if two {
            t.mm.write_u32(speeds_at, v.speeds[0])?;
            t.mm.write_u32(speeds_at + 4, v.speeds[1])?;
        }
    }
    Ok(n)
}

/// `TIOCSIG`: the signal, an integer argument, in the guest's numbering (MIPS differs).
fn tty_signal(t: &mut Task, fd: i32, req: u64, arg: u64) -> SysResult {
    // The kernel refuses a number outside 1..=64 with EINVAL; 0 maps to no host signal too.
    let sig = (t.arch.info().signal_to_host)(arg & 0xffff_ffff).map_or(0, |s| s.as_c_int());
    // SAFETY: an integer argument.
    host_ret(i64::from(unsafe { libc::ioctl(fd, req as libc::c_ulong, sig) }))
}

/// `SIOCETHTOOL` ([`super::ethtool`]).
fn ethtool(t: &mut Task, fd: i32, _req: u64, arg: u64) -> SysResult {
    super::ethtool::ioctl(t, fd, GuestAddr::new(arg))
}

/// The `SIOCGIF*` family ([`super::netdevice`]).
fn netdevice(t: &mut Task, fd: i32, req: u64, arg: u64) -> SysResult {
    super::netdevice::ioctl(t, fd, req, GuestAddr::new(arg))
}

/// `FIDEDUPERANGE`: `struct file_dedupe_range { __u64 src_offset, src_length; __u16
/// dest_count, reserved1; __u32 reserved2; struct file_dedupe_range_info info[]; }` with
/// `info` = `{ __s64 dest_fd; __u64 dest_offset, bytes_deduped; __s32 status; __u32 reserved; }`
/// (linux/fs.h): 24 bytes, then 32 per destination, converted for the byte order.
fn dedupe_range(t: &mut Task, fd: i32, req: u64, arg: u64) -> SysResult {
    static HEAD: &Shape = &[F::U64, F::U64, F::U16, F::U16, F::U32];
    static INFO: &Shape = &[F::I64, F::U64, F::U64, F::I32, F::U32];
    let arg = GuestAddr::new(arg);
    let m = t.mm.model();
    let fault = |_| guest_fault(fd, req);
    let head = thunk::values(HEAD, m, &t.mm.read_vec(arg, 24).map_err(fault)?);
    let count = crate::abi::u64_to_usize(head[2]);
    let mut host = vec![0u8; 24 + 32 * count];
    thunk::from_values(HEAD, DataModel::HOST, &head, &mut host[..24]);
    for i in 0..count {
        let at = arg + 24 + 32 * i as u64;
        let v = thunk::values(INFO, m, &t.mm.read_vec(at, 32).map_err(fault)?);
        thunk::from_values(INFO, DataModel::HOST, &v, &mut host[24 + 32 * i..24 + 32 * (i + 1)]);
    }
    // SAFETY: a local struct with `count` destinations.
    let n = host_ret(i64::from(unsafe { libc::ioctl(fd, req as libc::c_ulong, host.as_mut_ptr()) }))?;
    let mut guest = vec![0u8; 24 + 32 * count];
    thunk::from_values(HEAD, m, &head, &mut guest[..24]);
    for i in 0..count {
        let v = thunk::values(INFO, DataModel::HOST, &host[24 + 32 * i..24 + 32 * (i + 1)]);
        thunk::from_values(INFO, m, &v, &mut guest[24 + 32 * i..24 + 32 * (i + 1)]);
    }
    t.mm.write_bytes(arg, &guest)?;
    Ok(n)
}

/// `struct fiemap` (linux/fiemap.h): `__u64 fm_start, fm_length; __u32 fm_flags,
/// fm_mapped_extents, fm_extent_count, fm_reserved;` then `fm_extent_count` extents.
static FIEMAP: &Shape = &[F::U64, F::U64, F::U32, F::U32, F::U32, F::U32];
/// `struct fiemap_extent`: `__u64 fe_logical, fe_physical, fe_length, fe_reserved64[2]; __u32
/// fe_flags, fe_reserved[3];`.
static FIEMAP_EXTENT: &Shape = &[F::Array(&F::U64, 5), F::Array(&F::U32, 4)];
/// Bytes of each (the same on every arch: fixed-width members, no padding).
const FIEMAP_HEAD: usize = 32;
const EXTENT: usize = 56;

/// `FS_IOC_FIEMAP`: the header in and out, up to `fm_extent_count` extents out. The kernel
/// writes extents one by one into the guest's array and fails with `EFAULT` at the first that
/// cannot be written, so the host gets room for the extents the guest can take plus one: an
/// extent written there is the guest's `EFAULT` (the header then counts those that fit).
fn fiemap(t: &mut Task, fd: i32, req: u64, arg: u64) -> SysResult {
    let arg = GuestAddr::new(arg);
    let m = t.mm.model();
    let head = thunk::values(FIEMAP, m, &t.mm.read_vec(arg, FIEMAP_HEAD).map_err(|_| guest_fault(fd, req))?);
    // FIEMAP_MAX_EXTENTS: larger counts are the host's EINVAL.
    let count = usize::try_from(head[4]).unwrap_or(usize::MAX).min(u32::MAX as usize / EXTENT + 1);
    let extents = arg + FIEMAP_HEAD as u64;
    let fits = |n: usize| t.mm.check_writable(extents, (n * EXTENT) as u64).is_ok();
    let room = if fits(count) {
        count
    } else {
        // The most leading extents the guest can take (writable memory is a prefix).
        let (mut lo, mut hi) = (0, count);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    };
    let asked = if room < count { room + 1 } else { count };
    let mut host = vec![0u8; FIEMAP_HEAD + asked * EXTENT];
    let mut hv = head.clone();
    if u64::try_from(count).ok() == Some(head[4]) {
        hv[4] = asked as u64;
    }
    thunk::from_values(FIEMAP, DataModel::HOST, &hv, &mut host[..FIEMAP_HEAD]);
    // SAFETY: a local header with room for `asked` extents.
    let r = host_ret(i64::from(unsafe { libc::ioctl(fd, req as libc::c_ulong, host.as_mut_ptr()) }));
    let mut out = thunk::values(FIEMAP, DataModel::HOST, &host[..FIEMAP_HEAD]);
    out[4] = head[4];
    let mapped = usize::try_from(out[3]).unwrap_or(0);
    let written = if r.is_ok() || r == Err(Errno::EFAULT) { mapped.min(asked) } else { 0 };
    let shown = written.min(room);
    let mut guest = vec![0u8; shown * EXTENT];
    for i in 0..shown {
        let v = thunk::values(FIEMAP_EXTENT, DataModel::HOST, &host[FIEMAP_HEAD + i * EXTENT..][..EXTENT]);
        thunk::from_values(FIEMAP_EXTENT, m, &v, &mut guest[i * EXTENT..(i + 1) * EXTENT]);
    }
    t.mm.write_bytes(extents, &guest)?;
    let overflow = written > room && asked > 0;
    if overflow {
        out[3] = room as u64;
    }
    let mut gh = vec![0u8; FIEMAP_HEAD];
    thunk::from_values(FIEMAP, m, &out, &mut gh);
    t.mm.write_bytes(arg, &gh)?;
    if overflow {
        return Err(Errno::EFAULT);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_once() {
        let mut seen = std::collections::HashSet::new();
        for d in IOCTLS {
            assert!(seen.insert(d.nr), "{} twice", d.name);
        }
    }

    #[test]
    fn struct_sizes_match_the_numbers() {
        // The _IOC size field of a struct request is the struct's size on LP64.
        for d in IOCTLS {
            let s = match d.arg {
                Arg::In(s) | Arg::Out(s) | Arg::InOut(s) => s,
                _ => continue,
            };
            let size = (d.nr >> 16) & 0x3fff;
            let dir = d.nr >> 30;
            if dir != 0
                && !matches!(
                    d.name,
                    "TUNSETIFF"
                        | "TUNGETIFF"
                        | "FS_IOC_GETFLAGS"
                        | "FS_IOC_SETFLAGS"
                        | "FS_IOC_GETVERSION"
                        | "BLKBSZGET"
                        | "BLKBSZSET"
                )
            {
                assert_eq!(size as usize, thunk::size_of(s, DataModel::HOST), "{}", d.name);
            }
        }
        assert_eq!(thunk::size_of(LOOP_INFO64, DataModel::HOST), 232);
        assert_eq!(thunk::size_of(LOOP_CONFIG, DataModel::HOST), 304);
        assert_eq!(thunk::size_of(IFREQ_FLAGS, DataModel::HOST), 40);
        assert_eq!(thunk::size_of(IFREQ_FLAGS, DataModel::ILP32_LE), 32);
        assert_eq!(thunk::size_of(FIEMAP, DataModel::ILP32_LE), FIEMAP_HEAD);
        assert_eq!(thunk::size_of(FIEMAP_EXTENT, DataModel::ILP32_LE), EXTENT);
        assert_eq!(thunk::size_of(FIEMAP_EXTENT, DataModel::HOST), EXTENT);
    }
}
