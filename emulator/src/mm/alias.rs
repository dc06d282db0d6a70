//! Shared views of one file whose pages one view executes and another writes.
//!
//! A JIT that keeps W^X maps one memory file twice (`memfd_create`, then `mmap` of it
//! `PROT_READ|PROT_WRITE` and `PROT_READ|PROT_EXEC`, both `MAP_SHARED`), stores its code
//! through the writable view and runs it through the executable one. x86 and s390x need no
//! cache flush before running stored code, so nothing tells an emulator that the code changed;
//! the engine sees self-modifying code only as a store to a page it translated from, and keeps
//! its translations under the guest "physical" address the TLB fill gives a page (guest virtual
//! elsewhere: `mm/mod.rs`, "Two kinds of address").
//!
//! So for a file page mapped `MAP_SHARED` both executable and writable (an *aliased* page, of
//! an *aliased* file: one with at least one executable and one writable shared mapping), the
//! TLB fill ([`AddressSpace::tlb_fill`]) gives every view's page one physical address, the
//! lowest guest page of a writable view of that file page ([`PageFill::phys`]: a host-writable
//! page, whose host memory is the same file page). Once an executable view's entry for a file
//! page has been made (code may run from it), the entries of its writable views are watched
//! ([`PageFill::watch`], unicorn patch 0039 `UC_PROT_STORE_WATCH`): every store through them
//! takes the engine's self-modifying-code path, which drops the translations of that physical
//! page and tells endgate's code-write callback (the other threads' instances drop theirs:
//! `guest::code_write_reported`). The first such entry makes every instance refill its TLB, the
//! filling one at once ([`AddressSpace::take_local_flush`]), so no unwatched entry for that
//! page is left; a writable view of pages no code ran from stores at full speed. Such views
//! take no direct stores (32-bit guests' table, [`AddressSpace::sync_store_table`]) and no
//! lock-free TLB fills ([`super::fill_view`]). Unicorn turns a range of guest addresses to
//! drop into one physical range from its first page, so ranges over aliased views are dropped
//! page by page ([`AddressSpace::split_for_aliases`]).
//!
//! A change to an aliased file's shared mappings (`mmap`, `munmap`, `mprotect`) may move a
//! page's physical address; every instance then refills its TLB, and if code may have run from
//! the file pages the changed mapping covers, drops all its translations (those made under the
//! old address could no longer be found to be dropped). A system call that writes a file with a
//! shared executable mapping (`write`, `pwrite64`, `writev`, `pwritev`, `pwritev2`,
//! `copy_file_range`, `sendfile`, `splice`, `fallocate`, `ftruncate`, `truncate`) drops the
//! translations of those mappings ([`AddressSpace::file_written`]); one that writes guest memory
//! of an aliased view (`read` into the writable view) drops those of its physical pages
//! (`AddressSpace::note_host_write`).
//!
//! A SysV shared-memory segment attached twice is one file too: `attach_sysv_shm` gives its
//! mappings the identity (`u64::MAX`, `shmid`), which no `stat` gives.
//!
//! Linux itself needs none of this: its views share the physical page and x86's instruction
//! fetch snoops stores. qemu-user 10.0.2 runs the old code in both cases (guest test
//! `code_alias`).

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{AddressSpace, Prot, Vma, PAGE_SIZE};

/// A file's `(st_dev, st_ino)`.
type FileId = (u64, u64);

/// One file's shared mappings.
#[derive(Debug, Default)]
struct FileViews {
    /// By (file offset, guest start): length and permissions.
    views: BTreeMap<(u64, u64), (u64, Prot)>,
    /// The longest view's length (a look-up by offset searches back that far).
    max_len: u64,
    /// How many views are executable, and how many writable.
    exec: u32,
    writable: u32,
}

impl FileViews {
    fn aliased(&self) -> bool {
        self.exec > 0 && self.writable > 0
    }

    /// The views covering file offset `off`: (guest address of that offset, permissions).
    fn covering(&self, off: u64) -> impl Iterator<Item = (u64, Prot)> + '_ {
        let lo = off.saturating_sub(self.max_len.saturating_sub(1));
        self.views
            .range((lo, 0)..=(off, u64::MAX))
            .filter(move |(&(o, _), &(len, _))| off - o < len)
            .map(move |(&(o, start), &(_, prot))| (start + (off - o), prot))
    }
}

/// The shared file mappings by file, and the aliased file pages code may have run from.
#[derive(Debug, Default)]
pub struct Views {
    files: HashMap<FileId, FileViews>,
    /// Aliased file pages (file, page-aligned offset) an executable view's entry was made for.
    ran: HashSet<(FileId, u64)>,
    /// How many files are aliased (a TLB fill looks no further while none is).
    aliased_files: usize,
    /// How many files have a shared executable mapping (file writes are then checked).
    exec_files: usize,
    /// A fill made the first watched entry of a page: the filling instance must drop its own
    /// TLB at once ([`AddressSpace::take_local_flush`]).
    flush_now: bool,
}

impl Views {
    /// `true` if some file is aliased (mapped shared both executable and writable).
    #[inline]
    pub(super) fn any_aliased(&self) -> bool {
        self.aliased_files != 0
    }

    /// `true` if file `id` has a shared executable and a shared writable mapping.
    #[inline]
    fn aliased(&self, id: FileId) -> bool {
        self.files.get(&id).is_some_and(FileViews::aliased)
    }

    fn add(&mut self, v: View, add: bool) {
        let (was_aliased, had_exec) = self.files.get(&v.id).map_or((false, false), |f| (f.aliased(), f.exec > 0));
        let f = self.files.entry(v.id).or_default();
        let (x, w) = (u32::from(v.prot.contains(Prot::EXEC)), u32::from(v.prot.contains(Prot::WRITE)));
        let len = v.end - v.start;
        if add {
            f.views.insert((v.offset, v.start), (len, v.prot));
            f.max_len = f.max_len.max(len);
            (f.exec, f.writable) = (f.exec + x, f.writable + w);
        } else {
            f.views.remove(&(v.offset, v.start));
            (f.exec, f.writable) = (f.exec.saturating_sub(x), f.writable.saturating_sub(w));
        }
        let (aliased, exec) = (f.aliased(), f.exec > 0);
        if f.views.is_empty() {
            self.files.remove(&v.id);
            self.ran.retain(|(f, _)| *f != v.id);
        }
        match (was_aliased, aliased) {
            (false, true) => self.aliased_files += 1,
            (true, false) => self.aliased_files -= 1,
            _ => {}
        }
        match (had_exec, exec) {
            (false, true) => self.exec_files += 1,
            (true, false) => self.exec_files -= 1,
            _ => {}
        }
    }
}

/// What the TLB fill gives a guest page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageFill {
    /// The guest's permissions for the page.
    pub prot: Prot,
    /// The guest physical address of the page: its own address, or for an aliased page the
    /// lowest guest page of a writable view of the same file page.
    pub phys: u64,
    /// Stores through the entry are watched (an aliased page's writable view, once code may
    /// have run from the page).
    pub watch: bool,
}

impl PageFill {
    /// The fill of a page at its own address, unwatched.
    pub fn plain(page: u64, prot: Prot) -> PageFill {
        PageFill { prot, phys: page, watch: false }
    }
}

/// The shared file mapping's file, if `v` is one.
fn shared_file(v: &Vma) -> Option<FileId> {
    v.file_id.filter(|_| v.shared)
}

/// What [`AddressSpace::views_changed`] needs of a shared file mapping.
#[derive(Clone, Copy, Debug)]
pub(super) struct View {
    start: u64,
    end: u64,
    offset: u64,
    prot: Prot,
    id: FileId,
}

impl View {
    /// The view `(start, v)` is, if it is a shared file mapping.
    pub(super) fn of(start: u64, v: &Vma) -> Option<View> {
        shared_file(v).map(|id| View { start, end: v.end, offset: v.offset, prot: v.prot, id })
    }
}

impl AddressSpace {
    /// `true` if the mapping `v` is a shared view of an aliased file (see the module doc).
    #[inline]
    pub(super) fn is_alias_view(&self, v: &Vma) -> bool {
        self.views.aliased_files != 0 && shared_file(v).is_some_and(|id| self.views.aliased(id))
    }

    /// For a page of an aliased file page that some view executes and some view writes: the
    /// file, the page's file offset and its physical address.
    fn alias_of(&self, page: u64) -> Option<(FileId, u64, u64)> {
        if self.views.aliased_files == 0 {
            return None;
        }
        let (start, v) = self.vma_at(page)?;
        let id = shared_file(v)?;
        let f = self.views.files.get(&id).filter(|f| f.aliased())?;
        let off = v.offset + (page - start);
        let mut exec = false;
        let mut lowest: Option<u64> = None;
        for (at, p) in f.covering(off) {
            exec |= p.contains(Prot::EXEC);
            if p.contains(Prot::WRITE) {
                lowest = Some(lowest.map_or(at, |l| l.min(at)));
            }
        }
        lowest.filter(|_| exec).map(|phys| (id, off, phys))
    }

    /// The physical address of `page` (see the module doc), for dropping its translations.
    pub(super) fn phys_of(&self, page: u64) -> u64 {
        self.alias_of(page).map_or(page, |(_, _, phys)| phys)
    }

    /// Where the TLB fill maps `page`, granted `prot` (see the module doc).
    pub(super) fn page_fill(&mut self, page: u64, prot: Prot) -> PageFill {
        let Some((id, off, phys)) = self.alias_of(page) else { return PageFill::plain(page, prot) };
        if prot.contains(Prot::EXEC) && self.views.ran.insert((id, off)) {
            // An entry that allows execution, for a fetch or not: code may run from the page
            // from now on, so every entry of its writable views must be watched. Instances
            // holding unwatched ones drop them, this one at once.
            self.invalidate.flush_tlb = true;
            self.views.flush_now = true;
        }
        let watch = prot.contains(Prot::WRITE) && self.views.ran.contains(&(id, off));
        PageFill { prot, phys, watch }
    }

    /// `true` once after a fill that made an entry some unwatched entry of this instance must
    /// not outlive: the caller drops its TLB before the new entry is made.
    pub fn take_local_flush(&mut self) -> bool {
        std::mem::take(&mut self.views.flush_now)
    }

    /// Keeps the views as the shared file mapping `v` comes (`add`) or goes, and makes what a
    /// change to an aliased file's views makes stale pending (see the module doc).
    pub(super) fn views_changed(&mut self, v: View, add: bool) {
        let before = self.views.aliased(v.id);
        self.views.add(v, add);
        let after = self.views.aliased(v.id);
        if !before && !after {
            return;
        }
        self.invalidate.flush_tlb = true;
        let (lo, hi) = (v.offset, v.offset + (v.end - v.start));
        if self.views.ran.iter().any(|&(f, off)| f == v.id && off >= lo && off < hi) {
            self.invalidate.flush_all = true;
        }
        if before != after {
            // The direct stores' table leaves out views of aliased files: re-made for them all
            // (the changed view's own range is the caller's).
            let views: Vec<(u64, u64)> = self
                .views
                .files
                .get(&v.id)
                .map(|f| f.views.iter().map(|(&(_, s), &(len, _))| (s, s + len)).collect())
                .unwrap_or_default();
            for (s, e) in views {
                self.sync_store_table(s, e);
            }
        }
    }

    /// A system call wrote file `id` (`(st_dev, st_ino)`): the translated code of its shared
    /// executable mappings is dropped.
    pub fn file_written(&mut self, id: FileId) {
        let Some(f) = self.views.files.get(&id).filter(|f| f.exec > 0) else { return };
        let code: Vec<(u64, u64)> = f
            .views
            .iter()
            .filter(|(_, (_, p))| p.contains(Prot::EXEC))
            .map(|(&(_, s), &(len, _))| (s, s + len))
            .collect();
        self.invalidate.code.extend(code);
    }

    /// `true` if a write to a file may have to drop translated code ([`Self::file_written`]).
    #[inline]
    pub fn watches_file_writes(&self) -> bool {
        self.views.exec_files != 0
    }

    /// `true` if `[start, end)` overlaps a view of an aliased file.
    pub(super) fn overlaps_alias_view(&self, start: u64, end: u64) -> bool {
        self.views.aliased_files != 0 && self.overlapping(start, end).any(|(_, v)| self.is_alias_view(v))
    }

    /// `ranges` of guest addresses whose translations are to be dropped, with those that
    /// overlap aliased views cut into pages: unicorn finds the physical range from the first
    /// page alone, and an aliased view's pages are not physically contiguous.
    pub fn split_for_aliases(&self, ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
        if self.views.aliased_files == 0 {
            return ranges;
        }
        let mut out = Vec::with_capacity(ranges.len());
        for (s, e) in ranges {
            if self.overlaps_alias_view(s, e) {
                let mut p = s & !(PAGE_SIZE - 1);
                while p < e {
                    out.push((p.max(s), (p + PAGE_SIZE).min(e)));
                    p += PAGE_SIZE;
                }
            } else {
                out.push((s, e));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::space;
    use super::super::{FileMap, Prot, VmaName};
    use super::PageFill;

    fn memfd(len: i64) -> i32 {
        // SAFETY: a NUL-terminated name; the descriptor is closed by the test.
        let fd = unsafe { libc::memfd_create(c"alias-test".as_ptr(), 0) };
        assert!(fd >= 0);
        // SAFETY: an open descriptor.
        assert_eq!(unsafe { libc::ftruncate(fd, len) }, 0);
        fd
    }

    fn shared(fd: i32, offset: u64) -> FileMap {
        FileMap { fd, offset, shared: true }
    }

    const RW: Prot = Prot(Prot::READ.0 | Prot::WRITE.0);
    const RX: Prot = Prot(Prot::READ.0 | Prot::EXEC.0);

    #[test]
    fn views_that_execute_and_write_share_the_writable_page() {
        let mut a = space();
        let fd = memfd(0x3000);
        let (w, x) = (0x40_0000, 0x50_0000);
        a.map_file(w, 0x3000, RW, VmaName::Anon, shared(fd, 0)).unwrap();
        assert_eq!(a.tlb_fill(w + 0x1000, Prot::WRITE), Some(PageFill::plain(w + 0x1000, RW)), "one view: plain");
        a.invalidate = Default::default();
        // The executable view covers the file's second and third pages.
        a.map_file(x, 0x2000, RX, VmaName::Anon, shared(fd, 0x1000)).unwrap();
        assert!(a.invalidate.flush_tlb && !a.invalidate.flush_all, "instances refill; no code ran yet");
        assert_eq!(
            a.tlb_fill(x, Prot::EXEC),
            Some(PageFill { prot: RX, phys: w + 0x1000, watch: false }),
            "the executable view's page is the writable view's"
        );
        assert_eq!(a.tlb_fill(w + 0x1000, Prot::WRITE), Some(PageFill { prot: RW, phys: w + 0x1000, watch: true }));
        assert_eq!(a.tlb_fill(w, Prot::WRITE), Some(PageFill::plain(w, RW)), "a file page no executable view has");
        // Code ran from the file's second page: a change to its views drops every translation.
        a.invalidate = Default::default();
        a.unmap(w, 0x3000).unwrap();
        assert!(a.invalidate.flush_all, "the physical page of code that ran moved");
        assert_eq!(a.tlb_fill(x, Prot::EXEC), Some(PageFill::plain(x, RX)), "alone again: plain");
        // SAFETY: the test's own descriptor.
        unsafe { libc::close(fd) };
    }

    #[test]
    fn a_write_to_a_file_with_a_shared_executable_view_drops_its_code() {
        let mut a = space();
        let fd = memfd(0x1000);
        assert!(!a.watches_file_writes());
        a.map_file(0x40_0000, 0x1000, RX, VmaName::Anon, shared(fd, 0)).unwrap();
        assert!(a.watches_file_writes());
        a.invalidate = Default::default();
        a.file_written(super::super::file_id(fd).unwrap());
        assert_eq!(a.invalidate.code, vec![(0x40_0000, 0x40_1000)]);
        // SAFETY: the test's own descriptor.
        unsafe { libc::close(fd) };
    }
}
