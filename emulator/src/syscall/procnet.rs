//! `/proc/net` tables whose IPv4 and IPv6 addresses the kernel prints as the hex of the
//! address's bytes read as a host integer, shown to a guest of the other byte order as its own
//! kernel would print them.
//!
//! The kernel stores an address in network order (`__be32`, `struct in6_addr`'s four `__be32`
//! words) and prints each 32-bit word with `%08X` as the integer the CPU reads from it: on a
//! little-endian host 127.0.0.1 is `0100007F`, on a big-endian one `7F000001`. Programs parse
//! the word back with `%X` into a `uint32_t` and use it as `s_addr` (busybox `route` and
//! `netstat`, net-tools, `/proc/net/tcp` readers), which is right only when the text was
//! printed in their own byte order. For a guest whose byte order is not the host's, each such
//! word's four bytes are reversed; everything else (ports, which the kernel prints after
//! `ntohs`, counters, queues, inodes) is a plain number and stays.
//!
//! The tables (formats from net/ipv4/route.c `fib_route_seq_show` — in fib_trie.c —,
//! tcp_ipv4.c `get_tcp4_sock`, udp.c `udp4_format_sock`, raw.c `raw_sock_seq_show`, ping.c,
//! igmp.c `igmp_mc_seq_show`, and their IPv6 counterparts, Linux 6.x):
//! - `route`: `Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT`,
//!   tab-separated; Destination, Gateway and Mask are words.
//! - `tcp`, `udp`, `udplite`, `raw`, `icmp`: `sl local_address rem_address …`, the addresses
//!   `WORD:PORT`.
//! - `tcp6`, `udp6`, `udplite6`, `raw6`, `icmp6`: the same with four words per address.
//! - `igmp`: interface lines, then one line per group starting with four tabs, whose first
//!   field (`Group`) is a word.
//!
//! Every rewrite keeps each line's length, so the file's size and a reader's offsets are the
//! kernel's.

/// How a table's addresses are laid out (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `route`.
    Route,
    /// `tcp`, `udp`, `udplite`, `raw`, `icmp`: one word per address.
    Inet4,
    /// `tcp6`, `udp6`, `udplite6`, `raw6`, `icmp6`: four words per address.
    Inet6,
    /// `igmp`.
    Igmp,
}

/// The tables rewritten: the file's name under `/proc/net`, its shape.
const FILES: [(&str, Shape); 12] = [
    ("route", Shape::Route),
    ("tcp", Shape::Inet4),
    ("udp", Shape::Inet4),
    ("udplite", Shape::Inet4),
    ("raw", Shape::Inet4),
    ("icmp", Shape::Inet4),
    ("tcp6", Shape::Inet6),
    ("udp6", Shape::Inet6),
    ("udplite6", Shape::Inet6),
    ("raw6", Shape::Inet6),
    ("icmp6", Shape::Inet6),
    ("igmp", Shape::Igmp),
];

/// One of the rewritten `/proc/net` tables (an index into the list above).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetTable(u8);

impl NetTable {
    /// The file's name under `/proc/net`.
    pub fn name(self) -> &'static str {
        FILES[usize::from(self.0)].0
    }

    /// Its addresses' layout.
    pub fn shape(self) -> Shape {
        FILES[usize::from(self.0)].1
    }
}

/// The table named `name` (the file under `/proc/net`), if it is one of those rewritten.
pub fn table(name: &[u8]) -> Option<NetTable> {
    let i = FILES.iter().position(|(n, _)| n.as_bytes() == name)?;
    u8::try_from(i).ok().map(NetTable)
}

/// `true` if a guest of byte order `guest` needs the tables rewritten (its order is not the
/// host's).
pub fn needed(guest: crate::mm::Endian) -> bool {
    (guest == crate::mm::Endian::Little) != cfg!(target_endian = "little")
}

/// `text`, a host table of shape `t`, with each address word's bytes reversed (see the module
/// doc). A line that does not have the table's shape is left as it is.
pub fn swap_words(t: Shape, text: &mut [u8]) {
    let mut start = 0;
    let mut first = true;
    while start < text.len() {
        let end = text[start..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| start + i);
        // The first line of every table is its header.
        if !first {
            swap_line(t, &mut text[start..end]);
        }
        first = false;
        start = end + 1;
    }
}

/// One data line of a table of shape `t`.
fn swap_line(t: Shape, line: &mut [u8]) {
    match t {
        Shape::Route => {
            // Destination, Gateway and Mask: the second, third and eighth tab-separated fields.
            for (i, field) in fields(line, |b| b == b'\t').into_iter().enumerate() {
                if matches!(i, 1 | 2 | 7) {
                    swap_hex_words(&mut line[field.0..field.1], 1);
                }
            }
        }
        Shape::Inet4 | Shape::Inet6 => {
            let words = if t == Shape::Inet4 { 1 } else { 4 };
            // "sl:", then local_address and rem_address as WORDS:PORT.
            for (i, field) in fields(line, |b| b == b' ').into_iter().enumerate().take(3) {
                if i > 0 {
                    swap_hex_words(&mut line[field.0..field.1], words);
                }
            }
        }
        Shape::Igmp => {
            // A group's line: four tabs, then the group's word.
            if line.starts_with(b"\t\t\t\t") {
                swap_hex_words(&mut line[4..], 1);
            }
        }
    }
}

/// The `(start, end)` byte ranges of the fields of `line` separated by runs of bytes that
/// `sep` accepts (leading separators skipped).
fn fields(line: &[u8], sep: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && sep(line[i]) {
            i += 1;
        }
        let s = i;
        while i < line.len() && !sep(line[i]) {
            i += 1;
        }
        if i > s {
            v.push((s, i));
        }
    }
    v
}

/// Reverses the byte order of the `n` 8-digit hex words at the start of `s`, in place; nothing
/// if `s` does not start with `8 * n` hex digits.
fn swap_hex_words(s: &mut [u8], n: usize) {
    let Some(words) = s.get_mut(..8 * n) else { return };
    if !words.iter().all(u8::is_ascii_hexdigit) {
        return;
    }
    for w in words.chunks_exact_mut(8) {
        // Digit pairs are bytes: "0100007F" -> "7F000001".
        let pairs = [[w[0], w[1]], [w[2], w[3]], [w[4], w[5]], [w[6], w[7]]];
        for (k, p) in pairs.iter().rev().enumerate() {
            w[2 * k] = p[0];
            w[2 * k + 1] = p[1];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swapped(t: Shape, s: &str) -> String {
        let mut b = s.as_bytes().to_vec();
        swap_words(t, &mut b);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn route_words_swap_and_lengths_stay() {
        let host = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT   \n\
                    eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0     \n\
                    eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0     \n";
        let guest = swapped(Shape::Route, host);
        assert_eq!(guest.len(), host.len());
        let lines: Vec<&str> = guest.lines().collect();
        assert_eq!(lines[0], host.lines().next().unwrap());
        assert_eq!(lines[1], "eth0\t00000000\tC0000201\t0003\t0\t0\t0\t00000000\t0\t0\t0     ");
        assert_eq!(lines[2], "eth0\tC0000200\t00000000\t0001\t0\t0\t0\tFFFFFF00\t0\t0\t0     ");
    }

    #[test]
    fn socket_addresses_swap_but_ports_and_counters_stay() {
        let host =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   \
                    0: 0100007F:0016 0200A8C0:D431 0A 00000000:00000001 00:00000000 00000000     0        0 12345 1\n";
        let guest = swapped(Shape::Inet4, host);
        assert_eq!(guest.len(), host.len());
        assert!(guest.contains("   0: 7F000001:0016 C0A80002:D431 0A 00000000:00000001 00:00000000 00000000"));
        let host6 = "  sl  local_address                         remote_address\n   \
                     0: 00000000000000000000000001000000:0016 000080FE00000000FF0000020300FEFF:0000 0A\n";
        let guest6 = swapped(Shape::Inet6, host6);
        assert!(guest6.contains("0: 00000000000000000000000000000001:0016 FE80000000000000020000FFFFFE0003:0000 0A"));
    }

    #[test]
    fn igmp_groups_swap_and_interface_lines_stay() {
        let host = "Idx\tDevice    : Count Querier\tGroup    Users Timer\tReporter\n\
                    1\tlo        :     1      V3\n\
                    \t\t\t\t010000E0     1 0:00000000\t\t0\n";
        let guest = swapped(Shape::Igmp, host);
        assert_eq!(guest.len(), host.len());
        assert!(guest.contains("1\tlo        :     1      V3\n"));
        assert!(guest.contains("\t\t\t\tE0000001     1 0:00000000\t\t0\n"));
    }

    #[test]
    fn tables_are_named_and_other_files_are_not() {
        assert_eq!(table(b"tcp6").map(NetTable::shape), Some(Shape::Inet6));
        assert_eq!(table(b"route").map(NetTable::name), Some("route"));
        assert_eq!(table(b"dev"), None);
        assert_eq!(table(b"if_inet6"), None);
    }
}
