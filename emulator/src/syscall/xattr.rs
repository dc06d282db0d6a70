//! Extended attributes: `getxattr`, `setxattr`, `listxattr`, `removexattr` and their `l`
//! (no symlink following) and `f` (file descriptor) forms (xattr(7)). Names are C strings,
//! values and lists are byte buffers, so everything passes to the host after the checks.

use std::ffi::CString;

use syscalls::Errno;

use super::path::host_path;

/// The path of an `l*xattr` call: a last link is the file acted on, not followed.
fn lpath(t: &crate::guest::Task, addr: crate::mm::GuestAddr) -> Result<super::path::HostPath, syscalls::Errno> {
    super::path::host_path_in(t, libc::AT_FDCWD, addr, super::path::Last::NoFollow)
}
use super::{host_ret, SysResult};
use crate::guest::Task;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::GuestAddr;

/// Longest attribute name, in bytes including the NUL (`XATTR_NAME_MAX` + 1).
const NAME_MAX: usize = 256;

/// What the first argument names.
#[derive(Clone, Copy)]
enum Target {
    /// A path, following a final symlink.
    Path,
    /// A path, not following a final symlink.
    LPath,
    /// A file descriptor.
    Fd,
}

fn name(t: &Task, addr: GuestAddr) -> Result<CString, Errno> {
    let n = t.mm.read_cstr(addr, NAME_MAX).map_err(|e| if e == Errno::ENAMETOOLONG { Errno::ERANGE } else { e })?;
    CString::new(n).map_err(|_| Errno::EINVAL)
}

fn get(cpu: &mut Cpu<'_>, a: &SyscallArgs, target: Target) -> SysResult {
    let t = cpu.get_data_mut();
    let n = name(t, a.ptr(1))?;
    let buf = t.buf_out_opt(a.ptr(2), a.raw(3))?;
    let size = a.size(3);
    // SAFETY: NUL-terminated strings; `buf` is NULL or `size` guest-writable bytes.
    let r = unsafe {
        match target {
            Target::Fd => libc::fgetxattr(a.int(0), n.as_ptr(), buf.cast(), size),
            Target::Path => libc::getxattr(host_path(t, a.ptr(0))?.as_ptr(), n.as_ptr(), buf.cast(), size),
            Target::LPath => libc::lgetxattr(lpath(t, a.ptr(0))?.as_ptr(), n.as_ptr(), buf.cast(), size),
        }
    };
    host_ret(r as i64)
}

fn set(cpu: &mut Cpu<'_>, a: &SyscallArgs, target: Target) -> SysResult {
    let t = cpu.get_data();
    let n = name(t, a.ptr(1))?;
    let val = t.buf_in_opt(a.ptr(2), a.raw(3))?;
    let (size, flags) = (a.size(3), a.int(4));
    // SAFETY: NUL-terminated strings; `val` is NULL or `size` guest-readable bytes.
    let r = unsafe {
        match target {
            Target::Fd => libc::fsetxattr(a.int(0), n.as_ptr(), val.cast(), size, flags),
            Target::Path => libc::setxattr(host_path(t, a.ptr(0))?.as_ptr(), n.as_ptr(), val.cast(), size, flags),
            Target::LPath => libc::lsetxattr(lpath(t, a.ptr(0))?.as_ptr(), n.as_ptr(), val.cast(), size, flags),
        }
    };
    host_ret(i64::from(r))
}

fn list(cpu: &mut Cpu<'_>, a: &SyscallArgs, target: Target) -> SysResult {
    let t = cpu.get_data_mut();
    let buf = t.buf_out_opt(a.ptr(1), a.raw(2))?;
    let size = a.size(2);
    // SAFETY: `buf` is NULL or `size` guest-writable bytes.
    let r = unsafe {
        match target {
            Target::Fd => libc::flistxattr(a.int(0), buf.cast(), size),
            Target::Path => libc::listxattr(host_path(t, a.ptr(0))?.as_ptr(), buf.cast(), size),
            Target::LPath => libc::llistxattr(lpath(t, a.ptr(0))?.as_ptr(), buf.cast(), size),
        }
    };
    host_ret(r as i64)
}

fn remove(cpu: &mut Cpu<'_>, a: &SyscallArgs, target: Target) -> SysResult {
    let t = cpu.get_data();
    let n = name(t, a.ptr(1))?;
    // SAFETY: NUL-terminated strings.
    let r = unsafe {
        match target {
            Target::Fd => libc::fremovexattr(a.int(0), n.as_ptr()),
            Target::Path => libc::removexattr(host_path(t, a.ptr(0))?.as_ptr(), n.as_ptr()),
            Target::LPath => libc::lremovexattr(lpath(t, a.ptr(0))?.as_ptr(), n.as_ptr()),
        }
    };
    host_ret(i64::from(r))
}

macro_rules! forms {
    ($($(#[$doc:meta])* $fn:ident => $imp:ident($target:ident);)*) => {$(
        $(#[$doc])*
        pub fn $fn(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
            $imp(cpu, a, Target::$target)
        }
    )*};
}

forms! {
    /// `getxattr(const char *path, const char *name, void *value, size_t size)`.
    getxattr => get(Path);
    /// `lgetxattr(const char *path, const char *name, void *value, size_t size)`.
    lgetxattr => get(LPath);
    /// `fgetxattr(int fd, const char *name, void *value, size_t size)`.
    fgetxattr => get(Fd);
    /// `setxattr(const char *path, const char *name, const void *value, size_t size, int flags)`.
    setxattr => set(Path);
    /// `lsetxattr(const char *path, const char *name, const void *value, size_t size, int flags)`.
    lsetxattr => set(LPath);
    /// `fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)`.
    fsetxattr => set(Fd);
    /// `listxattr(const char *path, char *list, size_t size)`.
    listxattr => list(Path);
    /// `llistxattr(const char *path, char *list, size_t size)`.
    llistxattr => list(LPath);
    /// `flistxattr(int fd, char *list, size_t size)`.
    flistxattr => list(Fd);
    /// `removexattr(const char *path, const char *name)`.
    removexattr => remove(Path);
    /// `lremovexattr(const char *path, const char *name)`.
    lremovexattr => remove(LPath);
    /// `fremovexattr(int fd, const char *name)`.
    fremovexattr => remove(Fd);
}
