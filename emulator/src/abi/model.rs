//! How a guest lays out its values: its addresses, byte order and C data model. These are
//! the facts every struct conversion ([`super::thunk`]) and every guest memory access
//! (`crate::mm`) start from.
//!
//! # Casts
//! Integer conversions follow one rule (the workspace lints `cast_lossless`,
//! `cast_possible_truncation`, `cast_sign_loss` and `cast_possible_wrap` enforce it):
//! - one that cannot lose anything is `From` (`u64::from(x)`);
//! - one that must not lose anything but could is `TryFrom`, with the answer the situation
//!   calls for: a guest value out of range gets the errno Linux gives (`EINVAL`, `EFAULT`,
//!   `EOVERFLOW`…), a host value that cannot fit a guest field likewise;
//! - one where dropping or reinterpreting bits *is* the ABI (a `u64` register holding
//!   `-errno`, a guest word cut to 32 bits, a C `int` argument, a 32-bit guest's `time_t`)
//!   goes through the named helpers below, so the intent is in the name: [`bits64`]
//!   (two's-complement bits as a 64-bit word), [`signed64`], [`low32`]/[`low16`]/[`low8`],
//!   [`int32`], and [`u64_to_usize`] for the 64-bit host. System-call arguments have their own
//!   typed readers (`SyscallArgs::int`, `uint`, `long`, `size`, `ptr`), guest addresses
//!   [`GuestAddr`].
//! - Where a helper would read worse (a table of constants, a const context), an
//!   `#[allow(clippy::cast_…)]` with a one-line reason sits on the smallest item; never on a
//!   module or crate.

/// A guest virtual address: a number in the guest's address space, never a host pointer.
///
/// Everything that reads or writes guest memory byte by byte takes one: the accessors of
/// `crate::mm::AddressSpace` (`read_bytes`, `write_shape`, `read_cstr`, `host_range`…), the
/// buffer checks of `crate::guest::Task` (`buf_in`, `buf_out`…), and the pointer arguments of
/// system calls (`SyscallArgs::ptr`). Guest pointers read from guest memory (an iovec's base)
/// and registers used as addresses (the stack pointer a signal frame goes below) become one
/// where they are dereferenced.
///
/// Where `u64` stays: the page-granular mapping API of `crate::mm` (`map_anon`, `unmap`,
/// `protect`, `find_free`, `vma_at`, `tlb_fill`, the `Vma` list, `Layout`), whose page-aligned
/// ranges are arithmetic on lengths and page numbers rather than pointers to data, and raw
/// register values and system-call words until they are used as addresses.
///
/// Arithmetic wraps, as guest pointer arithmetic does: `addr + n` adds a byte offset, `a - b`
/// is the distance in bytes; `checked_add` is there for ranges that must not wrap.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GuestAddr(u64);

impl GuestAddr {
    /// The NULL guest pointer.
    pub const NULL: GuestAddr = GuestAddr(0);

    /// The guest address `a`.
    #[inline]
    pub const fn new(a: u64) -> GuestAddr {
        GuestAddr(a)
    }

    /// The address as a number.
    #[inline]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// `true` for the NULL pointer (an optional argument left out).
    #[inline]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// `self + n`, or `None` if the range would wrap past the top of the address space.
    #[inline]
    pub const fn checked_add(self, n: u64) -> Option<GuestAddr> {
        match self.0.checked_add(n) {
            Some(a) => Some(GuestAddr(a)),
            None => None,
        }
    }

    /// The address with its low bits cleared to a multiple of `align` (a power of two): a
    /// stack pointer aligned down for a signal frame.
    #[inline]
    pub const fn align_down(self, align: u64) -> GuestAddr {
        GuestAddr(self.0 & !(align - 1))
    }
}

impl std::ops::Add<u64> for GuestAddr {
    type Output = GuestAddr;
    /// A byte offset from the address (wrapping).
    #[inline]
    fn add(self, n: u64) -> GuestAddr {
        GuestAddr(self.0.wrapping_add(n))
    }
}

impl std::ops::AddAssign<u64> for GuestAddr {
    #[inline]
    fn add_assign(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(n);
    }
}

impl std::ops::Sub<u64> for GuestAddr {
    type Output = GuestAddr;
    /// The address `n` bytes lower (wrapping): room made below a stack pointer.
    #[inline]
    fn sub(self, n: u64) -> GuestAddr {
        GuestAddr(self.0.wrapping_sub(n))
    }
}

impl std::ops::SubAssign<u64> for GuestAddr {
    #[inline]
    fn sub_assign(&mut self, n: u64) {
        self.0 = self.0.wrapping_sub(n);
    }
}

impl std::ops::Sub<GuestAddr> for GuestAddr {
    type Output = u64;
    /// The distance in bytes from `b` up to `self` (wrapping).
    #[inline]
    fn sub(self, b: GuestAddr) -> u64 {
        self.0.wrapping_sub(b.0)
    }
}

impl std::fmt::Debug for GuestAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

impl std::fmt::LowerHex for GuestAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::LowerHex::fmt(&self.0, f)
    }
}

/// Byte order of a guest (from the ELF header's `EI_DATA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    /// ELFDATA2LSB.
    Little,
    /// ELFDATA2MSB.
    Big,
}

impl Endian {
    /// The host's byte order.
    pub const HOST: Endian = if cfg!(target_endian = "little") { Endian::Little } else { Endian::Big };
}

/// How the guest's C types sit in memory: byte order, the width of `long` and pointers, and
/// the alignment of 64-bit integers inside structs. Every guest struct endgate reads or writes
/// follows from its declaration and this (see [`crate::abi::thunk`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataModel {
    /// Byte order of every multi-byte value.
    pub endian: Endian,
    /// `sizeof(long)` and `sizeof(void *)` in bytes: 8 (LP64) or 4 (ILP32).
    pub long_bytes: u8,
    /// Alignment of `long long`/`__u64` struct members in bytes: 8, but 4 on i386 (the SysV
    /// i386 psABI), which is why i386 `struct stat64` and `epoll_event` are packed tighter.
    pub align64: u8,
}

impl DataModel {
    /// LP64 little-endian: x86_64, aarch64, riscv64, mips64el — the host's own model.
    pub const LP64_LE: DataModel = DataModel { endian: Endian::Little, long_bytes: 8, align64: 8 };
    /// LP64 big-endian: s390x.
    pub const LP64_BE: DataModel = DataModel { endian: Endian::Big, long_bytes: 8, align64: 8 };
    /// ILP32 little-endian with 8-byte-aligned 64-bit members: arm EABI.
    pub const ILP32_LE: DataModel = DataModel { endian: Endian::Little, long_bytes: 4, align64: 8 };
    /// ILP32 little-endian with 4-byte-aligned 64-bit members: i386.
    pub const ILP32_LE_I386: DataModel = DataModel { endian: Endian::Little, long_bytes: 4, align64: 4 };
    /// The host's model (x86_64).
    pub const HOST: DataModel = DataModel::LP64_LE;

    /// `true` for LP64 guests.
    pub fn is_64bit(self) -> bool {
        self.long_bytes == 8
    }
}

// The host endgate runs on is 64-bit (x86_64): a `usize` holds every `u64`.
const _: () = assert!(usize::BITS == u64::BITS);

/// Integers whose two's-complement bits the cast helpers ([`bits64`], [`low32`]…) take:
/// every primitive integer of at most 64 bits. Signed values sign-extend to 64 bits.
pub trait Bits: Copy {
    /// The value's bits as a 64-bit word, sign-extended if the type is signed.
    fn to_bits64(self) -> u64;
}

macro_rules! impl_bits {
    ($($t:ty),*) => {$(
        impl Bits for $t {
            #[inline]
            // The point of `Bits`: the same bits, sign-extended (a signed type) or
            // zero-extended (an unsigned one) to 64.
            #[allow(clippy::cast_sign_loss, clippy::cast_lossless)]
            fn to_bits64(self) -> u64 {
                self as u64
            }
        }
    )*};
}
impl_bits!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// `v`'s two's-complement bits as a 64-bit register word, sign-extended: `-errno` in a
/// result register, a C `int` handed to a host system call as a `long`, a signed host
/// value (`st_size`, `tv_sec`) stored in an unsigned guest field of the same width.
#[inline]
pub fn bits64(v: impl Bits) -> u64 {
    v.to_bits64()
}

/// A 64-bit word read as the signed value it holds (a register with a `long` result or an
/// `off_t`, a `u64` that is a `loff_t`).
#[inline]
#[allow(clippy::cast_possible_wrap)] // the reinterpretation is the point
pub const fn signed64(v: u64) -> i64 {
    v as i64
}

/// The low 32 bits of `v`: a register of a 32-bit guest, a guest word stored in a 32-bit
/// field, a host value a 32-bit guest's struct truncates as the kernel does (a `time_t`), a
/// signed C constant as the unsigned bits of a flag word.
#[inline]
#[allow(clippy::cast_possible_truncation)] // the truncation is the point
pub fn low32(v: impl Bits) -> u32 {
    v.to_bits64() as u32
}

/// The low 16 bits of `v` (a 16-bit id or mode field, a selector).
#[inline]
#[allow(clippy::cast_possible_truncation)] // the truncation is the point
pub fn low16(v: impl Bits) -> u16 {
    v.to_bits64() as u16
}

/// The low 8 bits of `v` (a byte of a wider value, the signal in `clone`'s flags).
#[inline]
#[allow(clippy::cast_possible_truncation)] // the truncation is the point
pub fn low8(v: impl Bits) -> u8 {
    v.to_bits64() as u8
}

/// The low 32 bits of `v` read as a C `int`, as the kernel reads an `int` argument or
/// member whatever the register width.
#[inline]
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // that is what C does
pub fn int32(v: impl Bits) -> i32 {
    v.to_bits64() as u32 as i32
}

/// A `u64` (a guest length, count or offset) as a host `usize`: lossless on the 64-bit host
/// (checked at compile time above).
#[inline]
#[allow(clippy::cast_possible_truncation)] // usize is 64 bits: asserted above
pub const fn u64_to_usize(v: u64) -> usize {
    v as usize
}

#[cfg(test)]
mod cast_tests {
    use super::*;

    #[test]
    fn helpers_keep_the_bits() {
        assert_eq!(bits64(-1i32), u64::MAX);
        assert_eq!(bits64(-14i64), 0xffff_ffff_ffff_fff2);
        assert_eq!(bits64(0x8000_0000u32), 0x8000_0000);
        assert_eq!(signed64(u64::MAX), -1);
        assert_eq!(low32(0x1_2345_6789u64), 0x2345_6789);
        assert_eq!(low32(-1i64), u32::MAX);
        assert_eq!(low16(0x1_ffffu64), 0xffff);
        assert_eq!(low8(0x1234u64), 0x34);
        assert_eq!(int32(0xffff_ffffu64), -1);
        assert_eq!(int32(0x1_0000_0005u64), 5);
        assert_eq!(u64_to_usize(1 << 40), 1usize << 40);
    }
}
