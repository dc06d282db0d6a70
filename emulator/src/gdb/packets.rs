//! The two packets endgate answers itself because `gdbstub` 0.7 has no target API for them:
//! `qXfer:threads:read` (every guest thread with its name) and `qXfer:siginfo:read` (the
//! `siginfo_t` of the signal the thread stopped for, GDB's `$_siginfo`). Incoming packets are
//! split from the byte stream ([`Splitter`]); these two are answered here, every other byte
//! goes to `gdbstub` unchanged. `gdbstub`'s `qSupported` reply gains `qXfer:threads:read+` and
//! `qXfer:siginfo:read+` ([`offer_own`]).
//!
//! Framing (GDB manual, "Overview" of the remote protocol): `$body#cc`, `cc` the two hex digits
//! of the sum of the body's bytes modulo 256; `}` escapes `#`, `$`, `}` and `*` in binary data
//! (the byte XOR 0x20); each packet is acknowledged with `+` (endgate keeps acknowledgements
//! on: its target does not offer `QStartNoAckMode`).

use crate::guard::Checked as _;
use crate::guest::Cpu;
use crate::mm::GuestAddr;

/// What one incoming byte amounts to.
pub enum Unit {
    /// Part of a packet not yet complete.
    Wait,
    /// Bytes for `gdbstub` (a byte outside packets, or a whole packet not endgate's).
    Pass(Vec<u8>),
    /// The body of a whole packet endgate answers.
    Own(Vec<u8>),
}

/// Collects a packet's bytes from `$` to its checksum.
#[derive(Default)]
pub struct Splitter {
    packet: Option<Vec<u8>>,
    /// Checksum digits still to come after `#`.
    digits: u8,
}

impl Splitter {
    /// Takes the next byte from GDB.
    pub fn feed(&mut self, b: u8) -> Unit {
        let Some(p) = self.packet.as_mut() else {
            if b == b'$' {
                self.packet = Some(vec![b]);
                return Unit::Wait;
            }
            return Unit::Pass(vec![b]);
        };
        p.push(b);
        if self.digits > 0 {
            self.digits -= 1;
            if self.digits > 0 {
                return Unit::Wait;
            }
            let p = self.packet.take().unwrap_or_default();
            let body = &p[1..p.len().saturating_sub(3).max(1)];
            return if own(body) { Unit::Own(body.to_vec()) } else { Unit::Pass(p) };
        }
        if b == b'#' {
            self.digits = 2;
        }
        Unit::Wait
    }
}

/// The packets endgate answers, and with fork events those that name a process
/// (`gdb::relay`).
pub fn own(body: &[u8]) -> bool {
    body.starts_with(b"qXfer:threads:read:") || body.starts_with(b"qXfer:siginfo:read:") || super::relay::claims(body)
}

/// Adds endgate's two objects to a `qSupported` reply in `out` (a framed packet, possibly
/// after an acknowledgement), with its checksum made again; other output is left alone.
pub fn offer_own(out: &mut Vec<u8>) {
    let Some(start) = find(out, b"$PacketSize=") else { return };
    let Some(hash) = out[start..].iter().position(|&b| b == b'#').map(|h| start + h) else { return };
    let mut body = out[start + 1..hash].to_vec();
    body.extend_from_slice(b";qXfer:threads:read+;qXfer:siginfo:read+");
    let rest = out.get(hash + 3..).unwrap_or_default().to_vec();
    out.truncate(start);
    out.extend(frame(&body, false));
    out.extend(rest);
}

/// With GDB's fork events (`gdb::relay`), in framed output `out` of process `pid`: a fork
/// stop's `fork:p<PID>.<CHILD>` (`gdbstub` writes the current process's pid there) becomes
/// `fork:p<CHILD>.<CHILD>`, and an exit packet (`W<code>`, `X<signal>`) names the process
/// (`;process:<PID>`), as multiprocess GDB reads them; checksums are made again.
pub fn fix_process_ids(out: &mut Vec<u8>, pid: u32) {
    let mut fixed = Vec::with_capacity(out.len() + 16);
    let mut i = 0;
    while i < out.len() {
        let Some(hash) = (out[i] == b'$').then(|| out[i..].iter().position(|&b| b == b'#')).flatten() else {
            fixed.push(out[i]);
            i += 1;
            continue;
        };
        let body = &out[i + 1..i + hash];
        let end = (i + hash + 3).min(out.len());
        let new_body = fork_stop_fixed(body).or_else(|| {
            let exit = matches!(body.first(), Some(b'W' | b'X'))
                && body.len() > 1
                && body[1..].iter().all(u8::is_ascii_hexdigit);
            exit.then(|| [body, format!(";process:{pid:x}").as_bytes()].concat())
        });
        match new_body {
            Some(b) => fixed.extend(frame(&b, false)),
            None => fixed.extend_from_slice(&out[i..end]),
        }
        i = end;
    }
    *out = fixed;
}

/// A stop reply's `fork:p<X>.<Y>` as `fork:p<Y>.<Y>`; `None` if it has none.
fn fork_stop_fixed(body: &[u8]) -> Option<Vec<u8>> {
    if body.first() != Some(&b'T') {
        return None;
    }
    let at = find(body, b"fork:p")? + b"fork:p".len();
    let dot = at + body[at..].iter().position(|&b| b == b'.')?;
    let end = dot + body[dot..].iter().position(|&b| b == b';').unwrap_or(body.len() - dot);
    let tid = &body[dot + 1..end];
    Some([&body[..at], tid, b".", tid, &body[end..]].concat())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `body` as a packet (`$body#cc`), after an acknowledgement when `ack`.
pub fn frame(body: &[u8], ack: bool) -> Vec<u8> {
    let sum = body.iter().fold(0u8, |s, &b| s.wrapping_add(b));
    let mut out = Vec::with_capacity(body.len() + 5);
    if ack {
        out.push(b'+');
    }
    out.push(b'$');
    out.extend_from_slice(body);
    out.extend_from_slice(format!("#{sum:02x}").as_bytes());
    out
}

/// `qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH` as (object, offset, length).
pub fn parse_xfer(body: &[u8]) -> Option<(&'static str, u64, u64)> {
    let s = std::str::from_utf8(body).ok()?;
    let rest = s.strip_prefix("qXfer:")?;
    let (object, rest) = rest.split_once(":read:")?;
    let (_annex, range) = rest.split_once(':')?;
    let (off, len) = range.split_once(',')?;
    let object = match object {
        "threads" => "threads",
        "siginfo" => "siginfo",
        _ => return None,
    };
    Some((object, u64::from_str_radix(off, 16).ok()?, u64::from_str_radix(len, 16).ok()?))
}

/// The reply to a `qXfer` read of `data`: `m` and a part when more follows, `l` and the last
/// part, binary-escaped.
pub fn xfer_reply(data: &[u8], offset: u64, length: u64) -> Vec<u8> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(data.len());
    let end = start.saturating_add(usize::try_from(length).unwrap_or(usize::MAX)).min(data.len());
    let mut out = vec![if end < data.len() { b'm' } else { b'l' }];
    for &b in &data[start..end] {
        if matches!(b, b'#' | b'$' | b'}' | b'*') {
            out.push(b'}');
            out.push(b ^ 0x20);
        } else {
            out.push(b);
        }
    }
    out
}

/// The thread list document (GDB manual, "Thread List Format"): each guest thread as
/// `pPID.TID` with its name, then the one thread of each process in `peers` (fork relatives
/// GDB also debugs, which wait meanwhile: `gdb::relay`) as `pPEER.PEER`.
pub fn threads_xml(pid: u32, tids: &[i32], peers: &[i32]) -> String {
    let mut out = String::from("<?xml version=\"1.0\"?>\n<threads>\n");
    for &p in peers {
        out.push_str(&format!("<thread id=\"p{p:x}.{p:x}\"/>\n"));
    }
    for &t in tids {
        let name = std::fs::read_to_string(format!("/proc/self/task/{t}/comm")).unwrap_or_default();
        let name: String = name
            .trim_end()
            .chars()
            .map(|c| match c {
                '<' | '>' | '&' | '"' | '\'' => '_',
                c => c,
            })
            .collect();
        out.push_str(&format!("<thread id=\"p{pid:x}.{t:x}\" name=\"{name}\"/>\n"));
    }
    out.push_str("</threads>\n");
    out
}

/// `info` as the guest's `siginfo_t` (its size, layout, byte order and numbering), laid out
/// by the signal-frame code in 128 bytes of the stopped thread's stack below its red zone and
/// read back; those bytes are restored. `None` when that stack is not writable there.
pub fn guest_siginfo(cpu: &mut Cpu<'_>, info: &crate::signal::SigInfo) -> Option<Vec<u8>> {
    use crate::guest::sigframe::{write_siginfo, SIGINFO_SIZE};
    let arch = cpu.get_data().arch;
    let sp = cpu.reg(arch.info().regs.sp);
    let at = GuestAddr::new(sp.checked_sub(4096)? & !15);
    let n = crate::abi::u64_to_usize(SIGINFO_SIZE);
    let mm = &mut cpu.get_data_mut().mm;
    let saved = mm.read_vec(at, n).ok()?;
    let made = write_siginfo(mm, arch, at, info).ok().and_then(|()| mm.read_vec(at, n).ok());
    mm.write_bytes(at, &saved).ok()?;
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitter_holds_own_packets_and_passes_others() {
        let mut s = Splitter::default();
        let mut passed = Vec::new();
        let mut owned = Vec::new();
        for &b in b"+$qXfer:threads:read::0,fff#aa$g#67\x03" {
            match s.feed(b) {
                Unit::Wait => {}
                Unit::Pass(p) => passed.extend(p),
                Unit::Own(o) => owned.push(o),
            }
        }
        assert_eq!(passed, b"+$g#67\x03");
        assert_eq!(owned, vec![b"qXfer:threads:read::0,fff".to_vec()]);
    }

    #[test]
    fn qsupported_reply_offers_the_objects() {
        let mut out = frame(b"PacketSize=1000;vContSupported+", false);
        out.insert(0, b'+');
        offer_own(&mut out);
        assert_eq!(out, frame(b"PacketSize=1000;vContSupported+;qXfer:threads:read+;qXfer:siginfo:read+", true));
        let mut other = frame(b"OK", false);
        offer_own(&mut other);
        assert_eq!(other, frame(b"OK", false));
    }

    #[test]
    fn fork_and_exit_packets_name_their_process() {
        let mut out = b"+".to_vec();
        out.extend(frame(b"T05thread:p64.64;fork:p64.7b;", false));
        out.extend(frame(b"W05", false));
        out.extend(frame(b"OK", false));
        out.extend(frame(b"X0b", false));
        out.extend(frame(b"Wfoo", false));
        fix_process_ids(&mut out, 0x64);
        let mut want = b"+".to_vec();
        want.extend(frame(b"T05thread:p64.64;fork:p7b.7b;", false));
        want.extend(frame(b"W05;process:64", false));
        want.extend(frame(b"OK", false));
        want.extend(frame(b"X0b;process:64", false));
        want.extend(frame(b"Wfoo", false));
        assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want));
    }

    #[test]
    fn xfer_parts_and_escapes() {
        assert_eq!(parse_xfer(b"qXfer:siginfo:read::10,20"), Some(("siginfo", 16, 32)));
        assert_eq!(parse_xfer(b"qXfer:features:read:target.xml:0,10"), None);
        assert_eq!(xfer_reply(b"abcdef", 0, 3), b"mabc");
        assert_eq!(xfer_reply(b"abcdef", 3, 100), b"ldef");
        assert_eq!(xfer_reply(b"a#}", 0, 10), b"la}\x03}]");
    }
}
