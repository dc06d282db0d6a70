//! Stale translations in the other threads' instances (a TLB shootdown, in kernel terms).
//!
//! Every guest thread has its own unicorn instance, with its own TLB and its own cache of
//! translated code. When one thread changes a mapping (`munmap`, `mprotect`, `mremap`, `mmap`
//! over existing pages) or the host writes code pages, the [`Invalidate`] work is applied to
//! that thread's instance at once (`guest::apply_invalidate`) and also *published* here under
//! a new generation number. Each thread remembers the last generation it applied and, before
//! its guest code runs again, applies every entry published after it; a thread so far behind
//! that its entries were dropped from the log flushes everything instead.
//!
//! While the process has one thread nothing is logged (a thread created later starts with an
//! empty instance at the current generation).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::Invalidate;

/// Entries kept; a thread further behind flushes its whole TLB and code cache.
const LOG_LEN: usize = 256;

/// What [`Shootdown::since`] says a thread must drop.
#[derive(Debug, Default)]
pub struct Catchup {
    /// The published work since the thread's generation, merged.
    pub inv: Invalidate,
    /// The log no longer reaches back that far: drop all translated code.
    pub flush_all: bool,
}

/// The log of published invalidations (one per address space).
#[derive(Debug, Default)]
pub struct Shootdown {
    generation: u64,
    log: VecDeque<(u64, Invalidate)>,
    /// The address space's epoch (`super::fill_view`): moves with every publication and every
    /// change to the mappings.
    pub(super) epoch: Arc<AtomicU64>,
}

impl Shootdown {
    /// The current generation (the number of the last published entry).
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Publishes `inv` for the other threads; returns the new generation.
    pub fn publish(&mut self, inv: &Invalidate) -> u64 {
        self.generation += 1;
        self.epoch.fetch_add(1, Ordering::Release);
        if self.log.len() == LOG_LEN {
            self.log.pop_front();
        }
        self.log.push_back((self.generation, inv.clone()));
        self.generation
    }

    /// Everything published after generation `applied`.
    pub fn since(&self, applied: u64) -> Catchup {
        let mut out = Catchup::default();
        if applied >= self.generation {
            return out;
        }
        let oldest = self.log.front().map_or(u64::MAX, |e| e.0);
        if oldest > applied + 1 {
            out.flush_all = true;
            out.inv.flush_tlb = true;
            return out;
        }
        for (_, inv) in self.log.iter().filter(|e| e.0 > applied) {
            out.flush_all |= inv.flush_all;
            out.inv.merge(inv);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catches_up_or_flushes_all() {
        let mut s = Shootdown::default();
        let g0 = s.generation();
        s.publish(&Invalidate {
            flush_tlb: false,
            tlb: vec![(0x1000, 0x3000)],
            code: vec![(0x1000, 0x2000)],
            flush_all: false,
        });
        s.publish(&Invalidate { tlb: vec![(0x8000, 0x9000)], code: vec![(0x5000, 0x6000)], ..Default::default() });
        let c = s.since(g0);
        assert!(!c.inv.flush_tlb && !c.flush_all);
        assert_eq!(c.inv.tlb, vec![(0x1000, 0x3000), (0x8000, 0x9000)], "ranges merged, not a whole flush");
        assert_eq!(c.inv.code, vec![(0x1000, 0x2000), (0x5000, 0x6000)]);
        s.publish(&Invalidate { flush_tlb: true, ..Default::default() });
        let c = s.since(g0);
        assert!(c.inv.flush_tlb && c.inv.tlb.is_empty(), "a whole flush takes the ranges' place");
        assert!(!s.since(s.generation()).inv.pending());
        for _ in 0..LOG_LEN {
            s.publish(&Invalidate { flush_tlb: true, ..Default::default() });
        }
        assert!(s.since(g0).flush_all);
    }
}
