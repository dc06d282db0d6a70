//! Directory positions a 32-bit guest can hold.
//!
//! A directory's `d_off` (the position `telldir` returns and `seekdir` takes) is an opaque
//! cookie chosen by the file system. ext4 with `dir_index` uses a hash: 64 bits for a 64-bit
//! caller, 31 bits for a 32-bit one (fs/ext4/dir.c `hash2pos`, decided by `is_32bit_api()`).
//! endgate is a 64-bit process, so the host hands it 64-bit cookies, and a 32-bit guest's
//! glibc `readdir` (whose `off_t` is 32 bits) fails with `EOVERFLOW` on the first entry whose
//! cookie does not fit. (qemu-user has the same problem.)
//!
//! For 32-bit guests endgate therefore gives out its own cookies for such positions: the
//! `n`-th distinct host cookie seen on a directory descriptor becomes `GUEST_BASE + n`, below
//! 2^31, and `lseek`/`_llseek` on that descriptor turn it back into the host cookie. Cookies
//! below `GUEST_BASE` (tmpfs, small directories) pass through unchanged. The table is keyed by
//! descriptor and checked against the directory's device and inode, so a descriptor number
//! reused for another directory starts a new table.

use std::collections::HashMap;
use std::sync::Mutex;

/// First cookie endgate gives out; positions below it are the host's own.
const GUEST_BASE: u64 = 0x4000_0000;
/// One past the last cookie endgate gives out (a 32-bit `off_t` must stay non-negative).
const GUEST_END: u64 = 0x8000_0000;

struct Dir {
    /// Device and inode of the directory the table belongs to.
    id: (u64, u64),
    /// Host cookie of guest cookie `GUEST_BASE + i`.
    host: Vec<u64>,
    /// Host cookie -> index in `host`.
    index: HashMap<u64, u64>,
}

static DIRS: Mutex<Option<HashMap<i32, Dir>>> = Mutex::new(None);

fn dir_id(fd: i32) -> Option<(u64, u64)> {
    // SAFETY: `struct stat` is plain old data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a local out struct.
    if unsafe { libc::fstat(fd, &mut st) } != 0 || st.st_mode & libc::S_IFMT != libc::S_IFDIR {
        return None;
    }
    Some((st.st_dev, st.st_ino))
}

/// The cookie a 32-bit guest sees for host position `host` of directory `fd`: `host` itself
/// when it is below `GUEST_BASE`, else endgate's stand-in (the host value when the table is
/// full, which the guest will then reject as it would have anyway).
pub fn to_guest(fd: i32, host: u64) -> u64 {
    if host < GUEST_BASE {
        return host;
    }
    let Some(id) = dir_id(fd) else { return host };
    let mut guard = DIRS.lock().unwrap_or_else(|e| e.into_inner());
    let dirs = guard.get_or_insert_with(HashMap::new);
    let dir = dirs.entry(fd).or_insert_with(|| Dir { id, host: Vec::new(), index: HashMap::new() });
    if dir.id != id {
        *dir = Dir { id, host: Vec::new(), index: HashMap::new() };
    }
    if let Some(&i) = dir.index.get(&host) {
        return GUEST_BASE + i;
    }
    let i = dir.host.len() as u64;
    if GUEST_BASE + i >= GUEST_END {
        return host;
    }
    dir.host.push(host);
    dir.index.insert(host, i);
    GUEST_BASE + i
}

/// The host position for cookie `guest` that a 32-bit guest passes to `lseek` on `fd`:
/// endgate's stand-in turned back into the host's cookie, anything else unchanged.
pub fn to_host(fd: i32, guest: u64) -> u64 {
    if !(GUEST_BASE..GUEST_END).contains(&guest) {
        return guest;
    }
    let guard = DIRS.lock().unwrap_or_else(|e| e.into_inner());
    let found = guard.as_ref().and_then(|d| d.get(&fd)).filter(|d| Some(d.id) == dir_id(fd));
    found.and_then(|d| d.host.get(crate::abi::u64_to_usize(guest - GUEST_BASE)).copied()).unwrap_or(guest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_round_trip_on_a_directory() {
        let dir = std::ffi::CString::new("/").unwrap();
        // SAFETY: NUL-terminated path.
        let fd = unsafe { libc::open(dir.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
        assert!(fd >= 0);
        assert_eq!(to_guest(fd, 12), 12);
        let big = 0x7fff_1234_5678_9abc;
        let g = to_guest(fd, big);
        assert!((GUEST_BASE..GUEST_END).contains(&g));
        assert_eq!(to_guest(fd, big), g);
        assert_eq!(to_host(fd, g), big);
        assert_eq!(to_host(fd, 12), 12);
        // SAFETY: our own descriptor.
        unsafe { libc::close(fd) };
    }
}
