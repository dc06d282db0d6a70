//! The guest address space.
//!
//! # Two kinds of address
//! A *guest address* ([`GuestAddr`]) is what the guest program sees; a *host pointer*
//! is where those bytes live in endgate's own process. Every guest page lives in a **window**:
//! a host reservation (`mmap(PROT_NONE, MAP_NORESERVE)`) handed to unicorn with `mem_map_ptr`
//! at its guest address (guest physical = guest virtual, but for views of one file that one
//! view executes and another writes: [`alias`]). Guest `mmap`/`munmap`/`mprotect`
//! inside a window never touch unicorn's region list (which is slow to change, see
//! docs/unicorn-facts.md §3.1): they only replace host pages and edit endgate's own list of
//! mappings ([`Vma`]s).
//!
//! # Windows
//! A 32-bit guest gets one window over its whole address space `[0, TASK_SIZE)` (4 GiB of
//! host address space at most). A 64-bit guest, whose address space (256 TiB on aarch64) is
//! larger than the host's, starts with three: `[0, 16 GiB)` for `ET_EXEC` images and brk, 16
//! GiB at the PIE base and 64 GiB below the stack; any other range a mapping asks for gets a
//! window of its own when it is first mapped ([`AddressSpace::ensure_window`]), in whole
//! [`WINDOW_GRANULE`]s, placed in the host at the guest's own address where the host has that
//! address free (so windows made for neighbouring guest ranges are neighbours in the host too
//! and join into one), next to the neighbouring window's host pages otherwise, or wherever the
//! host puts it. A window is never given back before the process ends. Every mapping lies
//! inside one window, so its host pages are contiguous; a mapping that would straddle two
//! windows whose host pages are not neighbours cannot be made (`ENOMEM`; the top-down search
//! never proposes one), the one place where endgate refuses what Linux would do. Each thread's
//! unicorn instance maps the windows made since it last looked before its guest code runs again
//! ([`AddressSpace::regions`]).
//!
//! # Permissions
//! Host pages of a mapping are always readable and writable (so host system calls can fill
//! guest buffers); the guest's own permissions are enforced in two places:
//! - for guest instructions, by unicorn's virtual TLB, whose fill hook asks [`AddressSpace::tlb_fill`]
//!   for the real permissions of a page (data pages are never executable, which also keeps
//!   TCG's store fast path working);
//! - for system-call buffers, by [`AddressSpace::host_range`], which returns `EFAULT` when any
//!   byte of the range is unmapped or lacks the needed permission, as the kernel's
//!   `copy_from_user`/`copy_to_user` would.
//!
//! # Invalidation
//! Changing a mapping can leave stale translations behind: the TLB may cache old permissions and
//! the TB cache may hold code translated from pages that were replaced. Every change records what
//! must be dropped in [`Invalidate`]; the caller, which owns the unicorn handle, applies it
//! (`ctl_flush_tlb`, `ctl_remove_cache`) before the guest runs again, and publishes it for the
//! instances of the process's other threads ([`shootdown`]).

mod alias;
pub mod fill_view;
pub use alias::PageFill;
pub mod limits;
mod memory;
pub mod safe_copy;
pub mod shootdown;
mod vma;

pub use memory::{write_struct_to, DataModel, Endian, GuestAddr, GuestWrite, Staged, PATH_MAX};
pub use vma::{MemPolicy, Prot, Vma, VmaName};

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_void;
use std::os::fd::RawFd;

use syscalls::Errno;

/// This process's windows, published for other endgate processes (`process_vm_readv` from
/// another guest reads them here with the host's `process_vm_readv`, at this static's
/// address in that process's image): [`PEER_MAGIC`], the number of windows, then `(guest
/// address, length, host address)` for each.
/// Only the first [`PEER_WINDOWS`] windows (in guest address order) are published.
pub static PEER: [std::sync::atomic::AtomicU64; PEER_LEN] = [const { std::sync::atomic::AtomicU64::new(0) }; PEER_LEN];

/// Windows [`PEER`] publishes at most.
pub const PEER_WINDOWS: usize = 16;

/// Words in [`PEER`].
pub const PEER_LEN: usize = 2 + 3 * PEER_WINDOWS;

/// Size and alignment of a 64-bit guest's windows (64 GiB): a mapping outside the windows
/// made so far gets the whole granules it touches. Every granule lies at one host offset,
/// which the direct loads' table holds ([`AddressSpace::direct_table`]).
pub const WINDOW_GRANULE: u64 = 1 << 36;

/// Granules the direct loads' table covers: guest addresses below 2^48 (every 64-bit guest's
/// `TASK_SIZE`); higher ones (x86_64's vsyscall page) go through the engine's TLB.
pub const DIRECT_ENTRIES: usize = 4096;

/// A 64-bit guest's low window, `[0, 4 TiB)` (all of the address space for riscv64, s390x and
/// mips64el, whose `TASK_SIZE` is at most that): `ET_EXEC` images, their brk heap and the
/// mappings near them (AddressSanitizer's x86_64 shadow gap spans 2.4 GiB to 2 TiB) in one
/// reservation (`PROT_NONE`, nothing committed).
const LOW_BLOCK: u64 = 4 << 40;

/// Host address space kept after a 64-bit guest's low window for the windows made right above
/// it (32 TiB, reserved `PROT_NONE`, nothing committed), so that a mapping that starts in the
/// low window can go on past its end: AddressSanitizer's shadow spans 2 TiB to 16 TiB on
/// x86_64 and 64 GiB to 32 TiB + 64 GiB on aarch64.
const LOW_ROOM: u64 = 32 << 40;

/// Host address space kept `PROT_NONE` after each reservation of guest memory, so that a
/// direct load running past a window's end faults unless the next granule follows it: at
/// least 64 KiB, and as much as the window itself up to [`LOW_BLOCK`] where the host has
/// room, kept for the window that will be made right above it.
const GUARD: u64 = 64 << 10;

/// Host address space behind a 32-bit guest's window: all 4 GiB of guest addresses and a
/// guard for an access that runs past the last one (`PROT_NONE` where not mapped).
pub const DIRECT_SPAN: u64 = (1 << 32) + (64 << 10);

/// Bytes of the direct stores' table kept right below a 32-bit guest's window: one per 4 KiB
/// guest page (unicorn's `UC_DIRECT_STORE_TABLE`, patch 0019).
pub const STORE_TABLE: u64 = 1 << 20;

/// One past the highest host user address (x86_64 with 4-level paging: 128 TiB). A window is
/// placed at its guest address only below it.
const HOST_USER_TOP: u64 = 0x7fff_ffff_f000;

/// The first word of [`PEER`] once it is filled.
pub const PEER_MAGIC: u64 = 0x656e_6467_6174_6557;

/// Guest page size in bytes (4 KiB on every guest endgate supports, as on Debian's kernels).
pub const PAGE_SIZE: u64 = 4096;

/// Lowest address a guest may map: Linux's default `vm.mmap_min_addr` (64 KiB).
pub const MMAP_MIN_ADDR: u64 = 0x10000;

/// Rounds `x` down to a page boundary.
#[inline]
pub const fn page_floor(x: u64) -> u64 {
    x & !(PAGE_SIZE - 1)
}

/// Rounds `x` up to a page boundary; `None` on overflow.
#[inline]
pub const fn page_ceil(x: u64) -> Option<u64> {
    match x.checked_add(PAGE_SIZE - 1) {
        Some(v) => Some(v & !(PAGE_SIZE - 1)),
        None => None,
    }
}

/// A contiguous guest range backed by one host reservation.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// First guest address of the window.
    pub guest: u64,
    /// Length in bytes (a multiple of [`PAGE_SIZE`]).
    pub len: u64,
    /// Host address of the window's first byte.
    pub host: *mut u8,
}

/// Where the guest's windows go, chosen by the arch from its user address-space size.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Window for `ET_EXEC` images and their brk heap: `[0, low_len)`.
    pub low_len: u64,
    /// Base of the window for position-independent images (Linux `ELF_ET_DYN_BASE`).
    pub dyn_base: u64,
    /// Length of that window in bytes.
    pub dyn_len: u64,
    /// One past the highest user address (Linux `TASK_SIZE`, on s390x `TASK_SIZE_MAX`): no
    /// mapping reaches beyond it.
    pub task_size: u64,
    /// Where the stack ends and the top window ends (Linux `STACK_TOP`): `task_size` but on
    /// s390x, whose stack stays below 2^42 while a mapping may go anywhere below 2^64 (a new
    /// mm's three-level page tables, which the kernel upgrades to four or five levels when a
    /// mapping asks for an address above them).
    pub stack_top: u64,
    /// Length of the top window (stack plus top-down `mmap` area) in bytes.
    pub top_len: u64,
    /// A one-page window above `task_size` that the arch fills itself at start (x86_64's
    /// legacy vsyscall page at 0xffffffffff600000); `None` for most arches.
    pub fixed_page: Option<u64>,
}

/// Cached translations that a mapping change made stale; applied by the owner of the unicorn
/// instance before the guest runs again.
#[derive(Clone, Default, Debug)]
pub struct Invalidate {
    /// Flush unicorn's whole TLB (many pages changed, or no range is known).
    pub flush_tlb: bool,
    /// Guest ranges `[start, end)` whose pages' TLB entries must go (permissions changed or
    /// pages went away there); [`Invalidate::drop_tlb`] turns many pages into `flush_tlb`.
    pub tlb: Vec<(u64, u64)>,
    /// Guest ranges `[start, end)` whose translated code must be dropped.
    pub code: Vec<(u64, u64)>,
    /// Every translation must be dropped (a page's guest physical address moved while code
    /// made under the old one may still be linked to: `mm::alias`).
    pub flush_all: bool,
}

/// The most pages [`Invalidate::tlb`] names before a whole flush is cheaper: a page's flush
/// looks at every MMU mode's table and the victim TLB (unicorn patch 0049).
const TLB_PAGES_MAX: u64 = 64;

impl Invalidate {
    /// `true` if anything must be dropped.
    #[inline]
    pub fn pending(&self) -> bool {
        self.flush_tlb || self.flush_all || !self.code.is_empty() || !self.tlb.is_empty()
    }

    /// The TLB entries of the pages of `[start, end)` must go: kept as a range while the
    /// ranges name few pages, else a whole flush.
    pub fn drop_tlb(&mut self, start: u64, end: u64) {
        if self.flush_tlb || start >= end {
            return;
        }
        self.tlb.push((page_floor(start), page_ceil(end).unwrap_or(end)));
        let pages: u64 = self.tlb.iter().map(|&(s, e)| (e - s) / PAGE_SIZE).sum();
        if pages > TLB_PAGES_MAX {
            self.flush_tlb = true;
            self.tlb.clear();
        }
    }

    /// Adds `other`'s work to this one.
    pub fn merge(&mut self, other: &Invalidate) {
        self.flush_all |= other.flush_all;
        self.code.extend_from_slice(&other.code);
        if other.flush_tlb {
            self.flush_tlb = true;
            self.tlb.clear();
        }
        for &(s, e) in &other.tlb {
            self.drop_tlb(s, e);
        }
    }
}

/// How a guest access was refused by the TLB fill hook; read after `emu_start` fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Page-aligned guest address of the refused access (unicorn reports only the page).
    pub page: u64,
    /// The access that was refused.
    pub access: Prot,
    /// `true` if the page is mapped but lacks the permission (SEGV_ACCERR), `false` if unmapped
    /// (SEGV_MAPERR).
    pub mapped: bool,
    /// The page lies wholly beyond the end of the file its mapping maps: `SIGBUS`
    /// (`BUS_ADRERR`), as the kernel's fault on such a page gives.
    pub bus: bool,
}

/// Errors while creating the address space (endgate's own failures, not the guest's).
#[derive(Debug, thiserror::Error)]
pub enum MmError {
    /// The host refused the reservation.
    #[error("cannot reserve {len} bytes of host address space: {source}")]
    Reserve {
        /// Size in bytes.
        len: u64,
        /// The host error.
        source: std::io::Error,
    },
    /// The host refused the reservation under a finite hard `RLIMIT_AS` (`ulimit -v`), which
    /// endgate cannot raise and which counts its `PROT_NONE` reservations (mm/mmap.c
    /// `may_expand_vm` counts every mapping's size, `total_vm`).
    #[error(
        "cannot reserve {len} bytes of host address space: the hard address-space limit \
         (ulimit -v, RLIMIT_AS) is {limit} bytes, and endgate reserves {need} bytes of host \
         address space up front for this guest's memory (README, \"Limitations\"); raise the \
         hard limit, or set a soft one (ulimit -S -v), which endgate applies to the guest"
    )]
    HardLimit {
        /// Size in bytes of the reservation refused.
        len: u64,
        /// The hard limit in bytes.
        limit: u64,
        /// What [`AddressSpace::new`] reserves for the guest at least ([`up_front`]).
        need: u64,
    },
}

/// The host address space [`AddressSpace::new`] reserves for `layout` at least (each window
/// with the smallest guard it takes): a 32-bit guest's [`DIRECT_SPAN`]; a 64-bit guest's empty
/// granule, its low window and the granules of its PIE base and stack that lie above it.
pub fn up_front(layout: Layout) -> u64 {
    let fixed = layout.fixed_page.map_or(0, |_| PAGE_SIZE + GUARD);
    if layout.task_size <= 1 << 32 {
        return DIRECT_SPAN + fixed;
    }
    let low = LOW_BLOCK.min(layout.stack_top);
    let top_base = layout.stack_top - layout.top_len;
    let mut granules: Vec<u64> = Vec::new();
    for (guest, len) in [(layout.dyn_base, layout.dyn_len), (top_base, layout.top_len)] {
        let end = guest.saturating_add(len).next_multiple_of(WINDOW_GRANULE);
        let mut g = guest / WINDOW_GRANULE * WINDOW_GRANULE;
        while g < end {
            if g >= low && !granules.contains(&g) {
                granules.push(g);
            }
            g += WINDOW_GRANULE;
        }
    }
    let above = if granules.is_empty() { 0 } else { granules.len() as u64 * WINDOW_GRANULE + GUARD };
    (WINDOW_GRANULE + GUARD) + (low + GUARD) + above + fixed
}

/// Whether the host's hard `RLIMIT_AS` is what refuses `len` more bytes now: this process's
/// mapped size (`/proc/self/statm`'s first field, in pages) plus `len` goes beyond it. Without
/// a readable `/proc`, a finite limit is taken to be the reason.
fn over_hard_limit(limit: u64, len: u64) -> bool {
    let now = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(|pages| pages.saturating_mul(PAGE_SIZE));
    now.is_none_or(|now| now.saturating_add(len) > limit)
}

/// The host's hard `RLIMIT_AS` when it is finite.
fn hard_as_limit() -> Option<u64> {
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a local out struct.
    (unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rl) } == 0 && rl.rlim_max != libc::RLIM_INFINITY)
        .then_some(rl.rlim_max)
}

/// The first address of the pages of the mapping at `start` that lie past the end of its
/// file (`u64::MAX` for none).
fn eof_of(start: u64, vma: &Vma) -> u64 {
    match vma.file_size {
        Some(size) => {
            let past = page_ceil(size).unwrap_or(u64::MAX);
            start.saturating_add(past.saturating_sub(vma.offset))
        }
        None => u64::MAX,
    }
}

/// `true` if permissions `new` keep every one of `old` and leave a page stores may go to
/// directly (writable, not executable: [`AddressSpace::store_range`], the 32-bit store table)
/// so: a writable page becoming executable must first leave every instance's store slots.
pub fn only_gains(old: Prot, new: Prot) -> bool {
    new.contains(old) && !(old.contains(Prot::WRITE) && !old.contains(Prot::EXEC) && new.contains(Prot::EXEC))
}

/// The guest's mappings, brk and placement state. One per guest process.
pub struct AddressSpace {
    /// The windows in guest address order, neighbours in both guest and host joined.
    windows: Vec<Window>,
    /// Every window as it was made, in the order made: what each unicorn instance maps (an
    /// instance that has mapped the first `n` maps the rest before its guest runs again).
    regions: Vec<Window>,
    /// The host reservations, unmapped when the address space goes.
    reservations: Vec<(*mut c_void, usize)>,
    /// Windows are made on demand (64-bit guests).
    on_demand: bool,
    /// The guest's loads read host memory directly: a 32-bit guest's one window sits at a
    /// single host offset ([`AddressSpace::direct_span`]), a 64-bit guest's granules at the
    /// offsets of [`AddressSpace::direct_table`]; the host protection of each page then
    /// follows the guest's readability ([`AddressSpace::host_prot`]). Off with
    /// `ENDGATE_NO_DIRECT=1`.
    direct: bool,
    /// A 64-bit guest's host offset (host address minus guest address, modulo 2^64) of each
    /// granule below 2^48 ([`DIRECT_ENTRIES`]); a granule without a window points into the
    /// `PROT_NONE` reservation at `none`. Empty for a 32-bit guest. Read by translated code
    /// of every thread (unicorn patch 0013), written here when a window is made.
    table: Box<[std::sync::atomic::AtomicU64]>,
    /// Host address of the one-granule `PROT_NONE` reservation behind the table's empty
    /// entries (0 without a table).
    none: u64,
    /// A 64-bit guest whose address space up to its stack lies in its low window
    /// ([`LOW_BLOCK`]: mips64el, s390x, riscv64): the host address of guest address 0 and the
    /// number of address bits (`STACK_TOP` is `2^bits`). Its direct loads then add that one
    /// base instead of looking the granule up ([`AddressSpace::direct_flat`]); a load from
    /// 2^bits on (s390x's mappings above its stack, in windows of their own) takes the
    /// engine's TLB. Off with `ENDGATE_NO_DIRECT_FLAT=1` (the table is used then).
    flat: Option<(u64, u8)>,
    /// The guards kept after reservations (`(host address, bytes)`, see [`GUARD`]); a window
    /// made to meet the reservation before one takes it over.
    guards: Vec<(u64, u64)>,
    vmas: BTreeMap<u64, Vma>,
    /// Ranges given `MADV_DONTFORK` (Linux `VM_DONTCOPY`): a forked child does not have them
    /// ([`AddressSpace::drop_dontfork`]); a new mapping or an unmap over a range forgets it.
    dontfork: Vec<(u64, u64)>,
    /// `MAP_DROPPABLE` mappings (Linux `VM_DROPPABLE`), kept as [`AddressSpace::dontfork`] is:
    /// `MADV_KEEPONFORK` of them is `EINVAL`.
    pub droppable: Vec<(u64, u64)>,
    model: DataModel,
    /// First byte of the brk heap (page-aligned end of the loaded image).
    pub brk_start: u64,
    /// Current program break (byte-granular, as the guest asked).
    pub brk: u64,
    /// Top of the top-down `mmap` area (below the stack and its gap).
    pub mmap_base: u64,
    /// One past the highest user address (the arch's `TASK_SIZE`).
    pub task_size: u64,
    /// Where the stack ends (the arch's `STACK_TOP`; [`Layout::stack_top`]).
    pub stack_top: u64,
    /// `mlockall(MCL_FUTURE)` is in force: new mappings are locked (`Some(true)`: only as
    /// their pages are touched, `MCL_ONFAULT`). Linux's `mm->def_flags` `VM_LOCKED`.
    pub lock_future: Option<bool>,
    /// Start of the window for PIE images (Linux `ELF_ET_DYN_BASE`).
    pub dyn_base: u64,
    /// What the last mapping changes made stale.
    pub invalidate: Invalidate,
    /// The last access refused by [`AddressSpace::tlb_fill`].
    pub last_fault: Option<Fault>,
    /// While set, [`AddressSpace::tlb_fill`] grants every access inside the windows (used only
    /// while endgate itself asks unicorn to drop translated code; see
    /// `task::apply_invalidate`).
    pub permissive: bool,
    /// Invalidations published for the other threads' instances.
    pub shootdown: shootdown::Shootdown,
    /// The protection-key allocation map (`mm->context.pkey_allocation_map`); `None` until a
    /// `pkey_*` call changes the arch's initial one (`syscall::mm` pkey calls).
    pub pkey_map: Option<u16>,
    /// The process has mapped writable memory shared with other processes (`MAP_SHARED`, SysV
    /// shm): its instances then translate in parallel mode, so guest atomics there are host
    /// atomics against the other processes too (see docs/ARCHITECTURE.md, "Threads").
    pub shared_writable: bool,
    /// Pages were taken away while the other threads ran on (a `munmap` or a lowering
    /// `mprotect` of private anonymous memory that no thread could execute,
    /// `crate::syscall::mm::takes_away_unstopped`): their instances may still hold TLB entries
    /// for those guest pages, with the permissions they had, until they catch up at their next
    /// block start. Such an entry reaches the host pages now there, which refuse what the guest
    /// lost ([`AddressSpace::private_host_prot`]) or belong to whatever is mapped there next.
    /// Until the next stop of every thread, a new mapping there must not be one whose host
    /// pages would take a store the guest may not make unseen: an executable one (its code
    /// would miss the store). Cleared when the others stop (`quiesce`).
    pub taken_unstopped: bool,
    /// Writable and executable pages that instructions have been fetched from (see
    /// [`AddressSpace::tlb_fill`]), in order for [`AddressSpace::fill_view`]'s range queries.
    code_pages: BTreeSet<u64>,
    /// The shared file mappings by kind, for views that execute what others write
    /// ([`alias`]).
    views: alias::Views,
    /// The direct stores' table of a 32-bit guest (unicorn patch 0019, `uc_set_direct_stores`):
    /// [`STORE_TABLE`] bytes just below the host address of guest address 0, one per guest
    /// page, `0xff` where a guest store may go straight to the host page (see
    /// [`AddressSpace::sync_store_table`]). `None` for 64-bit guests, with
    /// `ENDGATE_NO_DIRECT=1`, or where the host had no room for it there.
    store_table: Option<*mut u8>,
    /// The mapping [`AddressSpace::span_at`] found last, as `(start, end, prot, eof)` (`eof`:
    /// the first address of its pages beyond the end of its file, `u64::MAX` for none); cleared
    /// by every change to the mapping list.
    span_hint: std::cell::Cell<Option<(u64, u64, Prot, u64)>>,
    /// A writable and executable mapping, as `(start, end)`, with no page in `code_pages`
    /// when it was last looked at ([`AddressSpace::note_host_write`]); cleared with `span_hint` and when a
    /// page becomes code.
    code_free_hint: std::cell::Cell<Option<(u64, u64)>>,
    /// The window [`AddressSpace::to_host`] found last; cleared with `span_hint`. (A
    /// 64-bit guest has a window per granule it uses, so the search is not free, and the
    /// buffers of a run of system calls and vDSO calls mostly lie in one window.)
    window_hint: std::cell::Cell<Option<Window>>,
    /// The largest total size the mappings have had, in bytes (`VmPeak`).
    pub vm_peak: u64,
    /// The largest resident size `/proc/self/status` has reported, in bytes (`VmHWM`).
    pub rss_peak: std::cell::Cell<u64>,
    /// An address just below a grows-down mapping that a system-call buffer reached: the
    /// dispatcher grows the stack to it and serves the call again (see
    /// [`AddressSpace::grow_down`]).
    grow_request: std::cell::Cell<Option<u64>>,
}

/// The gap Linux keeps between a growing stack and the mapping below it (`stack_guard_gap`,
/// mm/mmap.c: 256 pages).
pub const STACK_GUARD_GAP: u64 = 256 * PAGE_SIZE;

/// The soft `RLIMIT_STACK` now, which bounds the size a grows-down mapping may grow to.
fn stack_rlimit() -> u64 {
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a local out struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut rl) } == 0 {
        rl.rlim_cur
    } else {
        8 << 20
    }
}

/// Fills [`PEER`] with `windows`.
fn publish_peer(windows: &[Window]) {
    use std::sync::atomic::Ordering::Relaxed;
    let n = windows.len().min(PEER_WINDOWS);
    for (i, w) in windows.iter().take(n).enumerate() {
        PEER[2 + 3 * i].store(w.guest, Relaxed);
        PEER[3 + 3 * i].store(w.len, Relaxed);
        PEER[4 + 3 * i].store(w.host as u64, Relaxed);
    }
    PEER[1].store(n as u64, Relaxed);
    PEER[0].store(PEER_MAGIC, Relaxed);
}

// SAFETY: the raw pointers name a reservation owned by this value; nothing else frees it.
unsafe impl Send for AddressSpace {}

/// Which neighbouring windows a new window's host pages should meet ([`AddressSpace`]'s
/// `add_window`): the neighbour below and the one above must be met, tried before anything
/// else, where the mapping that asks for the window runs on into them; after those, the
/// nearer neighbour is tried first (`above_first`: the mapping lies nearer the window's top).
#[derive(Clone, Copy, Debug)]
struct Join {
    below: bool,
    above: bool,
    above_first: bool,
}

impl Join {
    /// No neighbour to meet first.
    const NONE: Join = Join { below: false, above: false, above_first: false };
}

impl AddressSpace {
    /// Reserves host address space for `layout` (nothing is committed until mapped).
    pub fn new(layout: Layout, model: DataModel) -> Result<Self, MmError> {
        let top_base = layout.stack_top - layout.top_len;
        let on_demand = layout.task_size > 1 << 32;
        let direct = std::env::var_os("ENDGATE_NO_DIRECT").is_none();
        let mut space = AddressSpace {
            regions: Vec::new(),
            windows: Vec::new(),
            reservations: Vec::new(),
            on_demand,
            direct,
            table: Box::new([]),
            none: 0,
            flat: None,
            guards: Vec::new(),
            vmas: BTreeMap::new(),
            dontfork: Vec::new(),
            droppable: Vec::new(),
            model,
            brk_start: 0,
            brk: 0,
            mmap_base: top_base,
            task_size: layout.task_size,
            stack_top: layout.stack_top,
            lock_future: None,
            dyn_base: layout.dyn_base,
            invalidate: Invalidate::default(),
            last_fault: None,
            permissive: false,
            shootdown: shootdown::Shootdown::default(),
            pkey_map: None,
            shared_writable: false,
            taken_unstopped: false,
            code_pages: BTreeSet::new(),
            views: alias::Views::default(),
            store_table: None,
            span_hint: std::cell::Cell::new(None),
            code_free_hint: std::cell::Cell::new(None),
            window_hint: std::cell::Cell::new(None),
            vm_peak: 0,
            rss_peak: std::cell::Cell::new(0),
            grow_request: std::cell::Cell::new(None),
        };
        let (limit, need) = (hard_as_limit(), up_front(layout));
        let refused = |len: u64| {
            move |e: Errno| match limit {
                Some(limit) if e == Errno::ENOMEM && over_hard_limit(limit, len) => {
                    MmError::HardLimit { len, limit, need }
                }
                _ => MmError::Reserve { len, source: std::io::Error::from(e) },
            }
        };
        if on_demand {
            // The empty granules' reservation, then the low window, the PIE base's and the
            // stack's (whole granules, so the table has one offset for each).
            let size = crate::abi::u64_to_usize(WINDOW_GRANULE + GUARD);
            let none = reserve(None, size).ok_or(Errno::ENOMEM).map_err(refused(WINDOW_GRANULE))?;
            space.reservations.push((none.cast(), size));
            space.none = none as u64;
            space.table = (0..DIRECT_ENTRIES as u64)
                .map(|g| std::sync::atomic::AtomicU64::new(space.none.wrapping_sub(g * WINDOW_GRANULE)))
                .collect();
            // The low window starts at MMAP_MIN_ADDR, its granules' offset putting guest 0 at
            // the start of its reservation: the guest's own loads below MMAP_MIN_ADDR fault
            // there. What unicorn itself stores below it (s390x's lowcore) goes to a window of
            // its own, elsewhere and outside the table.
            let low = LOW_BLOCK.min(layout.stack_top);
            let room = if layout.task_size > low { LOW_ROOM } else { GUARD };
            let (base, guard) = [room, GUARD]
                .into_iter()
                .find_map(|guard| Some((reserve(None, usize::try_from(low + guard).ok()?)?, guard)))
                .ok_or(Errno::ENOMEM)
                .map_err(refused(low))?;
            space.reservations.push((base.cast(), crate::abi::u64_to_usize(low + guard)));
            space.guards.push((base as u64 + low, guard));
            // SAFETY: inside the reservation just made.
            let host = unsafe { base.add(crate::abi::u64_to_usize(MMAP_MIN_ADDR)) };
            space.insert_window(Window { guest: MMAP_MIN_ADDR, len: low - MMAP_MIN_ADDR, host });
            space.set_offsets(0, low, base as u64);
            if direct
                && layout.stack_top == low
                && low.is_power_of_two()
                && std::env::var_os("ENDGATE_NO_DIRECT_FLAT").is_none()
            {
                space.flat = Some((base as u64, u8::try_from(low.trailing_zeros()).unwrap_or(u8::MAX)));
            }
            space.add_window(0, MMAP_MIN_ADDR, Join::NONE, 0).map_err(refused(MMAP_MIN_ADDR))?;
            for (guest, len) in [(layout.dyn_base, layout.dyn_len), (top_base, layout.top_len)] {
                space.ensure_window(guest, len).map_err(refused(len))?;
            }
        } else {
            // Every 32-bit address and an access running past the last one land in the
            // reservation (direct loads add no bounds check).
            space
                .add_window(0, layout.task_size, Join::NONE, DIRECT_SPAN - layout.task_size)
                .map_err(refused(DIRECT_SPAN))?;
            if direct && std::env::var_os("ENDGATE_NO_DIRECT_STORES").is_none() {
                space.make_store_table();
            }
        }
        if let Some(page) = layout.fixed_page {
            space.add_window(page, PAGE_SIZE, Join::NONE, 0).map_err(refused(PAGE_SIZE))?;
        }
        Ok(space)
    }

    /// The windows in guest address order.
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// For direct guest loads (unicorn patch 0012, `uc_set_direct_base`): the host address of
    /// guest address 0 and the bytes from there that are the guest's ([`DIRECT_SPAN`]);
    /// `None` for a 64-bit guest, whose windows lie at several host offsets.
    pub fn direct_span(&self) -> Option<(*mut u8, u64)> {
        match self.windows.first() {
            Some(w) if self.direct && !self.on_demand && w.guest == 0 => Some((w.host, DIRECT_SPAN)),
            _ => None,
        }
    }

    /// For direct guest loads of a 64-bit guest (unicorn patch 0013, `uc_set_direct_table`):
    /// the table of [`DIRECT_ENTRIES`] host offsets, one per [`WINDOW_GRANULE`], and the host
    /// address of the `PROT_NONE` granule the empty entries point into. `None` for a 32-bit
    /// guest or with `ENDGATE_NO_DIRECT=1`. The table lives as long as the address space.
    pub fn direct_table(&self) -> Option<(*const u64, u64)> {
        (self.direct && self.on_demand && self.flat.is_none()).then(|| (self.table.as_ptr().cast::<u64>(), self.none))
    }

    /// For direct guest loads of a 64-bit guest whose address space is one window (unicorn
    /// patch 0027, `uc_set_direct_base` with `uc_set_direct_bits`): the host address of guest
    /// address 0, the bytes from there that are the guest's (`2^bits` and the [`GUARD`] after
    /// them) and `bits`. `None` for the other guests (they use [`AddressSpace::direct_span`] or
    /// [`AddressSpace::direct_table`]). Their stores go direct through store slots (unicorn
    /// patch 0045, [`AddressSpace::store_slots`]) as the other 64-bit guests' do; direct
    /// stores as 32-bit guests make them (a table of one byte per page, unicorn patch 0019)
    /// were measured for these guests on 2026-12-05 and gained nothing (s390x) or lost 5 %
    /// (mips64el, whose busybox stack is executable, so its stores passed the checks and took
    /// the TLB anyway).
    pub fn direct_flat(&self) -> Option<(*mut u8, u64, u8)> {
        self.flat.map(|(host, bits)| (host as *mut u8, (1u64 << bits) + GUARD, bits))
    }

    /// For direct stores of a 64-bit guest (unicorn patch 0045, `uc_set_store_slots`): each
    /// store site keeps a range [`AddressSpace::store_range`] gave, and the engine empties the
    /// slots at every TLB flush, which every change to the mappings already asks
    /// ([`Invalidate`]). Off with `ENDGATE_NO_DIRECT` or `ENDGATE_NO_DIRECT_STORES`.
    pub fn store_slots(&self) -> bool {
        self.direct && self.on_demand && std::env::var_os("ENDGATE_NO_DIRECT_STORES").is_none()
    }

    /// For direct stores of a 64-bit guest (unicorn patch 0045): the widest range around `addr`
    /// of neighbouring mappings that the guest may write, none executable, none a view of an
    /// aliased file (`alias`), none past the end of its file (`SIGBUS`), so that a store
    /// anywhere in it needs no check until the mappings change. `None` if `addr`'s page is not
    /// such a page.
    pub fn store_range(&self, addr: u64) -> Option<(u64, u64)> {
        let store = |(&start, v): (&u64, &Vma)| fill_view::StoreSpan {
            start,
            end: v.end,
            eof: eof_of(start, v),
            ok: v.prot.contains(Prot::WRITE) && !v.prot.contains(Prot::EXEC) && !self.is_alias_view(v),
        };
        let (first, v) = self.vma_at(addr)?;
        fill_view::store_run(
            addr,
            store((&first, v)),
            self.vmas.range(v.end..).map(store),
            self.vmas.range(..first).rev().map(store),
        )
    }

    /// For direct guest stores (unicorn patch 0019, `uc_set_direct_stores`): `true` if the
    /// table below [`AddressSpace::direct_span`]'s base is kept.
    pub fn direct_stores(&self) -> bool {
        self.store_table.is_some()
    }

    /// Maps the direct stores' table right below the window of a 32-bit guest (which must
    /// start at guest address 0). The host chose where that window went; the table goes
    /// without it if the host has something right below.
    fn make_store_table(&mut self) {
        let Some(w) = self.windows.first().filter(|w| w.guest == 0) else { return };
        let len = crate::abi::u64_to_usize(STORE_TABLE);
        let Some(at) = (w.host as u64).checked_sub(STORE_TABLE) else { return };
        // SAFETY: a fresh private mapping where nothing is (MAP_FIXED_NOREPLACE); it is
        // unmapped with the reservations.
        let p = unsafe {
            libc::mmap(
                at as *mut c_void,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return;
        }
        self.reservations.push((p, len));
        if p as u64 != at {
            // A kernel older than 4.17 takes MAP_FIXED_NOREPLACE as a hint.
            return;
        }
        self.store_table = Some(p.cast());
    }

    /// Brings the direct stores' table up to date for the guest pages of `[start, end)` and the
    /// page before (whose byte depends on its next page) from the mappings. Page P's byte is
    /// `0xff` when a guest store that starts in P needs no check but the host's: P is
    /// writable, and so is P+1 (a store may cross into it) unless P+1 lies at or above the
    /// task size, where nothing can ever be mapped and the host page refuses the store (so a
    /// crossing store faults in the host and the TLB fill refuses it: unicorn patch 0012's
    /// fault path). Writable means mapped writable and not executable (no translated code can
    /// come from the page, so no store there can leave a translation stale: executable pages
    /// keep unicorn's self-modifying-code path) and before the end of the file behind the
    /// mapping (past it a store raises SIGBUS). Every other store goes through the TLB and
    /// [`AddressSpace::tlb_fill`]. Called for every change to the mapping list. A byte goes
    /// from `0xff` to `0` only when P or P+1 stops being writable, a change that takes pages
    /// away and so first stops every running thread (docs/ARCHITECTURE.md, "Threads"): no
    /// thread is between its check and its store (both in one translated block) meanwhile.
    fn sync_store_table(&self, start: u64, end: u64) {
        let Some(table) = self.store_table else { return };
        let pages = 1u64 << 20;
        let first = (start / PAGE_SIZE).saturating_sub(1).min(pages);
        let last = end.div_ceil(PAGE_SIZE).min(pages);
        if first >= last {
            return;
        }
        // Writable pages of [first, last + 1): a page more, for the last one's neighbour.
        let mut writable = vec![false; crate::abi::u64_to_usize(last + 1 - first)];
        let (lo, hi) = (first * PAGE_SIZE, (last + 1) * PAGE_SIZE);
        let from = self.vmas.range(..=lo).next_back().map_or(lo, |(&s, _)| s);
        for (&s, v) in self.vmas.range(from..hi) {
            if v.end <= lo || !v.prot.contains(Prot::WRITE) || v.prot.contains(Prot::EXEC) || self.is_alias_view(v) {
                continue;
            }
            let (a, b) = (s.max(lo), v.end.min(eof_of(s, v)).min(hi));
            for page in a / PAGE_SIZE..b.div_ceil(PAGE_SIZE) {
                writable[crate::abi::u64_to_usize(page - first)] = true;
            }
        }
        let never_mapped = |page: u64| page * PAGE_SIZE >= self.task_size && self.vma_at(page * PAGE_SIZE).is_none();
        for page in first..last {
            let i = crate::abi::u64_to_usize(page - first);
            let ok = writable[i] && (writable[i + 1] || never_mapped(page + 1));
            // SAFETY: page < 2^20, inside the table's STORE_TABLE bytes; other threads'
            // translated code reads the bytes meanwhile, so they are written as atomics.
            let byte = unsafe { &*table.add(crate::abi::u64_to_usize(page)).cast::<std::sync::atomic::AtomicU8>() };
            byte.store(if ok { 0xff } else { 0 }, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Inserts a mapping, keeping the direct stores' table.
    fn vma_insert(&mut self, start: u64, v: Vma) -> Option<Vma> {
        let end = v.end;
        let old = self.vma_insert_untabled(start, v);
        self.sync_store_table(start, end);
        old
    }

    /// [`AddressSpace::vma_insert`] leaving the direct stores' table to the caller, which
    /// syncs the range whose permissions changed once it is done (a change of a few pages of
    /// a large mapping rewrote the whole mapping's bytes, several times per `mprotect`).
    fn vma_insert_untabled(&mut self, start: u64, v: Vma) -> Option<Vma> {
        let view = alias::View::of(start, &v);
        let old = self.vmas.insert(start, v);
        if let Some(view) = view {
            self.views_changed(view, true);
        }
        old
    }

    /// Removes the mapping that starts at `start`, keeping the direct stores' table.
    fn vma_remove(&mut self, start: &u64) -> Option<Vma> {
        let v = self.vma_remove_untabled(start);
        if let Some(v) = &v {
            self.sync_store_table(*start, v.end);
        }
        v
    }

    /// [`AddressSpace::vma_remove`] leaving the direct stores' table to the caller (see
    /// [`AddressSpace::vma_insert_untabled`]).
    fn vma_remove_untabled(&mut self, start: &u64) -> Option<Vma> {
        let v = self.vmas.remove(start);
        if let Some(v) = &v {
            if let Some(view) = alias::View::of(*start, v) {
                self.views_changed(view, false);
            }
        }
        v
    }

    /// The guest address whose bytes live at host address `host` (`None` if no window holds
    /// it): what a host fault in a direct load names.
    pub fn guest_of_host(&self, host: u64) -> Option<u64> {
        self.windows.iter().find(|w| host.wrapping_sub(w.host as u64) < w.len).map(|w| w.guest + (host - w.host as u64))
    }

    /// The host protection for guest pages with permissions `prot` whose host pages would
    /// otherwise get `base`: with direct loads a page the guest may not touch at all
    /// (`PROT_NONE`) is `PROT_NONE` on the host too, so that a guest load there faults in the
    /// host. Every other guest permission lets the guest's direct loads read, as under
    /// qemu-user (`PROT_WRITE` implies `PROT_READ` on every arch's Linux; execute-only pages,
    /// which arm64 with EPAN and riscv64 would refuse to read, are readable: README,
    /// Limitations).
    fn host_prot(&self, prot: Prot, base: i32) -> i32 {
        if self.direct && prot == Prot::NONE {
            libc::PROT_NONE
        } else {
            base
        }
    }

    /// `true` if some page of `[addr, addr+len)` is read-only on the host
    /// ([`AddressSpace::private_host_prot`]).
    pub(super) fn host_read_only(&self, addr: u64, len: u64) -> bool {
        self.overlapping(addr, addr.saturating_add(len))
            .any(|(_, v)| !v.shared && self.private_host_prot(v.prot, v.is_private_anon()) == libc::PROT_READ)
    }

    /// The host protection of private pages with guest permissions `prot` (`anon`: private
    /// anonymous memory, [`Vma::is_private_anon`]). They stay readable and writable on the
    /// host, so that endgate can write them as the kernel's forced writes do, except where
    /// direct loads need them inaccessible ([`AddressSpace::host_prot`]) and, with direct loads,
    /// for private anonymous memory that is only readable: read-only on the host too, so that a
    /// store through another instance's stale TLB entry faults and reaches the engine as a TLB
    /// miss once the pages' write permission is gone (`crate::syscall::mm::takes_pages_from`:
    /// such an `mprotect` does not stop the other threads). [`AddressSpace::poke_bytes`]
    /// writes them through the host's `/proc/self/mem`.
    fn private_host_prot(&self, prot: Prot, anon: bool) -> i32 {
        if self.direct && anon && prot == Prot::READ {
            libc::PROT_READ
        } else {
            self.host_prot(prot, rw())
        }
    }

    /// Every window as made, in the order made, for handing to unicorn with `mem_map_ptr`: an
    /// instance that has mapped the first `n` maps `regions()[n..]` (windows are only added).
    pub fn regions(&self) -> &[Window] {
        &self.regions
    }

    /// Makes `[addr, addr+len)` lie inside one window, making windows for the parts no window
    /// covers (64-bit guests; see the module's "Windows"). Errors: `ENOMEM` if the range
    /// cannot be one window (a 32-bit guest's range beyond its window, a range that straddles
    /// windows whose host pages are not neighbours, or the host refused the reservation).
    pub fn ensure_window(&mut self, addr: u64, len: u64) -> Result<(), Errno> {
        if self.window_of(addr, len).is_some() {
            return Ok(());
        }
        let end = addr.checked_add(len).ok_or(Errno::ENOMEM)?;
        if !self.on_demand || len == 0 || end > self.task_size {
            return Err(Errno::ENOMEM);
        }
        // Each run of neighbouring granules of [addr, end) that no window covers becomes one
        // window, which must meet the window below or above where the range goes on into it.
        let (first, last) = (addr / WINDOW_GRANULE, (end - 1) / WINDOW_GRANULE);
        let made = |me: &Self, g: u64| me.window_of(g * WINDOW_GRANULE, 1).is_some();
        let mut g = first;
        while g <= last {
            if made(self, g) {
                g += 1;
                continue;
            }
            let run = g;
            while g <= last && !made(self, g) {
                g += 1;
            }
            // The last granule below 2^64 (s390x) ends at `task_size`.
            let (s, e) = (run * WINDOW_GRANULE, g.checked_mul(WINDOW_GRANULE).unwrap_or(self.task_size));
            // Where the range goes on into a neighbour, the new window must meet it; where it
            // lies inside, it had better meet the neighbour it lies nearer to.
            let upper_first = e.saturating_sub(end) < addr.saturating_sub(s);
            let join = Join { below: addr < s, above: end > e, above_first: upper_first };
            self.add_window(s, e - s, join, 0)?;
            let offset = self.to_host(s, 1).map_or(0, |h| (h as u64).wrapping_sub(s));
            self.set_offsets(s, e, offset);
        }
        self.window_of(addr, len).map(|_| ()).ok_or(Errno::ENOMEM)
    }

    /// Reserves host address space for a new window `[guest, guest+len)` (free of windows) and
    /// joins it to its neighbours where their host pages meet, in the order `join` gives; then
    /// the window of the guest range below's offset where that lands in the room kept after
    /// it, the guest's own address, and wherever the host puts it. `extra` more bytes are
    /// reserved after the window (a 32-bit guest's [`DIRECT_SPAN`]); otherwise a [`GUARD`] is
    /// kept after it where the host has room. Errors: `ENOMEM`.
    fn add_window(&mut self, guest: u64, len: u64, join: Join, extra: u64) -> Result<(), Errno> {
        let hlen = usize::try_from(len).map_err(|_| Errno::ENOMEM)?;
        let total = usize::try_from(len + extra).map_err(|_| Errno::ENOMEM)?;
        let lower = self.windows.iter().find(|w| w.guest + w.len == guest).map(|w| w.host as u64 + w.len);
        let upper = self.windows.iter().find(|w| w.guest == guest + len).and_then(|w| (w.host as u64).checked_sub(len));
        let identity = (guest >= MMAP_MIN_ADDR && guest + len <= HOST_USER_TOP).then_some(guest);
        let mut order = Vec::new();
        if join.below {
            order.push(lower);
        }
        if join.above {
            order.push(upper);
        }
        // At the offset of the window below, inside the room kept right after it: the guest
        // range between them can then become a window that meets both (AddressSanitizer's
        // shadow gap, made after the shadow above it).
        let below = self.windows.iter().rev().find(|w| w.guest + w.len <= guest).and_then(|w| {
            let (end, h) = (w.host as u64 + w.len, guest.wrapping_add((w.host as u64).wrapping_sub(w.guest)));
            self.guards.iter().any(|&(g, room)| g == end && h >= g && h - g < room).then_some(h)
        });
        // A window next to a guest neighbour meets it first where it can (a system call's
        // buffer or a later mapping running from one into the other is then one host range);
        // the guest's own address next (windows made there for neighbouring ranges meet).
        if join.above_first {
            order.extend([upper, lower, below, identity]);
        } else {
            order.extend([lower, upper, below, identity]);
        }
        let mut host = None;
        for want in order.into_iter().flatten() {
            // A direct load that runs past a window's end reads the host pages after it: they
            // must be the window of the guest's next bytes, or PROT_NONE (a guard). So no
            // window may start where another one of a different offset ends, nor end where
            // the host has anything but the next guest bytes' window or a guard.
            if extra == 0 && !(self.clean_start(want, guest) && self.guarded_end(want + len, guest + len, len)) {
                continue;
            }
            if self.take_guard(want, total as u64) {
                host = Some(want as *mut u8);
                break;
            }
            if let Some(h) = reserve(Some(want), total) {
                self.reservations.push((h.cast(), total));
                host = Some(h);
                break;
            }
        }
        let host = match host {
            Some(h) => h,
            None if extra > 0 => {
                let h = reserve(None, total).ok_or(Errno::ENOMEM)?;
                self.reservations.push((h.cast(), total));
                h
            }
            None => {
                // Wherever the host puts it, with its guards in the same reservation: where the
                // host has room, a granule before it for the window of the guest granule right
                // below (so that a later neighbour below meets it: a system call's buffer or a
                // mapping that runs from one into the other then lies in one host range) and,
                // after it, long enough for the window made right above it or, GUARD from
                // either end, for a window of its own; else the least.
                let after = len.clamp(GUARD, LOW_BLOCK) + 2 * GUARD;
                let sized =
                    [(WINDOW_GRANULE, after), (0, after), (0, GUARD)].into_iter().find_map(|(before, guard)| {
                        Some((reserve(None, usize::try_from(before + len + guard).ok()?)?, before, guard))
                    });
                if let Some((h, before, guard)) = sized {
                    self.reservations.push((h.cast(), crate::abi::u64_to_usize(before + len + guard)));
                    if before > 0 {
                        self.guards.push((h as u64, before));
                    }
                    let h = h.wrapping_add(crate::abi::u64_to_usize(before));
                    self.guards.push((h as u64 + len, guard));
                    h
                } else {
                    // The host is full: inside a guard long enough to keep GUARD of it on
                    // either side of the window.
                    let at = self
                        .guards
                        .iter()
                        .find(|&&(_, room)| room >= len + 2 * GUARD)
                        .map(|&(g, _)| g + GUARD)
                        .ok_or(Errno::ENOMEM)?;
                    if !self.take_guard(at, len) {
                        return Err(Errno::ENOMEM);
                    }
                    at as *mut u8
                }
            }
        };
        debug_assert!(hlen > 0);
        self.insert_window(Window { guest, len, host });
        Ok(())
    }

    /// Whether a window for guest `guest` may start at host address `at`: no window ends there
    /// unless it holds the guest bytes right below `guest` (a direct load running past its end
    /// would read the new window's bytes as its own).
    fn clean_start(&self, at: u64, guest: u64) -> bool {
        !self.windows.iter().any(|w| w.host as u64 + w.len == at && w.guest + w.len != guest)
    }

    /// Whether a window ending at host address `after`, whose guest bytes end at `guest_end`,
    /// has what a direct load running past its end needs there: the window of the guest bytes
    /// from `guest_end` on, or a guard, which is reserved now if the host has room (as long as
    /// the window, `len`, where it can, else the least).
    fn guarded_end(&mut self, after: u64, guest_end: u64, len: u64) -> bool {
        if self.windows.iter().any(|w| w.host as u64 == after && w.guest == guest_end)
            || self.guards.iter().any(|&(g, room)| after >= g && after - g < room)
        {
            return true;
        }
        for size in [len.clamp(GUARD, LOW_BLOCK), GUARD] {
            if let Some(g) = reserve(Some(after), crate::abi::u64_to_usize(size)) {
                self.reservations.push((g.cast(), crate::abi::u64_to_usize(size)));
                self.guards.push((after, size));
                return true;
            }
        }
        false
    }

    /// Takes `[at, at+len)` of host address space for a window when it starts inside one of
    /// the guards (this process's own `PROT_NONE` reservations): what lies beyond the guard is
    /// reserved too, and the parts of the guard before and after stay guards. `false` if `at`
    /// is in no guard or the host has something beyond it.
    fn take_guard(&mut self, at: u64, len: u64) -> bool {
        let Some(i) = self.guards.iter().position(|&(g, room)| at >= g && at - g < room) else { return false };
        let (g, room) = self.guards[i];
        let (end, guard_end) = (at + len, g + room);
        if end > guard_end {
            let rest = crate::abi::u64_to_usize(end - guard_end);
            let Some(h) = reserve(Some(guard_end), rest) else { return false };
            self.reservations.push((h.cast(), rest));
        }
        self.guards.swap_remove(i);
        if at > g {
            self.guards.push((g, at - g));
        }
        if guard_end > end {
            self.guards.push((end, guard_end - end));
        }
        true
    }

    /// Puts `offset` (host address minus guest address) in the direct loads' table for the
    /// granules of `[start, end)` (granule-aligned).
    fn set_offsets(&self, start: u64, end: u64, offset: u64) {
        let range = |a: u64| usize::try_from(a / WINDOW_GRANULE).map_or(DIRECT_ENTRIES, |g| g.min(DIRECT_ENTRIES));
        let end = end.checked_next_multiple_of(WINDOW_GRANULE).unwrap_or(u64::MAX);
        for t in &self.table[range(start)..range(end)] {
            t.store(offset, std::sync::atomic::Ordering::Release);
        }
    }

    /// Lists a new window whose host pages are reserved, joining it to its neighbours where
    /// their host pages meet.
    fn insert_window(&mut self, w: Window) {
        let guest = w.guest;
        self.regions.push(w);
        self.changed();
        let at = self.windows.partition_point(|x| x.guest < guest);
        self.windows.insert(at, w);
        // Join neighbours whose host pages meet.
        let mut joined: Vec<Window> = Vec::with_capacity(self.windows.len());
        for w in self.windows.drain(..) {
            match joined.last_mut() {
                Some(p) if p.guest + p.len == w.guest && p.host as u64 + p.len == w.host as u64 => p.len += w.len,
                _ => joined.push(w),
            }
        }
        self.windows = joined;
        publish_peer(&self.windows);
    }

    /// Byte order of the guest.
    pub fn endian(&self) -> Endian {
        self.model.endian
    }

    /// The guest's data model (byte order, `long` width, 64-bit alignment).
    pub fn model(&self) -> DataModel {
        self.model
    }

    /// The mappings, in address order.
    pub fn vmas(&self) -> impl Iterator<Item = (u64, &Vma)> {
        self.vmas.iter().map(|(s, v)| (*s, v))
    }

    #[inline]
    fn window_of(&self, addr: u64, len: u64) -> Option<Window> {
        let end = addr.checked_add(len)?;
        if let Some(w) = self.window_hint.get() {
            if addr >= w.guest && end <= w.guest + w.len {
                return Some(w);
            }
        }
        let i = self.windows.partition_point(|w| w.guest + w.len <= addr);
        let w = self.windows.get(i).filter(|w| addr >= w.guest && end <= w.guest + w.len).copied();
        if w.is_some() {
            self.window_hint.set(w);
        }
        w
    }

    /// How many bytes from `addr` on (at most `len`) the guest may write in one piece: the
    /// writable mappings that follow each other from `addr`, up to the first page past the end
    /// of a mapping's file and to the end of `addr`'s window. 0 if `addr` itself is not
    /// writable. (What the kernel copies before a partly bad buffer faults.)
    pub fn writable_prefix(&self, addr: u64, len: u64) -> u64 {
        self.accessible_prefix(addr, len, Prot::WRITE)
    }

    /// [`AddressSpace::writable_prefix`] for access `need` (`Prot::READ`: what the kernel
    /// reads of a partly bad buffer before the copy faults).
    pub fn accessible_prefix(&self, addr: u64, len: u64, need: Prot) -> u64 {
        let Some(w) = self.window_of(addr, 1) else { return 0 };
        let limit = addr.saturating_add(len).min(w.guest + w.len);
        let mut cur = addr;
        while cur < limit {
            let Some((_, vma_end, prot, eof)) = self.span_eof(cur) else { break };
            if !prot.as_enforced().contains(need) {
                break;
            }
            let past = page_floor(cur).max(eof);
            if past < vma_end.min(limit) && self.beyond_eof(past) {
                cur = past.max(cur);
                break;
            }
            cur = vma_end;
        }
        cur.min(limit) - addr
    }

    /// Host pointer for guest `addr`, with no permission check (`None` outside every window).
    #[inline]
    pub fn to_host(&self, addr: u64, len: u64) -> Option<*mut u8> {
        let w = self.window_of(addr, len)?;
        let off = usize::try_from(addr - w.guest).ok()?;
        // SAFETY: the offset is inside the window's reservation.
        Some(unsafe { w.host.add(off) })
    }

    /// The start, end and permissions of the mapping containing `addr`. Remembers the last
    /// answer, so the runs of look-ups into one mapping that system-call buffers, vDSO calls
    /// and TLB fills make cost no tree walk.
    #[inline]
    pub fn span_at(&self, addr: u64) -> Option<(u64, u64, Prot)> {
        self.span_eof(addr).map(|h| (h.0, h.1, h.2))
    }

    /// [`AddressSpace::span_at`] with the first address of the mapping's pages beyond the end
    /// of its file (`u64::MAX` for none).
    #[inline]
    fn span_eof(&self, addr: u64) -> Option<(u64, u64, Prot, u64)> {
        if let Some(h) = self.span_hint.get() {
            if addr >= h.0 && addr < h.1 {
                return Some(h);
            }
        }
        let (start, vma) = self.vma_at(addr)?;
        let h = (start, vma.end, vma.prot, eof_of(start, vma));
        self.span_hint.set(Some(h));
        Some(h)
    }

    /// Marks a change to the mappings or windows: drops the span hint and moves the epoch, so
    /// every thread's [`fill_view::FillView`] goes stale.
    fn changed(&self) {
        self.span_hint.set(None);
        self.code_free_hint.set(None);
        self.window_hint.set(None);
        self.shootdown.epoch.fetch_add(1, std::sync::atomic::Ordering::Release);
    }

    /// A copy of the mappings for lock-free TLB fills by one thread (see [`fill_view`]).
    pub fn fill_view(&self) -> fill_view::FillView {
        let epoch = self.shootdown.epoch.load(std::sync::atomic::Ordering::Acquire);
        let mut v = fill_view::FillView::new(self.shootdown.epoch.clone(), epoch, self.model);
        v.set_watches_file_writes(self.watches_file_writes());
        if self.permissive {
            return v;
        }
        for (&start, vma) in &self.vmas {
            if !self.is_alias_view(vma) {
                let host = self.to_host(start, vma.end - start).unwrap_or(std::ptr::null_mut());
                let code_free = self.code_pages.range(start..vma.end).next().is_none();
                v.push(start, vma.end, vma.prot, eof_of(start, vma), host, code_free);
            }
        }
        v
    }

    /// The guest made file `id` (`(st_dev, st_ino)`) `size` bytes long: pages of its mappings
    /// past the new end must raise `SIGBUS` from now on, also those already touched, whose
    /// host pages the host kernel has just taken away (a translation cached in unicorn's TLB
    /// would reach them with a host fault). Their TLB entries are dropped, so the next touch
    /// goes through [`AddressSpace::tlb_fill`]'s end-of-file check.
    pub fn file_truncated(&mut self, id: (u64, u64), size: u64) {
        let mut hit = Vec::new();
        for (&s, v) in self.vmas.iter_mut() {
            if v.file_id == Some(id) {
                v.file_size = Some(v.file_size.map_or(size, |s| s.min(size)));
                hit.push((s, v.end));
            }
        }
        for &(s, e) in &hit {
            self.sync_store_table(s, e);
        }
        if !hit.is_empty() {
            self.changed();
            self.invalidate.flush_tlb = true;
        }
        // The file's bytes changed (zeroes where it grows back): code of its shared executable
        // mappings goes (mm::alias).
        self.file_written(id);
    }

    /// The total size of the mappings in bytes (`VmSize`).
    pub fn total_vm(&self) -> u64 {
        self.vmas.iter().map(|(s, v)| v.end - s).sum()
    }

    /// `ENOMEM` if mapping `[addr, addr+len)` (replacing what is there) would take the guest
    /// above its `RLIMIT_AS` or `--max-memory`, or, for a private writable non-stack mapping
    /// (`data`), above its `RLIMIT_DATA` ([`limits`]). Free when nothing is limited.
    fn may_expand(&self, addr: u64, len: u64, data: bool) -> Result<(), Errno> {
        let Some((total_max, data_max)) = limits::in_force() else { return Ok(()) };
        let end = addr.saturating_add(len);
        let (mut total, mut data_vm, mut replaced, mut replaced_data) = (0u64, 0u64, 0u64, 0u64);
        for (&s, v) in &self.vmas {
            let size = v.end - s;
            let is_data = v.prot.contains(Prot::WRITE) && !v.shared && !v.grows_down;
            total += size;
            let overlap = v.end.min(end).saturating_sub(s.max(addr));
            replaced += overlap;
            if is_data {
                data_vm += size;
                replaced_data += overlap;
            }
        }
        if total - replaced + len > total_max || (data && data_vm - replaced_data + len > data_max) {
            return Err(Errno::ENOMEM);
        }
        Ok(())
    }

    /// [`AddressSpace::may_expand`] for `extra_total` more bytes of mappings replacing nothing
    /// (an `mremap` growth), of which `extra_data` are private writable non-stack ones (all of
    /// them, or an `mprotect` adding write permission: no total growth, only data).
    fn may_grow(&self, extra_total: u64, extra_data: u64) -> Result<(), Errno> {
        let Some((total_max, data_max)) = limits::in_force() else { return Ok(()) };
        let is_data = |v: &Vma| v.prot.contains(Prot::WRITE) && !v.shared && !v.grows_down;
        let total = self.total_vm();
        let data_vm: u64 = self.vmas.iter().filter(|(_, v)| is_data(v)).map(|(s, v)| v.end - s).sum();
        if (extra_total > 0 && total.saturating_add(extra_total) > total_max)
            || (extra_data > 0 && data_vm.saturating_add(extra_data) > data_max)
        {
            return Err(Errno::ENOMEM);
        }
        Ok(())
    }

    fn note_peak(&mut self) {
        self.vm_peak = self.vm_peak.max(self.total_vm());
    }

    /// `true` if `page` lies just below a grows-down mapping, where an access would grow it.
    fn below_grows_down(&self, page: u64) -> bool {
        self.vmas.range(page..).next().is_some_and(|(&s, v)| v.grows_down && s > page)
    }

    /// `true` if a system-call buffer just ran into the room below a grows-down mapping
    /// (the dispatcher then grows it and serves the call again).
    pub fn grow_requested(&self) -> bool {
        self.grow_request.get().is_some()
    }

    /// The address a system-call buffer below a grows-down mapping reached, taken (see
    /// [`AddressSpace::grow_down`]).
    pub fn take_grow_request(&self) -> Option<u64> {
        self.grow_request.take()
    }

    /// Extends the grows-down mapping above `addr` down to `addr`'s page, as the kernel's
    /// `expand_downwards` does for a fault there: refused (`false`) below `mmap_min_addr`,
    /// when the mapping would exceed `RLIMIT_STACK`, or when it would come closer than
    /// [`STACK_GUARD_GAP`] to an accessible mapping below it that is not itself a stack.
    pub fn grow_down(&mut self, addr: u64) -> bool {
        let page = page_floor(addr);
        if page < MMAP_MIN_ADDR || !self.below_grows_down(page) {
            return false;
        }
        let Some((&start, v)) = self.vmas.range(page..).next() else { return false };
        let size = v.end - page;
        if size > stack_rlimit() || self.may_expand(page, start - page, false).is_err() {
            return false;
        }
        if let Some((_, prev)) = self.vmas.range(..page).next_back() {
            if prev.end > page || (!prev.grows_down && prev.prot != Prot::NONE && page - prev.end < STACK_GUARD_GAP) {
                return false;
            }
        }
        let (prot, end, anon) = (v.prot, v.end, v.is_private_anon());
        // The mapping stays one host range: growing into a granule without a window (a 64-bit
        // guest's stack crossing a 64 GiB boundary) makes one that meets the window above.
        if self.to_host(page, end - page).is_none() && self.ensure_window(page, end - page).is_err() {
            return false;
        }
        let host_prot = self.private_host_prot(prot, anon);
        let Some(host) = self.to_host(page, start - page) else { return false };
        let len = usize::try_from(start - page).unwrap_or(0);
        // SAFETY: `host..host+len` lies inside our own reservation, where no mapping is.
        let r = unsafe {
            libc::mmap(
                host.cast(),
                len,
                host_prot,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if r == libc::MAP_FAILED {
            return false;
        }
        if let Some(on_fault) = self.lock_future {
            // SAFETY: the pages just mapped.
            unsafe { libc::syscall(libc::SYS_mlock2, host, len, u32::from(on_fault)) };
        }
        let v = self.vma_remove(&start).expect("found above");
        self.vma_insert(page, v);
        self.changed();
        self.note_peak();
        true
    }

    /// `true` if the host page behind guest `page` of a file mapping lies beyond the end of
    /// the file now: the kernel then refuses to read it, which `process_vm_readv` from this
    /// process reports as `EFAULT` without a signal.
    fn beyond_eof(&self, page: u64) -> bool {
        let Some(host) = self.to_host(page, 1) else { return false };
        let mut byte = 0u8;
        let local = libc::iovec { iov_base: (&raw mut byte).cast(), iov_len: 1 };
        let remote = libc::iovec { iov_base: host.cast(), iov_len: 1 };
        // SAFETY: one byte into a local, from our own address space.
        let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
        n < 0 && Errno::last() == Errno::EFAULT
    }

    /// `true` if guest `addr` lies in a page of a file mapping past the end of its file now
    /// (an access there is a SIGBUS, `BUS_ADRERR`, on Linux). No record is made.
    pub fn beyond_file_end(&self, addr: u64) -> bool {
        let page = page_floor(addr);
        self.vma_at(page).is_some_and(|(_, v)| v.file_size.is_some()) && self.beyond_eof(page)
    }

    /// `true` (and the refusal recorded in [`AddressSpace::last_fault`] as SIGBUS) if `page`
    /// lies in a file mapping the guest may access as `access` (`Prot::READ` or
    /// `Prot::WRITE`) but past the end of its file now, asking the host whatever size was last
    /// seen (a direct load's or store's host SIGBUS, `task::tlb_hook`).
    pub fn past_eof_now(&mut self, page: u64, access: Prot) -> bool {
        let page = page_floor(page);
        let Some((_, v)) = self.vma_at(page) else { return false };
        if v.file_size.is_none() || !v.prot.contains(access) || !self.beyond_eof(page) {
            return false;
        }
        self.last_fault = Some(Fault { page, access, mapped: true, bus: true });
        true
    }

    /// The mapping containing `addr`.
    #[inline]
    /// The first mapping that ends above `addr` and starts below `end` (mm's `vma_find`), with
    /// its start.
    pub fn vma_find(&self, addr: u64, end: u64) -> Option<(u64, &Vma)> {
        self.vma_at(addr).or_else(|| {
            let (&start, vma) = self.vmas.range(addr..).next()?;
            (start < end).then_some((start, vma))
        })
    }

    /// Marks (`MADV_DONTFORK`) or clears (`MADV_DOFORK`, or a new mapping) `[start, end)` as
    /// left out of a forked child.
    pub fn set_dontfork(&mut self, start: u64, end: u64, on: bool) {
        if !on {
            // A new mapping or an unmap: no longer droppable either.
            self.droppable = cut_ranges(&self.droppable, start, end);
        }
        if !on && self.dontfork.is_empty() {
            return;
        }
        let mut kept = cut_ranges(&self.dontfork, start, end);
        if on {
            kept.push((start, end));
        }
        self.dontfork = kept;
    }

    /// In a forked child: unmaps the ranges the parent gave `MADV_DONTFORK`, as Linux leaves
    /// them out of the child's address space (a touch is SIGSEGV).
    pub fn drop_dontfork(&mut self) {
        for (s, e) in std::mem::take(&mut self.dontfork) {
            let _ = self.unmap(s, e - s);
        }
    }

    /// `true` if any of `[start, end)` is `MAP_DROPPABLE` memory.
    pub fn any_droppable(&self, start: u64, end: u64) -> bool {
        self.droppable.iter().any(|&(s, e)| s < end && e > start)
    }

    /// The mapping that holds `addr`, with its start.
    pub fn vma_at(&self, addr: u64) -> Option<(u64, &Vma)> {
        let (&start, vma) = self.vmas.range(..=addr).next_back()?;
        (addr < vma.end).then_some((start, vma))
    }

    /// Host pointer for the guest range `[addr, addr+len)` after checking every byte is mapped
    /// with at least `need`. Errors: `EFAULT` if any byte is unmapped, lacks `need` or wraps.
    /// A zero-length range is always valid (the kernel does not touch it).
    #[inline]
    pub fn host_range(&self, addr: GuestAddr, len: u64, need: Prot) -> Result<*mut u8, Errno> {
        // The common case without a call: the range lies in the mapping and the window found
        // last, with `need`, before any page past the end of a file (the vDSO's clock
        // stores and a system call's small buffers, mostly on the stack).
        let a = addr.get();
        if let (Some(h), Some(w)) = (self.span_hint.get(), self.window_hint.get()) {
            let end = a.wrapping_add(len);
            if len != 0
                && a >= h.0
                && end > a
                && end <= h.1
                && h.2.as_enforced().contains(need)
                && end <= h.3
                && a >= w.guest
                && end <= w.guest + w.len
            {
                let off = usize::try_from(a - w.guest).map_err(|_| Errno::EFAULT)?;
                // SAFETY: the offset is inside the window's reservation (checked above).
                return Ok(unsafe { w.host.add(off) });
            }
        }
        self.host_range_checked(addr, len, need)
    }

    /// Where a store of `len` bytes at guest `addr` goes on the host, when the mapping and
    /// window found last ([`AddressSpace::span_at`], [`AddressSpace::to_host`]) answer it
    /// whole: inside one writable mapping that is not executable (or is, but holds no code:
    /// the code-free hint, as for mips64el's `RWE` stacks), before any page past the end of
    /// its file, with no file viewed both writable and executable. Such a store needs no
    /// [`AddressSpace::note_host_write`] (it cannot overwrite code). `None`: ask
    /// [`AddressSpace::host_range`] and note the write. For the vDSO's clock stores, which
    /// mostly land in one stack mapping call after call.
    #[inline(always)]
    pub fn plain_store_hint(&self, addr: u64, len: u64) -> Option<*mut u8> {
        let (h, w) = (self.span_hint.get()?, self.window_hint.get()?);
        let end = addr.wrapping_add(len);
        let inside = len != 0
            && addr >= h.0
            && end > addr
            && end <= h.1
            && end <= h.3
            && addr >= w.guest
            && end <= w.guest + w.len;
        let code_free = !h.2.contains(Prot::EXEC) || self.code_free_hint.get() == Some((h.0, h.1));
        if !inside || !h.2.contains(Prot::WRITE) || !code_free || self.views.any_aliased() {
            return None;
        }
        let off = usize::try_from(addr - w.guest).ok()?;
        // SAFETY: the offset is inside the window's reservation (checked above).
        Some(unsafe { w.host.add(off) })
    }

    /// [`AddressSpace::host_range`] with every mapping of the range looked at.
    #[inline(never)]
    fn host_range_checked(&self, addr: GuestAddr, len: u64, need: Prot) -> Result<*mut u8, Errno> {
        let addr = addr.get();
        if len == 0 {
            return Ok(self.to_host(addr, 0).unwrap_or(std::ptr::NonNull::dangling().as_ptr()));
        }
        let end = addr.checked_add(len).ok_or(Errno::EFAULT)?;
        let mut cur = addr;
        while cur < end {
            let Some((_, vma_end, prot, eof)) = self.span_eof(cur) else {
                if self.below_grows_down(page_floor(cur)) {
                    self.grow_request.set(Some(cur));
                }
                return Err(Errno::EFAULT);
            };
            if !prot.as_enforced().contains(need) {
                return Err(Errno::EFAULT);
            }
            // Pages past the end of the file (or SysV segment) behind the mapping have no
            // host page: the kernel answers EFAULT for them, and endgate must not touch them
            // (a host SIGBUS).
            let past = page_floor(cur).max(eof);
            if past < vma_end.min(end) && self.beyond_eof(past) {
                return Err(Errno::EFAULT);
            }
            cur = vma_end;
        }
        self.to_host(addr, len).ok_or(Errno::EFAULT)
    }

    /// Answers unicorn's TLB fill for guest page `page`: `Some(perms)` if mapped (perms may
    /// lack `access`, and unicorn then refuses the access), `None` if unmapped. Refusals are
    /// remembered in [`AddressSpace::last_fault`].
    ///
    /// A data access to a writable and executable page (a `PT_GNU_STACK` `RWE` stack, a JIT
    /// buffer) from which no instruction has been fetched yet gets the entry without `EXEC`:
    /// unicorn sends every store to a TLB entry that allows execution through its slow
    /// self-modifying-code path (unicorn-facts §4), which made mips64el busybox `sha256sum`, whose
    /// stack is `RWE`, 3x slower. The first fetch from the page refills the entry with `EXEC`
    /// (a TLB entry without it is a miss for a fetch) and marks the page as code, so from then
    /// on all its stores are checked for stale translations again. (Translations cannot go
    /// stale meanwhile either: unicorn checks the first store after every fill, because the
    /// windows are mapped executable, and a translation needs an entry with `EXEC`.) Guest
    /// test `code_rewrite` rewrites and reruns code in an RWX page.
    ///
    /// With several threads, each instance sees only its own stores as self-modifying code:
    /// a page newly marked as code makes every instance drop its TLB (so all their entries for
    /// it get `EXEC` and their stores there go through that path), and the engine reports such
    /// stores (unicorn patch 0007), which `guest::publish_code_writes` publishes for the
    /// other instances. Guest test `thread_jit`.
    #[inline]
    pub fn tlb_fill(&mut self, page: u64, access: Prot) -> Option<PageFill> {
        if self.permissive {
            // Not an access of the guest's: nothing to remember.
            let all = Prot::READ | Prot::WRITE | Prot::EXEC;
            return self.to_host(page, PAGE_SIZE).map(|_| PageFill {
                prot: all,
                phys: self.phys_of(page),
                watch: false,
            });
        }
        match self.span_eof(page) {
            Some((_, _, prot, eof)) => {
                let prot = prot.as_enforced();
                if page >= eof && prot.contains(access) && self.beyond_eof(page) {
                    self.last_fault = Some(Fault { page, access, mapped: true, bus: true });
                    return None;
                }
                if !prot.contains(access) {
                    self.last_fault = Some(Fault { page, access, mapped: true, bus: false });
                } else if prot.contains(Prot::WRITE | Prot::EXEC) {
                    if access == Prot::EXEC {
                        if self.code_pages.insert(page) {
                            self.code_free_hint.set(None);
                            // Other threads' instances may hold entries for the page without
                            // `EXEC` (stores there skip the self-modifying-code path, so this
                            // code would not be reported stale): they refill.
                            self.invalidate.drop_tlb(page, page + PAGE_SIZE);
                        }
                    } else if !self.code_pages.contains(&page) {
                        return Some(self.page_fill(page, Prot(prot.0 & !Prot::EXEC.0)));
                    }
                }
                Some(self.page_fill(page, prot))
            }
            None if self.grow_down(page) => self.tlb_fill(page, access),
            None => {
                self.last_fault = Some(Fault { page, access, mapped: false, bus: false });
                None
            }
        }
    }

    /// `true` if every mapping overlapping `[start, end)` is private anonymous memory (the
    /// break's heap included; no file, nothing shared) whose permissions pass `ok`: a change
    /// of such memory that only adds takes nothing another thread's instance may be using
    /// (`crate::syscall::mm::takes_pages_from`). Holes count as nothing.
    pub fn only_private_anon(&self, start: u64, end: u64, ok: impl Fn(Prot) -> bool) -> bool {
        self.overlapping(start, end).all(|(_, v)| v.is_private_anon() && ok(v.prot))
    }

    /// `true` if a guest access through a stale TLB entry to host pages that went away faults
    /// in the host and comes back to the engine as a TLB miss (direct guest memory: unicorn
    /// patches 0012, 0013, 0027 with `signal::host::fault_handler`; off with
    /// `ENDGATE_NO_DIRECT=1`).
    pub fn host_faults_reach_guest(&self) -> bool {
        !self.permissive
            && (self.direct_span().is_some() || self.direct_table().is_some() || self.direct_flat().is_some())
    }

    /// `true` if no mapping overlaps `[addr, addr+len)`.
    pub fn is_free(&self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else { return false };
        if let Some((_, v)) = self.vmas.range(..addr).next_back() {
            if v.end > addr {
                return false;
            }
        }
        self.vmas.range(addr..end).next().is_none()
    }

    /// `true` unless `[addr, addr+len)` ends inside the gap Linux keeps below a stack (the main
    /// thread's or a `MAP_GROWSDOWN` mapping: [`STACK_GUARD_GAP`], mm/mmap.c `vm_start_gap`),
    /// where the kernel does not take an `mmap` hint.
    pub fn clear_of_stack_gap(&self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else { return false };
        match self.vmas.range(end..).next() {
            Some((&start, v)) if v.grows_down || v.name == VmaName::Stack => {
                end <= start.saturating_sub(STACK_GUARD_GAP)
            }
            _ => true,
        }
    }

    /// `true` if `[addr, addr+len)` lies at or above [`MMAP_MIN_ADDR`] and below `task_size` (a
    /// fixed page above it is not the guest's to map over), inside one window for a 32-bit
    /// guest. (A 64-bit guest's mapping may still fail with `ENOMEM` when it straddles windows
    /// that cannot be joined; see [`AddressSpace::ensure_window`].)
    pub fn is_placeable(&self, addr: u64, len: u64) -> bool {
        let Some(end) = addr.checked_add(len) else { return false };
        addr >= MMAP_MIN_ADDR && end <= self.task_size && (self.on_demand || self.window_of(addr, len).is_some())
    }

    /// Finds a free range of `len` bytes, top-down below [`AddressSpace::mmap_base`], as Linux's
    /// default placement does. `len` must be page-aligned. `None` if there is no room.
    pub fn find_free(&self, len: u64) -> Option<u64> {
        self.find_free_in(MMAP_MIN_ADDR, self.mmap_base, len)
    }

    /// Finds a free range of `len` bytes inside `[floor, ceil)`, the highest one first, that
    /// lies inside one window or outside every window (where [`AddressSpace::ensure_window`]
    /// makes one for it).
    pub fn find_free_in(&self, floor: u64, ceil: u64, len: u64) -> Option<u64> {
        if !self.on_demand {
            return self.find_gap_in(floor, ceil, len);
        }
        // Window edges split [floor, ceil) into pieces searched from the top down.
        let mut cuts: Vec<u64> = self
            .windows
            .iter()
            .flat_map(|w| [w.guest, w.guest.saturating_add(w.len)])
            .filter(|&c| c > floor && c < ceil)
            .collect();
        cuts.sort_unstable();
        let mut hi = ceil;
        for &lo in cuts.iter().rev().chain(std::iter::once(&floor)) {
            if lo < hi {
                if let Some(a) = self.find_gap_in(lo, hi, len) {
                    return Some(a);
                }
            }
            hi = lo;
        }
        None
    }

    /// Finds a free range of `len` bytes inside `[floor, ceil)`, the highest one first.
    fn find_gap_in(&self, floor: u64, ceil: u64, len: u64) -> Option<u64> {
        let mut hi = ceil;
        // Walk mappings downwards from the ceiling, looking for a gap.
        for (&start, vma) in self.vmas.range(..ceil).rev() {
            if vma.end <= hi && hi - vma.end >= len {
                return Some(hi - len).filter(|&a| a >= floor);
            }
            hi = hi.min(start);
            if hi < floor.saturating_add(len) {
                return None;
            }
        }
        (hi >= floor.saturating_add(len)).then(|| hi - len)
    }

    /// Maps fresh zeroed memory at `[addr, addr+len)` (page-aligned), replacing what was there.
    /// Errors: `ENOMEM` outside the windows or when the host refuses.
    pub fn map_anon(&mut self, addr: u64, len: u64, prot: Prot, name: VmaName) -> Result<(), Errno> {
        self.map(addr, len, prot, name, Backing::Anon { shared: false }, false)
    }

    /// [`AddressSpace::map_anon`] for a `MAP_GROWSDOWN` mapping.
    pub fn map_anon_grows_down(&mut self, addr: u64, len: u64, prot: Prot) -> Result<(), Errno> {
        self.map(addr, len, prot, VmaName::Anon, Backing::Anon { shared: false }, true)
    }

    /// Marks the mapping that starts at `addr` as growing down (`MAP_GROWSDOWN`, the main
    /// stack); no-op if no mapping starts there.
    pub fn set_grows_down(&mut self, addr: u64) {
        if let Some(v) = self.vmas.get_mut(&addr) {
            v.grows_down = true;
        }
    }

    /// Maps fresh zeroed memory shared with child processes (MAP_SHARED|MAP_ANONYMOUS).
    pub fn map_shared_anon(&mut self, addr: u64, len: u64, prot: Prot) -> Result<(), Errno> {
        self.map(addr, len, prot, VmaName::Anon, Backing::Anon { shared: true }, false)
    }

    /// `ENOMEM` unless every page of `[addr, addr+len)` is mapped (the check madvise, msync and
    /// mlock make).
    pub fn check_mapped(&self, addr: u64, len: u64) -> Result<(), Errno> {
        let end = addr.checked_add(len).ok_or(Errno::ENOMEM)?;
        let mut cur = addr;
        while cur < end {
            let (_, v) = self.vma_at(cur).ok_or(Errno::ENOMEM)?;
            cur = v.end;
        }
        Ok(())
    }

    /// Maps `len` bytes of host file `fd` at file offset `offset` (page-aligned) to guest
    /// `addr`. `shared` selects MAP_SHARED. Errors: the host's errno (`EACCES`, `ENODEV`…),
    /// `ENOMEM` outside the windows.
    pub fn map_file(&mut self, addr: u64, len: u64, prot: Prot, name: VmaName, file: FileMap) -> Result<(), Errno> {
        self.map(addr, len, prot, name, Backing::File { fd: file.fd, offset: file.offset, shared: file.shared }, false)
    }

    /// Attaches SysV shared-memory segment `shmid` (key `key`) at `[addr, addr+len)`
    /// (page-aligned), replacing what was there: the host's own `shmat(2)` with `SHM_REMAP`
    /// onto the window's pages, so the guest, its forked children and other host processes
    /// share one segment and the host kernel counts the attach (`shm_nattch`). `readonly`
    /// attaches with `SHM_RDONLY`. Errors: the host's (`EACCES`, `EINVAL`, `EIDRM`), `ENOMEM`
    /// outside the windows.
    pub fn attach_sysv_shm(
        &mut self,
        addr: u64,
        len: u64,
        prot: Prot,
        key: i32,
        shmid: i32,
        readonly: bool,
    ) -> Result<(), Errno> {
        debug_assert_eq!(addr % PAGE_SIZE, 0);
        self.may_expand(addr, len, false)?;
        self.ensure_window(addr, len)?;
        let host = self.to_host(addr, len).ok_or(Errno::ENOMEM)?;
        let flags = libc::SHM_REMAP | if readonly { libc::SHM_RDONLY } else { 0 };
        // SAFETY: `host..host+len` lies inside our own reservation (checked by `to_host`);
        // SHM_REMAP replaces only those pages.
        let r = unsafe { libc::shmat(shmid, host.cast(), flags) };
        if r as isize == -1 {
            return Err(Errno::last());
        }
        self.shared_writable |= !readonly;
        self.forget(addr, addr + len);
        self.vma_insert(
            addr,
            Vma {
                end: addr + len,
                prot,
                name: VmaName::SysvShm { key, shmid },
                offset: 0,
                shared: true,
                policy: None,
                grows_down: false,
                // The segment's size: pages an `mremap` adds past it raise SIGBUS.
                file_size: Some(len),
                // The segment as a file no `stat` gives (device `u64::MAX`): two attaches of
                // one segment are views of one object (mm::alias).
                file_id: Some((u64::MAX, u64::from(shmid.unsigned_abs()))),
            },
        );
        self.changed();
        self.note_peak();
        Ok(())
    }

    /// Detaches the SysV segment attached at `addr` (`shmdt(2)`), as ipc/shm.c `ksys_shmdt`
    /// finds it: the first segment mapping at or above `addr` that lies where an attach at
    /// `addr` would put it (its offset in the segment is its distance from `addr`; the first
    /// page may have been unmapped or replaced), then every further piece of that segment so
    /// placed that ends within the segment's size (`size` bytes) from `addr`. Errors: `EINVAL`
    /// if `addr` is not page-aligned or no segment mapping is so placed.
    pub fn detach_sysv_shm(&mut self, addr: u64, size: impl Fn(i32) -> u64) -> Result<(), Errno> {
        if addr % PAGE_SIZE != 0 {
            return Err(Errno::EINVAL);
        }
        // The segment of a mapping at `s` placed as an attach at `addr` would place it.
        let placed = |s: u64, v: &Vma| match &v.name {
            VmaName::SysvShm { shmid, .. } if v.offset == s - addr => Some(*shmid),
            _ => None,
        };
        let Some((first, first_end, shmid)) =
            self.vmas.range(addr..).find_map(|(s, v)| placed(*s, v).map(|id| (*s, v.end, id)))
        else {
            return Err(Errno::EINVAL);
        };
        let size = page_ceil(size(shmid)).unwrap_or(u64::MAX);
        let mut pieces = vec![(first, first_end)];
        pieces.extend(
            self.vmas
                .range(first_end..)
                .take_while(|(_, v)| v.end - addr <= size)
                .filter(|(s, v)| placed(**s, v) == Some(shmid))
                .map(|(s, v)| (*s, v.end)),
        );
        for (s, e) in pieces {
            self.unmap(s, e - s)?;
        }
        Ok(())
    }

    fn map(
        &mut self,
        addr: u64,
        len: u64,
        prot: Prot,
        name: VmaName,
        backing: Backing,
        grows_down: bool,
    ) -> Result<(), Errno> {
        debug_assert_eq!(addr % PAGE_SIZE, 0);
        debug_assert_eq!(len % PAGE_SIZE, 0);
        let shared = matches!(backing, Backing::Anon { shared: true } | Backing::File { shared: true, .. });
        self.may_expand(addr, len, prot.contains(Prot::WRITE) && !shared && !grows_down)?;
        self.ensure_window(addr, len)?;
        self.set_dontfork(addr, addr + len, false);
        let host = self.to_host(addr, len).ok_or(Errno::ENOMEM)?;
        let hlen = usize::try_from(len).map_err(|_| Errno::ENOMEM)?;
        let (flags, fd, off, host_prot) = match backing {
            Backing::Anon { shared: false } => {
                let anon = matches!(name, VmaName::Anon | VmaName::Heap);
                (
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                    self.private_host_prot(prot, anon),
                )
            }
            Backing::Anon { shared: true } => (libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1, 0, rw()),
            Backing::File { fd, offset, shared: false } => (libc::MAP_PRIVATE, fd, offset, rw()),
            Backing::File { fd, offset, shared: true } => (libc::MAP_SHARED, fd, offset, shared_host_prot(prot)),
        };
        let host_prot = self.host_prot(prot, host_prot);
        let off = libc::off_t::try_from(off).map_err(|_| Errno::EOVERFLOW)?;
        // SAFETY: `host..host+len` lies inside our own reservation (checked by `to_host`);
        // MAP_FIXED replaces only those pages.
        let r = unsafe { libc::mmap(host.cast(), hlen, host_prot, flags | libc::MAP_FIXED, fd, off) };
        if r == libc::MAP_FAILED {
            return Err(Errno::last());
        }
        self.forget(addr, addr + len);
        let (offset, shared, file) = match backing {
            Backing::Anon { shared } => (0, shared, None),
            Backing::File { fd, offset, shared } => (offset, shared, file_stat(fd)),
        };
        self.shared_writable |= shared && prot.contains(Prot::WRITE);
        let (file_size, file_id) = (file.map(|f| f.0), file.map(|f| f.1));
        self.vma_insert(
            addr,
            Vma { end: addr + len, prot, name, offset, shared, policy: None, grows_down, file_size, file_id },
        );
        self.changed();
        if matches!(backing, Backing::Anon { shared: false }) {
            // Joined to the mapping before it and to the one after it, as Linux's vma_merge
            // joins a new mapping to both neighbours.
            self.merge_with_previous(addr + len);
            self.merge_with_previous(addr);
        }
        self.note_peak();
        Ok(())
    }

    /// Joins the private anonymous mapping at `start` to the one ending right before it when
    /// they are alike, as Linux merges adjacent VMAs (so a brk heap grown in steps is one
    /// `[heap]` line in `/proc/self/maps`, and a mapping made right below another one line
    /// with it).
    fn merge_with_previous(&mut self, start: u64) {
        if self.vmas.get(&start).is_some_and(|v| !v.shared && v.file_id.is_none()) {
            self.merge_at(start);
        }
    }

    /// Joins the mapping at `start` to the one ending right before it when Linux would merge
    /// the two VMAs (mm/vma.c `is_mergeable_vma`, `can_vma_merge_after`): the same permissions,
    /// name, policy and kind, both private anonymous memory, or both shared mappings of one
    /// file at consecutive offsets; and their host pages neighbours in one window. Private
    /// file mappings are left apart (whether their copied pages could merge is the kernel's
    /// anon_vma bookkeeping, which endgate does not model), as are shared anonymous ones
    /// (endgate cannot tell whether two are one object).
    fn merge_at(&mut self, start: u64) {
        let Some((&prev_start, prev)) = self.vmas.range(..start).next_back() else { return };
        let Some(cur) = self.vmas.get(&start) else { return };
        // The heap is anonymous memory that Linux names by where brk lies: a mapping right
        // after it joins it and is shown as `[heap]` with it. (The bss before it stays apart:
        // Linux's heap starts a random gap above it.)
        let heap = |a: &VmaName, b: &VmaName| matches!((a, b), (VmaName::Heap, VmaName::Anon));
        let alike = prev.end == start
            && prev.prot == cur.prot
            && (prev.name == cur.name || heap(&prev.name, &cur.name))
            && prev.policy == cur.policy
            && prev.shared == cur.shared
            && !prev.grows_down
            && !cur.grows_down;
        let kind = if prev.shared {
            prev.file_id.is_some()
                && prev.file_id == cur.file_id
                && prev.offset + (prev.end - prev_start) == cur.offset
                && prev.file_size == cur.file_size
        } else {
            prev.file_id.is_none() && cur.file_id.is_none()
        };
        if !alike || !kind || self.window_of(prev_start, cur.end - prev_start).is_none() {
            return;
        }
        let end = cur.end;
        let name = if heap(&prev.name, &cur.name) { VmaName::Heap } else { prev.name.clone() };
        // Alike mappings: the direct stores' table says the same of the joined one.
        let mut joined = self.vma_remove_untabled(&prev_start).expect("found above");
        self.vma_remove_untabled(&start);
        joined.end = end;
        joined.name = name;
        self.vma_insert_untabled(prev_start, joined);
        self.changed();
    }

    /// Removes every mapping in `[addr, addr+len)` (page-aligned); unmapped parts are ignored,
    /// as Linux `munmap` does. The host pages are returned to the reservation.
    pub fn unmap(&mut self, addr: u64, len: u64) -> Result<(), Errno> {
        let end = addr.checked_add(len).ok_or(Errno::EINVAL)?;
        self.set_dontfork(addr, end, false);
        // Release host memory only where there were mappings, window by window. The mappings
        // go first: the epoch moves before the host pages refuse, so that another thread whose
        // stale access faults there finds its copy of the mappings stale and asks the address
        // space, which says unmapped (`SEGV_MAPERR`).
        let ranges: Vec<(u64, u64)> = self.overlapping(addr, end).map(|(s, v)| (s.max(addr), v.end.min(end))).collect();
        self.forget(addr, end);
        for (s, e) in ranges {
            self.release_host(s, e);
        }
        Ok(())
    }

    fn release_host(&mut self, start: u64, end: u64) {
        if let Some(host) = self.to_host(start, end - start) {
            let hlen = usize::try_from(end - start).unwrap_or(0);
            // SAFETY: the range lies inside our reservation; it goes back to PROT_NONE.
            unsafe {
                libc::mmap(
                    host.cast(),
                    hlen,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                    -1,
                    0,
                );
            }
        }
    }

    fn overlapping(&self, start: u64, end: u64) -> impl Iterator<Item = (u64, &Vma)> {
        let first = self.vmas.range(..start).next_back().filter(|(_, v)| v.end > start).map(|(s, _)| *s);
        let from = first.unwrap_or(start);
        self.vmas.range(from..end).map(|(s, v)| (*s, v))
    }

    /// Drops the bookkeeping for `[start, end)`, splitting mappings that straddle its edges, and
    /// records what the removal makes stale.
    fn forget(&mut self, start: u64, end: u64) {
        let hit: Vec<u64> = self.overlapping(start, end).map(|(s, _)| s).collect();
        for s in hit {
            let v = self.vma_remove(&s).expect("listed above");
            self.changed();
            self.invalidate.drop_tlb(s.max(start), v.end.min(end));
            if v.prot.contains(Prot::EXEC) {
                self.invalidate.code.push((s.max(start), v.end.min(end)));
            }
            if s < start {
                let mut left = v.clone();
                left.end = start;
                self.vma_insert(s, left);
                self.changed();
            }
            if v.end > end {
                let mut right = v.clone();
                right.offset += end - s;
                right.end = v.end;
                self.vma_insert(end, right);
                self.changed();
            }
        }
    }

    /// Changes the guest permissions of `[addr, addr+len)` (page-aligned), as Linux's
    /// `mprotect` walks the mappings: from `addr` up to the first unmapped page, where it stops
    /// with `ENOMEM` keeping the change made before it (`ENOMEM` and no change if `addr` itself
    /// is unmapped). Errors: also `EACCES` if a shared file mapping cannot get the host
    /// permissions.
    pub fn protect(&mut self, addr: u64, len: u64, prot: Prot) -> Result<(), Errno> {
        let end = addr.checked_add(len).ok_or(Errno::ENOMEM)?;
        let mut mapped = addr;
        while mapped < end {
            match self.vma_at(mapped) {
                Some((_, v)) => mapped = v.end.min(end),
                None => break,
            }
        }
        if mapped == addr {
            return Err(Errno::ENOMEM);
        }
        if prot.contains(Prot::WRITE) && limits::in_force().is_some() {
            // Private pages becoming writable count against RLIMIT_DATA (mprotect_fixup).
            let extra: u64 = self
                .overlapping(addr, mapped)
                .filter(|(_, v)| !v.shared && !v.grows_down && !v.prot.contains(Prot::WRITE))
                .map(|(s, v)| v.end.min(mapped) - s.max(addr))
                .sum();
            self.may_grow(0, extra)?;
        }
        self.protect_mapped(addr, mapped, prot)?;
        if mapped < end {
            return Err(Errno::ENOMEM);
        }
        Ok(())
    }

    /// [`AddressSpace::protect`] of `[addr, end)`, all of it mapped.
    /// The instances' TLBs are flushed unless every mapping only gained permissions
    /// ([`only_gains`]) and none is shared: an entry made before lacks the new ones, and an
    /// access that needs them misses and refills.
    fn protect_mapped(&mut self, addr: u64, end: u64, prot: Prot) -> Result<(), Errno> {
        let hit: Vec<u64> = self.overlapping(addr, end).map(|(s, _)| s).collect();
        for s in hit {
            let v = self.vma_remove_untabled(&s).expect("listed above");
            let (ms, me) = (s.max(addr), v.end.min(end));
            if v.shared || !only_gains(v.prot, prot) {
                self.invalidate.drop_tlb(ms, me);
            }
            self.changed();
            let host_prot = if v.shared {
                Some(self.host_prot(prot, shared_host_prot(prot)))
            } else {
                // Private pages stay readable and writable unless direct loads need them
                // inaccessible or stale stores must fault (`private_host_prot`).
                let anon = v.is_private_anon();
                let (old, new) = (self.private_host_prot(v.prot, anon), self.private_host_prot(prot, anon));
                (old != new).then_some(new)
            };
            if let Some(host_prot) = host_prot {
                if let Some(host) = self.to_host(ms, me - ms) {
                    // SAFETY: inside our reservation, pages mapped by us.
                    let r = unsafe { libc::mprotect(host.cast(), usize::try_from(me - ms).unwrap_or(0), host_prot) };
                    if r != 0 {
                        let e = Errno::last();
                        self.vma_insert_untabled(s, v);
                        self.sync_store_table(addr, end);
                        self.changed();
                        return Err(e);
                    }
                }
            }
            // Code translated while the pages were executable and not writable is not in
            // `code_pages` (only fetches from writable pages are), so it goes when they
            // become writable too: from then on a fetch marks its page again.
            let gains_write = !v.prot.contains(Prot::WRITE) && prot.contains(Prot::WRITE | Prot::EXEC);
            if v.prot.contains(Prot::EXEC) && (!prot.contains(Prot::EXEC) || gains_write) {
                self.invalidate.code.push((ms, me));
            }
            if s < ms {
                self.vma_insert_untabled(s, Vma { end: ms, ..v.clone() });
                self.changed();
            }
            self.vma_insert_untabled(ms, Vma { end: me, prot, offset: v.offset + (ms - s), ..v.clone() });
            self.changed();
            if v.end > me {
                self.vma_insert_untabled(me, Vma { end: v.end, offset: v.offset + (me - s), ..v.clone() });
                self.changed();
            }
        }
        // Only `[addr, end)` changed permissions (and its neighbours' bytes with it).
        self.sync_store_table(addr, end);
        // Linux merges the changed range with its neighbours again (mprotect_fixup).
        let bounds: Vec<u64> = self.vmas.range(addr..=end).map(|(&s, _)| s).collect();
        for b in bounds {
            self.merge_at(b);
        }
        Ok(())
    }

    /// Moves the pages of `[old, old+old_len)` to `new` (both page-aligned), growing or
    /// shrinking to `new_len`; used by `mremap`. The host `mremap` moves the contents, so
    /// anonymous growth reads as zero and file mappings extend into the file. With `keep`
    /// (`MREMAP_DONTUNMAP`, sizes equal) the old range stays mapped as it was, its pages
    /// empty: the host's `MREMAP_DONTUNMAP` leaves its mapping there. A zero `old_len` (a
    /// shared mapping only, as the caller checks) maps a second view of the same pages and
    /// leaves the source as it is: the host's `mremap` duplicates its own mirror of it.
    pub fn move_mapping(&mut self, old: u64, old_len: u64, new: u64, new_len: u64, keep: bool) -> Result<(), Errno> {
        let (_, v) = self.vma_at(old).ok_or(Errno::EFAULT)?;
        let v = v.clone();
        let extra = new_len.saturating_sub(if keep { 0 } else { old_len });
        let data = v.prot.contains(Prot::WRITE) && !v.shared && !v.grows_down;
        self.may_grow(extra, if data { extra } else { 0 })?;
        let src = self.to_host(old, old_len).ok_or(Errno::EFAULT)?;
        self.ensure_window(new, new_len)?;
        let dst = self.to_host(new, new_len).ok_or(Errno::ENOMEM)?;
        let (ol, nl) = (
            usize::try_from(old_len).map_err(|_| Errno::ENOMEM)?,
            usize::try_from(new_len).map_err(|_| Errno::ENOMEM)?,
        );
        let flags = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED | if keep { libc::MREMAP_DONTUNMAP } else { 0 };
        // SAFETY: both ranges are inside our reservation; MREMAP_FIXED replaces the reservation
        // pages at `dst` (with MREMAP_DONTUNMAP the source stays mapped).
        let r = unsafe { libc::mremap(src.cast(), ol, nl, flags, dst) };
        if r == libc::MAP_FAILED {
            return Err(Errno::last());
        }
        let start = self.vma_at(old).map_or(old, |(s, _)| s);
        if keep {
            // The old pages are gone from the source: drop what was translated from them.
            self.invalidate.code.push((old, old + old_len));
            self.invalidate.drop_tlb(old, old + old_len);
        } else if old_len > 0 {
            // The host mremap left a hole at the source; put the reservation back.
            self.release_host(old, old + old_len);
            self.forget(old, old + old_len);
        }
        self.forget(new, new + new_len);
        self.vma_insert(new, Vma { end: new + new_len, offset: v.offset + (old - start), ..v });
        self.changed();
        self.note_peak();
        Ok(())
    }

    /// Grows the mapping ending at `old+old_len` in place to `new_len` bytes (the pages after
    /// it must be free); used by `mremap`. Errors: `ENOMEM` if the host cannot grow it.
    pub fn grow_in_place(&mut self, old: u64, old_len: u64, new_len: u64) -> Result<(), Errno> {
        if let Some((_, v)) = self.vma_at(old) {
            let (extra, data) =
                (new_len.saturating_sub(old_len), v.prot.contains(Prot::WRITE) && !v.shared && !v.grows_down);
            self.may_grow(extra, if data { extra } else { 0 })?;
        }
        self.ensure_window(old, new_len)?;
        let src = self.to_host(old, new_len).ok_or(Errno::ENOMEM)?;
        let tail = self.to_host(old + old_len, new_len - old_len).ok_or(Errno::ENOMEM)?;
        let (ol, nl) = (
            usize::try_from(old_len).map_err(|_| Errno::ENOMEM)?,
            usize::try_from(new_len).map_err(|_| Errno::ENOMEM)?,
        );
        // SAFETY: `tail` is reservation space after the mapping; it is handed back below if
        // the host cannot grow into it.
        unsafe { libc::munmap(tail.cast(), nl - ol) };
        // SAFETY: `src` is our own mapping; without MREMAP_MAYMOVE it can only grow in place.
        let r = unsafe { libc::mremap(src.cast(), ol, nl, 0) };
        if r == libc::MAP_FAILED {
            self.release_host(old + old_len, old + new_len);
            return Err(Errno::ENOMEM);
        }
        let (start, v) = self.vma_at(old).ok_or(Errno::EFAULT)?;
        let mut v = v.clone();
        v.end = old + new_len;
        self.vma_insert(start, v);
        self.changed();
        // Grown up to the next mapping: joined to it when alike, as Linux's vma_merge.
        self.merge_with_previous(old + new_len);
        self.note_peak();
        Ok(())
    }

    /// Makes `[start, end)` (page-aligned) anonymous memory as `/proc/self/maps` shows it: no
    /// name, offset 0, no file. For the bss pages after an ELF segment's last page with file
    /// bytes, which Linux maps anonymously (fs/binfmt_elf.c) while endgate maps the image's
    /// whole span at once. Mappings are split at the range's edges; the memory is not touched.
    pub fn name_anonymous(&mut self, start: u64, end: u64) {
        self.change_range(start, end, |v| {
            let named = v.name != VmaName::Anon || v.file_size.is_some() || v.file_id.is_some();
            named.then(|| Vma { name: VmaName::Anon, offset: 0, file_size: None, file_id: None, ..v.clone() })
        });
    }

    /// Replaces the part in `[start, end)` (page-aligned) of each mapping it overlaps by what
    /// `change` makes of that part (given with its own end and offset), splitting the mapping
    /// at the range's edges; a part `change` leaves (`None`) stays whole. Unmapped parts are
    /// skipped. No neighbours are joined.
    fn change_range(&mut self, start: u64, end: u64, change: impl Fn(&Vma) -> Option<Vma>) {
        let hit: Vec<u64> = self.overlapping(start, end).map(|(s, _)| s).collect();
        for &s in &hit {
            let Some(v) = self.vmas.get(&s).cloned() else { continue };
            let (ms, me) = (s.max(start), v.end.min(end));
            let Some(new) = change(&Vma { end: me, offset: v.offset + (ms - s), ..v.clone() }) else { continue };
            self.vma_remove(&s);
            if s < ms {
                self.vma_insert(s, Vma { end: ms, ..v.clone() });
            }
            self.vma_insert(ms, new);
            if v.end > me {
                self.vma_insert(me, Vma { end: v.end, offset: v.offset + (me - s), ..v });
            }
            self.changed();
        }
    }

    /// Gives the mappings in `[start, end)` (page-aligned) the NUMA policy `policy` returns for
    /// their current one, splitting a mapping at the range's edges only where its policy
    /// changes and joining private anonymous neighbours that end up alike (mm/mempolicy.c
    /// `mbind_range`). Unmapped parts are skipped.
    pub fn set_policy(&mut self, start: u64, end: u64, policy: impl Fn(Option<MemPolicy>) -> Option<MemPolicy>) {
        self.change_range(start, end, |v| {
            let new = policy(v.policy);
            (new != v.policy).then(|| Vma { policy: new, ..v.clone() })
        });
        let joints: Vec<u64> = self.vmas.range(start..=end).map(|(s, _)| *s).collect();
        for s in joints {
            self.merge_with_previous(s);
        }
    }

    /// Maps the file pages from `pgoff` on at `[start, start+size)` (page-aligned, inside
    /// shared mappings of one file, which the caller checked), as Linux's `remap_file_pages`
    /// emulation does: the host's own `remap_file_pages` re-maps its shared mapping there with
    /// `MAP_FIXED`, and the range becomes one mapping of the first one's kind at the new offset.
    /// Errors: the host's.
    pub fn remap_file_pages(&mut self, start: u64, size: u64, pgoff: u64) -> Result<(), Errno> {
        let host = self.to_host(start, size).ok_or(Errno::EINVAL)?;
        let v = self.vma_at(start).map(|(_, v)| v.clone()).ok_or(Errno::EINVAL)?;
        let hsize = usize::try_from(size).map_err(|_| Errno::EINVAL)?;
        // SAFETY: the range lies inside our reservation and is a shared mapping of ours; the
        // host re-maps only those pages.
        let r = unsafe { libc::syscall(libc::SYS_remap_file_pages, host, hsize, 0, pgoff, 0) };
        if r < 0 {
            return Err(Errno::last());
        }
        self.forget(start, start + size);
        let offset = pgoff.wrapping_mul(PAGE_SIZE);
        self.vma_insert(start, Vma { end: start + size, offset, policy: None, ..v });
        self.changed();
        Ok(())
    }

    /// Discards the contents of `[addr, addr+len)` (MADV_DONTNEED): private pages read back
    /// as zero (anonymous) or as the file's data. Errors: `ENOMEM` if any page is unmapped.
    pub fn discard(&mut self, addr: u64, len: u64) -> Result<(), Errno> {
        let end = addr.checked_add(len).ok_or(Errno::EINVAL)?;
        self.check_mapped(addr, len)?;
        let host = self.to_host(addr, len).ok_or(Errno::ENOMEM)?;
        // SAFETY: inside our reservation, all of it mapped by us.
        let r = unsafe { libc::madvise(host.cast(), usize::try_from(len).unwrap_or(0), libc::MADV_DONTNEED) };
        if r != 0 {
            return Err(Errno::last());
        }
        if self.overlapping(addr, end).any(|(_, v)| v.prot.contains(Prot::EXEC)) {
            self.invalidate.code.push((addr, end));
        }
        Ok(())
    }

    /// `madvise(MADV_REMOVE)` of `[addr, addr+len)` (page-aligned): the host's own mapping of
    /// the same file or shared memory, whose kind and permissions are the guest's, frees the
    /// pages and punches the hole in the backing store; translated code from those bytes goes,
    /// also through other views of the file. Errors: `ENOMEM` (unmapped), the host's (`EACCES`,
    /// `EINVAL`, `EOPNOTSUPP`).
    pub fn remove_backing(&mut self, addr: u64, len: u64) -> Result<(), Errno> {
        self.check_mapped(addr, len)?;
        let host = self.to_host(addr, len).ok_or(Errno::ENOMEM)?;
        // SAFETY: inside our reservation, all of it mapped by us.
        let r = unsafe { libc::madvise(host.cast(), usize::try_from(len).unwrap_or(0), libc::MADV_REMOVE) };
        if r != 0 {
            return Err(Errno::last());
        }
        let files: Vec<(u64, u64)> =
            self.overlapping(addr, addr + len).filter(|(_, v)| v.shared).filter_map(|(_, v)| v.file_id).collect();
        for id in files {
            self.file_written(id);
        }
        self.note_host_write(addr, len);
        Ok(())
    }

    /// Records that the host wrote `[addr, addr+len)` behind unicorn's back: translated code
    /// from those bytes must be dropped (unicorn cannot see host writes; unicorn-facts §3).
    /// Pages of a writable and executable mapping that no instruction was fetched from hold
    /// no translation ([`AddressSpace::tlb_fill`]; one made writable after it was executable
    /// alone lost its code in [`AddressSpace::mprotect`]): nothing to drop there yet.
    ///
    /// `true` if the range lies partly in an executable mapping or a view of an aliased file:
    /// a write that another thread may run code from while it lasts (a call that waits
    /// without the lock) must be noted again when it is over (`Task::blocking`).
    ///
    /// The common cases cost no tree walk: while no file is aliased, a range inside the
    /// mapping found last ([`AddressSpace::span_at`]'s hint) that is not executable, or that is
    /// writable and executable with no page that ran ([`AddressSpace::code_free_hint`], one
    /// range query per mapping: mips64el's stacks, where its system calls and vDSO clock
    /// store their results).
    #[inline]
    pub fn note_host_write(&mut self, addr: u64, len: u64) -> bool {
        let end = addr.saturating_add(len);
        if !self.views.any_aliased() {
            if let Some(h) = self.span_hint.get().filter(|h| addr >= h.0 && end <= h.1) {
                if !h.2.contains(Prot::EXEC) {
                    return false;
                }
                if self.code_free_hint.get() == Some((h.0, h.1)) {
                    return true;
                }
                if h.2.contains(Prot::WRITE) && self.code_pages.range(h.0..h.1).next().is_none() {
                    self.code_free_hint.set(Some((h.0, h.1)));
                    return true;
                }
            }
        }
        let mut exec = false;
        let mut code = false;
        for (s, v) in self.overlapping(addr, end).filter(|(_, v)| v.prot.contains(Prot::EXEC)) {
            exec = true;
            let (lo, hi) = (page_floor(s.max(addr)), v.end.min(end));
            code |= !v.prot.contains(Prot::WRITE) || self.code_pages.range(lo..hi).next().is_some();
        }
        // A view of an aliased file shares its physical pages with executable views.
        let alias = self.overlaps_alias_view(addr, end);
        if code || alias {
            self.invalidate.code.push((page_floor(addr), page_ceil(end).unwrap_or(end)));
        }
        exec || alias
    }

    /// Drops the translated code of the executable mappings within `[start, end)` (an explicit
    /// instruction-cache flush: a store by another thread's engine instance is not seen by
    /// this one's); the range is clipped to those mappings, whatever its size.
    pub fn drop_code(&mut self, start: u64, end: u64) {
        let pieces: Vec<(u64, u64)> = self
            .overlapping(start, end)
            .filter(|(_, v)| v.prot.contains(Prot::EXEC))
            .map(|(s, v)| (s.max(page_floor(start)), v.end.min(page_ceil(end).unwrap_or(end))))
            .collect();
        self.invalidate.code.extend(pieces);
    }

    /// Takes the pending invalidations, leaving none.
    pub fn take_invalidate(&mut self) -> Invalidate {
        std::mem::take(&mut self.invalidate)
    }
}

impl Drop for AddressSpace {
    fn drop(&mut self) {
        for &(base, len) in &self.reservations {
            // SAFETY: each reservation was made by this address space and is unmapped once, here.
            unsafe { libc::munmap(base, len) };
        }
    }
}

/// Reserves `len` bytes of host address space (`PROT_NONE`, nothing committed): exactly at
/// `at` if given (`MAP_FIXED_NOREPLACE`: never over an existing host mapping), else where the
/// host chooses. `None` if the host refuses.
fn reserve(at: Option<u64>, len: usize) -> Option<*mut u8> {
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    let (hint, flags) = match at {
        Some(a) => (a as *mut c_void, flags | libc::MAP_FIXED_NOREPLACE),
        None => (std::ptr::null_mut(), flags),
    };
    // SAFETY: a fresh anonymous PROT_NONE reservation; MAP_FIXED_NOREPLACE never replaces an
    // existing mapping.
    let r = unsafe { libc::mmap(hint, len, libc::PROT_NONE, flags, -1, 0) };
    if r == libc::MAP_FAILED {
        return None;
    }
    if at.is_some_and(|a| r as u64 != a) {
        // A kernel older than 4.17 takes MAP_FIXED_NOREPLACE as a hint.
        // SAFETY: the reservation just made, nothing else uses it.
        unsafe { libc::munmap(r, len) };
        return None;
    }
    Some(r.cast())
}

/// A host file to map: descriptor, offset in bytes (page-aligned), MAP_SHARED or not.
#[derive(Clone, Copy, Debug)]
pub struct FileMap {
    /// Host file descriptor (the guest's descriptor: they are the same).
    pub fd: RawFd,
    /// Offset into the file in bytes.
    pub offset: u64,
    /// MAP_SHARED (writes reach the file) rather than MAP_PRIVATE.
    pub shared: bool,
}

/// What backs a new mapping on the host.
#[derive(Clone, Copy)]
enum Backing {
    Anon { shared: bool },
    File { fd: RawFd, offset: u64, shared: bool },
}

/// The size and `(st_dev, st_ino)` of the host file `fd` (`None` if it is not a regular file
/// or fstat fails).
fn file_stat(fd: RawFd) -> Option<(u64, (u64, u64))> {
    // SAFETY: a local stat for the host to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above; an integer fd.
    let ok = unsafe { libc::fstat(fd, &mut st) } == 0;
    (ok && st.st_mode & libc::S_IFMT == libc::S_IFREG)
        .then(|| (u64::try_from(st.st_size).unwrap_or(0), (st.st_dev, st.st_ino)))
}

/// The `(st_dev, st_ino)` of the host regular file `fd` (`None` for other kinds, or if
/// `fstat` fails).
pub fn file_id(fd: RawFd) -> Option<(u64, u64)> {
    file_stat(fd).map(|f| f.1)
}

fn rw() -> i32 {
    libc::PROT_READ | libc::PROT_WRITE
}

fn shared_host_prot(p: Prot) -> i32 {
    // Shared pages must keep the guest's write permission on the host too: a read-only file
    // descriptor cannot be mapped writable, and a write must not reach a file the guest could
    // not write. Reads stay allowed for host system calls.
    if p.contains(Prot::WRITE) {
        rw()
    } else {
        libc::PROT_READ
    }
}

/// `ranges` less `[start, end)`: the parts of each range outside it.
fn cut_ranges(ranges: &[(u64, u64)], start: u64, end: u64) -> Vec<(u64, u64)> {
    let mut kept = Vec::with_capacity(ranges.len() + 1);
    for &(s, e) in ranges {
        if e <= start || s >= end {
            kept.push((s, e));
            continue;
        }
        if s < start {
            kept.push((s, start));
        }
        if e > end {
            kept.push((end, e));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-bit address space with small windows (also `alias`'s tests').
    pub(super) fn space() -> AddressSpace {
        let layout = Layout {
            low_len: 1 << 30,
            dyn_base: 0x5555_5555_4000,
            dyn_len: 1 << 30,
            task_size: 0x7fff_ffff_f000,
            stack_top: 0x7fff_ffff_f000,
            top_len: 1 << 30,
            fixed_page: None,
        };
        let mut a = AddressSpace::new(layout, DataModel::LP64_LE).unwrap();
        a.mmap_base = a.task_size - (64 << 20);
        a
    }

    #[test]
    fn map_split_protect_unmap() {
        let mut a = space();
        a.map_anon(0x40_0000, 0x4000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        a.protect(0x40_1000, 0x1000, Prot::READ).unwrap();
        assert_eq!(a.vmas().count(), 3);
        assert!(a.host_range(GuestAddr::new(0x40_1000), 8, Prot::WRITE).is_err());
        assert!(a.host_range(GuestAddr::new(0x40_0ff8), 16, Prot::READ).is_ok());
        a.unmap(0x40_0000, 0x2000).unwrap();
        assert_eq!(a.vma_at(0x40_0000).map(|v| v.0), None);
        assert_eq!(a.vma_at(0x40_2000).map(|v| v.0), Some(0x40_2000));
        assert_eq!(a.host_range(GuestAddr::new(0x40_0000), 1, Prot::READ), Err(Errno::EFAULT));
        assert_eq!(a.protect(0x40_0000, 0x3000, Prot::READ), Err(Errno::ENOMEM));
        assert_eq!(a.vma_at(0x40_2000).map(|v| v.1.prot), Some(Prot::READ | Prot::WRITE), "start unmapped: no change");
        // Up to a hole: the part before it changes (Linux's mprotect_fixup loop).
        a.map_anon(0x40_5000, 0x1000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        assert_eq!(a.protect(0x40_2000, 0x4000, Prot::READ), Err(Errno::ENOMEM));
        assert_eq!(a.vma_at(0x40_2000).map(|v| v.1.prot), Some(Prot::READ));
        assert_eq!(a.vma_at(0x40_5000).map(|v| v.1.prot), Some(Prot::READ | Prot::WRITE));
    }

    /// `true` if the host lets this process write `len` bytes at `p` without forcing
    /// (`process_vm_writev` to itself, which does not write read-only pages).
    fn host_writable(p: *mut u8, len: usize) -> bool {
        let buf = vec![0u8; len];
        let local = libc::iovec { iov_base: buf.as_ptr().cast_mut().cast(), iov_len: len };
        let remote = libc::iovec { iov_base: p.cast(), iov_len: len };
        // SAFETY: valid iovecs; the kernel checks the remote range.
        let n = unsafe { libc::process_vm_writev(libc::getpid(), &local, 1, &remote, 1, 0) };
        n == isize::try_from(len).unwrap_or(-1)
    }

    /// Private anonymous memory the guest may only read is read-only on the host too (a stale
    /// TLB entry's store faults: `crate::syscall::mm::takes_away_unstopped`), writable again
    /// when the guest's write permission comes back; endgate's forced writes still reach it.
    #[test]
    fn read_only_private_anon_is_read_only_on_the_host() {
        let mut a = space();
        if !a.host_faults_reach_guest() {
            return; // ENDGATE_NO_DIRECT=1
        }
        a.map_anon(0x40_0000, 0x3000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        let host = |a: &AddressSpace, at: u64| a.host_range(GuestAddr::new(at), 1, Prot::NONE).unwrap();
        assert!(host_writable(host(&a, 0x40_1000), 8));
        a.protect(0x40_1000, 0x1000, Prot::READ).unwrap();
        assert!(!host_writable(host(&a, 0x40_1000), 8));
        assert!(host_writable(host(&a, 0x40_2000), 8), "its neighbour keeps its permissions");
        a.poke_bytes(GuestAddr::new(0x40_1ff8), &[7; 16]).unwrap();
        let mut back = [0u8; 16];
        a.read_bytes(GuestAddr::new(0x40_1ff8), &mut back).unwrap();
        assert_eq!(back, [7; 16], "a forced write across the read-only page and its neighbour");
        a.protect(0x40_1000, 0x1000, Prot::READ | Prot::WRITE).unwrap();
        assert!(host_writable(host(&a, 0x40_1000), 8));
        // Mapped read-only from the start, and an executable one (whose host pages stay
        // writable: a stale store there must not go unseen, so such a mapping stops the others).
        a.map_anon(0x50_0000, 0x1000, Prot::READ, VmaName::Anon).unwrap();
        assert!(!host_writable(host(&a, 0x50_0000), 8));
        a.map_anon(0x60_0000, 0x1000, Prot::READ | Prot::EXEC, VmaName::Anon).unwrap();
        assert!(host_writable(host(&a, 0x60_0000), 8));
    }

    /// The bss pages of a program's image become anonymous in the middle of its span; the
    /// pages on either side keep the file's name, and the one after it its offset.
    #[test]
    fn name_anonymous_splits_off_the_bss() {
        let mut a = space();
        let file = VmaName::File("/bin/prog".into());
        a.map_anon(0x40_0000, 0x5000, Prot::READ | Prot::WRITE, file.clone()).unwrap();
        a.name_anonymous(0x40_2000, 0x40_4000);
        let list: Vec<(u64, u64, VmaName, u64)> = a.vmas().map(|(s, v)| (s, v.end, v.name.clone(), v.offset)).collect();
        let first_offset = list[0].3;
        assert_eq!(
            list,
            vec![
                (0x40_0000, 0x40_2000, file.clone(), first_offset),
                (0x40_2000, 0x40_4000, VmaName::Anon, 0),
                (0x40_4000, 0x40_5000, file, first_offset + 0x4000),
            ]
        );
        assert!(a.host_range(GuestAddr::new(0x40_3ff8), 8, Prot::WRITE).is_ok(), "still mapped");
    }

    /// Store ranges (unicorn patch 0045) of the address space: neighbouring writable mappings
    /// joined; read-only and executable mappings and unmapped addresses have none; an
    /// `mprotect` changes the answer.
    #[test]
    fn store_range_follows_the_mappings() {
        let mut a = space();
        let rw = Prot::READ | Prot::WRITE;
        a.map_anon(0x40_0000, 0x2000, rw, VmaName::Anon).unwrap();
        a.map_anon(0x40_2000, 0x1000, rw, VmaName::Heap).unwrap();
        a.map_anon(0x40_3000, 0x1000, Prot::READ, VmaName::Anon).unwrap();
        a.map_anon(0x40_4000, 0x1000, rw | Prot::EXEC, VmaName::Anon).unwrap();
        assert_eq!(a.store_range(0x40_2ff8), Some((0x40_0000, 0x40_3000)));
        assert_eq!(a.store_range(0x40_3000), None, "read-only");
        assert_eq!(a.store_range(0x40_4000), None, "executable");
        assert_eq!(a.store_range(0x40_5000), None, "unmapped");
        a.protect(0x40_1000, 0x1000, Prot::READ).unwrap();
        assert_eq!(a.store_range(0x40_0008), Some((0x40_0000, 0x40_1000)));
        assert_eq!(a.store_range(0x40_1008), None);
        assert_eq!(a.store_range(0x40_2008), Some((0x40_2000, 0x40_3000)));
    }

    #[test]
    fn top_down_placement() {
        let mut a = space();
        let x = a.find_free(0x2000).unwrap();
        assert_eq!(x, a.mmap_base - 0x2000);
        a.map_anon(x, 0x2000, Prot::READ, VmaName::Anon).unwrap();
        let y = a.find_free(0x1000).unwrap();
        assert_eq!(y, x - 0x1000);
    }

    /// aarch64's layout, as `arch::windows_64` gives it.
    fn space48() -> AddressSpace {
        let layout = Layout {
            low_len: 16 << 30,
            dyn_base: 0xaaaa_aaaa_a000,
            dyn_len: 16 << 30,
            task_size: 1 << 48,
            stack_top: 1 << 48,
            top_len: 64 << 30,
            fixed_page: None,
        };
        let mut a = AddressSpace::new(layout, DataModel::LP64_LE).unwrap();
        a.mmap_base = a.task_size - (64 << 20);
        a
    }

    /// s390x's layout: the stack at 2^42 (the flat direct loads' bound), mappings up to
    /// 2^64 - 4096: a window of its own for a mapping anywhere above, the last granule's
    /// included (its end is `task_size`, not 2^64), none at or past `task_size`.
    #[test]
    fn s390x_maps_up_to_task_size_max() {
        let task_size = 0u64.wrapping_sub(PAGE_SIZE);
        let layout = Layout {
            low_len: 16 << 30,
            dyn_base: 0x2aa_0000_0000,
            dyn_len: 16 << 30,
            task_size,
            stack_top: 1 << 42,
            top_len: 64 << 30,
            fixed_page: None,
        };
        let mut a = AddressSpace::new(layout, DataModel::LP64_BE).unwrap();
        if std::env::var_os("ENDGATE_NO_DIRECT").is_none() && std::env::var_os("ENDGATE_NO_DIRECT_FLAT").is_none() {
            assert_eq!(a.direct_flat().map(|f| f.2), Some(42));
        }
        assert_eq!(a.stack_top, 1 << 42);
        let rw = Prot::READ | Prot::WRITE;
        for addr in [1 << 42, 1 << 50, (1 << 48) - PAGE_SIZE, task_size - PAGE_SIZE] {
            assert!(a.is_placeable(addr, 2 * PAGE_SIZE) || addr == task_size - PAGE_SIZE);
            let len = if addr == task_size - PAGE_SIZE { PAGE_SIZE } else { 2 * PAGE_SIZE };
            a.map_anon(addr, len, rw, VmaName::Anon).unwrap();
            touch(&a, addr);
            touch(&a, addr + len - 8);
            assert!(a.window_of(addr, len).is_some(), "{addr:#x}");
        }
        assert!(!a.is_placeable(task_size, PAGE_SIZE));
        assert!(!a.is_placeable(task_size - PAGE_SIZE, 2 * PAGE_SIZE));
        assert_eq!(a.ensure_window(task_size - PAGE_SIZE, 2 * PAGE_SIZE), Err(Errno::ENOMEM));
        let top = a.windows().last().copied().unwrap();
        assert_eq!(top.guest + top.len, task_size);
    }

    /// A 32-bit guest's address space (arm's layout).
    fn space32() -> AddressSpace {
        let layout = Layout {
            low_len: 0x8000_0000,
            dyn_base: 0xaaaa_a000,
            dyn_len: 0x1000_0000,
            task_size: 1 << 32,
            stack_top: 1 << 32,
            top_len: 1 << 30,
            fixed_page: None,
        };
        AddressSpace::new(layout, DataModel::ILP32_LE).unwrap()
    }

    fn touch(a: &AddressSpace, addr: u64) {
        let p = a.host_range(GuestAddr::new(addr), 8, Prot::WRITE).unwrap();
        // SAFETY: mapped read-write just before.
        unsafe { p.cast::<u64>().write_unaligned(addr) };
    }

    #[test]
    fn windows_made_where_mappings_go() {
        let mut a = space48();
        let before = a.regions().len();
        // AddressSanitizer's aarch64 shadow: 8 GiB at 0xffffff000, in the low window.
        a.map_anon(0xf_ffff_f000, 8 << 30, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        assert_eq!(a.regions().len(), before);
        touch(&a, 0xf_ffff_f000);
        touch(&a, 0xf_ffff_f000 + (8 << 30) - 8);
        // Outside every window, across a granule boundary: one window of two granules.
        let g = 0x1000_0000_0000 - 0x1000;
        a.map_anon(g, 0x2000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        assert_eq!(a.regions().len(), before + 1);
        touch(&a, g);
        touch(&a, g + 0x1000);
        // Above the host's 47 bits: a window the host places itself.
        a.map_anon(0xf000_0000_0000, 1 << 20, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        touch(&a, 0xf000_0000_0000);
        // A mapping that starts in the low window and goes on past its end: the window made
        // above it meets it in the host (it takes over the guard after the low window).
        a.map_anon(LOW_BLOCK - 0x1000, 0x2000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        assert!(a.host_range(GuestAddr::new(LOW_BLOCK - 8), 16, Prot::READ).is_ok());
        assert_offsets(&a);
        // Beyond TASK_SIZE: no.
        assert_eq!(a.map_anon(1 << 48, 0x1000, Prot::READ, VmaName::Anon), Err(Errno::ENOMEM));
        assert!(!a.is_placeable((1 << 48) - 0x1000, 0x2000));
    }

    /// Every granule's table entry is the host offset of its window, or points into the
    /// `PROT_NONE` granule when it has none.
    fn assert_offsets(a: &AddressSpace) {
        let (table, none) = a.direct_table().expect("a 64-bit guest has the table");
        // SAFETY: the table has DIRECT_ENTRIES entries and lives as long as `a`.
        let table = unsafe { std::slice::from_raw_parts(table, DIRECT_ENTRIES) };
        for (g, &off) in table.iter().enumerate() {
            let guest = (g as u64 * WINDOW_GRANULE).max(MMAP_MIN_ADDR);
            match a.to_host(guest, 1) {
                Some(h) => assert_eq!(off, (h as u64).wrapping_sub(guest), "granule {g:#x}"),
                None => assert_eq!(off, none.wrapping_sub(g as u64 * WINDOW_GRANULE), "granule {g:#x}"),
            }
            // Loads at either end of a granule with a window reach its host pages.
            if let Some(h) = a.to_host(guest + WINDOW_GRANULE - 1, 1) {
                assert_eq!(off, (h as u64).wrapping_sub(guest + WINDOW_GRANULE - 1));
            }
        }
        // A load running past a window's end meets the window of the next guest bytes or a
        // guard, never another window's bytes.
        for w in a.windows() {
            let after = w.host as u64 + w.len;
            let next = a.windows().iter().any(|n| n.host as u64 == after && n.guest == w.guest + w.len);
            let guard = a.guards.iter().any(|&(g, room)| after >= g && after - g < room);
            assert!(next || guard, "nothing kept after {w:x?}: {:x?}", a.windows());
            assert!(
                !a.windows().iter().any(|n| n.host as u64 == after && n.guest != w.guest + w.len),
                "{w:x?} runs into another window"
            );
        }
    }

    #[test]
    fn direct_table_follows_the_windows() {
        let mut a = space48();
        assert_offsets(&a);
        // Guest page 0 lies in the low window's reservation, PROT_NONE: a direct load there
        // faults. (The window below MMAP_MIN_ADDR, for unicorn's own stores, is elsewhere.)
        let (table, _) = a.direct_table().unwrap();
        // SAFETY: entry 0 of the table.
        let zero = unsafe { *table };
        assert_ne!(a.to_host(0, 1).map(|h| h as u64), Some(zero));
        assert_eq!(a.guest_of_host(zero + MMAP_MIN_ADDR), Some(MMAP_MIN_ADDR));
        assert_eq!(a.guest_of_host(zero), None);
        for addr in [0x2000_0000_0000u64, 0x2010_0000_0000, 0x7fff_0000_0000, 0xc000_0000_0000] {
            a.map_anon(addr, 0x1000, Prot::READ, VmaName::Anon).unwrap();
            assert_offsets(&a);
        }
        // Neighbouring granules above the host's 47 bits (no window at its guest address),
        // the lower one made first and the upper one first: a load across the boundary reads
        // both through one host range.
        for (first, second) in
            [(0xa000_0000_0000u64 - 0x1000, 0xa000_0000_0000u64), (0xb000_0000_0000, 0xb000_0000_0000 - 0x1000)]
        {
            a.map_anon(first, 0x1000, Prot::READ, VmaName::Anon).unwrap();
            a.map_anon(second, 0x1000, Prot::READ, VmaName::Anon).unwrap();
            let boundary = first.max(second);
            assert!(a.host_range(GuestAddr::new(boundary - 8), 16, Prot::READ).is_ok(), "{:x?}", a.windows());
            assert_offsets(&a);
        }
        // A 32-bit guest has none.
        assert!(space32().direct_table().is_none());
    }

    #[test]
    fn neighbouring_windows_join() {
        let mut a = space48();
        // Two mappings made apart in neighbouring granules, then read as one range.
        let g = 0x2000_0000_0000;
        a.map_anon(g - 0x1000, 0x1000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        a.map_anon(g, 0x1000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        assert!(a.host_range(GuestAddr::new(g - 8), 16, Prot::READ).is_ok(), "{:x?}", a.windows());
        // Windows only grow: every region made is still listed, in the order made.
        let n = a.regions().len();
        a.unmap(g - 0x1000, 0x2000).unwrap();
        assert_eq!(a.regions().len(), n);
    }

    #[test]
    fn top_down_search_goes_on_below_the_top_window() {
        let mut a = space48();
        let top = a.task_size - (64 << 30);
        // Fill the top window's free part below mmap_base, then ask for more.
        let room = a.mmap_base - top;
        a.map_anon(top, room, Prot::READ, VmaName::Anon).unwrap();
        let x = a.find_free(1 << 30).unwrap();
        assert_eq!(x, top - (1 << 30));
        a.map_anon(x, 1 << 30, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        touch(&a, x);
        // A request the size of the whole top window fits below it too.
        let y = a.find_free(64 << 30).unwrap();
        assert!(y + (64 << 30) <= x);
        a.map_anon(y, 64 << 30, Prot::READ, VmaName::Anon).unwrap();
    }

    #[test]
    fn a_32_bit_guest_has_one_window() {
        let mut a = space32();
        assert_eq!(a.windows().len(), 1);
        // What used to lie between arm's windows.
        a.map_anon(0x9000_0000, 0x1000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        touch(&a, 0x9000_0000);
        assert_eq!(a.map_anon(1 << 32, 0x1000, Prot::READ, VmaName::Anon), Err(Errno::ENOMEM));
    }

    #[test]
    fn pages_read_back_zero_after_remap() {
        let mut a = space();
        a.map_anon(0x40_0000, 0x1000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        let p = a.host_range(GuestAddr::new(0x40_0000), 1, Prot::WRITE).unwrap();
        // SAFETY: the page was just mapped read-write.
        unsafe { *p = 7 };
        a.map_anon(0x40_0000, 0x1000, Prot::READ, VmaName::Anon).unwrap();
        // SAFETY: mapped again, host-readable.
        assert_eq!(unsafe { *p }, 0);
    }
}
