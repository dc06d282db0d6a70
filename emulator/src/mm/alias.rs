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
//! page, whose host memory is the same file page), and marks the entries of writable views
//! watched ([`PageFill::watch`], unicorn patch 0039 `UC_PROT_STORE_WATCH`): every store through
//! them takes the engine's self-modifying-code path, which drops the translations of that
//! physical page and tells endgate's code-write callback (the other threads' instances drop
//! theirs: `guest::code_write_reported`). Such views take no direct stores (32-bit guests'
//! table, [`AddressSpace::sync_store_table`]) and no lock-free TLB fills
//! ([`super::fill_view`]).
//!
//! A change to an aliased file's shared mappings (`mmap`, `munmap`, `mprotect`) may move a
//! page's physical address; every instance then refills its TLB, and if code had been run from
//! the file pages the changed mapping covers, drops all its translations (those made under the
//! old address could no longer be found to be dropped). A write by a system call into an
//! aliased-or-not file that has a shared executable mapping (`write`, `pwrite64`, `writev`,
//! `pwritev`, `pwritev2`) drops the translations of those mappings
//! ([`AddressSpace::file_written`]).
//!
//! Linux itself needs none of this: its views share the physical page and x86's instruction
//! fetch snoops stores. qemu-user 10.0.2 runs the old code in both cases (guest test
//! `code_alias`).

use std::collections::{HashMap, HashSet};

use super::{AddressSpace, Prot, Vma};

/// A file's `(st_dev, st_ino)`.
type FileId = (u64, u64);

/// The shared views of files, counted by kind, and the aliased file pages code ran from.
#[derive(Debug, Default)]
pub struct Views {
    /// Per file: its `MAP_SHARED` mappings that are executable, and that are writable.
    counts: HashMap<FileId, (u32, u32)>,
    /// Aliased file pages (file, page-aligned offset) instructions were fetched from.
    ran: HashSet<(FileId, u64)>,
    /// How many files are aliased (a TLB fill looks no further while none is).
    aliased_files: usize,
}

impl Views {
    /// `true` if file `id` has a shared executable and a shared writable mapping.
    #[inline]
    fn aliased(&self, id: FileId) -> bool {
        self.counts.get(&id).is_some_and(|&(x, w)| x > 0 && w > 0)
    }

    /// `true` if some file has a shared executable mapping (writes to files are then checked:
    /// [`AddressSpace::file_written`]).
    #[inline]
    pub fn any_shared_exec(&self) -> bool {
        self.counts.values().any(|&(x, _)| x > 0)
    }

    fn count(&mut self, id: FileId, prot: Prot, add: bool) {
        let before = self.aliased(id);
        let e = self.counts.entry(id).or_default();
        let (x, w) = (u32::from(prot.contains(Prot::EXEC)), u32::from(prot.contains(Prot::WRITE)));
        if add {
            *e = (e.0 + x, e.1 + w);
        } else {
            *e = (e.0.saturating_sub(x), e.1.saturating_sub(w));
        }
        if *e == (0, 0) {
            self.counts.remove(&id);
            self.ran.retain(|(f, _)| *f != id);
        }
        match (before, self.aliased(id)) {
            (false, true) => self.aliased_files += 1,
            (true, false) => self.aliased_files -= 1,
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
    /// Stores through the entry are watched (an aliased page's writable view).
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
        shared_file(v).is_some_and(|id| self.views.aliased(id))
    }

    /// Where the TLB fill maps `page`, granted `prot`; an instruction fetch (`access` `EXEC`)
    /// from an aliased page is remembered.
    pub(super) fn page_fill(&mut self, page: u64, prot: Prot, access: Prot) -> PageFill {
        if self.views.aliased_files == 0 {
            return PageFill::plain(page, prot);
        }
        let Some((start, v)) = self.vma_at(page) else { return PageFill::plain(page, prot) };
        let Some(id) = shared_file(v).filter(|&id| self.views.aliased(id)) else {
            return PageFill::plain(page, prot);
        };
        let off = v.offset + (page - start);
        let mut exec = false;
        let mut lowest: Option<u64> = None;
        for (&s, w) in &self.vmas {
            if shared_file(w) != Some(id) || off < w.offset || off - w.offset >= w.end - s {
                continue;
            }
            exec |= w.prot.contains(Prot::EXEC);
            if w.prot.contains(Prot::WRITE) && lowest.is_none() {
                // The map is in address order: the first writable view is the lowest.
                lowest = Some(s + (off - w.offset));
            }
        }
        let (Some(phys), true) = (lowest, exec) else {
            return PageFill::plain(page, prot);
        };
        if access == Prot::EXEC {
            self.views.ran.insert((id, off));
        }
        PageFill { prot, phys, watch: prot.contains(Prot::WRITE) }
    }

    /// Keeps the views' counts as the shared file mapping `v` comes (`add`) or goes, and makes
    /// what a change to an aliased file's views makes stale pending (see the module doc).
    pub(super) fn views_changed(&mut self, v: View, add: bool) {
        let before = self.views.aliased(v.id);
        self.views.count(v.id, v.prot, add);
        if !before && !self.views.aliased(v.id) {
            return;
        }
        self.invalidate.flush_tlb = true;
        let (lo, hi) = (v.offset, v.offset + (v.end - v.start));
        if self.views.ran.iter().any(|&(f, off)| f == v.id && off >= lo && off < hi) {
            self.invalidate.flush_all = true;
        }
        // The direct stores' table leaves out views of aliased files: re-made for them all.
        let views: Vec<(u64, u64)> =
            self.vmas.iter().filter(|(_, w)| shared_file(w) == Some(v.id)).map(|(&s, w)| (s, w.end)).collect();
        for (s, e) in views.into_iter().chain(std::iter::once((v.start, v.end))) {
            self.sync_store_table(s, e);
        }
    }

    /// A system call wrote file `id` (`(st_dev, st_ino)`): the translated code of its shared
    /// executable mappings is dropped.
    pub fn file_written(&mut self, id: FileId) {
        if self.views.counts.get(&id).is_none_or(|&(x, _)| x == 0) {
            return;
        }
        let code: Vec<(u64, u64)> = self
            .vmas
            .iter()
            .filter(|(_, w)| shared_file(w) == Some(id) && w.prot.contains(Prot::EXEC))
            .map(|(&s, w)| (s, w.end))
            .collect();
        self.invalidate.code.extend(code);
    }

    /// `true` if a write to a file may have to drop translated code ([`Self::file_written`]).
    #[inline]
    pub fn watches_file_writes(&self) -> bool {
        self.views.any_shared_exec()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AddressSpace, DataModel, FileMap, Layout, Prot, VmaName};
    use super::PageFill;

    fn space() -> AddressSpace {
        let layout = Layout {
            low_len: 1 << 30,
            dyn_base: 0x5555_5555_4000,
            dyn_len: 1 << 30,
            task_size: 0x7fff_ffff_f000,
            top_len: 1 << 30,
            fixed_page: None,
        };
        AddressSpace::new(layout, DataModel::LP64_LE).unwrap()
    }

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
