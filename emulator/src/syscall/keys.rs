//! Kernel key management (keyrings(7), add_key(2), request_key(2), keyctl(2); uapi
//! linux/keyctl.h; security/keys/keyctl.c): `add_key`, `request_key` and `keyctl`, passed to
//! the host kernel's keyrings, which the guest shares with the host process it runs in (its
//! session, process and thread keyrings are endgate's own).
//!
//! Arguments are translated by kind: strings are copied from guest memory, byte buffers are
//! handed to the host as host pointers into guest memory (a guest buffer endgate cannot use
//! becomes a host pointer that faults, so the host kernel answers `EFAULT` exactly where it
//! would have touched it), and the few structs (`keyctl_dh_params`, `keyctl_kdf_params`,
//! `keyctl_pkey_params`, `keyctl_pkey_query`, `KEYCTL_INSTANTIATE_IOV`'s iovecs) are rebuilt
//! in the host's layout. `key_serial_t` is an `int32_t` on every arch; `KEYCTL_READ` of a
//! keyring gives an array of them, put into the guest's byte order. An operation Linux does
//! not know is `EOPNOTSUPP`, as Linux answers.

use std::ffi::CString;

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::{Endian, GuestAddr};

/// A host address no process maps (below `mmap_min_addr`): the host kernel's copy to or from
/// it fails with `EFAULT`, as the guest's bad pointer would.
const FAULT: u64 = 8;

/// Longest string endgate copies (the kernel's limits are shorter: `KEY_MAX_DESC_SIZE` 4096,
/// a type name 32): a longer one is handed on cut there, still too long for the host kernel.
const STR_MAX: usize = 8192;

/// Most bytes of a payload endgate hands on (the kernel refuses more than 1 MiB - 1).
const PAYLOAD_MAX: u64 = 1 << 20;

/// Strings copied for one call; their host pointers stay valid while it lives.
#[derive(Default)]
struct Strings(Vec<CString>);

impl Strings {
    /// A guest string as a host pointer: NULL stays NULL, an unreadable one faults.
    fn get(&mut self, t: &Task, addr: GuestAddr) -> u64 {
        if addr.is_null() {
            return 0;
        }
        let bytes = match t.mm.read_cstr(addr, STR_MAX) {
            Ok(b) => b,
            Err(Errno::ENAMETOOLONG) => t.mm.read_vec(addr, STR_MAX).unwrap_or_default(),
            Err(_) => return FAULT,
        };
        let s = CString::new(bytes).unwrap_or_default();
        let p = s.as_ptr() as u64;
        self.0.push(s);
        p
    }
}

/// A guest buffer of `len` bytes the host reads: NULL stays NULL, a bad one faults.
fn buf_in(t: &Task, addr: GuestAddr, len: u64) -> u64 {
    if addr.is_null() {
        0
    } else {
        t.buf_in(addr, len.min(PAYLOAD_MAX)).map_or(FAULT, |p| p as u64)
    }
}

/// A guest buffer of `len` bytes the host writes: NULL stays NULL, a bad one faults.
fn buf_out(t: &mut Task, addr: GuestAddr, len: u64) -> u64 {
    if addr.is_null() {
        0
    } else {
        t.buf_out(addr, len).map_or(FAULT, |p| p as u64)
    }
}

fn keyctl_host(args: [u64; 5]) -> SysResult {
    // SAFETY: the pointers among `args` are host pointers valid for the operation, NULL, or
    // `FAULT`, which the kernel reports as EFAULT.
    host_ret(unsafe { libc::syscall(libc::SYS_keyctl, args[0], args[1], args[2], args[3], args[4]) })
}

/// `add_key(const char *type, const char *description, const void *payload, size_t plen,
/// key_serial_t keyring)`: the new or updated key's serial. Errors: the host's (`EFAULT`,
/// `EINVAL`, `ENODEV` for an unknown type, `ENOKEY`, `EKEYREVOKED`, `EDQUOT`, `EACCES`).
pub fn add_key(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let mut s = Strings::default();
    let (ty, desc) = (s.get(t, a.ptr(0)), s.get(t, a.ptr(1)));
    let plen = a.ulong(3);
    let payload = if plen > PAYLOAD_MAX { FAULT } else { buf_in(t, a.ptr(2), plen) };
    // SAFETY: host strings and a host buffer (or NULL/FAULT) as above.
    host_ret(unsafe { libc::syscall(libc::SYS_add_key, ty, desc, payload, plen, a.int_arg(4)) })
}

/// `request_key(const char *type, const char *description, const char *callout_info,
/// key_serial_t dest_keyring)`: the found (or constructed) key's serial. Errors: the host's
/// (`ENOKEY`, `EKEYEXPIRED`, `EKEYREVOKED`, `EFAULT`, `EINVAL`, `ENODEV`).
pub fn request_key(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data();
    let mut s = Strings::default();
    let (ty, desc, info) = (s.get(t, a.ptr(0)), s.get(t, a.ptr(1)), s.get(t, a.ptr(2)));
    // SAFETY: host strings as above.
    host_ret(unsafe { libc::syscall(libc::SYS_request_key, ty, desc, info, a.int_arg(3)) })
}

/// `KEYCTL_*` operations (linux/keyctl.h).
mod op {
    pub const GET_KEYRING_ID: i32 = 0;
    pub const JOIN_SESSION_KEYRING: i32 = 1;
    pub const UPDATE: i32 = 2;
    pub const REVOKE: i32 = 3;
    pub const CHOWN: i32 = 4;
    pub const SETPERM: i32 = 5;
    pub const DESCRIBE: i32 = 6;
    pub const CLEAR: i32 = 7;
    pub const LINK: i32 = 8;
    pub const UNLINK: i32 = 9;
    pub const SEARCH: i32 = 10;
    pub const READ: i32 = 11;
    pub const INSTANTIATE: i32 = 12;
    pub const NEGATE: i32 = 13;
    pub const SET_REQKEY_KEYRING: i32 = 14;
    pub const SET_TIMEOUT: i32 = 15;
    pub const ASSUME_AUTHORITY: i32 = 16;
    pub const GET_SECURITY: i32 = 17;
    pub const SESSION_TO_PARENT: i32 = 18;
    pub const REJECT: i32 = 19;
    pub const INSTANTIATE_IOV: i32 = 20;
    pub const INVALIDATE: i32 = 21;
    pub const GET_PERSISTENT: i32 = 22;
    pub const DH_COMPUTE: i32 = 23;
    pub const PKEY_QUERY: i32 = 24;
    pub const PKEY_ENCRYPT: i32 = 25;
    pub const PKEY_DECRYPT: i32 = 26;
    pub const PKEY_SIGN: i32 = 27;
    pub const PKEY_VERIFY: i32 = 28;
    pub const RESTRICT_KEYRING: i32 = 29;
    pub const MOVE: i32 = 30;
    pub const CAPABILITIES: i32 = 31;
    pub const WATCH_KEY: i32 = 32;
}

/// `keyctl(int operation, unsigned long arg2, arg3, arg4, arg5)`: each operation's
/// arguments translated by kind (module doc). Errors: `EOPNOTSUPP` for an unknown operation,
/// otherwise the host's.
pub fn keyctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let opn = a.int(0);
    let op = u64::from(a.uint(0));
    // An integer argument (a key serial, a uid, a timeout) as the kernel reads it: the low 32
    // bits, sign-extended for serials.
    let int = |n: usize| a.int_arg(n);
    let uint = |n: usize| u64::from(a.uint(n));
    let mut s = Strings::default();
    match opn {
        op::GET_KEYRING_ID
        | op::SET_REQKEY_KEYRING
        | op::REVOKE
        | op::CLEAR
        | op::LINK
        | op::UNLINK
        | op::NEGATE
        | op::ASSUME_AUTHORITY
        | op::INVALIDATE
        | op::GET_PERSISTENT
        | op::MOVE
        | op::WATCH_KEY
        | op::SESSION_TO_PARENT
        | op::REJECT => keyctl_host([op, int(1), int(2), int(3), int(4)]),
        op::CHOWN | op::SETPERM | op::SET_TIMEOUT => keyctl_host([op, int(1), uint(2), uint(3), 0]),
        op::JOIN_SESSION_KEYRING => {
            let name = s.get(t, a.ptr(1));
            keyctl_host([op, name, 0, 0, 0])
        }
        op::UPDATE | op::INSTANTIATE => {
            let len = a.ulong(3);
            let p = if len > PAYLOAD_MAX { FAULT } else { buf_in(t, a.ptr(2), len) };
            keyctl_host([op, int(1), p, len, int(4)])
        }
        op::DESCRIBE | op::GET_SECURITY => {
            let len = a.ulong(3);
            let p = buf_out(t, a.ptr(2), len);
            keyctl_host([op, int(1), p, len, 0])
        }
        op::READ => read(t, a),
        op::CAPABILITIES => {
            let len = a.ulong(2);
            let p = buf_out(t, a.ptr(1), len);
            keyctl_host([op, p, len, 0, 0])
        }
        op::SEARCH => {
            let (ty, desc) = (s.get(t, a.ptr(2)), s.get(t, a.ptr(3)));
            keyctl_host([op, int(1), ty, desc, int(4)])
        }
        op::RESTRICT_KEYRING => {
            let (ty, restriction) = (s.get(t, a.ptr(2)), s.get(t, a.ptr(3)));
            keyctl_host([op, int(1), ty, restriction, 0])
        }
        op::INSTANTIATE_IOV => {
            let iov = super::io::host_iovecs(t, a.ptr(2), a.ulong(3), false)?;
            let p = if a.ptr(2).is_null() { 0 } else { iov.as_ptr() as u64 };
            keyctl_host([op, int(1), p, a.ulong(3), int(4)])
        }
        op::DH_COMPUTE => dh_compute(t, a),
        op::PKEY_QUERY => pkey_query(t, a),
        op::PKEY_ENCRYPT | op::PKEY_DECRYPT | op::PKEY_SIGN | op::PKEY_VERIFY => pkey_op(t, a, opn),
        _ => Err(Errno::EOPNOTSUPP),
    }
}

/// `KEYCTL_READ(key, char *buffer, size_t buflen)`: the payload's size; copied only when it
/// fits. A keyring's payload is its keys' serials, put into the guest's byte order.
fn read(t: &mut Task, a: &SyscallArgs) -> SysResult {
    let len = a.ulong(3);
    let p = buf_out(t, a.ptr(2), len);
    let n = keyctl_host([op::READ as u64, a.int_arg(1), p, len, 0])?;
    if p != 0 && p != FAULT && n <= len && t.mm.endian() != Endian::HOST && is_keyring(a.int(1)) {
        t.mm.host_words_to_guest(a.ptr(2), n - n % 4, 4)?;
    }
    Ok(n)
}

/// `true` if key `id` is a keyring (its description starts with its type).
fn is_keyring(id: i32) -> bool {
    let mut buf = [0u8; 64];
    // SAFETY: a local buffer of its length.
    let n = unsafe {
        libc::syscall(libc::SYS_keyctl, op::DESCRIBE as u64, i64::from(id), buf.as_mut_ptr(), buf.len(), 0u64)
    };
    n > 0 && buf.starts_with(b"keyring;")
}

/// Reads `n` 32-bit words of a guest struct (host order out).
fn words(t: &Task, at: GuestAddr, n: usize) -> Result<Vec<u32>, Errno> {
    (0..n).map(|i| t.mm.read_u32(at + 4 * i as u64)).collect()
}

/// `KEYCTL_DH_COMPUTE(struct keyctl_dh_params *params, char *buffer, size_t buflen, struct
/// keyctl_kdf_params *kdf)`.
fn dh_compute(t: &mut Task, a: &SyscallArgs) -> SysResult {
    let params: [u32; 3] = if a.ptr(1).is_null() {
        return keyctl_host([op::DH_COMPUTE as u64, 0, 0, 0, 0]);
    } else {
        let w = words(t, a.ptr(1), 3)?;
        [w[0], w[1], w[2]]
    };
    let len = a.ulong(3);
    let out = buf_out(t, a.ptr(2), len);
    let mut s = Strings::default();
    let kdf_host;
    let kdf = if a.ptr(4).is_null() {
        0
    } else {
        // struct keyctl_kdf_params { char *hashname; char *otherinfo; __u32 otherinfolen;
        // __u32 __spare[8]; }, pointers in the guest's width.
        let word = t.mm.long_bytes();
        let at = a.ptr(4);
        let hash = GuestAddr::new(t.mm.read_ulong(at)?);
        let info = GuestAddr::new(t.mm.read_ulong(at + word)?);
        let tail = words(t, at + 2 * word, 9)?;
        let mut k = [0u64; 7];
        k[0] = s.get(t, hash);
        k[1] = buf_in(t, info, u64::from(tail[0]));
        // otherinfolen and __spare, packed as the host's u32s.
        for (i, w) in tail.iter().enumerate() {
            let (slot, half) = (2 + i / 2, i % 2);
            k[slot] |= u64::from(*w) << (32 * half);
        }
        kdf_host = k;
        kdf_host.as_ptr() as u64
    };
    keyctl_host([op::DH_COMPUTE as u64, params.as_ptr() as u64, out, len, kdf])
}

/// `KEYCTL_PKEY_QUERY(key_serial_t key, unsigned long reserved, const char *info, struct
/// keyctl_pkey_query *res)`.
fn pkey_query(t: &mut Task, a: &SyscallArgs) -> SysResult {
    let mut s = Strings::default();
    let info = s.get(t, a.ptr(3));
    // struct keyctl_pkey_query: u32 supported_ops, key_size; u16 max_data_size,
    // max_sig_size, max_enc_size, max_dec_size; u32 __spare[10] (48 bytes).
    let mut q = [0u8; 48];
    let res = if a.ptr(4).is_null() { 0 } else { q.as_mut_ptr() as u64 };
    let n = keyctl_host([op::PKEY_QUERY as u64, a.int_arg(1), a.ulong(2), info, res])?;
    if res != 0 {
        if t.mm.endian() != Endian::HOST {
            for (at, w) in [(0, 4), (4, 4), (8, 2), (10, 2), (12, 2), (14, 2)] {
                q[at..at + w].reverse();
            }
            for w in q[16..].chunks_exact_mut(4) {
                w.reverse();
            }
        }
        t.mm.write_bytes(a.ptr(4), &q)?;
    }
    Ok(n)
}

/// `KEYCTL_PKEY_{ENCRYPT,DECRYPT,SIGN,VERIFY}(const struct keyctl_pkey_params *params, const
/// char *info, const void *in, void *out_or_in2)`.
fn pkey_op(t: &mut Task, a: &SyscallArgs, opn: i32) -> SysResult {
    let op = u64::from(a.uint(0));
    if a.ptr(1).is_null() {
        return keyctl_host([op, 0, 0, 0, 0]);
    }
    // struct keyctl_pkey_params: s32 key_id; u32 in_len; u32 out_len or in2_len; u32 __spare[7].
    let params = words(t, a.ptr(1), 10)?;
    let mut s = Strings::default();
    let info = s.get(t, a.ptr(2));
    let input = buf_in(t, a.ptr(3), u64::from(params[1]));
    let last = if opn == op::PKEY_VERIFY {
        buf_in(t, a.ptr(4), u64::from(params[2]))
    } else {
        buf_out(t, a.ptr(4), u64::from(params[2]))
    };
    keyctl_host([op, params.as_ptr() as u64, info, input, last])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_guest_pointer_becomes_a_faulting_host_pointer() {
        let mut s = Strings::default();
        assert_eq!(s.0.len(), 0);
        // SAFETY: sysconf has no preconditions.
        let min = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        assert!(i64::try_from(FAULT).unwrap_or(i64::MAX) < i64::from(min > 0) * min);
        s.0.push(CString::new("x").unwrap_or_default());
        assert_eq!(s.0.len(), 1);
    }
}
