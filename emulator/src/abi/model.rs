//! How a guest lays out its values: its addresses, byte order and C data model. These are
//! the facts every struct conversion ([`super::thunk`]) and every guest memory access
//! (`crate::mm`) start from.

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
