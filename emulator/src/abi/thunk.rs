//! Guest structs declared once by their C field types and converted between data models.
//!
//! A [`Shape`] lists a struct's members as C types (`int`, `long`, `__u64`, pointers, byte
//! arrays). Its layout under a [`DataModel`] follows the C rules of that ABI: members at
//! offsets aligned to their size (64-bit members to `align64`), the struct padded to its widest
//! alignment. [`convert`] copies a struct from one model's layout to another's, member by
//! member: widths change (`long` is 4 bytes on ILP32), byte order changes (s390x), signed
//! members are sign-extended when they widen, byte arrays are copied as they are.
//!
//! This is how the kernel's `compat_*` structs and QEMU's `thunk.c` relate one declaration to
//! several ABIs. Structs whose members differ between arches in more than width and byte order
//! (`struct stat`) are declared per arch with `zerocopy` byte-order types instead.

use crate::abi::DataModel;

/// One member of a C struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `__u8`, `char`.
    U8,
    /// `__s16`, `short`.
    I16,
    /// `__u16`, `unsigned short`.
    U16,
    /// `int`, `__s32`, `pid_t`.
    I32,
    /// `unsigned int`, `__u32`, `uid_t`.
    U32,
    /// `long`, `ssize_t`, `time_t` of the old ABI, `clock_t`: sign-extended when widened.
    Long,
    /// `unsigned long`, `size_t`, and pointers: zero-extended when widened.
    ULong,
    /// `long long`, `__s64`, `loff_t`.
    I64,
    /// `unsigned long long`, `__u64`.
    U64,
    /// `n` bytes copied unchanged (`char` arrays, network-order fields, explicit padding).
    Bytes(usize),
    /// Padding of `n` bytes present only on ILP32 guests (`struct sysinfo`'s `_f`).
    Ilp32Pad(usize),
    /// A kernel `sigset_t` of 64 signals: 8 bytes aligned like `long`, one `u64` in the guest's
    /// byte order (on little-endian ILP32 its two `unsigned long` words are exactly that).
    Sigset,
    /// A nested struct.
    Struct(&'static Shape),
    /// `n` consecutive members of one type.
    Array(&'static Field, usize),
}

/// A C struct as the list of its members, in declaration order.
pub type Shape = [Field];

/// Size and alignment of `f` in bytes under `m`.
fn size_align(f: &Field, m: DataModel) -> (usize, usize) {
    let long = usize::from(m.long_bytes);
    let a64 = usize::from(m.align64);
    match *f {
        Field::U8 | Field::Bytes(0) => (1, 1),
        Field::Bytes(n) => (n, 1),
        Field::I16 | Field::U16 => (2, 2),
        Field::I32 | Field::U32 => (4, 4),
        Field::Long | Field::ULong => (long, long),
        Field::I64 | Field::U64 => (8, a64),
        Field::Ilp32Pad(n) if long == 4 => (n, 1),
        Field::Ilp32Pad(_) => (0, 1),
        Field::Sigset => (8, long),
        Field::Struct(s) => struct_size_align(s, m),
        Field::Array(e, n) => {
            let (sz, al) = size_align(e, m);
            (sz * n, al)
        }
    }
}

fn struct_size_align(s: &Shape, m: DataModel) -> (usize, usize) {
    let (mut off, mut max) = (0usize, 1usize);
    for f in s {
        let (sz, al) = size_align(f, m);
        off = off.next_multiple_of(al) + sz;
        max = max.max(al);
    }
    (off.next_multiple_of(max), max)
}

/// `sizeof` the struct under `m`, in bytes.
pub fn size_of(s: &Shape, m: DataModel) -> usize {
    struct_size_align(s, m).0
}

/// Reads an integer of `width` bytes at `b[..width]` in `m`'s byte order, extended to 64 bits.
fn load(b: &[u8], width: usize, signed: bool, m: DataModel) -> u64 {
    let mut buf = [0u8; 8];
    let src = &b[..width];
    let v = if m.endian == crate::abi::Endian::Little {
        buf[..width].copy_from_slice(src);
        u64::from_le_bytes(buf)
    } else {
        buf[8 - width..].copy_from_slice(src);
        u64::from_be_bytes(buf)
    };
    if signed && width < 8 {
        let shift = 64 - 8 * width;
        super::bits64(super::signed64(v << shift) >> shift)
    } else {
        v
    }
}

/// Writes the low `width` bytes of `v` at `b[..width]` in `m`'s byte order.
fn store(b: &mut [u8], width: usize, v: u64, m: DataModel) {
    if m.endian == crate::abi::Endian::Little {
        b[..width].copy_from_slice(&v.to_le_bytes()[..width]);
    } else {
        b[..width].copy_from_slice(&v.to_be_bytes()[8 - width..]);
    }
}

/// Converts one member at `src`/`dst` (already at the member's offset in each layout).
fn convert_field(f: &Field, from: DataModel, src: &[u8], to: DataModel, dst: &mut [u8]) {
    let int = |signed: bool, src: &[u8], dst: &mut [u8]| {
        let (ws, _) = size_align(f, from);
        let (wd, _) = size_align(f, to);
        store(dst, wd, load(src, ws, signed, from), to);
    };
    match *f {
        Field::U8 | Field::Bytes(_) => {
            let n = size_align(f, from).0;
            dst[..n].copy_from_slice(&src[..n]);
        }
        Field::Ilp32Pad(_) => {}
        Field::Sigset => store(dst, 8, load(src, 8, false, from), to),
        Field::I16 | Field::I32 | Field::Long | Field::I64 => int(true, src, dst),
        Field::U16 | Field::U32 | Field::ULong | Field::U64 => int(false, src, dst),
        Field::Struct(s) => convert(s, from, src, to, dst),
        Field::Array(e, n) => {
            let (ss, _) = size_align(e, from);
            let (ds, _) = size_align(e, to);
            for i in 0..n {
                convert_field(e, from, &src[i * ss..], to, &mut dst[i * ds..]);
            }
        }
    }
}

/// Copies struct `s` from its layout under `from` (in `src`) to its layout under `to` (in
/// `dst`). Padding in `dst` is left as it was (callers start from zeroes). `src` and `dst` must
/// hold at least [`size_of`] bytes of their model; shorter slices panic, so callers size them
/// with [`size_of`].
pub fn convert(s: &Shape, from: DataModel, src: &[u8], to: DataModel, dst: &mut [u8]) {
    if from == to {
        let n = size_of(s, from);
        dst[..n].copy_from_slice(&src[..n]);
        return;
    }
    let (mut so, mut d) = (0usize, 0usize);
    for f in s {
        let (ss, sa) = size_align(f, from);
        let (ds, da) = size_align(f, to);
        so = so.next_multiple_of(sa);
        d = d.next_multiple_of(da);
        convert_field(f, from, &src[so..], to, &mut dst[d..]);
        so += ss;
        d += ds;
    }
}

/// The integer members of `s` in declaration order, read from its layout under `m` (nested
/// structs and arrays flattened; byte arrays, padding and `Sigset` skipped), each extended to
/// 64 bits as its type says. With [`from_values`] this converts between two *different* shapes
/// that list the same integer members with other widths and padding around them: the arch
/// variants of `struct ipc64_perm` and `semid64_ds` (see `abi::shapes`'s IPC section).
pub fn values(s: &Shape, m: DataModel, src: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    walk(s, m, 0, &mut |f, off, width| {
        if let Some(signed) = int_signedness(f) {
            out.push(load(&src[off..], width, signed, m));
        }
    });
    out
}

/// Writes `vals`, one per integer member as [`values`] lists them, into `s`'s layout under
/// `m` in `dst` (at least [`size_of`] bytes; padding is left as it was). Missing values
/// write 0.
pub fn from_values(s: &Shape, m: DataModel, vals: &[u64], dst: &mut [u8]) {
    let mut it = vals.iter();
    walk(s, m, 0, &mut |f, off, width| {
        if int_signedness(f).is_some() {
            store(&mut dst[off..], width, it.next().copied().unwrap_or(0), m);
        }
    });
}

/// `Some(signed)` for an integer member, `None` for bytes and padding.
fn int_signedness(f: &Field) -> Option<bool> {
    match f {
        Field::I16 | Field::I32 | Field::Long | Field::I64 => Some(true),
        Field::U8 | Field::U16 | Field::U32 | Field::ULong | Field::U64 => Some(false),
        _ => None,
    }
}

/// Calls `visit(member, offset, width)` for every scalar member of `s` under `m`, in order,
/// with offsets counted from `base`.
fn walk(s: &Shape, m: DataModel, base: usize, visit: &mut dyn FnMut(&Field, usize, usize)) {
    let mut off = base;
    for f in s {
        let (sz, al) = size_align(f, m);
        off = off.next_multiple_of(al);
        walk_field(f, m, off, visit);
        off += sz;
    }
}

fn walk_field(f: &Field, m: DataModel, at: usize, visit: &mut dyn FnMut(&Field, usize, usize)) {
    match *f {
        Field::Struct(inner) => walk(inner, m, at, visit),
        Field::Array(e, n) => {
            let (sz, _) = size_align(e, m);
            for i in 0..n {
                walk_field(e, m, at + i * sz, visit);
            }
        }
        _ => visit(f, at, size_align(f, m).0),
    }
}

/// Host C structs that [`crate::mm::AddressSpace::write_shape`] and `read_shape` may view as
/// bytes.
///
/// # Safety
/// Implement only for plain C structs of integers (and arrays of them), valid for any byte
/// pattern. Values handed to `write_shape` must start as [`Plain::zeroed`] so their padding
/// bytes are initialised.
pub unsafe trait Plain: Sized {
    /// An all-zero value.
    fn zeroed() -> Self {
        // SAFETY: the implementor promises all-zero bytes are a valid value.
        unsafe { std::mem::zeroed() }
    }
}

macro_rules! plain {
    ($($t:ty),* $(,)?) => { $(
        // SAFETY: a libc C struct (or integer array) of integers and integer arrays only.
        unsafe impl Plain for $t {}
    )* };
}

plain!(
    libc::timespec,
    libc::timeval,
    libc::itimerval,
    libc::itimerspec,
    libc::rlimit,
    libc::rusage,
    libc::tms,
    libc::sysinfo,
    libc::pollfd,
    libc::statfs,
    libc::flock,
    libc::termios,
    libc::winsize,
    libc::statx,
    libc::timex,
    libc::siginfo_t,
    libc::sockaddr_storage,
    [i64; 2],
    [i64; 8],
    [u64; 2],
    [i32; 2],
    [u16; 3],
    u16,
);

/// Views a host value as its bytes.
///
/// # Safety
/// `T` must be a plain C struct (a `libc` type or `#[repr(C)]` of integers) whose padding bytes
/// are initialised (made with `std::mem::zeroed`), so every byte may be read.
pub unsafe fn host_bytes<T>(v: &T) -> &[u8] {
    // SAFETY: the caller promises every byte of `*v` is initialised.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}

/// Views a host value as its bytes, for filling it.
///
/// # Safety
/// `T` must be a plain C struct of integers, valid for any byte pattern.
pub unsafe fn host_bytes_mut<T>(v: &mut T) -> &mut [u8] {
    // SAFETY: the caller promises any byte pattern is a valid `T`.
    unsafe { std::slice::from_raw_parts_mut((v as *mut T).cast::<u8>(), std::mem::size_of::<T>()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::DataModel as M;

    static TIMESPEC: &Shape = &[Field::Long, Field::Long];
    static EPOLL: &Shape = &[Field::U32, Field::U64];

    #[test]
    fn values_carry_members_across_ipc_perm_variants() {
        use crate::abi::shapes::{IPC64_PERM, IPC64_PERM_MODE16, IPC64_PERM_S390X};
        // key, uid, gid, cuid, cgid, mode, seq, two unused.
        let vals = [0x1234u64, 1000, 100, 0, 0, 0o600, 7, 0, 0];
        let mut host = vec![0u8; size_of(IPC64_PERM, M::HOST)];
        from_values(IPC64_PERM, M::HOST, &vals, &mut host);
        assert_eq!(host.len(), 48);
        assert_eq!(&host[20..26], &[0x80, 1, 0, 0, 7, 0][..]);
        // s390x: 32-bit mode at 20, `__pad1` then `seq` at 26, big-endian.
        let mut s390 = vec![0u8; size_of(IPC64_PERM_S390X, M::LP64_BE)];
        from_values(IPC64_PERM_S390X, M::LP64_BE, &values(IPC64_PERM, M::HOST, &host), &mut s390);
        assert_eq!(s390.len(), 48);
        assert_eq!(&s390[20..28], &[0, 0, 1, 0x80, 0, 0, 0, 7][..]);
        // arm/i386: 16-bit mode at 20, seq at 24; 36 bytes.
        let mut arm = vec![0u8; size_of(IPC64_PERM_MODE16, M::ILP32_LE)];
        from_values(IPC64_PERM_MODE16, M::ILP32_LE, &vals, &mut arm);
        assert_eq!(arm.len(), 36);
        assert_eq!(&arm[20..26], &[0x80, 1, 0, 0, 7, 0][..]);
        assert_eq!(values(IPC64_PERM_MODE16, M::ILP32_LE, &arm), vals);
    }

    #[test]
    fn sizes_follow_each_abi() {
        assert_eq!(size_of(TIMESPEC, M::LP64_LE), 16);
        assert_eq!(size_of(TIMESPEC, M::ILP32_LE), 8);
        // struct epoll_event: 16 bytes on arm EABI and s390x, 12 on i386 (u64 aligned to 4).
        assert_eq!(size_of(EPOLL, M::ILP32_LE), 16);
        assert_eq!(size_of(EPOLL, M::ILP32_LE_I386), 12);
        assert_eq!(size_of(EPOLL, M::LP64_BE), 16);
    }

    #[test]
    fn widths_and_byte_order_convert() {
        let host: [i64; 2] = [-2, 7];
        // SAFETY: an integer array has no padding.
        let src = unsafe { host_bytes(&host) };
        let mut be = [0u8; 16];
        convert(TIMESPEC, M::HOST, src, M::LP64_BE, &mut be);
        assert_eq!(be, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0, 0, 0, 0, 7]);
        let mut le32 = [0u8; 8];
        convert(TIMESPEC, M::HOST, src, M::ILP32_LE, &mut le32);
        assert_eq!(le32, [0xfe, 0xff, 0xff, 0xff, 7, 0, 0, 0]);
        let mut back = [0i64; 2];
        // SAFETY: any bytes make a valid i64 array.
        convert(TIMESPEC, M::ILP32_LE, &le32, M::HOST, unsafe { host_bytes_mut(&mut back) });
        assert_eq!(back, [-2, 7], "long is sign-extended when it widens");
    }
}
