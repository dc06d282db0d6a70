//! Guest buffers the guest can reach only in part, handed to the host kernel in the same shape.
//!
//! Linux checks most user buffers only when it copies: `read` at the end of a file or from an
//! empty non-blocking pipe answers 0 or `EAGAIN` whatever the buffer; a regular file's read or
//! write into a buffer that runs off the end of a mapping copies up to the first bad byte and
//! returns that count; a pipe's answers `EFAULT` and keeps the data (fs/pipe.c); `readv` stops
//! at the first bad iovec. endgate gets the same answers from the host kernel by giving it a
//! buffer of the same shape: when a guest buffer is not wholly accessible, a host copy of its
//! accessible prefix (`n` bytes), placed right before a `PROT_NONE` guard that runs for the
//! rest of the length (up to 4 GiB, more than any single copy `MAX_RW_COUNT` allows). The
//! host's copy faults exactly where the guest kernel's would, and afterwards the prefix is
//! copied back into the guest (for a buffer the host wrote), whatever the call returned: a
//! failed copy may have filled part of it, as it would under Linux. No host memory outside
//! the guest's accessible bytes and endgate's own copy is read or written.

use syscalls::Errno;

use super::Task;
use crate::abi::u64_to_usize;
use crate::mm::{GuestAddr, Prot};

/// Most of a buffer's inaccessible tail that a guard stands for.
const GUARD_MAX: u64 = 1 << 32;

/// A guest buffer for the host: its host pointer and the length to give the host.
pub struct HostBuf {
    ptr: *mut u8,
    len: u64,
    copy: Option<Copy>,
}

/// The host copy of a partly accessible guest buffer: `n` bytes at `ptr`, then the guard.
struct Copy {
    map: *mut u8,
    map_len: usize,
    guest: GuestAddr,
    n: usize,
    out: bool,
}

impl Drop for Copy {
    fn drop(&mut self) {
        // SAFETY: endgate's own mapping, made in `HostBuf::shaped`; nothing points into it now.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
    }
}

fn page_up(v: u64) -> u64 {
    v.div_ceil(crate::mm::PAGE_SIZE) * crate::mm::PAGE_SIZE
}

impl HostBuf {
    /// The host pointer.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// The length to give the host (the guest's, or less when the guard stands for a tail
    /// longer than `GUARD_MAX`).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// `true` if the length for the host is 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `true` if the whole buffer is the guest's own memory.
    pub fn is_direct(&self) -> bool {
        self.copy.is_none()
    }

    /// `data` (the accessible part of a buffer of `len` bytes, converted for the host) in a
    /// host copy before a guard: the host reads what `data` holds and faults after it.
    pub fn guarded_copy(data: &[u8], len: u64) -> Result<HostBuf, Errno> {
        let n = data.len() as u64;
        let b = Self::alloc(GuestAddr::new(0), len.max(n), n, false)?;
        // SAFETY: `n` host-writable bytes at `ptr`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), b.ptr, data.len()) };
        Ok(b)
    }

    /// `n` accessible bytes of the guest's `len` at `addr`, in a host copy before a guard.
    fn shaped(t: &Task, addr: GuestAddr, len: u64, n: u64, out: bool) -> Result<HostBuf, Errno> {
        let b = Self::alloc(addr, len, n, out)?;
        if n > 0 {
            // SAFETY: `n` host-writable bytes at `ptr`.
            t.mm.read_bytes(addr, unsafe { std::slice::from_raw_parts_mut(b.ptr, u64_to_usize(n)) })?;
        }
        Ok(b)
    }

    /// A host copy of `n` bytes right before a guard standing for the rest of `len`.
    fn alloc(addr: GuestAddr, len: u64, n: u64, out: bool) -> Result<HostBuf, Errno> {
        let rest = (len - n).min(GUARD_MAX);
        let body = page_up(n);
        let map_len = usize::try_from(body + page_up(rest.max(1))).map_err(|_| Errno::ENOMEM)?;
        // SAFETY: a fresh private anonymous mapping of endgate's own.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(Errno::ENOMEM);
        }
        let n_us = usize::try_from(n).map_err(|_| Errno::ENOMEM)?;
        let body_us = usize::try_from(body).map_err(|_| Errno::ENOMEM)?;
        let copy = Copy { map: map.cast(), map_len, guest: addr, n: n_us, out };
        // SAFETY: the first `body` bytes of the mapping just made.
        if body > 0 && unsafe { libc::mprotect(map, body_us, libc::PROT_READ | libc::PROT_WRITE) } != 0 {
            return Err(Errno::ENOMEM);
        }
        // SAFETY: inside the mapping: `body - n` is at most `body`.
        let ptr = unsafe { copy.map.add(body_us - n_us) };
        Ok(HostBuf { ptr, len: n + rest, copy: Some(copy) })
    }

    /// Copies what the host may have written back into the guest (a buffer for the host to
    /// fill, made by [`Task::buf_out_lazy`]). A no-op for a direct buffer.
    pub fn finish(&self, t: &mut Task) {
        if let Some(c) = &self.copy {
            if c.out && c.n > 0 {
                // SAFETY: `n` bytes of the copy, readable.
                let data = unsafe { std::slice::from_raw_parts(self.ptr, c.n) };
                // The prefix was writable when the call began; a thread that unmapped it
                // since gets nothing.
                let _ = t.mm.write_bytes(c.guest, data);
            }
        }
    }
}

impl Task {
    fn buf_lazy(&mut self, addr: GuestAddr, len: u64, need: Prot) -> Result<HostBuf, Errno> {
        // The kernel's `access_ok` first: a range past the top of user space is refused
        // whole (`ArchInfo::access_ok_range`). A 32-bit guest on a 64-bit kernel is
        // range-checked against the 64-bit top, which no 32-bit range passes, so its buffers
        // are only checked as they are copied.
        let ranged = self.mm.long_bytes() == 8 && self.arch.info().access_ok_range;
        if ranged && addr.get().checked_add(len).is_none_or(|end| end > self.mm.task_size) {
            return Err(Errno::EFAULT);
        }
        match self.mm.host_range(addr, len, need) {
            Ok(p) => {
                if need.contains(Prot::WRITE) {
                    self.note_host_write(addr.get(), len);
                }
                Ok(HostBuf { ptr: p, len, copy: None })
            }
            // The dispatcher grows the stack and serves the call again.
            Err(e) if self.mm.grow_requested() => Err(e),
            Err(_) => {
                let n = self.mm.accessible_prefix(addr.get(), len, need);
                if need.contains(Prot::WRITE) && n > 0 {
                    self.note_host_write(addr.get(), n);
                }
                HostBuf::shaped(self, addr, len, n, need.contains(Prot::WRITE))
            }
        }
    }

    /// A guest buffer the host will read, checked as Linux checks it: as the host copies.
    /// Errors: `ENOMEM` (no host memory for the copy).
    pub fn buf_in_lazy(&mut self, addr: GuestAddr, len: u64) -> Result<HostBuf, Errno> {
        self.buf_lazy(addr, len, Prot::READ)
    }

    /// A guest buffer the host will fill, checked as the host copies; call
    /// [`HostBuf::finish`] after the host call. Errors: `ENOMEM`.
    pub fn buf_out_lazy(&mut self, addr: GuestAddr, len: u64) -> Result<HostBuf, Errno> {
        self.buf_lazy(addr, len, Prot::WRITE)
    }
}
