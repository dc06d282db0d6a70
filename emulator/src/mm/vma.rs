//! One guest mapping (a "virtual memory area", as Linux calls it) and its permissions.

use std::ops::BitOr;

/// Guest page permissions (`PROT_READ` 1, `PROT_WRITE` 2, `PROT_EXEC` 4, as in
/// include/uapi/asm-generic/mman-common.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Prot(pub u8);

impl Prot {
    /// No access.
    pub const NONE: Prot = Prot(0);
    /// `PROT_READ`.
    pub const READ: Prot = Prot(1);
    /// `PROT_WRITE`.
    pub const WRITE: Prot = Prot(2);
    /// `PROT_EXEC`.
    pub const EXEC: Prot = Prot(4);

    /// `true` if every permission in `other` is in `self`.
    #[inline]
    pub fn contains(self, other: Prot) -> bool {
        self.0 & other.0 == other.0
    }

    /// From a guest `prot` argument; `None` if it has bits other than read/write/exec.
    pub fn from_guest(bits: u64) -> Option<Prot> {
        (bits & !7 == 0).then(|| Prot(u8::try_from(bits).unwrap_or(0)))
    }

    /// The unicorn permission bits (same values: UC_PROT_READ 1, WRITE 2, EXEC 4).
    #[inline]
    pub fn to_unicorn(self) -> unicorn_engine::Prot {
        unicorn_engine::Prot(u32::from(self.0))
    }
}

impl BitOr for Prot {
    type Output = Prot;
    fn bitor(self, rhs: Prot) -> Prot {
        Prot(self.0 | rhs.0)
    }
}

/// What a mapping shows as its name in `/proc/self/maps`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VmaName {
    /// Anonymous memory (no name).
    Anon,
    /// A file (the guest path it was opened as, or the program's path).
    File(String),
    /// The brk heap: `[heap]`.
    Heap,
    /// The main thread's stack: `[stack]`.
    Stack,
    /// endgate's gate page: `[vdso]`-like.
    Gate(&'static str),
    /// An attached SysV shared-memory segment: `/SYSV<key> (deleted)`, inode `shmid`.
    SysvShm {
        /// The segment's key (`IPC_PRIVATE` is 0).
        key: i32,
        /// The host's (and the guest's) identifier of the segment.
        shmid: i32,
    },
}

/// One guest mapping `[start, end)`; the start is the key of the map that holds it.
#[derive(Clone, Debug)]
pub struct Vma {
    /// One past the last byte (page-aligned).
    pub end: u64,
    /// Guest permissions.
    pub prot: Prot,
    /// Name for `/proc/self/maps`.
    pub name: VmaName,
    /// File offset of the first byte, in bytes (0 for anonymous memory).
    pub offset: u64,
    /// `MAP_SHARED` file mapping.
    pub shared: bool,
    /// `MAP_GROWSDOWN` (Linux `VM_GROWSDOWN`): a stack that an access just below it extends
    /// (the main thread's stack is one).
    pub grows_down: bool,
    /// For a file mapping, the file's size when it was mapped: whole pages past it are beyond
    /// EOF, where an access gets `SIGBUS` (checked again when such a page is touched).
    pub file_size: Option<u64>,
    /// For a file mapping, the file's `(st_dev, st_ino)`, by which a truncation the guest makes
    /// finds the mappings it shortens.
    pub file_id: Option<(u64, u64)>,
}
