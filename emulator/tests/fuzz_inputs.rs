//! The fuzz targets' kept inputs (`fuzz/inputs/TARGET/*`: crashes found and fixed, and small
//! seeds written here) replayed through the targets' entry points without the fuzzer, with a
//! few sample inputs per target: none may panic. scripts/fuzz.sh runs the fuzzers themselves.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/inputs").join(target);
    let mut n = 0;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let bytes = std::fs::read(e.path()).unwrap();
            run(&bytes);
            n += 1;
        }
    }
    for sample in [&b""[..], b"\x7fELF", &[0xff; 64], &[0; 300]] {
        run(sample);
    }
    eprintln!("{target}: {n} kept inputs");
}

#[test]
fn elf_loader_inputs() {
    replay("elf_loader", endgate::fuzz::elf_loader);
}

#[test]
fn strace_format_inputs() {
    replay("strace_format", endgate::fuzz::strace_format);
}

#[test]
fn abi_convert_inputs() {
    replay("abi_convert", endgate::fuzz::abi_convert);
    // Every shape and struct stat, each pair of data models.
    for sel in 0..=255u8 {
        for from in 0..4u8 {
            for to in 0..4u8 {
                let mut b = vec![sel, from, to];
                b.extend((0..400u32).map(|i| (i * 37 + u32::from(sel)).to_le_bytes()[0]));
                endgate::fuzz::abi_convert(&b);
            }
        }
    }
}

#[test]
fn gdb_packets_inputs() {
    replay("gdb_packets", endgate::fuzz::gdb_packets);
    endgate::fuzz::gdb_packets(
        b"+$qXfer:threads:read::0,fff#aa$qXfer:siginfo:read::ffffffffffffffff,ffffffffffffffff#00",
    );
}

#[test]
fn syscall_live_inputs() {
    replay("syscall_live", endgate::fuzz::syscall_live);
    // Every arch, three calls: number 39 (x86_64's getpid), the first number the arch's table
    // serves with (1, the data pages, -1, 0, 0, 0), and number 0x7fff (none).
    for arch in 0..7u8 {
        let mut b = vec![arch, 2];
        b.extend([39, 0x80, 7, 7, 7, 7, 7, 7]);
        b.extend([0, 0, 1, 1, 0, 0, 0, 5, 4, 7, 7, 7]);
        b.extend([0xff, 0xff, 7, 7, 7, 7, 7, 7]);
        b.extend(b"hello");
        endgate::fuzz::syscall_live(&b);
    }
    // Every arch's server started its guest and answered (it prints why when it cannot).
    assert_eq!(endgate::fuzz::servers_lost(), 0, "a syscall_live server could not run (see stderr)");
}
