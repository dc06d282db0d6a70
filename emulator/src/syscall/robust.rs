//! Robust futex lists: what the kernel does with the list a thread gave `set_robust_list` when
//! the thread ends (kernel/futex/core.c `exit_robust_list`, `compat_exit_robust_list` for
//! 32-bit tasks, `handle_futex_death`, `fetch_robust_entry`), so that the next locker of a
//! robust mutex whose owner died gets `EOWNERDEAD` instead of waiting for good. It lives with
//! the system calls (`set_robust_list` records the lists: `super::process`, the PI futexes are
//! `super::futex`'s); the end of a thread calls it (`crate::task::exit`).
//!
//! # The list (include/uapi/linux/futex.h)
//! `struct robust_list { struct robust_list *next; }` and `struct robust_list_head { struct
//! robust_list list; long futex_offset; struct robust_list *list_op_pending; }`: guest `long`s
//! and pointers (8 bytes on the 64-bit guests, 4 on arm and i386, so 24 or 12 bytes in all,
//! which `set_robust_list` checked), in the guest's byte order (big-endian on s390x), read with
//! the address space's accessors ([`AddressSpace::read_ulong`], [`AddressSpace::read_slong`]).
//! `list.next` of the head starts a circular list of entries that ends when it comes back to
//! the head. Bit 0 of an entry pointer (each `next`, and `list_op_pending`) marks a PI futex;
//! the pointer is the rest. An entry's futex word is the 32-bit word at the entry's address plus
//! `futex_offset` (a signed `long`; on a 32-bit guest the sum is taken in 32 bits, as the
//! kernel's `compat_ptr(base + futex_offset)`). `list_op_pending` is the entry the thread was
//! adding or removing when it died (glibc sets it around the lock and unlock of a robust
//! mutex), possibly also on the list. The word: `FUTEX_WAITERS` (0x80000000), `FUTEX_OWNER_DIED`
//! (0x40000000), and the owner's thread id in `FUTEX_TID_MASK` (0x3fffffff).
//!
//! # The walk
//! Each entry of the list, at most `ROBUST_LIST_LIMIT` (2048: a circular or endless list stops
//! there), then `list_op_pending` if it is not NULL and was not met on the list:
//! - a word the dying thread owns (its owner field is the thread's id; guest thread ids are
//!   host thread ids) gets `FUTEX_OWNER_DIED` with its `FUTEX_WAITERS` bit kept and its owner
//!   cleared, by compare-and-swap on the word's host address (other guest threads, and other
//!   processes that map the page, change the word with host atomics meanwhile); if it had
//!   waiters and is not a PI futex, one waiter gets a shared `FUTEX_WAKE` (glibc waits on robust
//!   mutexes with shared futex operations for this reason);
//! - the pending entry of a non-PI futex whose word is 0 gets the wake without a change (the
//!   thread died between its unlock and its wake-up call, or was a woken waiter that died before
//!   it took the lock);
//! - other words are left alone;
//! - a misaligned word, one not mapped readable, or an owned one not mapped writable, and an
//!   entry pointer that cannot be read, end the walk, as the kernel gives up at its first failed
//!   user access. Nothing here can panic; no engine is called.
//!
//! PI futexes are the host kernel's (`crate::syscall::futex`): a waiter blocked in the host's
//! `FUTEX_LOCK_PI` waits on the host's PI state, owned by the dying host thread, which the host
//! kernel hands to the top waiter when that host thread ends (`exit_pi_state_list`, after this
//! walk, as in the kernel's `futex_cleanup`); the waiter keeps the `FUTEX_OWNER_DIED` this walk
//! set, so glibc's lock returns `EOWNERDEAD`. Without waiters the word is left ownerless with
//! `FUTEX_OWNER_DIED`, which the next `FUTEX_LOCK_PI` takes over keeping the bit (before,
//! the dead owner's id made the host answer `ESRCH`, and glibc aborted). The host kernel writes
//! the owner of a contended PI word in the host's byte order, so for a guest of the other byte
//! order a PI word whose owner is the dying thread in the host's order gets its bits in that
//! order.
//!
//! # When ([`crate::task::exit`])
//! - One thread's `exit` while others live on: its own list ([`thread_exiting`]), with the
//!   lock held, before its `CLONE_CHILD_CLEARTID` word is cleared (the kernel's
//!   `exit_mm_release`: `futex_exit_release`, then `mm_release`). The words change at once; the
//!   wake-ups wait ([`Wakes`]) until the thread's instance is gone, just before the
//!   `CLONE_CHILD_CLEARTID` wake-up, so that a woken waiter, like a joiner, finds nothing of
//!   the thread left (see `crate::task::exit`'s module doc about the descriptor the instance's
//!   end may open). Until then they are on record ([`OWED`]): if the process ends meanwhile,
//!   its end does them (a waiter in another process would sleep on otherwise).
//! - The end of the process (`exit_group`, the last thread's `exit`, a fatal signal endgate
//!   handles, an endgate failure), an `execve` (the kernel's `exec_mm_release` for the calling
//!   thread; the other threads die in `de_thread`, each walking its own list), and a `SIGKILL`
//!   the guest sends to its own process (which kills endgate at once): every live thread's
//!   list ([`process_ending`]), with the other threads stopped first, each thread's words
//!   matched against its own id. What matters then are words in memory shared with other
//!   processes (process-shared robust mutexes in `MAP_SHARED` memory).
//! - Not walked: a process the host kernel kills itself without endgate running (a `SIGKILL`
//!   from another process, a signal whose default action kills and that the guest does not
//!   handle), as a host process has no way to run code on those deaths.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use crate::guest::Task;
use crate::mm::{AddressSpace, Endian, GuestAddr, Prot};

/// A waiter waits on the word (include/uapi/linux/futex.h).
pub(super) const FUTEX_WAITERS: u32 = 0x8000_0000;
/// The owner died holding the lock.
pub(crate) const FUTEX_OWNER_DIED: u32 = 0x4000_0000;
/// The owner's thread id.
pub(crate) const FUTEX_TID_MASK: u32 = 0x3fff_ffff;
/// Most entries walked (include/uapi/linux/futex.h).
const ROBUST_LIST_LIMIT: usize = 2048;

/// Slots of [`OWED`].
const OWED_SLOTS: usize = 64;

/// The wake-ups threads that ended alone owe and have not done yet (their instances are still
/// going away): host addresses of futex words, 0 in a free slot. The end of the process does
/// them ([`process_ending`]), so that a waiter in another process is not left asleep when the
/// process ends meanwhile. Atomics, not a lock: the owing thread takes its slots back without
/// the guest lock, and a `fork` child must find nothing held.
static OWED: [AtomicUsize; OWED_SLOTS] = [const { AtomicUsize::new(0) }; OWED_SLOTS];

/// Wake-ups a thread that ends alone owes ([`thread_exiting`]), for once its instance is gone
/// ([`Wakes::wake`]): slots of [`OWED`], and the host addresses of words no slot was free for.
#[must_use = "the waiters of the robust futexes stay asleep unless `wake` is called"]
pub struct Wakes {
    slots: Vec<usize>,
    more: Vec<usize>,
}

impl Wakes {
    /// Does the wake-ups the slots still hold (the end of the process may have done them) and
    /// the others. Needs no lock.
    pub fn wake(self) {
        let held = self.slots.iter().filter_map(|&i| OWED.get(i)).map(|s| s.swap(0, Ordering::SeqCst));
        wake(held.chain(self.more).filter(|&w| w != 0));
    }
}

/// One shared `FUTEX_WAKE` of one waiter on each word (host addresses). If another thread
/// unmapped a word meanwhile the host answers `EFAULT`, which is ignored (the kernel ignores
/// its wake failing), and a wake-up of a word reused since is a spurious one, which futex users
/// expect.
fn wake(words: impl Iterator<Item = usize>) {
    for w in words {
        // SAFETY: a host address of a guest futex word (a futex call faults nothing: a bad
        // address is EFAULT); FUTEX_WAKE takes no other pointers.
        unsafe { libc::syscall(libc::SYS_futex, w, libc::FUTEX_WAKE, 1, 0usize, 0usize, 0u32) };
    }
}

/// The list of the calling thread `t`, which ends alone (its process lives on), with the lock
/// held: the words it owned are marked now; the wake-ups are returned for once its instance is
/// gone.
pub fn thread_exiting(t: &Task) -> Wakes {
    let mut words = Vec::new();
    walk(&t.mm, t.robust_list.0, crate::thread::gettid(), &mut words);
    let mut owed = Wakes { slots: Vec::new(), more: Vec::new() };
    for w in words {
        match OWED.iter().position(|s| s.compare_exchange(0, w, Ordering::SeqCst, Ordering::SeqCst).is_ok()) {
            Some(i) => owed.slots.push(i),
            None => owed.more.push(w),
        }
    }
    owed
}

/// The lists of every thread of the process, which ends (or whose threads all end, for
/// `execve`), called by thread `t` with the lock held: the other threads stop running guest
/// code first (they cannot change their lists after the walk), then each list is walked for
/// its own thread, and the waiters are woken, with those that threads which ended alone still
/// owe.
pub fn process_ending(t: &Task) {
    crate::thread::running::quiesce();
    let me = crate::thread::gettid();
    let mut lists = crate::thread::robust_heads_now();
    lists.retain(|&(tid, _)| tid != me);
    lists.push((me, t.robust_list.0));
    let mut words = Vec::new();
    for (tid, head) in lists {
        walk(&t.mm, head, tid, &mut words);
    }
    let owed = OWED.iter().map(|s| s.swap(0, Ordering::SeqCst)).filter(|&w| w != 0);
    wake(words.into_iter().chain(owed));
}

/// In the child of a `fork`: the wake-ups the parent's ending threads owe are theirs to do.
pub fn after_fork_child() {
    for s in &OWED {
        s.store(0, Ordering::SeqCst);
    }
}

/// Walks the list at guest `head` (0: none) of the thread `tid` (see the module doc).
fn walk(mm: &AddressSpace, head: u64, tid: i32, wakes: &mut Vec<usize>) {
    let Ok(tid) = u32::try_from(tid) else { return };
    if head == 0 {
        return;
    }
    let long = mm.long_bytes();
    let head = GuestAddr::new(head);
    let Ok(first) = mm.read_ulong(head) else { return };
    let Ok(offset) = mm.read_slong(head + long) else { return };
    let Ok(pending) = mm.read_ulong(head + 2 * long) else { return };
    // The word of the entry at `entry`: `long`-sized pointer arithmetic.
    let word_of = |entry: u64| {
        let a = entry.wrapping_add(crate::abi::bits64(offset));
        if long == 4 {
            a & 0xffff_ffff
        } else {
            a
        }
    };
    let (pending, pending_pi) = (pending & !1, pending & 1 != 0);
    let (mut entry, mut pi) = (first & !1, first & 1 != 0);
    let mut limit = ROBUST_LIST_LIMIT;
    while entry != head.get() {
        // The next entry is read before the word changes, as the kernel does.
        let next = mm.read_ulong(GuestAddr::new(entry));
        if entry != pending && !owner_died(mm, word_of(entry), tid, pi, false, wakes) {
            return;
        }
        let Ok(next) = next else { return };
        (entry, pi) = (next & !1, next & 1 != 0);
        limit -= 1;
        if limit == 0 {
            break;
        }
    }
    if pending != 0 {
        owner_died(mm, word_of(pending), tid, pending_pi, true, wakes);
    }
}

/// One entry's futex word at guest `addr` (`handle_futex_death`): marks it if thread `tid`
/// owns it, and adds the wake-up it needs to `wakes`. `pending`: the entry is
/// `list_op_pending`. `false` when the walk must stop (the word is misaligned, or cannot be
/// read, or is owned but cannot be written).
fn owner_died(mm: &AddressSpace, addr: u64, tid: u32, pi: bool, pending: bool, wakes: &mut Vec<usize>) -> bool {
    if addr % 4 != 0 {
        return false;
    }
    let at = GuestAddr::new(addr);
    let Ok(host) = mm.host_range(at, 4, Prot::READ) else { return false };
    let swap = mm.endian() != Endian::HOST;
    // SAFETY: the checked, 4-byte aligned host address of a mapped guest word (guest pages are
    // host pages at least as aligned); other threads and processes change it only atomically,
    // and it stays mapped while the caller holds the lock (unmapping needs the lock).
    let word = unsafe { AtomicU32::from_ptr(host.cast()) };
    let mut raw = word.load(Ordering::SeqCst);
    loop {
        let value = if swap { raw.swap_bytes() } else { raw };
        if pending && !pi && value == 0 {
            wakes.push(host as usize);
            return true;
        }
        // The byte order the owner is in: the guest's, or for a PI word of a guest of the
        // other byte order the host's (the host kernel wrote it; see the module doc).
        let in_order = if value & FUTEX_TID_MASK == tid {
            swap
        } else if pi && swap && raw & FUTEX_TID_MASK == tid {
            false
        } else {
            return true;
        };
        // Owned: the word must be writable (the host page of a read-only guest page may be
        // read-only too).
        if mm.host_range(at, 4, Prot::WRITE).is_err() {
            return false;
        }
        let old = if in_order { raw.swap_bytes() } else { raw };
        let new = (old & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
        let new_raw = if in_order { new.swap_bytes() } else { new };
        match word.compare_exchange(raw, new_raw, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => {
                // PI waiters are woken by the host kernel when the owner's host thread ends.
                if !pi && old & FUTEX_WAITERS != 0 {
                    wakes.push(host as usize);
                }
                return true;
            }
            Err(now) => raw = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mm::{DataModel, Layout, VmaName};

    /// A thread id no word below holds by chance.
    const TID: i32 = 4321;
    /// Where the list lives: a page for the head and entries, words at `entry + OFFSET`.
    const PAGE: u64 = 0x40_0000;
    /// glibc's `futex_offset` is negative (the lock word comes before the list links).
    const OFFSET: i64 = -16;

    fn space(model: DataModel) -> AddressSpace {
        let layout = Layout {
            low_len: 1 << 30,
            dyn_base: 0x5555_5555_4000,
            dyn_len: 1 << 30,
            task_size: if model.is_64bit() { 0x7fff_ffff_f000 } else { 1 << 32 },
            stack_top: if model.is_64bit() { 0x7fff_ffff_f000 } else { 1 << 32 },
            top_len: 1 << 28,
            fixed_page: None,
        };
        let mut a = AddressSpace::new(layout, model).unwrap();
        a.map_anon(PAGE, 0x2000, Prot::READ | Prot::WRITE, VmaName::Anon).unwrap();
        a
    }

    /// Writes the head at `PAGE` and links `entries` (address, PI) after it, circularly.
    fn list(a: &mut AddressSpace, entries: &[(u64, bool)], pending: u64) {
        let long = a.long_bytes();
        let head = GuestAddr::new(PAGE);
        let mut prev = head;
        for &(e, pi) in entries {
            a.write_ulong(prev, e | u64::from(pi)).unwrap();
            prev = GuestAddr::new(e);
        }
        a.write_ulong(prev, PAGE).unwrap();
        a.write_ulong(head + long, crate::abi::bits64(OFFSET)).unwrap();
        a.write_ulong(head + 2 * long, pending).unwrap();
    }

    fn word_at(entry: u64) -> GuestAddr {
        GuestAddr::new(entry.wrapping_add(crate::abi::bits64(OFFSET)))
    }

    fn owned(tid: i32) -> u32 {
        crate::abi::low32(tid)
    }

    /// Every model: owned words get OWNER_DIED (waiters kept), others stay, a non-PI word with
    /// waiters owes a wake-up and a PI one none, the pending entry met on the list is done once.
    #[test]
    fn owned_words_get_owner_died_in_the_guests_byte_order() {
        for model in [DataModel::LP64_LE, DataModel::LP64_BE, DataModel::ILP32_LE] {
            let mut a = space(model);
            let e = [PAGE + 0x100, PAGE + 0x200, PAGE + 0x300, PAGE + 0x400];
            list(&mut a, &[(e[0], false), (e[1], true), (e[2], false), (e[3], false)], e[0]);
            a.write_u32(word_at(e[0]), owned(TID)).unwrap();
            a.write_u32(word_at(e[1]), owned(TID) | FUTEX_WAITERS).unwrap();
            a.write_u32(word_at(e[2]), owned(TID + 1) | FUTEX_WAITERS).unwrap();
            a.write_u32(word_at(e[3]), owned(TID) | FUTEX_WAITERS).unwrap();
            let mut wakes = Vec::new();
            walk(&a, PAGE, TID, &mut wakes);
            assert_eq!(a.read_u32(word_at(e[0])), Ok(FUTEX_OWNER_DIED), "{model:?}");
            assert_eq!(a.read_u32(word_at(e[1])), Ok(FUTEX_OWNER_DIED | FUTEX_WAITERS), "{model:?}");
            assert_eq!(a.read_u32(word_at(e[2])), Ok(owned(TID + 1) | FUTEX_WAITERS), "{model:?}");
            assert_eq!(a.read_u32(word_at(e[3])), Ok(FUTEX_OWNER_DIED | FUTEX_WAITERS), "{model:?}");
            let host = a.host_range(word_at(e[3]), 4, Prot::READ).unwrap() as usize;
            assert_eq!(wakes, vec![host], "{model:?}");
            wake(wakes.into_iter());
        }
    }

    /// A list that never comes back to its head ends after ROBUST_LIST_LIMIT entries; an
    /// unreadable next pointer ends the walk after its entry; NULL head: nothing.
    #[test]
    fn endless_and_broken_lists_end() {
        let mut a = space(DataModel::LP64_LE);
        let e = PAGE + 0x100;
        // The entry points at itself.
        a.write_ulong(GuestAddr::new(PAGE), e).unwrap();
        a.write_ulong(GuestAddr::new(e), e).unwrap();
        a.write_ulong(GuestAddr::new(PAGE + 8), crate::abi::bits64(OFFSET)).unwrap();
        a.write_u32(word_at(e), owned(TID)).unwrap();
        let mut wakes = Vec::new();
        walk(&a, PAGE, TID, &mut wakes);
        assert_eq!(a.read_u32(word_at(e)), Ok(FUTEX_OWNER_DIED));
        // Next pointer into unmapped memory after an owned entry.
        let mut a = space(DataModel::LP64_LE);
        list(&mut a, &[(e, false)], 0);
        a.write_ulong(GuestAddr::new(e), 0x10_0000).unwrap();
        a.write_u32(word_at(e), owned(TID)).unwrap();
        walk(&a, PAGE, TID, &mut wakes);
        assert_eq!(a.read_u32(word_at(e)), Ok(FUTEX_OWNER_DIED));
        walk(&a, 0, TID, &mut wakes);
        walk(&a, 0x10_0000, TID, &mut wakes);
        assert!(wakes.is_empty());
    }

    /// A misaligned word or an owned read-only one ends the walk (the entries after it stay);
    /// a pending non-PI entry whose word is 0 owes a wake-up only.
    #[test]
    fn faults_end_the_walk_and_a_free_pending_word_is_woken() {
        let mut a = space(DataModel::LP64_LE);
        let e = [PAGE + 0x1100, PAGE + 0x200, PAGE + 0x301];
        list(&mut a, &[(e[0], false), (e[1], false)], 0);
        a.write_u32(word_at(e[0]), owned(TID)).unwrap();
        a.write_u32(word_at(e[1]), owned(TID)).unwrap();
        a.protect(PAGE + 0x1000, 0x1000, Prot::READ).unwrap();
        let mut wakes = Vec::new();
        walk(&a, PAGE, TID, &mut wakes);
        assert_eq!(a.read_u32(word_at(e[0])), Ok(owned(TID)));
        assert_eq!(a.read_u32(word_at(e[1])), Ok(owned(TID)));
        list(&mut a, &[(e[2], false), (e[1], false)], 0);
        walk(&a, PAGE, TID, &mut wakes);
        assert_eq!(a.read_u32(word_at(e[1])), Ok(owned(TID)));
        assert!(wakes.is_empty());
        list(&mut a, &[], e[1]);
        a.write_u32(word_at(e[1]), 0).unwrap();
        walk(&a, PAGE, TID, &mut wakes);
        assert_eq!(a.read_u32(word_at(e[1])), Ok(0));
        assert_eq!(wakes.len(), 1);
    }

    /// A PI word of a big-endian guest whose owner the host kernel wrote in its own byte order.
    #[test]
    fn a_pi_word_the_host_wrote_is_marked_in_the_hosts_order() {
        let mut a = space(DataModel::LP64_BE);
        let e = PAGE + 0x100;
        list(&mut a, &[(e, true)], 0);
        // The host's bytes: the guest reads them swapped.
        a.write_u32(word_at(e), (owned(TID) | FUTEX_WAITERS).swap_bytes()).unwrap();
        let mut wakes = Vec::new();
        walk(&a, PAGE, TID, &mut wakes);
        assert_eq!(a.read_u32(word_at(e)), Ok((FUTEX_OWNER_DIED | FUTEX_WAITERS).swap_bytes()));
        assert!(wakes.is_empty());
    }
}
