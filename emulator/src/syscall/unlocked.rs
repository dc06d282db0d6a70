//! System calls served without the global guest lock.
//!
//! While guest threads run in parallel (`crate::thread::running`), every system call used to
//! take the global guest lock (`crate::thread::lock`) at entry, even one that touches nothing
//! the lock protects. With more threads than cores that is a queue: each hand-off to a
//! sleeping waiter costs a host futex wake and the waiter's wake-up, while the lock stays
//! with it (32 threads calling `sched_yield` took 2.1-2.4 s on two idle cores where
//! qemu-user 10.0.2 took 0.15 s; a Go program with `GOMAXPROCS=4` made 69,000 host futex calls
//! for the lock beside its own 6,900).
//!
//! A row of the table with an unlocked handler ([`super::SyscallDef::unlocked`]) is first
//! offered to it, without the lock. Such a handler sees the call's arguments and the
//! calling thread's copy of the mappings ([`crate::mm::fill_view::FillView`], the one the
//! TLB fill uses without the lock) and nothing else of the process: no `Task`, no address
//! space. It answers `None` whenever it cannot serve the call that way (a stale copy, a
//! buffer outside its plain spans, a host fault, a case it leaves to the full handler), and
//! the call is then served as every other, under the lock. The calling thread counts as
//! running guest code meanwhile, as in an unlocked TLB fill: a change that takes pages away
//! waits for it (`running::quiesce`), so the host pages behind the view stay.
//!
//! A handler may also see the arch's description and the process's options (both fixed
//! while threads exist). A call that may wait (a futex wait, a sleep, a `read` of a pipe)
//! waits through [`Ctx::blocking_syscall`], as a thread not running guest code, so a change
//! that takes pages away goes ahead meanwhile; the handler touches no guest memory after it.
//!
//! Descriptor calls (`read`, `write`, `readv`, `writev`, `pread64`, `pwrite64`, `preadv`,
//! `pwritev`, `send` and `recv` also as `sendto`/`recvfrom` without an address and through
//! `socketcall`, `close`, `lseek`, `fstat`, `newfstatat`, `statx`, `openat`, `readlinkat`,
//! `readlink`, `getdents64`, `epoll_ctl`, an `epoll_pwait` that does not wait; `madvise`
//! of non-executable memory; `tgkill` and `tkill`) are served so
//! while nothing of the process needs converting or watching ([`Ctx::io_view`]): no netlink
//! socket, signalfd or `/proc/self/pagemap` opened, no shared executable mapping of a file
//! (whose writes drop translations), no `--root` and no path endgate answers itself
//! (`/proc/self/exe`, endgate's own `/proc` files). Anything else is served under the lock as
//! before.
//!
//! The unlocked path is skipped whenever something watches or judges calls (`--strace`, a
//! tool's hooks, seccomp, a debugger's `catch syscall`, `--fakeroot`'s ids), when this
//! thread has stores to code not yet published, and for any call while the thread holds the
//! lock (one thread, serial mode).

use super::{DispatchTable, SysResult, SyscallArgs};
use crate::guard::Checked;
use crate::guest::Cpu;
use crate::mm::fill_view::FillView;

/// What an unlocked handler may use: the thread's copy of the mappings, if it has one that is
/// still current (guest bytes: [`FillView::host_range`], [`FillView::read_shape`]), and
/// [`Ctx::blocking_syscall`] for a host call that may wait.
pub struct Ctx<'a> {
    /// The thread's copy of the mappings, while current.
    pub view: Option<&'a FillView>,
    /// The guest's arch.
    pub arch: &'static dyn crate::guest::GuestArch,
    /// The process's options (`-L` sysroot…).
    pub opts: &'a crate::guest::Options,
    /// The handler made a host call that may wait ([`Ctx::blocking_syscall`]).
    blocked: std::cell::Cell<bool>,
    /// Work the call needs under the lock if the mappings changed while it waited
    /// ([`Ctx::if_mappings_changed`]).
    if_changed: std::cell::Cell<Option<AfterChange>>,
    /// Work the call needs under the lock once it is over ([`Ctx::then_locked`]).
    then: std::cell::Cell<Option<AfterChange>>,
}

/// Work under the lock after a call that waited while the mappings changed: the thread's
/// instance, the call's arguments and its result.
pub type AfterChange = fn(&mut Cpu<'_>, &SyscallArgs, &SysResult);

impl Ctx<'_> {
    /// Asks for `f` to run under the lock after the call if the mappings changed while it
    /// waited in [`Ctx::blocking_syscall`] (a `write` that a new shared executable mapping of
    /// its file began to watch meanwhile must drop that mapping's translations).
    pub fn if_mappings_changed(&self, f: AfterChange) {
        self.if_changed.set(Some(f));
    }

    /// Asks for `f` to run under the lock once the call is over, whatever happened meanwhile
    /// (a result in guest memory that needs converting after all, which the handler may not
    /// touch itself after a call that waited).
    pub fn then_locked(&self, f: AfterChange) {
        self.then.set(Some(f));
    }

    /// The thread's view, for a descriptor call whose data passes between the host and the
    /// guest as it is: no descriptor in the process whose data endgate converts or answers
    /// itself (netlink messages for this guest, signalfd records, `/proc/self/pagemap`; for a
    /// guest of the other byte order also inotify and fanotify events). A transfer of 8
    /// bytes by such a guest may be an eventfd's or timerfd's counter: see [`Ctx::plain_transfer`].
    pub fn io_view(&self) -> Option<&FillView> {
        let v = self.view?;
        let endian = v.model().endian;
        let plain = (endian == crate::mm::Endian::HOST || !(super::inotify::made() || super::fanotify::made()))
            && super::netlink::never_converts(self.arch, endian)
            && !super::signalfd::made()
            && !super::procfs::any_pagemap();
        plain.then_some(v)
    }

    /// `true` if `count` bytes read or written through a descriptor pass as they are for the
    /// guest of `view` whatever the descriptor: an 8-byte transfer of a guest of the other
    /// byte order may carry an eventfd's or timerfd's counter, which `super::io` swaps under
    /// the lock (it asks what the descriptor is first).
    pub fn plain_transfer(view: &FillView, count: u64) -> bool {
        view.model().endian == crate::mm::Endian::HOST || count != 8
    }

    /// A host system call that may wait (a futex wait, a sleep), as
    /// [`super::blocking_syscall`] makes it: a guest signal that arrives before it starts
    /// makes it return `EINTR` (`host_shims::safe_syscall`); returns as `libc::syscall` does.
    /// The thread counts as not running guest code meanwhile, so a change that takes pages
    /// away need not wait for it; the handler must not touch guest memory afterwards (its
    /// pointers may be stale), and the dispatcher brings the thread back
    /// ([`crate::thread::running::enter_guest_unlocked`], or under the lock).
    pub fn blocking_syscall(&self, nr: libc::c_long, args: &[u64]) -> i64 {
        let mut six = [0u64; 6];
        six[..args.len()].copy_from_slice(args);
        let pending = crate::signal::host::recorded_counters();
        crate::thread::running::leave_guest();
        self.blocked.set(true);
        // SAFETY: the caller passes arguments valid for `nr`; `pending` is this thread's.
        let r = unsafe { super::interruptible_syscall(pending, nr, six) };
        if (-4095..0).contains(&r) {
            // SAFETY: glibc's thread-local errno.
            unsafe { *libc::__errno_location() = crate::abi::int32(-r) };
            -1
        } else {
            r
        }
    }
}

/// A handler without the lock: the call's result, or `None` for "serve it under the lock".
pub type Handler = fn(&Ctx<'_>, &SyscallArgs) -> Option<SysResult>;

/// Serves `args` through its row's unlocked handler if it has one and the call may go
/// without the lock; `Some(stopped)` as [`super::serve_locked`] answers, `None`: serve it
/// under the lock. Out of line: the trap hooks of a single-threaded guest, which never come
/// here, keep their frame as it was.
#[inline(never)]
pub(super) fn serve(cpu: &mut Cpu<'_>, args: &mut SyscallArgs) -> Option<bool> {
    let t = cpu.get_data();
    let arch = t.arch;
    let def = DispatchTable::of(arch).get(args.nr)?;
    if def.unlocked.is_none() && def.host_id.is_none() {
        return None;
    }
    if t.opts.strace
        || crate::guest::tool::get().is_some()
        || super::seccomp::active()
        || super::fakeroot::on()
        || super::catching()
        || crate::guest::code_writes_pending()
    {
        return None;
    }
    if def.args.len() > 3 {
        arch.syscall_args_rest(cpu, args);
    }
    let t = cpu.get_data();
    let ctx = Ctx {
        view: t.fill_view.as_ref().filter(|v| v.current()),
        arch,
        opts: &t.opts,
        blocked: std::cell::Cell::new(false),
        if_changed: std::cell::Cell::new(None),
        then: std::cell::Cell::new(None),
    };
    if super::on_own_fd(def, args) {
        // `EBADF`, from the full handler.
        return None;
    }
    let result = match (def.host_id, def.unlocked) {
        // SAFETY: a host call without arguments that only reads the caller's ids.
        (Some(nr), _) => Ok(u64::from(crate::abi::low32(unsafe { syscalls::raw::syscall0(nr) } as u64))),
        (None, Some(handler)) => match handler(&ctx, args) {
            Some(result) => result,
            None => {
                // Served again under the lock; a store this handler made into a writable and
                // executable mapping before it gave up is checked first.
                crate::guest::after_rwx_store(cpu);
                return None;
            }
        },
        (None, None) => return None,
    };
    let then = ctx.then.get();
    if ctx.blocked.get() {
        let if_changed = ctx.if_changed.get();
        // Stores into a writable and executable mapping (`FillView::host_range`): if the view
        // went stale meanwhile, another thread may have translated the bytes they replaced.
        let rwx = ctx.view.and_then(FillView::take_rwx_store);
        let still = |v: &FillView| if rwx.is_some() { !v.rwx_store_seen() } else { v.current() };
        // Asked once this thread counts as running again (`enter_guest_unlocked`): a thread
        // that changes the mappings after the look sees it running and stops it.
        let view = ctx.view;
        if !crate::thread::running::enter_guest_unlocked(|| view.is_some_and(still)) {
            // Mappings changed (or are changing) meanwhile: catch up under the lock.
            crate::thread::lock::acquire();
            if let Some(f) = if_changed {
                f(cpu, args, &result);
            }
            if let Some((start, end)) = rwx {
                cpu.get_data_mut().mm.note_host_write(start, end - start);
            }
            crate::guest::unlock_after_hook(cpu);
        }
        // As `super::serve`: delivery decides whether an interrupted call restarts; one that
        // did not start (a signal came first) always runs again after the delivery.
        let undone = result == Err(syscalls::Errno::ERESTARTNOINTR);
        if undone || (result == Err(syscalls::Errno::EINTR) && crate::signal::host::has_recorded()) {
            let args = *args;
            cpu.get_data_mut().interrupted = Some(crate::guest::Interrupted { sys: def.sys, args, undone });
        }
    } else {
        crate::guest::after_rwx_store(cpu);
    }
    if let Some(f) = then {
        crate::guest::locked(cpu, |cpu| f(cpu, args, &result));
    }
    let ret = match result {
        Ok(v) => v,
        Err(e) => crate::abi::bits64(-i64::from(e.into_raw())),
    };
    crate::guest::arch::set_syscall_ret(cpu, arch, ret);
    let t = cpu.get_data();
    if t.rseq.is_some_and(|r| super::rseq::host_cpu().is_some_and(|c| c != r.cpu)) {
        // The host thread moved to another CPU: the guest's rseq area is written under the lock.
        crate::guest::locked(cpu, |cpu| super::rseq::refresh(cpu.get_data_mut()));
    }
    let t = cpu.get_data();
    if t.signal_work_due() || (!t.stop_flags && crate::signal::host::async_stops_needed()) {
        cpu.stop();
        return Some(true);
    }
    Some(false)
}
