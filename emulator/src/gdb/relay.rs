//! GDB's fork events: the processes of a guest `fork` share GDB's one connection, as GDB's
//! `follow-fork-mode` and `detach-on-fork` ask (docs/gdb.md, "Fork").
//!
//! The protocol (GDB manual, "Remote Protocol": "Stop Reply Packets" `fork`, "Packets" `D`,
//! `H`, `T`, `vCont`, `vKill`, and the multiprocess extensions' `p<PID>.<TID>` thread ids):
//! when GDB's `qSupported` says `fork-events+` (endgate offers it), a guest fork stops the
//! parent with `T05fork:p<CHILD>.<CHILD>;thread:p<PID>.<TID>;`. GDB then talks to the child
//! through the same connection: `Hgp<CHILD>.<CHILD>` and `z` packets to take its
//! breakpoints out, `D;<CHILD>` to detach it (following the parent), or `D;<PID>` to detach
//! the parent and go on with the child (`follow-fork-mode child`).
//!
//! How endgate serves that. The child is a separate host process with its own engine and
//! memory; it gets a copy of the connection's descriptor and its own `gdbstub` session (fed
//! the `qSupported` packet GDB sent the parent, so that it speaks the same dialect), and
//! waits, stopped where its `fork` returned 0. One process at a time reads the connection
//! (the active one); the two are joined by a Unix socket pair made just before the host fork
//! ([`Link`]). A packet for the other process (`H`, `vCont` or `T` naming its pid) is
//! handed to it with any bytes read after it ([`Msg::Handover`]), and the process that
//! handed it waits until the other hands the connection back or lets it go
//! ([`Msg::Release`]: it detached or exited); `D;<PID>` of the waiting process tells it to
//! run free ([`Msg::Detach`]) and is answered `OK` by the active one, and `vKill;<PID>`
//! kills it. A process that detaches or exits releases the connection to its last peer
//! (and tells the others to run free). Only a process's parent and its own children are its
//! peers: a packet for any other process is answered `E01`.

use std::io::Read as _;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Mutex;

use super::lock;

/// GDB asked for fork events in its `qSupported` (and endgate offered them).
static FORK_EVENTS: AtomicBool = AtomicBool::new(false);
/// GDB's `qSupported` packet, whole (`$...#cc`), replayed into a fork child's session.
static QSUPPORTED: Mutex<Vec<u8>> = Mutex::new(Vec::new());
/// The connection's descriptor in the first process (a fork child uses a copy).
static CONN_FD: AtomicI32 = AtomicI32::new(-1);
/// This process's links to its attached peers (its parent, its children), oldest first.
static PEERS: Mutex<Vec<Link>> = Mutex::new(Vec::new());
/// The socket pair made just before a host fork: (the parent's end, the child's end).
static PENDING: Mutex<Option<(UnixStream, UnixStream)>> = Mutex::new(None);

/// A peer process and the socket to it.
pub(super) struct Link {
    pid: i32,
    sock: UnixStream,
}

/// A message between two peers.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Msg {
    /// The connection is yours: serve these bytes (a packet GDB sent for you, and what
    /// followed it) and then read the connection; hand it back when GDB turns to me.
    Handover(Vec<u8>),
    /// The connection is yours for good: I detached or exited.
    Release,
    /// GDB detached you: run free.
    Detach,
}

/// What a waiting process does next.
pub(super) enum Wake {
    /// Serve the connection, these bytes first.
    Serve(Vec<u8>),
    /// Run free.
    Detach,
    /// The peer is gone (its socket closed without a message: it died).
    Gone,
}

/// What to do with a packet [`claims`] names.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// This process's: `gdbstub` serves it.
    Mine,
    /// Answer with this body.
    Reply(&'static [u8]),
    /// A peer's: hand the connection over.
    Handover(i32),
    /// `D;<PID>` of a waiting peer: it runs free, `OK`.
    DetachPeer(i32),
    /// `vKill;<PID>` of a waiting peer: it dies, `OK`.
    KillPeer(i32),
}

/// Whether fork events are on (GDB asked for them).
pub(super) fn fork_events() -> bool {
    FORK_EVENTS.load(Ordering::Relaxed)
}

/// Records the connection's descriptor (the first process, once GDB connected).
pub(super) fn set_conn(fd: i32) {
    CONN_FD.store(fd, Ordering::SeqCst);
}

/// Records GDB's `qSupported` packet (`bytes` framed) and whether it asks for fork events.
pub(super) fn note_qsupported(bytes: &[u8]) {
    let body = String::from_utf8_lossy(bytes);
    let asked = body.split([':', ';', '#']).any(|f| f == "fork-events+");
    FORK_EVENTS.store(asked && super::offers_fork_events(), Ordering::SeqCst);
    *lock(&QSUPPORTED) = bytes.to_vec();
}

/// GDB's `qSupported` packet as it was sent, for a fork child's session.
pub(super) fn qsupported() -> Vec<u8> {
    lock(&QSUPPORTED).clone()
}

/// A copy of the connection's descriptor, as a stream (a fork child's own).
pub(super) fn conn_copy() -> Option<std::net::TcpStream> {
    use std::os::fd::FromRawFd as _;
    let fd = CONN_FD.load(Ordering::Relaxed);
    if fd < 0 {
        return None;
    }
    // SAFETY: a new descriptor (close-on-exec) for the connection's socket, owned by the stream.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    // SAFETY: `copy` is a descriptor this process just made and nothing else owns.
    (copy >= 0).then(|| unsafe { std::net::TcpStream::from_raw_fd(copy) })
}

/// Before a host fork, when fork events are on: the socket pair the two processes will
/// share. `false` if it cannot be made (the child then runs free).
pub(super) fn before_fork() -> bool {
    match UnixStream::pair() {
        Ok(pair) => {
            *lock(&PENDING) = Some(pair);
            true
        }
        Err(_) => false,
    }
}

/// In the parent after the fork: the child `pid` is a peer.
pub(super) fn parent_side(pid: i32) -> bool {
    let Some((mine, _)) = lock(&PENDING).take() else { return false };
    lock(&PEERS).push(Link { pid, sock: mine });
    true
}

/// In the child after the fork: its parent is its only peer (the parent's links to its other
/// children are not the child's).
pub(super) fn child_side() -> bool {
    let Some((_, mine)) = lock(&PENDING).take() else { return false };
    // SAFETY: no arguments.
    let parent = unsafe { libc::getppid() };
    *lock(&PEERS) = vec![Link { pid: parent, sock: mine }];
    true
}

/// The attached peers' pids.
pub(super) fn peer_pids() -> Vec<i32> {
    lock(&PEERS).iter().map(|l| l.pid).collect()
}

fn send(sock: &mut UnixStream, m: &Msg) -> std::io::Result<()> {
    let (kind, body): (u8, &[u8]) = match m {
        Msg::Handover(b) => (b'H', b),
        Msg::Release => (b'R', &[]),
        Msg::Detach => (b'D', &[]),
    };
    let len = u32::try_from(body.len()).map_err(std::io::Error::other)?;
    let mut out = Vec::with_capacity(5 + body.len());
    out.push(kind);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(body);
    // `send` with MSG_NOSIGNAL: a peer that died is an error here, not a SIGPIPE.
    use std::os::fd::AsRawFd as _;
    let mut done = 0;
    while done < out.len() {
        let rest = &out[done..];
        // SAFETY: a valid buffer of `rest.len()` bytes, on a socket this process owns.
        let n = unsafe { libc::send(sock.as_raw_fd(), rest.as_ptr().cast(), rest.len(), libc::MSG_NOSIGNAL) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        done += n.unsigned_abs();
    }
    Ok(())
}

fn recv(sock: &mut UnixStream) -> std::io::Result<Msg> {
    let mut head = [0u8; 5];
    sock.read_exact(&mut head)?;
    let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    let mut body = vec![0u8; usize::try_from(len).map_err(std::io::Error::other)?];
    sock.read_exact(&mut body)?;
    match head[0] {
        b'H' => Ok(Msg::Handover(body)),
        b'R' => Ok(Msg::Release),
        b'D' => Ok(Msg::Detach),
        _ => Err(std::io::Error::other("bad relay message")),
    }
}

/// Sends `m` to peer `pid`; a peer that is gone is forgotten.
fn send_to(pid: i32, m: &Msg) -> bool {
    let mut peers = lock(&PEERS);
    let Some(i) = peers.iter().position(|l| l.pid == pid) else { return false };
    if send(&mut peers[i].sock, m).is_err() {
        peers.remove(i);
        return false;
    }
    if !matches!(m, Msg::Handover(_)) {
        // A released or detached peer is no longer ours to reach.
        peers.remove(i);
    }
    true
}

/// Waits for peer `pid` to give the connection back or to tell this process to run free.
pub(super) fn wait(pid: i32) -> Wake {
    let sock = {
        let peers = lock(&PEERS);
        match peers.iter().find(|l| l.pid == pid).map(|l| l.sock.try_clone()) {
            Some(Ok(s)) => s,
            _ => return Wake::Gone,
        }
    };
    let mut sock = sock;
    let forget = || lock(&PEERS).retain(|l| l.pid != pid);
    match recv(&mut sock) {
        Ok(Msg::Handover(bytes)) => Wake::Serve(bytes),
        Ok(Msg::Detach) => {
            forget();
            Wake::Detach
        }
        Ok(Msg::Release) => {
            forget();
            Wake::Serve(Vec::new())
        }
        Err(_) => {
            forget();
            Wake::Gone
        }
    }
}

/// Hands the connection to peer `pid` with `bytes` to serve first, and waits until it comes
/// back ([`wait`]); [`Wake::Gone`] if the peer cannot be reached or died meanwhile (it is
/// forgotten; GDB's packet is answered `E01`).
pub(super) fn handover(pid: i32, bytes: Vec<u8>) -> Wake {
    if send_to(pid, &Msg::Handover(bytes)) {
        wait(pid)
    } else {
        Wake::Gone
    }
}

/// A fork child's peer link could not serve (its session could not be made): the link goes,
/// so that the parent's handover finds it gone.
pub(super) fn forget_peers() {
    lock(&PEERS).clear();
}

/// `D;<PID>` of a waiting peer: it runs free.
pub(super) fn detach_peer(pid: i32) -> bool {
    send_to(pid, &Msg::Detach)
}

/// `vKill;<PID>` of a waiting peer: it dies by SIGKILL (as GDB's `kill` of an inferior).
pub(super) fn kill_peer(pid: i32) -> bool {
    let known = {
        let mut peers = lock(&PEERS);
        let n = peers.len();
        peers.retain(|l| l.pid != pid);
        peers.len() != n
    };
    if known {
        // SAFETY: signalling a process; a peer is this process's parent or child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    known
}

/// This process leaves GDB (it detached or exits): the connection goes to its last peer,
/// and every other peer runs free. `true` if a peer took it.
pub(super) fn release() -> bool {
    let peers: Vec<Link> = std::mem::take(&mut *lock(&PEERS));
    let mut taken = false;
    for mut l in peers.into_iter().rev() {
        let m = if taken { Msg::Detach } else { Msg::Release };
        if send(&mut l.sock, &m).is_ok() && m == Msg::Release {
            taken = true;
        }
    }
    taken
}

/// GDB is gone: every waiting peer runs free.
pub(super) fn let_go() {
    for mut l in std::mem::take(&mut *lock(&PEERS)) {
        let _ = send(&mut l.sock, &Msg::Detach);
    }
}

/// The packets [`route`] decides on: those that name a process.
pub(super) fn claims(body: &[u8]) -> bool {
    fork_events()
        && (body.starts_with(b"D;")
            || body.starts_with(b"Hgp")
            || body.starts_with(b"Hcp")
            || body.starts_with(b"Tp")
            || body.starts_with(b"vKill;")
            || (body.starts_with(b"vCont;") && body.windows(2).any(|w| w == b":p")))
}

/// A process id in hex, as GDB writes it (`-1`: all processes, 0: any).
fn pid_hex(s: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(s).ok()?;
    if s == "-1" {
        return Some(-1);
    }
    i64::from_str_radix(s, 16).ok()
}

/// Where a packet [`claims`] names goes, for process `me` with peers `peers`.
pub(crate) fn route(body: &[u8], me: i32, peers: &[i32]) -> Route {
    let whose = |pid: Option<i64>| -> Option<Result<(), i32>> {
        match pid? {
            p if p == i64::from(me) || p == -1 || p == 0 => Some(Ok(())),
            p => peers.iter().find(|&&q| i64::from(q) == p).map(|&q| Err(q)),
        }
    };
    // `p<PID>.<TID>` or `p<PID>` at the start of `s`.
    let thread_pid = |s: &[u8]| {
        let s = s.strip_prefix(b"p")?;
        let end = s.iter().position(|&b| b == b'.' || b == b';').unwrap_or(s.len());
        pid_hex(&s[..end])
    };
    // This process's, a peer's (`peer` decides), or out of reach.
    let decide = |w: Option<Result<(), i32>>, peer: fn(i32) -> Route| match w {
        Some(Ok(())) => Route::Mine,
        Some(Err(p)) => peer(p),
        None => Route::Reply(b"E01"),
    };
    if let Some(rest) = body.strip_prefix(b"D;") {
        return decide(whose(pid_hex(rest)), Route::DetachPeer);
    }
    if let Some(rest) = body.strip_prefix(b"vKill;") {
        return decide(whose(pid_hex(rest)), Route::KillPeer);
    }
    if body.starts_with(b"Hg") || body.starts_with(b"Hc") {
        return decide(whose(thread_pid(&body[2..])), Route::Handover);
    }
    if let Some(rest) = body.strip_prefix(b"T") {
        // A waiting peer's threads are alive.
        return decide(whose(thread_pid(rest)), |_| Route::Reply(b"OK"));
    }
    // vCont: the processes its actions name (`;c:p<PID>.<TID>`).
    let mut named = Vec::new();
    for action in body.split(|&b| b == b';').skip(1) {
        if let Some(i) = action.iter().position(|&b| b == b':') {
            named.push(whose(thread_pid(&action[i + 1..])));
        }
    }
    let peer = named.iter().find_map(|w| match w {
        Some(Err(p)) => Some(*p),
        _ => None,
    });
    let mine = named.iter().any(|w| matches!(w, Some(Ok(()))));
    match peer {
        // Actions only for one peer: it resumes; with some of this process's too, only this
        // process's are served (GDB resumes one inferior at a time unless schedule-multiple).
        Some(p) if !mine => Route::Handover(p),
        // Only processes out of reach (a grandchild's grandparent): refused.
        None if !mine && !named.is_empty() => Route::Reply(b"E01"),
        _ => Route::Mine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_go_where_they_name() {
        let (me, peers) = (0x100, [0x2a]);
        let r = |b: &[u8]| route(b, me, &peers);
        assert_eq!(r(b"D;100"), Route::Mine);
        assert_eq!(r(b"D;2a"), Route::DetachPeer(0x2a));
        assert_eq!(r(b"D;77"), Route::Reply(b"E01"));
        assert_eq!(r(b"Hgp2a.2a"), Route::Handover(0x2a));
        assert_eq!(r(b"Hgp100.101"), Route::Mine);
        assert_eq!(r(b"Hgp0.0"), Route::Mine);
        assert_eq!(r(b"Hcp-1.-1"), Route::Mine);
        assert_eq!(r(b"Tp2a.2a"), Route::Reply(b"OK"));
        assert_eq!(r(b"Tp100.100"), Route::Mine);
        assert_eq!(r(b"vKill;2a"), Route::KillPeer(0x2a));
        assert_eq!(r(b"vCont;c:p2a.-1"), Route::Handover(0x2a));
        assert_eq!(r(b"vCont;s:p100.100;c:p100.-1"), Route::Mine);
        assert_eq!(r(b"vCont;c:p100.-1;c:p2a.-1"), Route::Mine);
        assert_eq!(r(b"vCont;c"), Route::Mine);
        assert_eq!(r(b"vCont;c:p77.-1"), Route::Reply(b"E01"));
        assert_eq!(r(b"vCont;s:p100.100;c:p77.-1"), Route::Mine);
    }

    #[test]
    fn messages_cross_a_socket_pair() {
        let (mut a, mut b) = UnixStream::pair().expect("socketpair");
        for m in [Msg::Handover(b"$g#67+".to_vec()), Msg::Release, Msg::Detach, Msg::Handover(Vec::new())] {
            send(&mut a, &m).expect("send");
            assert_eq!(recv(&mut b).expect("recv"), m);
        }
        drop(a);
        assert!(recv(&mut b).is_err());
    }
}
