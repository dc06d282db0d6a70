//! A host system call that a signal arriving just before it cannot miss.
//!
//! An emulator serves a guest's blocking call (`futex`, `read`, `nanosleep`, …) with the same
//! host call. A guest signal arrives as a host signal, whose handler only records it; the
//! thread then delivers it once the host call returns, interrupted with `EINTR`. But a signal
//! that arrives *after* the thread last looked for recorded signals and *before* the host call
//! starts does not interrupt anything: the call blocks, maybe forever (a futex wait whose
//! waker is the guest's signal handler, as in glibc's set*id broadcast). QEMU's linux-user
//! closes that window with its `safe_syscall`; this is endgate's own take on the same idea:
//!
//! - [`safe_syscall`] compares two words (the recording side's head and tail counters) and,
//!   if they are equal (nothing recorded), executes the `syscall` instruction; the comparison
//!   and the instruction are one short stretch of code between two symbols;
//! - the host signal handler, after recording, calls [`rewind_if_in_window`] with its
//!   `ucontext`: if the interrupted instruction lies in that stretch, before the `syscall`
//!   has run, it moves the program counter to a label that returns [`NOT_STARTED`].
//!
//! A signal during the call itself interrupts it as usual (`-EINTR`, the handler having no
//! `SA_RESTART`), and one after it is found by the caller's next look. A call that did not
//! start answers [`NOT_STARTED`], not `-EINTR`: for the guest the signal came before its call,
//! which runs (again) once the signal is delivered, as QEMU restarts such a call; an `EINTR`
//! would have failed a `read` of a ready pipe that Linux never fails. x86_64 hosts only; on
//! others [`safe_syscall`] is a plain system call (the window stays open) and
//! [`rewind_if_in_window`] does nothing.

/// What [`safe_syscall`] returns for a call it did not make: `-ERESTARTNOINTR` (513), a
/// number Linux keeps to itself (include/linux/errno.h: "never seen by user programs").
pub const NOT_STARTED: i64 = -513;

/// Runs system call `nr` with `args` unless `pending[0] != pending[1]` (signals recorded and
/// not yet taken), in which case it returns [`NOT_STARTED`] without making the call. Returns
/// the kernel's raw result: the value, or `-errno`.
///
/// # Safety
/// As for the system call itself: the arguments must be valid for `nr`. `pending` must point
/// at two readable `u32`s for the duration of the call.
#[inline]
pub unsafe fn safe_syscall(pending: *const [u32; 2], nr: i64, args: [u64; 6]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller's contract; the asm reads the two words and makes the call.
        unsafe { endgate_safe_syscall(pending, nr, args[0], args[1], args[2], args[3], args[4], args[5]) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = pending;
        // SAFETY: the caller's contract.
        let r = unsafe { libc::syscall(nr as libc::c_long, args[0], args[1], args[2], args[3], args[4], args[5]) };
        if r == -1 {
            -i64::from(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EINTR))
        } else {
            r
        }
    }
}

/// Called from a signal handler with its third argument: if the thread was interrupted inside
/// [`safe_syscall`] after its check and before its `syscall` instruction ran, makes it return
/// [`NOT_STARTED`] instead of making the call. Returns whether it did.
///
/// # Safety
/// `uc` must be the `ucontext_t *` the kernel passed to an `SA_SIGINFO` handler.
pub unsafe fn rewind_if_in_window(uc: *mut libc::c_void) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if uc.is_null() {
            return false;
        }
        let uc = uc.cast::<libc::ucontext_t>();
        // SAFETY: the kernel's ucontext for this handler invocation, writable by the handler.
        let rip = unsafe { &mut (*uc).uc_mcontext.gregs[libc::REG_RIP as usize] };
        // Addresses of code labels defined by the asm below.
        let (start, end, interrupted) = (
            std::ptr::addr_of!(endgate_safe_syscall_start) as i64,
            std::ptr::addr_of!(endgate_safe_syscall_end) as i64,
            std::ptr::addr_of!(endgate_safe_syscall_interrupted) as i64,
        );
        if (start..end).contains(rip) {
            *rip = interrupted;
            return true;
        }
        false
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = uc;
        false
    }
}

#[cfg(target_arch = "x86_64")]
extern "C" {
    fn endgate_safe_syscall(
        pending: *const [u32; 2],
        nr: i64,
        a0: u64,
        a1: u64,
        a2: u64,
        a3: u64,
        a4: u64,
        a5: u64,
    ) -> i64;
    static endgate_safe_syscall_start: u8;
    static endgate_safe_syscall_end: u8;
    static endgate_safe_syscall_interrupted: u8;
}

// System V x86_64 calling convention in: rdi = pending, rsi = nr, rdx, rcx, r8, r9 = a0..a3,
// [rsp+8] = a4, [rsp+16] = a5. Linux system call convention out: rax = nr, rdi, rsi, rdx,
// r10, r8, r9 = a0..a5; the kernel clobbers rcx and r11. rbx is callee-saved, so the
// `pending` pointer lives in r11 across the shuffle (r11 is free until the `syscall`).
// `_start` .. `_end` covers the check and the `syscall` instruction itself: a signal taken
// with the program counter on the `syscall` instruction has not entered the kernel call yet;
// one taken after it (`_end`) saw the call run or be interrupted.
#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".text",
    ".globl endgate_safe_syscall",
    ".globl endgate_safe_syscall_start",
    ".globl endgate_safe_syscall_end",
    ".globl endgate_safe_syscall_interrupted",
    ".type endgate_safe_syscall, @function",
    ".p2align 4",
    "endgate_safe_syscall:",
    "    mov r11, rdi",
    "    mov rax, rsi",
    "    mov rdi, rdx",
    "    mov rsi, rcx",
    "    mov rdx, r8",
    "    mov r10, r9",
    "    mov r8, [rsp + 8]",
    "    mov r9, [rsp + 16]",
    "endgate_safe_syscall_start:",
    "    mov ecx, dword ptr [r11]",
    "    cmp ecx, dword ptr [r11 + 4]",
    "    jne endgate_safe_syscall_interrupted",
    "    syscall",
    "endgate_safe_syscall_end:",
    "    ret",
    "endgate_safe_syscall_interrupted:",
    "    mov rax, -513",
    "    ret",
    ".size endgate_safe_syscall, . - endgate_safe_syscall",
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_the_call_when_nothing_is_pending() {
        let pending = [5u32, 5u32];
        // SAFETY: getpid takes no arguments.
        let r = unsafe { safe_syscall(&pending, libc::SYS_getpid, [0; 6]) };
        assert_eq!(r, i64::from(std::process::id()));
        // SAFETY: close of an fd that is not open: EBADF, raw.
        let r = unsafe { safe_syscall(&pending, libc::SYS_close, [u64::MAX >> 33, 0, 0, 0, 0, 0]) };
        assert_eq!(r, -i64::from(libc::EBADF));
    }

    #[test]
    fn six_arguments_reach_the_kernel() {
        // ppoll(fds=NULL, nfds=0, tmo={0,0}, sigmask=&current, sigsetsize=8): returns 0 at
        // once; a wrong sigsetsize (the fifth argument) gives EINVAL.
        let pending = [0u32, 0u32];
        let tmo = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        let mut mask = 0u64;
        // SAFETY: reads this thread's mask into `mask`.
        unsafe { libc::syscall(libc::SYS_rt_sigprocmask, 0, std::ptr::null::<u64>(), &mut mask as *mut u64, 8) };
        let args = |size| [0, 0, &tmo as *const _ as u64, &mask as *const u64 as u64, size, 0];
        // SAFETY: valid ppoll arguments.
        let r = unsafe { safe_syscall(&pending, libc::SYS_ppoll, args(8)) };
        assert_eq!(r, 0);
        // SAFETY: as above, with a size the kernel refuses.
        let r = unsafe { safe_syscall(&pending, libc::SYS_ppoll, args(7)) };
        assert_eq!(r, -i64::from(libc::EINVAL));
    }

    #[test]
    fn a_recorded_signal_skips_the_call() {
        let pending = [6u32, 5u32];
        // SAFETY: pause would block forever; the pending words make it return at once.
        let r = unsafe { safe_syscall(&pending, libc::SYS_pause, [0; 6]) };
        assert_eq!(r, NOT_STARTED);
    }
}
