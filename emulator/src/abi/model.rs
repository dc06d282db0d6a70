//! How a guest lays out its values: its addresses, byte order and C data model. These are
//! the facts every struct conversion ([`super::thunk`]) and every guest memory access
//! (`crate::mm`) start from.

/// A guest virtual address.
pub type GuestAddr = u64;

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
