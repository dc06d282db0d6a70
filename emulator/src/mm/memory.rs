//! Typed, bounds-checked, endian-aware access to guest memory.
//!
//! Every value endgate reads from or writes to guest memory goes through these accessors:
//! integers are converted between the guest's byte order ([`Endian`]) and the host's, byte
//! buffers are copied as they are. This is the "software byteswap" strategy: on a little-endian
//! host a big-endian guest pays one `bswap` per value, a little-endian guest pays nothing.
//! Errors are always `EFAULT`, as the kernel's `get_user`/`put_user` give.

use syscalls::Errno;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use super::{AddressSpace, Prot, PAGE_SIZE};
use crate::abi::thunk::{self, Plain, Shape};

pub use crate::abi::model::{DataModel, Endian, GuestAddr};

/// Longest path the kernel accepts, in bytes including the NUL (`PATH_MAX`).
pub const PATH_MAX: usize = 4096;

/// Where a handler's result structs go: the address space (under the global guest lock), or
/// [`Staged`] copies that a handler without the lock stores through its thread's view of the
/// mappings (`crate::syscall::unlocked`).
pub trait GuestWrite {
    /// Copies `data` to guest `addr`. Errors: `EFAULT`.
    fn write_bytes(&mut self, addr: GuestAddr, data: &[u8]) -> Result<(), Errno>;
}

impl GuestWrite for AddressSpace {
    #[inline]
    fn write_bytes(&mut self, addr: GuestAddr, data: &[u8]) -> Result<(), Errno> {
        AddressSpace::write_bytes(self, addr, data)
    }
}

/// Writes `v`'s bytes (already in the guest's layout and byte order) at `addr` of `out`.
pub fn write_struct_to<T: IntoBytes + Immutable>(
    out: &mut dyn GuestWrite,
    addr: GuestAddr,
    v: &T,
) -> Result<(), Errno> {
    out.write_bytes(addr, v.as_bytes())
}

/// Writes kept for later, in order: what a handler without the lock would have written, for
/// its caller to store through the thread's view of the mappings.
#[derive(Debug, Default)]
pub struct Staged {
    /// Each write's address and bytes.
    pub writes: Vec<(GuestAddr, Vec<u8>)>,
}

impl GuestWrite for Staged {
    fn write_bytes(&mut self, addr: GuestAddr, data: &[u8]) -> Result<(), Errno> {
        self.writes.push((addr, data.to_vec()));
        Ok(())
    }
}

impl AddressSpace {
    /// Copies `buf.len()` bytes from guest `addr`. Errors: `EFAULT`.
    pub fn read_bytes(&self, addr: GuestAddr, buf: &mut [u8]) -> Result<(), Errno> {
        let p = self.host_range(addr, buf.len() as u64, Prot::READ)?;
        // SAFETY: `host_range` checked the whole range is mapped and host-readable; a file
        // page another process truncated away faults, which the copy survives (`EFAULT`).
        unsafe { super::safe_copy::copy(buf.as_mut_ptr(), p, buf.len()) }.map_err(|_| Errno::EFAULT)
    }

    /// Reads `len` bytes from guest `addr` into a new vector. Errors: `EFAULT`.
    pub fn read_vec(&self, addr: GuestAddr, len: usize) -> Result<Vec<u8>, Errno> {
        let mut v = vec![0; len];
        self.read_bytes(addr, &mut v)?;
        Ok(v)
    }

    /// Copies `data` to guest `addr` (which must be guest-writable), dropping code translated
    /// from the bytes it replaces ([`AddressSpace::note_host_write`]). Errors: `EFAULT`.
    pub fn write_bytes(&mut self, addr: GuestAddr, data: &[u8]) -> Result<(), Errno> {
        let p = self.host_range(addr, data.len() as u64, Prot::WRITE)?;
        // SAFETY: `host_range` checked the range is mapped and guest-writable; host pages of
        // a writable mapping are host-writable; a file page another process truncated away
        // faults, which the copy survives (`EFAULT`).
        let r = unsafe { super::safe_copy::copy(p, data.as_ptr(), data.len()) }.map_err(|_| Errno::EFAULT);
        self.note_host_write(addr.get(), data.len() as u64);
        r
    }

    /// Copies `data` to guest `addr` ignoring guest permissions (the loader filling read-only
    /// segments). Errors: `EFAULT` if unmapped.
    pub fn poke_bytes(&mut self, addr: GuestAddr, data: &[u8]) -> Result<(), Errno> {
        let p = self.host_range(addr, data.len() as u64, Prot::NONE)?;
        if self.host_read_only(addr.get(), data.len() as u64) {
            return forced_write(p, data);
        }
        // SAFETY: mapped (checked), host-writable (private pages are, unless read-only just
        // above; shared ones the guest may not write are refused by the callers); a host
        // fault (a truncated file's page) fails the copy.
        unsafe { super::safe_copy::copy(p, data.as_ptr(), data.len()) }.map_err(|_| Errno::EFAULT)
    }

    /// Reads a guest struct whose fields carry their own byte order (zerocopy byteorder types).
    pub fn read_struct<T: FromBytes + IntoBytes + KnownLayout + Immutable>(&self, addr: GuestAddr) -> Result<T, Errno> {
        let mut v = T::new_zeroed();
        self.read_bytes(addr, v.as_mut_bytes())?;
        Ok(v)
    }

    /// Writes a guest struct whose fields carry their own byte order.
    pub fn write_struct<T: IntoBytes + Immutable>(&mut self, addr: GuestAddr, v: &T) -> Result<(), Errno> {
        self.write_bytes(addr, v.as_bytes())
    }

    /// Reads a guest `u32` in guest byte order.
    pub fn read_u32(&self, addr: GuestAddr) -> Result<u32, Errno> {
        let mut b = [0; 4];
        self.read_bytes(addr, &mut b)?;
        Ok(match self.endian() {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        })
    }

    /// Reads a guest `u64` in guest byte order.
    pub fn read_u64(&self, addr: GuestAddr) -> Result<u64, Errno> {
        let mut b = [0; 8];
        self.read_bytes(addr, &mut b)?;
        Ok(match self.endian() {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        })
    }

    /// Writes a guest `u32` in guest byte order.
    pub fn write_u32(&mut self, addr: GuestAddr, v: u32) -> Result<(), Errno> {
        let b = match self.endian() {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.write_bytes(addr, &b)
    }

    /// Reads a guest `int` (`s32`) in guest byte order.
    pub fn read_i32(&self, addr: GuestAddr) -> Result<i32, Errno> {
        self.read_u32(addr).map(crate::abi::int32)
    }

    /// Writes a guest `int` (`s32`) in guest byte order.
    pub fn write_i32(&mut self, addr: GuestAddr, v: i32) -> Result<(), Errno> {
        self.write_u32(addr, crate::abi::low32(v))
    }

    /// Checks that `len` bytes at `addr` are guest-writable (before a host call whose result
    /// will be written there, so a bad pointer fails before the call has effects). Errors:
    /// `EFAULT`.
    pub fn check_writable(&self, addr: GuestAddr, len: u64) -> Result<(), Errno> {
        self.host_range(addr, len, Prot::WRITE).map(|_| ())
    }

    /// Size in bytes of the guest's layout of `shape`.
    pub fn shape_size(&self, shape: &Shape) -> u64 {
        thunk::size_of(shape, self.model()) as u64
    }

    /// Writes host struct `v` (the host's layout of `shape`) to guest `addr` in the guest's
    /// layout, converting widths and byte order. Errors: `EFAULT`.
    pub fn write_shape<T: Plain>(&mut self, addr: GuestAddr, shape: &Shape, v: &T) -> Result<(), Errno> {
        // SAFETY: `Plain` types are C structs whose bytes may all be read.
        let src = unsafe { thunk::host_bytes(v) };
        debug_assert_eq!(thunk::size_of(shape, DataModel::HOST), src.len(), "{shape:?}");
        let model = self.model();
        if model == DataModel::HOST {
            return self.write_bytes(addr, &src[..thunk::size_of(shape, model).min(src.len())]);
        }
        let mut out = vec![0u8; thunk::size_of(shape, model)];
        thunk::convert(shape, DataModel::HOST, src, model, &mut out);
        self.write_bytes(addr, &out)
    }

    /// Reads the guest's layout of `shape` at `addr` into a host struct (the host's layout of
    /// `shape`). Errors: `EFAULT`.
    pub fn read_shape<T: Plain>(&self, addr: GuestAddr, shape: &Shape) -> Result<T, Errno> {
        let mut v = T::zeroed();
        // SAFETY: `Plain` types are valid for any byte pattern.
        let dst = unsafe { thunk::host_bytes_mut(&mut v) };
        debug_assert_eq!(thunk::size_of(shape, DataModel::HOST), dst.len(), "{shape:?}");
        let model = self.model();
        let raw = self.read_vec(addr, thunk::size_of(shape, model))?;
        if model == DataModel::HOST {
            let n = raw.len().min(dst.len());
            dst[..n].copy_from_slice(&raw[..n]);
        } else {
            thunk::convert(shape, model, &raw, DataModel::HOST, dst);
        }
        Ok(v)
    }

    /// Reads `n` consecutive guest structs of `shape` at `addr`. Errors: `EFAULT`.
    pub fn read_shape_array<T: Plain>(&self, addr: GuestAddr, shape: &Shape, n: u64) -> Result<Vec<T>, Errno> {
        let g = thunk::size_of(shape, self.model());
        let total = (g as u64).checked_mul(n).ok_or(Errno::EFAULT)?;
        let raw = self.read_vec(addr, usize::try_from(total).map_err(|_| Errno::EFAULT)?)?;
        let model = self.model();
        Ok(raw
            .chunks_exact(g.max(1))
            .map(|c| {
                let mut v = T::zeroed();
                // SAFETY: `Plain` types are valid for any byte pattern.
                thunk::convert(shape, model, c, DataModel::HOST, unsafe { thunk::host_bytes_mut(&mut v) });
                v
            })
            .collect())
    }

    /// Writes host structs `vs` as consecutive guest structs of `shape` at `addr`. Errors:
    /// `EFAULT`.
    pub fn write_shape_array<T: Plain>(&mut self, addr: GuestAddr, shape: &Shape, vs: &[T]) -> Result<(), Errno> {
        let model = self.model();
        let g = thunk::size_of(shape, model);
        let mut out = vec![0u8; g * vs.len()];
        for (v, c) in vs.iter().zip(out.chunks_exact_mut(g.max(1))) {
            // SAFETY: `Plain` types are C structs whose bytes may all be read.
            thunk::convert(shape, DataModel::HOST, unsafe { thunk::host_bytes(v) }, model, c);
        }
        self.write_bytes(addr, &out)
    }

    /// Puts `len` bytes at `addr`, which the host just filled with host-order integers of
    /// `width` bytes (2, 4 or 8: a host call wrote an `int` array or a bitmask of `long`s
    /// straight into guest memory), into guest byte order. Nothing to do when the orders
    /// agree. Errors: `EFAULT`.
    pub fn host_words_to_guest(&mut self, addr: GuestAddr, len: u64, width: usize) -> Result<(), Errno> {
        if self.endian() == Endian::HOST || len == 0 {
            return Ok(());
        }
        let mut buf = self.read_vec(addr, usize::try_from(len).map_err(|_| Errno::EFAULT)?)?;
        for w in buf.chunks_exact_mut(width) {
            w.reverse();
        }
        self.write_bytes(addr, &buf)
    }

    /// Reads a guest `u16` in guest byte order.
    pub fn read_u16(&self, addr: GuestAddr) -> Result<u16, Errno> {
        let mut b = [0; 2];
        self.read_bytes(addr, &mut b)?;
        Ok(match self.endian() {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        })
    }

    /// Writes a guest `u16` in guest byte order.
    pub fn write_u16(&mut self, addr: GuestAddr, v: u16) -> Result<(), Errno> {
        let b = match self.endian() {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.write_bytes(addr, &b)
    }

    /// `sizeof(long)` of the guest in bytes (4 or 8): the width of pointers, `size_t`, `long`.
    pub fn long_bytes(&self) -> u64 {
        u64::from(self.model().long_bytes)
    }

    /// Reads a guest `unsigned long` / pointer / `size_t`, zero-extended.
    pub fn read_ulong(&self, addr: GuestAddr) -> Result<u64, Errno> {
        if self.model().is_64bit() {
            self.read_u64(addr)
        } else {
            self.read_u32(addr).map(u64::from)
        }
    }

    /// Reads a guest `long` / `ssize_t` / `time_t` (old ABI), sign-extended.
    pub fn read_slong(&self, addr: GuestAddr) -> Result<i64, Errno> {
        if self.model().is_64bit() {
            self.read_u64(addr).map(crate::abi::signed64)
        } else {
            self.read_u32(addr).map(|v| i64::from(crate::abi::int32(v)))
        }
    }

    /// Writes a guest `long`/`unsigned long`/pointer (the low `long_bytes` of `v`).
    pub fn write_ulong(&mut self, addr: GuestAddr, v: u64) -> Result<(), Errno> {
        if self.model().is_64bit() {
            self.write_u64(addr, v)
        } else {
            self.write_u32(addr, crate::abi::low32(v))
        }
    }

    /// Writes a guest `u64` in guest byte order.
    pub fn write_u64(&mut self, addr: GuestAddr, v: u64) -> Result<(), Errno> {
        let b = match self.endian() {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        self.write_bytes(addr, &b)
    }

    /// Reads a NUL-terminated string at guest `addr`, without the NUL, at most `max` bytes
    /// including the NUL. Errors: `EFAULT` (unmapped before the NUL), `ENAMETOOLONG`.
    pub fn read_cstr(&self, addr: GuestAddr, max: usize) -> Result<Vec<u8>, Errno> {
        /// Bytes read at a time (within one page): most strings end in the first.
        const CHUNK: usize = 256;
        let mut out = Vec::new();
        let mut cur = addr;
        let mut buf = [0u8; CHUNK];
        loop {
            let room = (PAGE_SIZE - (cur.get() % PAGE_SIZE)).min(CHUNK as u64);
            let p = self.host_range(cur, room, Prot::READ)?;
            let chunk = &mut buf[..usize::try_from(room).unwrap_or(0)];
            // SAFETY: `room` bytes from `p` are mapped and readable (checked above); a file
            // page another process truncated away faults, which the copy survives (`EFAULT`).
            unsafe { super::safe_copy::copy(chunk.as_mut_ptr(), p, chunk.len()) }.map_err(|_| Errno::EFAULT)?;
            if let Some(n) = chunk.iter().position(|&b| b == 0) {
                out.extend_from_slice(&chunk[..n]);
                return if out.len() < max { Ok(out) } else { Err(Errno::ENAMETOOLONG) };
            }
            out.extend_from_slice(chunk);
            if out.len() >= max {
                return Err(Errno::ENAMETOOLONG);
            }
            cur += room;
        }
    }
}

/// Writes `data` at host address `p` through the host's `/proc/self/mem`, which writes pages
/// the process may not write itself, as the kernel's forced writes do (proc(5), `mem`): for
/// private anonymous memory the guest may only read, read-only on the host too
/// (`AddressSpace::private_host_prot`). Errors: `EFAULT`.
fn forced_write(p: *mut u8, data: &[u8]) -> Result<(), Errno> {
    use std::os::unix::fs::FileExt;
    let mem = std::fs::OpenOptions::new().write(true).open("/proc/self/mem").map_err(|_| Errno::EFAULT)?;
    match mem.write_all_at(data, p as u64) {
        Ok(()) => Ok(()),
        Err(_) => Err(Errno::EFAULT),
    }
}
