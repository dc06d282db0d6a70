//! A program for a machine endgate's CPU engine does not run is refused cleanly: exactly one
//! line on stderr that names the file and says why, nothing on stdout, exit status 126 (the
//! status a shell gives a file it found but cannot execute), and no hang.
//!
//! Inputs: Debian's ppc64el `busybox-static` (from `scripts/fetch-inputs.sh`), a big-endian
//! ppc64 hello built here with `powerpc64-linux-gnu-gcc -static` (from `scripts/install-deps.sh`;
//! Debian bookworm has no big-endian ppc64 busybox), and bare ELF headers with an `e_machine`
//! no ABI has been given (0x7777 is unassigned in the ELF machine registry).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{busybox, endgate, run_with_timeout, TempDir};

/// Refusing is a header check, so anything close to this is a hang.
const TIMEOUT: Duration = Duration::from_secs(20);

/// The `e_machine` used for a made-up machine: unassigned in the ELF registry.
const MADE_UP_MACHINE: u16 = 0x7777;

/// Runs `prog` under endgate and checks the refusal: one stderr line containing `path` and
/// every string in `says`, empty stdout, status 126.
fn assert_refused(prog: &Path, says: &[&str]) {
    let mut cmd = Command::new(endgate());
    cmd.arg(prog).args(["echo", "must not run"]);
    let o = run_with_timeout(&mut cmd, None, TIMEOUT);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.timed_out, "{}: endgate still running after {TIMEOUT:?}; stderr {err:?}", prog.display());
    assert_eq!(o.status, 126, "{}: exit status; stderr {err:?}", prog.display());
    assert!(o.stdout.is_empty(), "{}: stdout {:?}", prog.display(), String::from_utf8_lossy(&o.stdout));
    assert!(
        err.ends_with('\n') && err.matches('\n').count() == 1,
        "{}: want exactly one line, got {err:?}",
        prog.display()
    );
    let path = prog.to_string_lossy();
    assert!(err.contains(&*path), "{}: the message does not name the file: {err:?}", prog.display());
    for s in says {
        assert!(err.contains(s), "{}: the message does not say {s:?}: {err:?}", prog.display());
    }
}

/// A 64-byte ELF64 little-endian executable header with `machine` as `e_machine`, no program
/// or section headers. Layout: the ELF gABI's Elf64_Ehdr.
fn elf64_header(machine: u16) -> Vec<u8> {
    let mut h = vec![0x7f, b'E', b'L', b'F', 2, 1, 1, 0];
    h.resize(16, 0); // rest of e_ident
    h.extend_from_slice(&2u16.to_le_bytes()); // e_type ET_EXEC
    h.extend_from_slice(&machine.to_le_bytes()); // e_machine
    h.extend_from_slice(&1u32.to_le_bytes()); // e_version
    h.extend_from_slice(&0x40_0000u64.to_le_bytes()); // e_entry
    h.extend_from_slice(&0u64.to_le_bytes()); // e_phoff
    h.extend_from_slice(&0u64.to_le_bytes()); // e_shoff
    h.extend_from_slice(&0u32.to_le_bytes()); // e_flags
    for v in [64u16, 56, 0, 64, 0, 0] {
        // e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx
        h.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(h.len(), 64);
    h
}

/// Writes `bytes` to `dir/name` as an executable file and returns its path.
fn write_exec(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn ppc64el_busybox_is_refused() {
    assert_refused(&busybox("ppc64el"), &["ppc64le (not supported by the CPU engine)"]);
}

#[test]
fn big_endian_ppc64_hello_is_refused() {
    let dir = TempDir::new("unsupported");
    let src = dir.path().join("hello.c");
    std::fs::write(&src, "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n").unwrap();
    let exe = dir.path().join("hello-ppc64");
    let cc = "powerpc64-linux-gnu-gcc";
    let st = Command::new(cc)
        .args(["-static", "-O1", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e} (run scripts/install-deps.sh)"));
    assert!(st.success(), "{cc} failed");
    // The header really is big-endian ELF64 for EM_PPC64 (21).
    let head = std::fs::read(&exe).unwrap();
    assert_eq!((head[4], head[5], u16::from_be_bytes([head[18], head[19]])), (2, 2, 21));
    assert_refused(&exe, &["ppc64 (not supported by the CPU engine)"]);
}

#[test]
fn made_up_machine_is_refused() {
    let dir = TempDir::new("unsupported");
    let p = write_exec(dir.path(), "made-up-machine", &elf64_header(MADE_UP_MACHINE));
    assert_refused(&p, &["unsupported", &format!("e_machine {MADE_UP_MACHINE}")]);
}
