//! A thread's private copy of the mappings for TLB fills that need no lock.
//!
//! With guest threads running at once (`crate::thread::running`), every TLB fill used to take
//! the global guest lock to read the address space, and threads that touch many pages (a Go
//! program's garbage collector) spent their time waiting for it while another thread served
//! a system call. A [`FillView`] is a sorted copy of the mappings' spans, built by the thread
//! itself under the lock and read by it alone, so a fill of an ordinary page needs neither
//! the lock nor the shared [`super::AddressSpace`].
//!
//! A view is valid while the address space's *epoch* (a counter shared by its threads) is the
//! one it was built at: every change to the mappings, every new window and every published
//! invalidation ([`super::shootdown::Shootdown::publish`]) moves the epoch, and a stale view
//! answers nothing (the fill then takes the locked path, which rebuilds it). A change that
//! takes pages away stops the running threads first (`thread::running::quiesce`), and a
//! thread inside a fill is running, so no such change happens between a thread's epoch check
//! and the entry it makes; the entry made from a view that went stale just afterwards is an
//! ordinary TLB entry, dropped by the published invalidation like every other.
//!
//! The view answers only the plain case: a mapped page whose permissions include the access,
//! not past the end of its file, in a mapping that is not both writable and executable (those
//! pages carry the code-page bookkeeping of [`super::AddressSpace::tlb_fill`]). Everything
//! else, refusals included, goes through the locked fill.
//!
//! The same copy lets a hook that runs without the lock reach guest bytes
//! ([`FillView::host_range`]: the vDSO's clock stores, `crate::syscall::gate`; the system calls
//! of `crate::syscall::unlocked`): a span keeps the host address of its first byte. The thread
//! is running while it uses the pointer, so no change that takes the page away can happen
//! before it is done, as for a fill.
//!
//! A writable and executable mapping (mips64el's thread stacks, which its toolchain marks
//! `RWE`; a JIT's buffer) is in the view for such copies too. Reading its bytes is always
//! plain. Storing to it is plain while no instruction has been fetched from any of its pages
//! (`code_free`: no page in the address space's code pages when the view was built), so no
//! engine holds a translation of them; such a store is recorded ([`FillView::take_rwx_store`])
//! and its caller checks afterwards, with a full fence between the store and the check
//! ([`FillView::rwx_store_seen`]), that the view is still current: a thread that fetched from
//! the page meanwhile marked it as code and moved the epoch before translating it, and then
//! the caller drops the range's translations under the lock (`crate::guest::after_rwx_store`).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::{Endian, Prot};
use crate::abi::thunk::{self, Plain, Shape};
use crate::abi::DataModel;

#[derive(Clone, Copy, Debug)]
struct Span {
    start: u64,
    end: u64,
    prot: Prot,
    /// First address of the span's pages past the end of its file (`u64::MAX`: none).
    eof: u64,
    /// The host address of `start` (0: the span is not inside one window).
    host: usize,
    /// Writable and executable: the locked fill keeps its code-page bookkeeping, and only
    /// copies go through the view (see the module doc).
    rwx: bool,
    /// No instruction had been fetched from the span's pages when the view was built (only
    /// meaningful with `rwx`).
    code_free: bool,
}

/// See the module doc.
#[derive(Debug)]
pub struct FillView {
    epoch: u64,
    source: Arc<AtomicU64>,
    spans: Vec<Span>,
    model: DataModel,
    /// A write to a file may have to drop translated code (a shared executable mapping of a
    /// file exists: [`super::AddressSpace::watches_file_writes`]).
    watches_file_writes: bool,
    /// The guest range `[start, end)` that stores into writable and executable spans covered
    /// since [`FillView::take_rwx_store`] was last asked.
    rwx_store: Cell<Option<(u64, u64)>>,
}

impl FillView {
    pub(super) fn new(source: Arc<AtomicU64>, epoch: u64, model: DataModel) -> FillView {
        FillView { epoch, source, spans: Vec::new(), model, watches_file_writes: false, rwx_store: Cell::new(None) }
    }

    /// Records that writes to files must be reported to the address space (see the field).
    pub(super) fn set_watches_file_writes(&mut self, on: bool) {
        self.watches_file_writes = on;
    }

    /// `true` if a write through a descriptor may have to drop translated code: such a
    /// write is served under the lock (`crate::syscall::io::file_changed`).
    #[inline]
    pub fn watches_file_writes(&self) -> bool {
        self.watches_file_writes
    }

    /// Adds a mapping whose first byte is at host address `host` (null: not inside one
    /// window); spans come in address order. `code_free`: for a writable and executable
    /// mapping, no instruction has been fetched from its pages.
    pub(super) fn push(&mut self, start: u64, end: u64, prot: Prot, eof: u64, host: *mut u8, code_free: bool) {
        if prot == Prot::NONE {
            return;
        }
        let rwx = prot.contains(Prot::WRITE | Prot::EXEC);
        self.spans.push(Span { start, end, prot, eof, host: host as usize, rwx, code_free });
    }

    /// The guest's data model (byte order, `long` width).
    #[inline]
    pub fn model(&self) -> DataModel {
        self.model
    }

    /// The host address of the `len` guest bytes at `addr` if they lie in one span of the
    /// view whose permissions include `need`, before the end of its file, and the view is
    /// current; `None`: ask the address space, under the lock. The span is not a view of an
    /// aliased file; if it is writable and executable, `need` with `WRITE` is granted only
    /// while no code was fetched from it, and the range is recorded for the caller's check
    /// after its stores ([`FillView::take_rwx_store`]); so a store there drops no translation.
    #[inline]
    pub fn host_range(&self, addr: u64, len: u64, need: Prot) -> Option<*mut u8> {
        if !self.current() || len == 0 {
            return None;
        }
        let i = self.spans.partition_point(|s| s.start <= addr).checked_sub(1)?;
        let s = self.spans[i];
        let end = addr.checked_add(len)?;
        let ok = s.host != 0 && end <= s.end && end <= s.eof && s.prot.as_enforced().contains(need);
        if ok && s.rwx && need.contains(Prot::WRITE) {
            if !s.code_free {
                return None;
            }
            let (lo, hi) = self.rwx_store.get().map_or((addr, end), |(a, b)| (a.min(addr), b.max(end)));
            self.rwx_store.set(Some((lo, hi)));
        }
        // Inside the span, whose host pages are one piece of a window's reservation.
        ok.then(|| (s.host + crate::abi::u64_to_usize(addr - s.start)) as *mut u8)
    }

    /// The host address of the `len` guest bytes at `addr` (page-aligned) if they lie in one
    /// span of the view that is not executable, before the end of its file, and the view is
    /// current: where `madvise` may act on the host's pages without the lock (discarding
    /// them drops no translation). `None`: ask the address space, under the lock.
    #[inline]
    pub fn advice_range(&self, addr: u64, len: u64) -> Option<*mut u8> {
        if !self.current() || len == 0 {
            return None;
        }
        let i = self.spans.partition_point(|s| s.start <= addr).checked_sub(1)?;
        let s = self.spans[i];
        let end = addr.checked_add(len)?;
        let ok = s.host != 0 && end <= s.end && end <= s.eof && !s.prot.contains(Prot::EXEC);
        ok.then(|| (s.host + crate::abi::u64_to_usize(addr - s.start)) as *mut u8)
    }

    /// The range that stores into writable and executable spans were granted for since the
    /// last call ([`FillView::host_range`]), and forgets it.
    #[inline]
    pub fn take_rwx_store(&self) -> Option<(u64, u64)> {
        self.rwx_store.take()
    }

    /// After stores into a writable and executable span made without the lock: `true` if the
    /// view went stale meanwhile, so another thread may have translated the bytes being
    /// replaced (it marks the page as code and moves the epoch before it translates), and
    /// the range's translations must be dropped under the lock. The fence orders the stores
    /// (the host kernel's included) before the epoch's load, against that thread's epoch move
    /// before its code loads.
    #[inline]
    pub fn rwx_store_seen(&self) -> bool {
        std::sync::atomic::fence(Ordering::SeqCst);
        !self.current()
    }

    /// `true` while no change to the address space happened since the view was built.
    #[inline]
    pub fn current(&self) -> bool {
        self.source.load(Ordering::Acquire) == self.epoch
    }

    /// The permissions of the TLB entry for `page` if the view answers for it (see the module
    /// doc); `None`: ask the locked fill.
    #[inline]
    pub fn fill(&self, page: u64, access: Prot) -> Option<Prot> {
        if !self.current() {
            return None;
        }
        let i = self.spans.partition_point(|s| s.start <= page).checked_sub(1)?;
        let s = self.spans[i];
        let prot = s.prot.as_enforced();
        (!s.rwx && page < s.end && page < s.eof && prot.contains(access)).then_some(prot)
    }

    /// A guest struct of `shape` at `addr` as the host's `T` ([`super::AddressSpace::read_shape`]
    /// through the view); `None`: the view cannot answer (stale, not one plain readable span,
    /// a host fault).
    pub fn read_shape<T: Plain>(&self, addr: u64, shape: &Shape) -> Option<T> {
        let size = thunk::size_of(shape, self.model);
        let mut raw = [0u8; 64];
        let raw = raw.get_mut(..size)?;
        let p = self.host_range(addr, size as u64, Prot::READ)?;
        // SAFETY: the view found the `size` bytes at `p` guest-readable; the caller's thread
        // runs guest code, so nothing takes them away meanwhile; a host fault fails the copy.
        unsafe { super::safe_copy::copy(raw.as_mut_ptr(), p, size) }.ok()?;
        let mut v = T::zeroed();
        // SAFETY: `Plain` types are valid for any byte pattern.
        let dst = unsafe { thunk::host_bytes_mut(&mut v) };
        if self.model == DataModel::HOST {
            let n = raw.len().min(dst.len());
            dst[..n].copy_from_slice(&raw[..n]);
        } else {
            thunk::convert(shape, self.model, raw, DataModel::HOST, dst);
        }
        Some(v)
    }

    /// The NUL-terminated guest string at `addr` without its NUL, at most `max` bytes long
    /// with it ([`super::AddressSpace::read_cstr`] through the view); `None`: the view cannot
    /// answer (stale, the string leaves one plain readable span, a host fault) or the string
    /// is too long (the address space answers `ENAMETOOLONG`).
    pub fn read_cstr(&self, addr: u64, max: usize) -> Option<Vec<u8>> {
        if !self.current() {
            return None;
        }
        let i = self.spans.partition_point(|s| s.start <= addr).checked_sub(1)?;
        let s = self.spans[i];
        if s.host == 0 || addr >= s.end.min(s.eof) || !s.prot.contains(Prot::READ) {
            return None;
        }
        let room = crate::abi::u64_to_usize(s.end.min(s.eof) - addr).min(max);
        let p = (s.host + crate::abi::u64_to_usize(addr - s.start)) as *const u8;
        let mut out = Vec::new();
        let mut chunk = [0u8; 256];
        while out.len() < room {
            let n = chunk.len().min(room - out.len());
            // SAFETY: the `room` bytes at `p` are guest-readable in one span; the caller's
            // thread runs guest code, so nothing takes them away meanwhile; a host fault
            // fails the copy.
            unsafe { super::safe_copy::copy(chunk.as_mut_ptr(), p.add(out.len()), n) }.ok()?;
            if let Some(nul) = chunk[..n].iter().position(|&b| b == 0) {
                out.extend_from_slice(&chunk[..nul]);
                return Some(out);
            }
            out.extend_from_slice(&chunk[..n]);
        }
        None
    }

    /// Copies the guest bytes at `addr` into `buf` if they lie in one plain readable span
    /// ([`Self::host_range`]); `None`: the view cannot answer (stale, outside it, a host
    /// fault).
    pub fn read_bytes(&self, addr: u64, buf: &mut [u8]) -> Option<()> {
        let p = self.host_range(addr, buf.len() as u64, Prot::READ)?;
        // SAFETY: the view found the bytes at `p` guest-readable; the caller's thread runs
        // guest code, so nothing takes them away meanwhile; a host fault fails the copy.
        unsafe { super::safe_copy::copy(buf.as_mut_ptr(), p, buf.len()) }.ok()
    }

    /// Reads `out.len()` guest `unsigned long`s (the guest's width and byte order) at `addr`
    /// if they lie in plain readable spans ([`Self::read_bytes`], 16 at a time); `None`: the
    /// view cannot answer.
    pub fn read_ulongs(&self, addr: u64, out: &mut [u64]) -> Option<()> {
        let long = usize::from(self.model.long_bytes);
        let mut at = addr;
        for part in out.chunks_mut(16) {
            let mut raw = [0u8; 128];
            let raw = raw.get_mut(..part.len() * long)?;
            self.read_bytes(at, raw)?;
            for (v, b) in part.iter_mut().zip(raw.chunks_exact(long)) {
                *v = match self.model.endian {
                    Endian::Big => b.iter().fold(0u64, |v, &x| v << 8 | u64::from(x)),
                    Endian::Little => b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x)),
                };
            }
            at = at.checked_add(raw.len() as u64)?;
        }
        Some(())
    }

    /// Stores `bytes` at guest `addr` if they lie in one plain writable span
    /// ([`Self::host_range`]); `None`: nothing was stored (stale view, outside the view, a
    /// host fault), ask the address space under the lock.
    pub fn write_bytes(&self, addr: u64, bytes: &[u8]) -> Option<()> {
        let p = self.host_range(addr, bytes.len() as u64, Prot::WRITE)?;
        // SAFETY: the view found the bytes at `p` guest-writable; the caller's thread runs
        // guest code, so nothing takes them away meanwhile; a host fault fails the copy.
        unsafe { super::safe_copy::copy(p, bytes.as_ptr(), bytes.len()) }.ok()
    }

    /// [`super::AddressSpace::store_range`] from the view (its spans leave out views of
    /// aliased files and writable executable mappings); `None` also when the view is stale.
    pub fn store_range(&self, addr: u64) -> Option<(u64, u64)> {
        if !self.current() {
            return None;
        }
        let i = self.spans.partition_point(|s| s.start <= addr).checked_sub(1)?;
        let store =
            |s: &Span| StoreSpan { start: s.start, end: s.end, eof: s.eof, ok: s.prot.contains(Prot::WRITE) && !s.rwx };
        store_run(
            addr,
            store(&self.spans[i]),
            self.spans[i + 1..].iter().map(store),
            self.spans[..i].iter().rev().map(store),
        )
    }
}

/// A mapping as [`store_run`] sees it: its span, the first address past the end of its file
/// (`u64::MAX`: none), and whether the guest may store anywhere in it without a check
/// (writable, not executable, not a view of an aliased file).
#[derive(Clone, Copy, Debug)]
pub(super) struct StoreSpan {
    pub start: u64,
    pub end: u64,
    pub eof: u64,
    pub ok: bool,
}

/// The range of neighbouring mappings around `addr` (in `here`) where a store needs no check
/// (unicorn patch 0045): `here` joined with the contiguous storable spans `after` it (in
/// address order) and `before` it (in reverse order), cut at the end of a file. `None` if
/// `addr` itself is not storable.
pub(super) fn store_run(
    addr: u64,
    here: StoreSpan,
    after: impl Iterator<Item = StoreSpan>,
    before: impl Iterator<Item = StoreSpan>,
) -> Option<(u64, u64)> {
    if !here.ok || addr < here.start || addr >= here.end || addr >= here.eof {
        return None;
    }
    let mut end = here.end.min(here.eof);
    if end == here.end {
        for n in after {
            if n.start != end || !n.ok {
                break;
            }
            end = n.end.min(n.eof);
            if end != n.end {
                break;
            }
        }
    }
    let mut start = here.start;
    for p in before {
        if p.end != start || !p.ok || p.eof < p.end {
            break;
        }
        start = p.start;
    }
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_plain_pages_until_the_epoch_moves() {
        let epoch = Arc::new(AtomicU64::new(7));
        let mut v = FillView::new(epoch.clone(), 7, DataModel::LP64_LE);
        v.push(0x1000, 0x3000, Prot::READ, u64::MAX, std::ptr::null_mut(), false);
        v.push(0x5000, 0x6000, Prot::READ | Prot::WRITE, u64::MAX, std::ptr::null_mut(), false);
        v.push(0x8000, 0xa000, Prot::READ | Prot::WRITE | Prot::EXEC, u64::MAX, std::ptr::null_mut(), false);
        v.push(0xa000, 0xc000, Prot::READ, 0xb000, std::ptr::null_mut(), false);
        assert_eq!(v.fill(0x2000, Prot::READ), Some(Prot::READ));
        assert_eq!(v.fill(0x2000, Prot::WRITE), None, "no write permission");
        assert_eq!(v.fill(0x3000, Prot::READ), None, "past the span");
        assert_eq!(v.fill(0x0, Prot::READ), None, "below every span");
        assert_eq!(v.fill(0x5000, Prot::WRITE), Some(Prot::READ | Prot::WRITE));
        assert_eq!(v.fill(0x8000, Prot::READ), None, "writable and executable: locked fill");
        assert_eq!(v.fill(0xa000, Prot::READ), Some(Prot::READ));
        assert_eq!(v.fill(0xb000, Prot::READ), None, "past the end of the file");
        epoch.fetch_add(1, Ordering::Release);
        assert_eq!(v.fill(0x2000, Prot::READ), None, "stale");
    }

    /// Store ranges (unicorn patch 0045): writable neighbours joined, up to a read-only span,
    /// a gap or the end of a file; nothing for a read-only address, nothing once stale.
    #[test]
    fn store_range_joins_writable_neighbours() {
        let epoch = Arc::new(AtomicU64::new(1));
        let mut v = FillView::new(epoch.clone(), 1, DataModel::LP64_LE);
        v.push(0x1000, 0x3000, Prot::READ | Prot::WRITE, u64::MAX, std::ptr::null_mut(), false);
        v.push(0x3000, 0x5000, Prot::READ | Prot::WRITE, u64::MAX, std::ptr::null_mut(), false);
        v.push(0x5000, 0x6000, Prot::READ, u64::MAX, std::ptr::null_mut(), false);
        v.push(0x6000, 0x9000, Prot::READ | Prot::WRITE, 0x8000, std::ptr::null_mut(), false);
        v.push(0x9000, 0xa000, Prot::READ | Prot::WRITE, u64::MAX, std::ptr::null_mut(), false);
        v.push(0xb000, 0xc000, Prot::READ | Prot::WRITE | Prot::EXEC, u64::MAX, std::ptr::null_mut(), false);
        assert_eq!(v.store_range(0x4ff8), Some((0x1000, 0x5000)));
        assert_eq!(v.store_range(0x1000), Some((0x1000, 0x5000)));
        assert_eq!(v.store_range(0x5000), None, "read-only");
        assert_eq!(v.store_range(0x6010), Some((0x6000, 0x8000)), "up to the end of the file");
        assert_eq!(v.store_range(0x8000), None, "past the end of the file");
        assert_eq!(v.store_range(0x9000), Some((0x9000, 0xa000)), "not joined across the file's end");
        assert_eq!(v.store_range(0xb000), None, "writable and executable");
        epoch.fetch_add(1, Ordering::Release);
        assert_eq!(v.store_range(0x2000), None, "stale");
    }

    /// Host addresses for hooks without the lock: inside one span with the permission,
    /// before the end of its file, never for a span outside a window or a stale view.
    #[test]
    fn host_range_stays_inside_one_span() {
        let epoch = Arc::new(AtomicU64::new(3));
        let mut v = FillView::new(epoch.clone(), 3, DataModel::LP64_LE);
        let mut host = vec![0u8; 0x4000];
        let h = host.as_mut_ptr();
        v.push(0x1000, 0x2000, Prot::READ | Prot::WRITE, u64::MAX, h, false);
        // SAFETY: inside `host`.
        v.push(0x2000, 0x4000, Prot::READ, 0x3000, unsafe { h.add(0x1000) }, false);
        v.push(0x4000, 0x5000, Prot::READ | Prot::WRITE, u64::MAX, std::ptr::null_mut(), false);
        assert_eq!(v.host_range(0x1ff0, 16, Prot::WRITE), Some(h.wrapping_add(0xff0)));
        assert_eq!(v.host_range(0x1ff8, 16, Prot::WRITE), None, "crosses into the next span");
        assert_eq!(v.host_range(0x2008, 8, Prot::WRITE), None, "read-only");
        assert_eq!(v.host_range(0x2008, 8, Prot::READ), Some(h.wrapping_add(0x1008)));
        assert_eq!(v.host_range(0x2ffc, 8, Prot::READ), None, "past the end of the file");
        assert_eq!(v.host_range(0x4000, 8, Prot::WRITE), None, "not inside one window");
        assert_eq!(v.host_range(0x800, 8, Prot::READ), None, "unmapped");
        assert_eq!(v.host_range(0x1000, 0, Prot::READ), None, "empty");
        epoch.fetch_add(1, Ordering::Release);
        assert_eq!(v.host_range(0x1ff0, 16, Prot::WRITE), None, "stale");
    }

    /// Writable and executable spans: never filled from the view; read as any span; stored to
    /// only while no code was fetched from them, each such store's range recorded for the
    /// caller's check and reported stale once the epoch moves.
    #[test]
    fn rwx_spans_take_copies_while_code_free() {
        let epoch = Arc::new(AtomicU64::new(9));
        let mut v = FillView::new(epoch.clone(), 9, DataModel::LP64_LE);
        let mut host = vec![0u8; 0x3000];
        let h = host.as_mut_ptr();
        let rwx = Prot::READ | Prot::WRITE | Prot::EXEC;
        v.push(0x1000, 0x2000, rwx, u64::MAX, h, true);
        // SAFETY: inside `host`.
        v.push(0x2000, 0x3000, rwx, u64::MAX, unsafe { h.add(0x1000) }, false);
        // SAFETY: inside `host`.
        v.push(0x3000, 0x4000, Prot::READ | Prot::WRITE, u64::MAX, unsafe { h.add(0x2000) }, false);
        assert_eq!(v.fill(0x1000, Prot::READ), None, "the locked fill keeps the code-page bookkeeping");
        assert_eq!(v.store_range(0x3000), Some((0x3000, 0x4000)), "not joined with a writable and executable span");
        assert_eq!(v.host_range(0x2010, 8, Prot::READ), Some(h.wrapping_add(0x1010)), "reads are plain");
        assert_eq!(v.take_rwx_store(), None, "reads are not recorded");
        assert_eq!(v.host_range(0x2010, 8, Prot::WRITE), None, "code was fetched from it");
        assert_eq!(v.host_range(0x3010, 8, Prot::WRITE), Some(h.wrapping_add(0x2010)));
        assert_eq!(v.take_rwx_store(), None, "not writable and executable");
        assert_eq!(v.host_range(0x1100, 16, Prot::WRITE), Some(h.wrapping_add(0x100)));
        assert_eq!(v.host_range(0x1020, 8, Prot::WRITE), Some(h.wrapping_add(0x20)));
        assert_eq!(v.take_rwx_store(), Some((0x1020, 0x1110)), "the stores' union");
        assert_eq!(v.take_rwx_store(), None, "taken");
        assert!(!v.rwx_store_seen());
        epoch.fetch_add(1, Ordering::Release);
        assert!(v.rwx_store_seen(), "the epoch moved: translations may have been made");
        drop(host);
    }

    /// Guest bytes for system calls without the lock: strings end at their NUL inside one
    /// readable span (never past it, nor past `max`), copies go to and from one span with
    /// the permission; a stale view answers nothing.
    #[test]
    fn strings_and_copies_stay_inside_one_span() {
        let epoch = Arc::new(AtomicU64::new(5));
        let mut v = FillView::new(epoch.clone(), 5, DataModel::LP64_LE);
        let mut host = vec![0u8; 0x3000];
        host[0x10..0x15].copy_from_slice(b"/tmp\0");
        host[0xff0..0x1000].fill(b'a');
        host[0x1000..0x1010].copy_from_slice(b"bcd\0efghijklmnop");
        let h = host.as_mut_ptr();
        v.push(0x1000, 0x2000, Prot::READ | Prot::WRITE, u64::MAX, h, false);
        // SAFETY: inside `host`.
        v.push(0x2000, 0x3000, Prot::READ, u64::MAX, unsafe { h.add(0x1000) }, false);
        assert_eq!(v.read_cstr(0x1010, 4096).as_deref(), Some(&b"/tmp"[..]));
        assert_eq!(v.read_cstr(0x1010, 4), None, "longer than max with its NUL");
        assert_eq!(v.read_cstr(0x1014, 4096).as_deref(), Some(&b""[..]), "the empty string");
        assert_eq!(v.read_cstr(0x1ff0, 4096), None, "runs into the next span");
        assert_eq!(v.read_cstr(0x800, 4096), None, "unmapped");
        let mut buf = [0u8; 3];
        assert_eq!(v.read_bytes(0x2000, &mut buf), Some(()));
        assert_eq!(&buf, b"bcd");
        assert_eq!(v.write_bytes(0x1020, b"xyz"), Some(()));
        assert_eq!(v.read_bytes(0x1020, &mut buf), Some(()));
        assert_eq!(&buf, b"xyz");
        assert_eq!(v.write_bytes(0x2000, b"xyz"), None, "read-only");
        assert_eq!(v.write_bytes(0x1ffe, b"xyz"), None, "crosses into the next span");
        assert!(!v.watches_file_writes());
        v.set_watches_file_writes(true);
        assert!(v.watches_file_writes());
        epoch.fetch_add(1, Ordering::Release);
        assert_eq!(v.read_cstr(0x1010, 4096), None, "stale");
        assert_eq!(v.read_bytes(0x2000, &mut buf), None, "stale");
        drop(host);
    }
}
