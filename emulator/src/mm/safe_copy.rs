//! Copies to and from guest memory that survive a host fault.
//!
//! A guest page can lose its host bytes while endgate believes it mapped: a shared file that
//! another process truncated (the kernel's SIGBUS for a page past the end of the file). A
//! system call whose buffer lies there must fail with `EFAULT`, as the kernel's own
//! `copy_to_user`/`copy_from_user` do, and MIPS's unaligned-access fix-up must send the
//! guest its `SIGSEGV`; a plain `memcpy` would end endgate with the host's SIGBUS instead.
//! So endgate's own copies of guest bytes ([`super::AddressSpace::read_bytes`],
//! [`super::AddressSpace::write_bytes`], the vDSO's clock stores) run one of the few host
//! instructions below, and the host fault handler ([`fixup`], called by
//! `signal::host::fault_handler` before anything else) moves a fault at one of them to a
//! `return 1`: the kernel's exception-table idea, for endgate's own code. The functions are
//! leaves that touch no stack, so the one landing serves them all.
//!
//! x86-64 hosts; elsewhere the copies are plain and a fault still ends endgate.

#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".pushsection .text.endgate_safe_copy,\"ax\",@progbits",
    ".p2align 4",
    ".globl endgate_safe_copy",
    ".hidden endgate_safe_copy",
    ".type endgate_safe_copy,@function",
    // (dst: rdi, src: rsi, len: rdx) -> eax: 0 copied, 1 a fault stopped it. Up to 16 bytes
    // (most system-call structs and words) as two overlapping loads and two stores, loads
    // first; more with `rep movsb`. (Labels 2 to 5: Intel syntax reads 0 and 1 as binary.)
    "endgate_safe_copy:",
    ".globl endgate_safe_begin",
    ".hidden endgate_safe_begin",
    "endgate_safe_begin:",
    "    cmp rdx, 16",
    "    ja 5f",
    "    cmp rdx, 8",
    "    jb 2f",
    "    mov rax, qword ptr [rsi]",
    "    mov rcx, qword ptr [rsi + rdx - 8]",
    "    mov qword ptr [rdi], rax",
    "    mov qword ptr [rdi + rdx - 8], rcx",
    "    xor eax, eax",
    "    ret",
    "2:",
    "    cmp rdx, 4",
    "    jb 3f",
    "    mov eax, dword ptr [rsi]",
    "    mov ecx, dword ptr [rsi + rdx - 4]",
    "    mov dword ptr [rdi], eax",
    "    mov dword ptr [rdi + rdx - 4], ecx",
    "    xor eax, eax",
    "    ret",
    "3:",
    "    test rdx, rdx",
    "    jz 4f",
    // 1 to 3 bytes: the first, the middle and the last
    "    mov r8, rdx",
    "    shr r8, 1",
    "    movzx eax, byte ptr [rsi]",
    "    movzx ecx, byte ptr [rsi + rdx - 1]",
    "    movzx r9d, byte ptr [rsi + r8]",
    "    mov byte ptr [rdi], al",
    "    mov byte ptr [rdi + rdx - 1], cl",
    "    mov byte ptr [rdi + r8], r9b",
    "4:",
    "    xor eax, eax",
    "    ret",
    "5:",
    "    mov rcx, rdx",
    "    rep movsb",
    "    xor eax, eax",
    "    ret",
    ".size endgate_safe_copy, . - endgate_safe_copy",
    ".p2align 4",
    ".globl endgate_safe_store8",
    ".hidden endgate_safe_store8",
    ".type endgate_safe_store8,@function",
    // (dst: rdi, value: rsi) -> eax, as above: 8 bytes, unaligned
    "endgate_safe_store8:",
    "    mov qword ptr [rdi], rsi",
    "    xor eax, eax",
    "    ret",
    ".size endgate_safe_store8, . - endgate_safe_store8",
    ".p2align 4",
    ".globl endgate_safe_store16",
    ".hidden endgate_safe_store16",
    ".type endgate_safe_store16,@function",
    // (dst: rdi, low: rsi, high: rdx) -> eax, as above: 16 bytes, unaligned; the high half's
    // page is touched first, so a fault there leaves nothing written
    "endgate_safe_store16:",
    "    mov qword ptr [rdi + 8], rdx",
    "    mov qword ptr [rdi], rsi",
    "    xor eax, eax",
    "    ret",
    ".size endgate_safe_store16, . - endgate_safe_store16",
    ".globl endgate_safe_end",
    ".hidden endgate_safe_end",
    "endgate_safe_end:",
    ".globl endgate_safe_fault",
    ".hidden endgate_safe_fault",
    "endgate_safe_fault:",
    "    mov eax, 1",
    "    ret",
    ".popsection",
);

#[cfg(target_arch = "x86_64")]
extern "C" {
    fn endgate_safe_copy(dst: *mut u8, src: *const u8, len: usize) -> u32;
    fn endgate_safe_store8(dst: *mut u8, value: u64) -> u32;
    fn endgate_safe_store16(dst: *mut u8, low: u64, high: u64) -> u32;
    static endgate_safe_begin: u8;
    static endgate_safe_end: u8;
    static endgate_safe_fault: u8;
}

/// The host could not give every byte: a fault stopped the copy part way (the bytes before
/// it may have been copied, as with the kernel's `copy_to_user`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Faulted;

/// Copies `len` bytes from `src` to `dst`; either may be guest memory whose host bytes may be
/// gone.
///
/// # Safety
/// `src..src+len` and `dst..dst+len` are host ranges endgate may read and write (guest memory
/// found by `host_range`, or endgate's own buffers), not overlapping.
#[inline]
pub unsafe fn copy(dst: *mut u8, src: *const u8, len: usize) -> Result<(), Faulted> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller's promise; the function touches only those ranges.
        if unsafe { endgate_safe_copy(dst, src, len) } == 0 {
            Ok(())
        } else {
            Err(Faulted)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: the caller's promise.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
        Ok(())
    }
}

/// Stores one or two 8-byte words (`N`: 1 or 2; their native bytes, in order) at `dst` in
/// one fixed-size move rather than a copy loop: the vDSO's clock results. Words, not bytes,
/// so that a caller that builds them in registers makes no store-forwarding stall (bytes
/// stored one by one and read back as a word: about 4 ns on i386's `timespec`).
///
/// # Safety
/// `dst..dst+8*N` is a host range endgate may write.
#[inline]
pub unsafe fn store_words<const N: usize>(dst: *mut u8, words: [u64; N]) -> Result<(), Faulted> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller's promise; each function writes exactly 8*N bytes at `dst`.
        let r = unsafe {
            match N {
                1 => endgate_safe_store8(dst, words[0]),
                2 => endgate_safe_store16(dst, words[0], words[1]),
                _ => endgate_safe_copy(dst, words.as_ptr().cast(), 8 * N),
            }
        };
        if r == 0 {
            Ok(())
        } else {
            Err(Faulted)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: the caller's promise.
        unsafe { dst.cast::<[u64; N]>().write_unaligned(words) };
        Ok(())
    }
}

/// For the host SIGSEGV/SIGBUS handler: if the fault (`ucontext`, the handler's third
/// argument) is at one of the copy instructions above, makes the interrupted function return 1
/// once the handler returns, and says so. Async-signal-safe.
pub fn fixup(ucontext: *mut libc::c_void) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the kernel's ucontext for an SA_SIGINFO handler, written only here.
        let gregs = unsafe { &mut (*ucontext.cast::<libc::ucontext_t>()).uc_mcontext.gregs };
        let pc = u64::from_ne_bytes(gregs[libc::REG_RIP as usize].to_ne_bytes());
        // The addresses of the asm labels above (never read through).
        let (begin, end, fault) = (
            std::ptr::addr_of!(endgate_safe_begin) as u64,
            std::ptr::addr_of!(endgate_safe_end) as u64,
            std::ptr::addr_of!(endgate_safe_fault) as u64,
        );
        if pc < begin || pc >= end {
            return false;
        }
        gregs[libc::REG_RIP as usize] = i64::from_ne_bytes(fault.to_ne_bytes());
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = ucontext;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_and_stores_ordinary_memory() {
        let src: Vec<u8> = (0..200u8).collect();
        for len in 0..=200 {
            let mut dst = vec![0xeeu8; 201];
            // SAFETY: two live, distinct buffers of at least `len` bytes.
            assert_eq!(unsafe { copy(dst.as_mut_ptr(), src.as_ptr(), len) }, Ok(()));
            assert_eq!(&dst[..len], &src[..len], "{len} bytes");
            assert!(dst[len..].iter().all(|&b| b == 0xee), "nothing past {len} bytes");
        }
        let mut b = [0u8; 24];
        // SAFETY: `b` has room for 16 bytes at offset 3 and 8 at offset 1.
        unsafe {
            let word = |b: &[u8; 8]| u64::from_ne_bytes(*b);
            assert_eq!(store_words(b.as_mut_ptr().add(3), [word(b"01234567"), word(b"89abcdef")]), Ok(()));
            assert_eq!(store_words(b.as_mut_ptr().add(1), [word(b"ABCDEFGH")]), Ok(()));
        }
        assert_eq!(&b[..19], b"\0ABCDEFGH6789abcdef");
    }

    /// SIGSEGV handler of [`a_fault_becomes_the_copys_failure`]: the fixup, else the default.
    extern "C" fn on_segv(sig: libc::c_int, _info: *mut libc::siginfo_t, uc: *mut libc::c_void) {
        if !fixup(uc) {
            // SAFETY: restoring the default: the fault comes again and ends the test process.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }

    #[test]
    fn a_fault_becomes_the_copys_failure() {
        // SAFETY: an SA_SIGINFO handler that never unwinds; a fresh PROT_NONE page the test
        // owns, never unmapped while in use.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_segv as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO;
            let mut old: libc::sigaction = std::mem::zeroed();
            assert_eq!(libc::sigaction(libc::SIGSEGV, &sa, &mut old), 0);
            let page =
                libc::mmap(std::ptr::null_mut(), 4096, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
                    .cast::<u8>();
            assert_ne!(page.cast::<libc::c_void>(), libc::MAP_FAILED);
            let mut buf = [0u8; 64];
            for len in [1, 3, 4, 7, 8, 16, 17, 64] {
                assert_eq!(copy(buf.as_mut_ptr(), page, len), Err(Faulted), "read of {len}");
                assert_eq!(copy(page, buf.as_ptr(), len), Err(Faulted), "write of {len}");
            }
            assert_eq!(store_words(page, [1u64]), Err(Faulted));
            assert_eq!(store_words(page, [1u64, 2]), Err(Faulted));
            // Still a working copy afterwards.
            let src = [7u8; 32];
            assert_eq!(copy(buf.as_mut_ptr(), src.as_ptr(), 32), Ok(()));
            assert_eq!(buf[..32], src);
            libc::munmap(page.cast(), 4096);
            assert_eq!(libc::sigaction(libc::SIGSEGV, &old, std::ptr::null_mut()), 0);
        }
    }
}
