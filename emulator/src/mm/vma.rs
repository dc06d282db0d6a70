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

    /// The accesses pages with these permissions take, as the MMU enforces them under Linux:
    /// `PROT_WRITE` implies `PROT_READ` on every arch (mmap(2): "on some hardware
    /// architectures (e.g., i386), PROT_WRITE implies PROT_READ"; the arches' protection maps
    /// give a write-only mapping readable page entries), while `/proc/self/maps` still shows
    /// `-w-`. For the TLB fill and the checks of system-call buffers, not for what the guest
    /// reads back as its mapping's permissions.
    #[inline]
    pub fn as_enforced(self) -> Prot {
        if self.contains(Prot::WRITE) {
            Prot(self.0 | Prot::READ.0)
        } else {
            self
        }
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
    /// A `MAP_SHARED` mapping (of a file, anonymous memory or a SysV segment: Linux's
    /// `VM_SHARED`).
    pub shared: bool,
    /// The NUMA policy `mbind` gave this range (`None`: the thread's policy applies, which
    /// `get_mempolicy(MPOL_F_ADDR)` reports as `MPOL_DEFAULT`).
    pub policy: Option<MemPolicy>,
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

impl Vma {
    /// Private anonymous memory: no file, nothing shared, the break's heap included (not the
    /// main thread's stack or endgate's gate page).
    pub fn is_private_anon(&self) -> bool {
        !self.shared && self.file_id.is_none() && matches!(self.name, VmaName::Anon | VmaName::Heap)
    }
}

/// A NUMA memory policy as a one-node machine keeps it (include/uapi/linux/mempolicy.h):
/// what `get_mempolicy` reports and what makes two policies differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemPolicy {
    /// `MPOL_*` mode (`MPOL_PREFERRED` with no nodes is kept as `MPOL_LOCAL`, as the kernel does).
    pub mode: u16,
    /// The mode flags the caller gave (`MPOL_F_STATIC_NODES`, `MPOL_F_RELATIVE_NODES`,
    /// `MPOL_F_NUMA_BALANCING`).
    pub flags: u16,
    /// The first 64 bits of the node mask `get_mempolicy` reports: the caller's own mask when a
    /// mode flag is set, else the nodes the policy uses (node 0, or none for `MPOL_LOCAL`).
    /// Only one word can be reported: the kernel copies at most `nr_node_ids` (1) bits' worth
    /// of longs.
    pub nodes: u64,
    /// `set_mempolicy_home_node` set a home node (only node 0 exists).
    pub home_node: bool,
}
