//! SysV IPC (svipc(7)): shared memory (`shm*`), semaphore sets (`sem*`), message queues
//! (`msg*`), and the `ipc(2)` multiplexer through which i386 and s390x also reach them.
//!
//! Every object lives in the host kernel's IPC namespace: keys, identifiers, permissions,
//! `SEM_UNDO` lists and limits are the host's, and other processes, emulated or not, see the
//! same objects a native process would. What endgate adds:
//! - a segment is attached *inside the guest address space*, at the address the guest asks or
//!   one endgate picks, aligned to the arch's `SHMLBA` ([`crate::mm::AddressSpace::attach_sysv_shm`]);
//!   it shows in `/proc/self/maps` as `/SYSV<key> (deleted)`, and a forked child inherits it;
//! - the `*_ds` structs are rewritten between the host's layout and the arch's: the arches
//!   differ in `ipc64_perm` (16-bit `mode` on arm and i386, s390x's padding) and x86_64's
//!   `semid64_ds` (see `abi::shapes`), besides width and byte order;
//! - `struct msgbuf`'s `long mtype` and `struct sembuf` are converted to the guest's width
//!   and byte order; semaphore arrays (`GETALL`/`SETALL`) to its byte order;
//! - `semop`, `semtimedop`, `msgsnd` and `msgrcv` may block, so they go through
//!   [`super::blocking_syscall`].
//!
//! `IPC_64` (0x100 in `cmd`) asks for the `*64_ds` layouts, which 32-bit libcs always do; it is
//! stripped. The older layouts a 32-bit guest gets without it (libc5's, with 16-bit ids) are
//! not served: such a `cmd` fails with `EINVAL`.

use syscalls::Errno;

use super::{host_ret, SysResult};
use crate::abi::shapes::{
    IPC64_PERM, IPC_KLUDGE, MSGINFO, MSQID64_DS_TAIL, SEMBUF, SEMID64_DS_TAIL_X86_64, SEMINFO, SHMID64_DS_TAIL,
    SHMINFO64, SHM_INFO, TIMESPEC, TIMESPEC64,
};
use crate::abi::thunk::{self, Field, Shape};
use crate::abi::{bits64, int32, signed64, u64_to_usize, DataModel, Endian};
use crate::guest::{Cpu, SyscallArgs, Task};
use crate::mm::{page_ceil, GuestAddr, Prot, PAGE_SIZE};

const IPC_RMID: i32 = 0;
const IPC_SET: i32 = 1;
const IPC_STAT: i32 = 2;
const IPC_INFO: i32 = 3;
const IPC_64: i32 = 0x100;

const SHM_LOCK: i32 = 11;
const SHM_UNLOCK: i32 = 12;
const SHM_STAT: i32 = 13;
const SHM_INFO_CMD: i32 = 14;
const SHM_STAT_ANY: i32 = 15;
const SHM_RDONLY: i32 = 0o10000;
const SHM_RND: i32 = 0o20000;
const SHM_REMAP: i32 = 0o40000;
const SHM_EXEC: i32 = 0o100000;

const GETPID: i32 = 11;
const GETVAL: i32 = 12;
const GETALL: i32 = 13;
const GETNCNT: i32 = 14;
const GETZCNT: i32 = 15;
const SETVAL: i32 = 16;
const SETALL: i32 = 17;
const SEM_STAT: i32 = 18;
const SEM_INFO: i32 = 19;
const SEM_STAT_ANY: i32 = 20;

const MSG_STAT: i32 = 11;
const MSG_INFO: i32 = 12;
const MSG_STAT_ANY: i32 = 13;

/// Largest message text endgate copies (`msgsnd`/`msgrcv`): above any `kernel.msgmax` a
/// system sets in practice (the default is 8192); larger sizes fail with `EINVAL`, as sizes
/// above `msgmax` do.
const MSG_TEXT_MAX: u64 = 64 << 20;

/// Which of the three `*64_ds` structs.
#[derive(Clone, Copy)]
enum Ds {
    Shm,
    Sem,
    Msg,
}

/// A `*64_ds` shape: the perm, then the struct's own members.
fn ds_shape(perm: &'static Shape, tail: &'static Shape) -> Vec<Field> {
    let mut v = vec![Field::Struct(perm)];
    v.extend_from_slice(tail);
    v
}

/// The host's (x86_64's) layout of `ds`.
fn host_ds(ds: Ds) -> Vec<Field> {
    match ds {
        Ds::Shm => ds_shape(IPC64_PERM, SHMID64_DS_TAIL),
        Ds::Sem => ds_shape(IPC64_PERM, SEMID64_DS_TAIL_X86_64),
        Ds::Msg => ds_shape(IPC64_PERM, MSQID64_DS_TAIL),
    }
}

/// The guest arch's layout of `ds`.
fn guest_ds(t: &Task, ds: Ds) -> Vec<Field> {
    let info = t.arch.info();
    match ds {
        Ds::Shm => ds_shape(info.ipc_perm, SHMID64_DS_TAIL),
        Ds::Sem => ds_shape(info.ipc_perm, info.semid_ds_tail),
        Ds::Msg => ds_shape(info.ipc_perm, MSQID64_DS_TAIL),
    }
}

/// Writes a struct the host filled (`host` in the host's layout `hs`) to guest `addr` in the
/// guest's layout `gs`, member by member. Errors: `EFAULT`.
fn put(t: &mut Task, addr: GuestAddr, hs: &Shape, gs: &Shape, host: &[u8]) -> Result<(), Errno> {
    let vals = thunk::values(hs, DataModel::HOST, host);
    let model = t.mm.model();
    let mut out = vec![0u8; thunk::size_of(gs, model)];
    thunk::from_values(gs, model, &vals, &mut out);
    t.mm.write_bytes(addr, &out)
}

/// Reads the guest's struct at `addr` (layout `gs`) into the host's layout `hs`. Errors: `EFAULT`.
fn get(t: &Task, addr: GuestAddr, hs: &Shape, gs: &Shape) -> Result<Vec<u8>, Errno> {
    let model = t.mm.model();
    let raw = t.mm.read_vec(addr, thunk::size_of(gs, model))?;
    let vals = thunk::values(gs, model, &raw);
    let mut out = vec![0u8; thunk::size_of(hs, DataModel::HOST)];
    thunk::from_values(hs, DataModel::HOST, &vals, &mut out);
    Ok(out)
}

/// The `*ctl` command without `IPC_64`. Errors: `EINVAL` for a 32-bit guest's old-layout
/// request (no `IPC_64`) of a command that passes a struct.
fn parse_cmd(t: &Task, cmd: i32, struct_cmds: &[i32]) -> Result<i32, Errno> {
    let plain = cmd & !IPC_64;
    if t.mm.long_bytes() == 4 && cmd & IPC_64 == 0 && struct_cmds.contains(&plain) {
        return Err(Errno::EINVAL);
    }
    Ok(plain)
}

/// A host `*ctl` call that fills or reads a buffer of `shape`.
fn host_ctl(nr: libc::c_long, id: i32, a2: i64, cmd: i32, buf: &mut [u8]) -> SysResult {
    // SAFETY: `buf` is a local buffer of the host struct's size.
    host_ret(unsafe {
        if nr == libc::SYS_semctl {
            libc::syscall(nr, id, a2, cmd, buf.as_mut_ptr())
        } else {
            libc::syscall(nr, id, cmd, buf.as_mut_ptr())
        }
    })
}

/// The `IPC_STAT`-like commands: the host fills its struct, the guest gets its own layout.
fn stat_cmd(t: &mut Task, nr: libc::c_long, id: i32, semnum: i64, cmd: i32, ds: Ds, addr: GuestAddr) -> SysResult {
    let hs = host_ds(ds);
    let mut buf = vec![0u8; thunk::size_of(&hs, DataModel::HOST)];
    let r = host_ctl(nr, id, semnum, cmd, &mut buf)?;
    put(t, addr, &hs, &guest_ds(t, ds), &buf)?;
    Ok(r)
}

/// `IPC_SET`: the guest's struct, in the host's layout, to the host.
fn set_cmd(t: &mut Task, nr: libc::c_long, id: i32, ds: Ds, addr: GuestAddr) -> SysResult {
    let hs = host_ds(ds);
    let mut buf = get(t, addr, &hs, &guest_ds(t, ds))?;
    host_ctl(nr, id, 0, IPC_SET, &mut buf)
}

/// An info struct (`IPC_INFO`, `SHM_INFO`…) of one shape on every arch but for widths.
fn info_cmd(t: &mut Task, nr: libc::c_long, id: i32, cmd: i32, shape: &'static Shape, addr: GuestAddr) -> SysResult {
    let mut buf = vec![0u8; thunk::size_of(shape, DataModel::HOST)];
    let r = host_ctl(nr, id, 0, cmd, &mut buf)?;
    put(t, addr, shape, shape, &buf)?;
    Ok(r)
}

// ---- shared memory ----

/// `shmget(key_t key, size_t size, int shmflg)`: the host's segment. Errors: the host's.
pub fn shmget(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_shmget, a.int(0), a.ulong(1), a.int(2)) })
}

/// The host's `shmid_ds` of `shmid` as the list of its members (see [`thunk::values`]).
fn shm_stat(shmid: i32) -> Result<Vec<u64>, Errno> {
    let hs = host_ds(Ds::Shm);
    let mut buf = vec![0u8; thunk::size_of(&hs, DataModel::HOST)];
    host_ctl(libc::SYS_shmctl, shmid, 0, IPC_STAT, &mut buf)?;
    Ok(thunk::values(&hs, DataModel::HOST, &buf))
}

/// Member indices in [`shm_stat`]'s list: `shm_perm.__key`, `shm_segsz`.
const SHM_KEY: usize = 0;
const SHM_SEGSZ: usize = 9;

/// `shmat` for the guest: where the segment goes and what the guest may do with it (shmat(2);
/// ipc/shm.c `do_shmat`). Errors: `EINVAL` (unaligned address without `SHM_RND`, an address
/// taken without `SHM_REMAP`), `EPERM` (below `mmap_min_addr`), `ENOMEM` (outside the address
/// space, no room), the host's
/// (`EACCES`, `EIDRM`, `EINVAL` for a bad id).
fn do_shmat(t: &mut Task, shmid: i32, addr: u64, flg: i32) -> SysResult {
    let (shmlba, force) = t.arch.info().shmlba;
    if addr == 0 && flg & SHM_REMAP != 0 {
        // ipc/shm.c `do_shmat`: SHM_REMAP needs an address.
        return Err(Errno::EINVAL);
    }
    let mut addr = addr;
    if addr & (shmlba - 1) != 0 {
        if flg & SHM_RND != 0 {
            addr &= !(shmlba - 1);
            if addr == 0 && flg & SHM_REMAP != 0 {
                return Err(Errno::EINVAL);
            }
        } else if force || addr % PAGE_SIZE != 0 {
            return Err(Errno::EINVAL);
        }
    }
    let st = shm_stat(shmid)?;
    let len = page_ceil(st[SHM_SEGSZ]).ok_or(Errno::EINVAL)?;
    let readonly = flg & SHM_RDONLY != 0;
    let mut prot = Prot::READ;
    if !readonly {
        prot = prot | Prot::WRITE;
    }
    if flg & SHM_EXEC != 0 {
        prot = prot | Prot::EXEC;
    }
    let mm = &mut t.mm;
    let at = if addr == 0 {
        // Room for the segment at an SHMLBA boundary.
        let slack = shmlba.saturating_sub(PAGE_SIZE);
        let start = mm.find_free(len + slack).ok_or(Errno::ENOMEM)?;
        start.next_multiple_of(shmlba)
    } else {
        // ipc/shm.c `do_shmat`: an attach over a mapping without SHM_REMAP is EINVAL; then
        // the mapping itself fails as mmap does (ENOMEM outside the address space, EPERM
        // below mmap_min_addr).
        if flg & SHM_REMAP == 0 && !mm.is_free(addr, len) {
            return Err(Errno::EINVAL);
        }
        if addr < crate::mm::MMAP_MIN_ADDR {
            return Err(Errno::EPERM);
        }
        if !mm.is_placeable(addr, len) {
            return Err(Errno::ENOMEM);
        }
        addr
    };
    mm.attach_sysv_shm(at, len, prot, int32(st[SHM_KEY]), shmid, readonly)?;
    Ok(at)
}

/// `shmat(int shmid, const void *shmaddr, int shmflg)`: the segment's guest address.
pub fn shmat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_shmat(cpu.get_data_mut(), a.int(0), a.raw(1), a.int(2))
}

/// `shmdt(const void *shmaddr)`: detaches the segment attached at `shmaddr`. Errors: `EINVAL`
/// if none is.
pub fn shmdt(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    // A segment already removed and gone from the host's table: its attached pieces still
    // carry its id, and all of them from `shmaddr` on go.
    t.mm.detach_sysv_shm(a.raw(0), |id| shm_stat(id).map_or(u64::MAX, |st| st[SHM_SEGSZ]))?;
    Ok(0)
}

/// `shmctl(int shmid, int cmd, struct shmid_ds *buf)`. Errors: `EINVAL` (unknown command),
/// `EFAULT`, the host's.
pub fn shmctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_shmctl(cpu.get_data_mut(), a.int(0), a.int(1), a.ptr(2))
}

fn do_shmctl(t: &mut Task, id: i32, cmd: i32, buf: GuestAddr) -> SysResult {
    let nr = libc::SYS_shmctl;
    match parse_cmd(t, cmd, &[IPC_STAT, IPC_SET, SHM_STAT, SHM_STAT_ANY, IPC_INFO])? {
        c @ (IPC_STAT | SHM_STAT | SHM_STAT_ANY) => stat_cmd(t, nr, id, 0, c, Ds::Shm, buf),
        IPC_SET => set_cmd(t, nr, id, Ds::Shm, buf),
        IPC_INFO => info_cmd(t, nr, id, IPC_INFO, SHMINFO64, buf),
        SHM_INFO_CMD => info_cmd(t, nr, id, SHM_INFO_CMD, SHM_INFO, buf),
        // SAFETY: no buffer.
        c @ (IPC_RMID | SHM_LOCK | SHM_UNLOCK) => host_ret(unsafe { libc::syscall(nr, id, c, 0usize) }),
        _ => Err(Errno::EINVAL),
    }
}

// ---- semaphores ----

/// `semget(key_t key, int nsems, int semflg)`. Errors: the host's.
pub fn semget(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_semget, a.int(0), a.int(1), a.int(2)) })
}

/// Most `sembuf`s endgate copies for one call; more than any `semopm` limit (the default is
/// 500), so the host's `E2BIG` answers such calls.
const SEMOPS_MAX: u64 = 1 << 16;

/// `semtimedop` with the guest's `timeout` in `ts_shape` (0: none). Errors: `EFAULT`,
/// `EINTR`, `EAGAIN`, the host's (`E2BIG`, `EINVAL`, `EIDRM`, `ERANGE`…).
fn do_semtimedop(
    t: &mut Task,
    id: i32,
    sops: GuestAddr,
    nsops: u64,
    timeout: GuestAddr,
    ts_shape: &'static Shape,
) -> SysResult {
    let host_sops = if nsops == 0 || nsops > SEMOPS_MAX {
        None
    } else {
        t.mm.read_shape_array::<[u16; 3]>(sops, SEMBUF, nsops).ok()
    };
    let ts = if timeout.is_null() { None } else { Some(t.mm.read_shape::<libc::timespec>(timeout, ts_shape)?) };
    let ts_ptr = ts.as_ref().map_or(0, |ts| std::ptr::from_ref(ts) as u64);
    let ops_ptr = host_sops.as_ref().map_or(0, |v| v.as_ptr() as u64);
    // Without readable operations the host answers with the error Linux would (E2BIG,
    // EINVAL or EFAULT) from a NULL array.
    host_ret(super::blocking_syscall(t, libc::SYS_semtimedop, &[bits64(id), ops_ptr, nsops, ts_ptr]))
}

/// `semop(int semid, struct sembuf *sops, size_t nsops)`.
pub fn semop(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_semtimedop(cpu.get_data_mut(), a.int(0), a.ptr(1), a.ulong(2), GuestAddr::NULL, TIMESPEC)
}

/// `semtimedop(int semid, struct sembuf *sops, size_t nsops, const struct timespec *timeout)`.
pub fn semtimedop(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_semtimedop(cpu.get_data_mut(), a.int(0), a.ptr(1), a.ulong(2), a.ptr(3), TIMESPEC)
}

/// `semtimedop_time64`: the same with a 64-bit `struct __kernel_timespec` (32-bit guests).
pub fn semtimedop_time64(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_semtimedop(cpu.get_data_mut(), a.int(0), a.ptr(1), a.ulong(2), a.ptr(3), TIMESPEC64)
}

/// Member index of `sem_nsems` in the host's `semid64_ds` list.
const SEM_NSEMS: usize = 11;

/// The number of semaphores in set `id` (from the host's `IPC_STAT`).
fn sem_count(id: i32) -> Result<usize, Errno> {
    let hs = host_ds(Ds::Sem);
    let mut buf = vec![0u8; thunk::size_of(&hs, DataModel::HOST)];
    host_ctl(libc::SYS_semctl, id, 0, IPC_STAT, &mut buf)?;
    usize::try_from(thunk::values(&hs, DataModel::HOST, &buf)[SEM_NSEMS]).map_err(|_| Errno::EINVAL)
}

/// `semctl(int semid, int semnum, int cmd, union semun arg)`: `arg` is the register the union
/// was passed in. Errors: `EINVAL` (unknown command), `EFAULT`, the host's.
pub fn semctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_semctl(cpu.get_data_mut(), a.int(0), a.int(1), a.int(2), a.raw(3))
}

fn do_semctl(t: &mut Task, id: i32, semnum: i32, cmd: i32, arg: u64) -> SysResult {
    let nr = libc::SYS_semctl;
    // `union semun`: a pointer for every command but SETVAL.
    let ptr = GuestAddr::new(arg);
    let num = i64::from(semnum);
    match parse_cmd(t, cmd, &[IPC_STAT, IPC_SET, SEM_STAT, SEM_STAT_ANY, IPC_INFO, SEM_INFO])? {
        c @ (IPC_STAT | SEM_STAT | SEM_STAT_ANY) => stat_cmd(t, nr, id, num, c, Ds::Sem, ptr),
        IPC_SET => set_cmd(t, nr, id, Ds::Sem, ptr),
        c @ (IPC_INFO | SEM_INFO) => info_cmd(t, nr, id, c, SEMINFO, ptr),
        c @ (IPC_RMID | GETPID | GETVAL | GETNCNT | GETZCNT) => {
            // SAFETY: no buffer.
            host_ret(unsafe { libc::syscall(nr, id, num, c, 0usize) })
        }
        SETVAL => {
            // The union's `int val` is its first four bytes: in a 64-bit big-endian register
            // those are the high half (ipc/sem.c `semctl_setval`).
            let m = t.mm.model();
            let val = if m.long_bytes == 8 && m.endian == Endian::Big { int32(arg >> 32) } else { int32(arg) };
            // SAFETY: integer arguments.
            host_ret(unsafe { libc::syscall(nr, id, num, SETVAL, i64::from(val)) })
        }
        GETALL => {
            let mut vals = vec![0u16; sem_count(id)?];
            // SAFETY: `vals` holds one `unsigned short` per semaphore of the set.
            host_ret(unsafe { libc::syscall(nr, id, 0, GETALL, vals.as_mut_ptr()) })?;
            t.mm.write_shape_array(ptr, &[Field::U16], &vals)?;
            Ok(0)
        }
        SETALL => {
            let n = sem_count(id)?;
            let vals: Vec<u16> = t.mm.read_shape_array(ptr, &[Field::U16], n as u64)?;
            // SAFETY: as for GETALL.
            host_ret(unsafe { libc::syscall(nr, id, 0, SETALL, vals.as_ptr()) })
        }
        _ => Err(Errno::EINVAL),
    }
}

// ---- message queues ----

/// `msgget(key_t key, int msgflg)`. Errors: the host's.
pub fn msgget(_cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    // SAFETY: integer arguments.
    host_ret(unsafe { libc::syscall(libc::SYS_msgget, a.int(0), a.int(1)) })
}

/// The guest's `long`-sized `mtype` at `addr`, sign-extended.
fn read_mtype(t: &Task, addr: GuestAddr) -> Result<i64, Errno> {
    t.mm.read_slong(addr)
}

fn do_msgsnd(t: &mut Task, id: i32, msgp: GuestAddr, msgsz: u64, flg: i32) -> SysResult {
    if msgsz > MSG_TEXT_MAX || signed64(msgsz) < 0 {
        return Err(Errno::EINVAL);
    }
    let mtype = read_mtype(t, msgp)?;
    let lb = t.mm.long_bytes();
    let text = t.mm.read_vec(msgp + lb, u64_to_usize(msgsz))?;
    let mut host = Vec::with_capacity(8 + text.len());
    host.extend_from_slice(&mtype.to_ne_bytes());
    host.extend_from_slice(&text);
    host_ret(super::blocking_syscall(t, libc::SYS_msgsnd, &[bits64(id), host.as_ptr() as u64, msgsz, bits64(flg)]))
}

/// `msgsnd(int msqid, const void *msgp, size_t msgsz, int msgflg)`: `msgp` is the guest's
/// `struct msgbuf { long mtype; char mtext[]; }`. Errors: `EINVAL` (negative or huge size),
/// `EFAULT`, `EINTR`, `EAGAIN`, the host's.
pub fn msgsnd(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_msgsnd(cpu.get_data_mut(), a.int(0), a.ptr(1), a.ulong(2), a.int(3))
}

fn do_msgrcv(t: &mut Task, id: i32, msgp: GuestAddr, msgsz: u64, msgtyp: i64, flg: i32) -> SysResult {
    if signed64(msgsz) < 0 {
        return Err(Errno::EINVAL);
    }
    let cap = msgsz.min(MSG_TEXT_MAX);
    let mut host = vec![0u8; 8 + cap as usize];
    let n = host_ret(super::blocking_syscall(
        t,
        libc::SYS_msgrcv,
        &[bits64(id), host.as_mut_ptr() as u64, cap, bits64(msgtyp), bits64(flg)],
    ))?;
    let mtype = i64::from_ne_bytes(host[..8].try_into().expect("8 bytes"));
    let lb = t.mm.long_bytes();
    t.mm.write_ulong(msgp, bits64(mtype))?;
    t.mm.write_bytes(msgp + lb, &host[8..8 + u64_to_usize(n)])?;
    Ok(n)
}

/// `msgrcv(int msqid, void *msgp, size_t msgsz, long msgtyp, int msgflg)`. Errors: `EINVAL`,
/// `EFAULT` (the message is then gone, as on Linux), `E2BIG`, `ENOMSG`, `EINTR`, the host's.
pub fn msgrcv(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_msgrcv(cpu.get_data_mut(), a.int(0), a.ptr(1), a.ulong(2), a.long(3), a.int(4))
}

/// `msgctl(int msqid, int cmd, struct msqid_ds *buf)`. Errors: `EINVAL`, `EFAULT`, the host's.
pub fn msgctl(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    do_msgctl(cpu.get_data_mut(), a.int(0), a.int(1), a.ptr(2))
}

fn do_msgctl(t: &mut Task, id: i32, cmd: i32, buf: GuestAddr) -> SysResult {
    let nr = libc::SYS_msgctl;
    match parse_cmd(t, cmd, &[IPC_STAT, IPC_SET, MSG_STAT, MSG_STAT_ANY, IPC_INFO, MSG_INFO])? {
        c @ (IPC_STAT | MSG_STAT | MSG_STAT_ANY) => stat_cmd(t, nr, id, 0, c, Ds::Msg, buf),
        IPC_SET => set_cmd(t, nr, id, Ds::Msg, buf),
        c @ (IPC_INFO | MSG_INFO) => info_cmd(t, nr, id, c, MSGINFO, buf),
        // SAFETY: no buffer.
        IPC_RMID => host_ret(unsafe { libc::syscall(nr, id, IPC_RMID, 0usize) }),
        _ => Err(Errno::EINVAL),
    }
}

// ---- the multiplexer ----

/// `ipc(unsigned int call, int first, unsigned long second, unsigned long third, void *ptr,
/// long fifth)` (ipc(2); ipc/syscall.c): the low 16 bits of `call` name the operation, the
/// high 16 its version. Errors: `ENOSYS` for an unknown call, `EINVAL` for an unknown
/// version, the operation's.
pub fn ipc(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let t = cpu.get_data_mut();
    let (call, version) = (a.uint(0) & 0xffff, a.uint(0) >> 16);
    let (first, second, third, ptr, fifth) = (a.int(1), a.raw(2), a.raw(3), a.raw(4), a.raw(5));
    match call {
        1 => do_semtimedop(t, first, GuestAddr::new(ptr), second, GuestAddr::NULL, TIMESPEC),
        2 => syscall_ints(libc::SYS_semget, &[first.into(), i64::from(a.int(2)), i64::from(a.int(3))]),
        3 => {
            // The union semun is passed by address here.
            if ptr == 0 {
                return Err(Errno::EINVAL);
            }
            let arg = t.mm.read_ulong(GuestAddr::new(ptr))?;
            do_semctl(t, first, a.int(2), a.int(3), arg)
        }
        4 => do_semtimedop(t, first, GuestAddr::new(ptr), second, GuestAddr::new(fifth), TIMESPEC),
        11 => do_msgsnd(t, first, GuestAddr::new(ptr), second, a.int(3)),
        12 => {
            if version == 0 {
                // struct ipc_kludge { struct msgbuf *msgp; long msgtyp; }
                if ptr == 0 {
                    return Err(Errno::EINVAL);
                }
                let k = thunk::values(
                    IPC_KLUDGE,
                    t.mm.model(),
                    &t.mm.read_vec(GuestAddr::new(ptr), thunk::size_of(IPC_KLUDGE, t.mm.model()))?,
                );
                do_msgrcv(t, first, GuestAddr::new(k[0]), second, signed64(k[1]), a.int(3))
            } else {
                do_msgrcv(t, first, GuestAddr::new(ptr), second, long_of(t, fifth), a.int(3))
            }
        }
        13 => syscall_ints(libc::SYS_msgget, &[first.into(), i64::from(a.int(2))]),
        14 => do_msgctl(t, first, a.int(2), GuestAddr::new(ptr)),
        21 => {
            if version == 1 {
                // The iBCS2 form, for kernel-internal callers only.
                return Err(Errno::EINVAL);
            }
            let at = do_shmat(t, first, ptr, a.int(2))?;
            t.mm.write_ulong(GuestAddr::new(third), at)?;
            Ok(0)
        }
        22 => {
            t.mm.detach_sysv_shm(ptr, |id| shm_stat(id).map_or(u64::MAX, |st| st[SHM_SEGSZ]))?;
            Ok(0)
        }
        23 => syscall_ints(libc::SYS_shmget, &[first.into(), signed64(second), i64::from(a.int(3))]),
        24 => do_shmctl(t, first, a.int(2), GuestAddr::new(ptr)),
        _ => Err(Errno::ENOSYS),
    }
}

/// A guest `long` held in a register, sign-extended on ILP32.
fn long_of(t: &Task, v: u64) -> i64 {
    if t.mm.long_bytes() == 4 {
        i64::from(int32(v))
    } else {
        signed64(v)
    }
}

/// A host call with integer arguments only.
fn syscall_ints(nr: libc::c_long, args: &[i64]) -> SysResult {
    let g = |i: usize| args.get(i).copied().unwrap_or(0);
    // SAFETY: integer arguments only.
    host_ret(unsafe { libc::syscall(nr, g(0), g(1), g(2)) })
}
