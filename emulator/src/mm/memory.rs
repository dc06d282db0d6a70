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

/// A guest virtual address.
pub type GuestAddr = u64;

/// Byte order of a guest (from the ELF header's `EI_DATA`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    /// ELFDATA2LSB.
    Little,
    /// ELFDATA2MSB.
    Big,
}

impl Endian {
    /// The host's byte order.
    pub const HOST: Endian = if cfg!(target_endian = "little") { Endian::Little } else { Endian::Big };
}

/// Longest path the kernel accepts, in bytes including the NUL (`PATH_MAX`).
pub const PATH_MAX: usize = 4096;

impl AddressSpace {
    /// Copies `buf.len()` bytes from guest `addr`. Errors: `EFAULT`.
    pub fn read_bytes(&self, addr: GuestAddr, buf: &mut [u8]) -> Result<(), Errno> {
        let p = self.host_range(addr, buf.len() as u64, Prot::READ)?;
        // SAFETY: `host_range` checked the whole range is mapped and host-readable.
        unsafe { std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    /// Reads `len` bytes from guest `addr` into a new vector. Errors: `EFAULT`.
    pub fn read_vec(&self, addr: GuestAddr, len: usize) -> Result<Vec<u8>, Errno> {
        let mut v = vec![0; len];
        self.read_bytes(addr, &mut v)?;
        Ok(v)
    }

    /// Copies `data` to guest `addr` (which must be guest-writable). Errors: `EFAULT`.
    pub fn write_bytes(&mut self, addr: GuestAddr, data: &[u8]) -> Result<(), Errno> {
        let p = self.host_range(addr, data.len() as u64, Prot::WRITE)?;
        // SAFETY: `host_range` checked the range is mapped and guest-writable; host pages of
        // a writable mapping are host-writable.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        Ok(())
    }

    /// Copies `data` to guest `addr` ignoring guest permissions (the loader filling read-only
    /// segments). Errors: `EFAULT` if unmapped.
    pub fn poke_bytes(&mut self, addr: GuestAddr, data: &[u8]) -> Result<(), Errno> {
        let p = self.host_range(addr, data.len() as u64, Prot::NONE)?;
        // SAFETY: mapped (checked); private and anonymous host pages are always writable.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        Ok(())
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
        let mut out = Vec::new();
        let mut cur = addr;
        loop {
            let room = PAGE_SIZE - (cur % PAGE_SIZE);
            let p = self.host_range(cur, room, Prot::READ)?;
            // SAFETY: `room` bytes from `p` are mapped and readable (checked above).
            let chunk = unsafe { std::slice::from_raw_parts(p, usize::try_from(room).unwrap_or(0)) };
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
