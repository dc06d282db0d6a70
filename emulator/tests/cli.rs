//! The command line and what endgate does with bad input: each bad program gives one line on
//! stderr naming the file and the reason, with a shell-like status (126/127) and no panic; a
//! guest that faults ends with 128+signal and a one-line report; a bad guest pointer is
//! `EFAULT` and the guest carries on.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{endgate, shell_status, workspace, TempDir};

fn run(args: &[&str]) -> Output {
    Command::new(endgate()).args(args).output().expect("run endgate")
}

fn stderr_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr).lines().map(str::to_string).collect()
}

/// Gives `f` execute permission (mode 0755), as a program needs before its contents matter.
fn executable(f: &std::path::Path) {
    std::fs::set_permissions(f, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// One line naming `name`, no panic, the given status.
fn assert_one_line(o: &Output, name: &str, status: i32, reason: &str) {
    let lines = stderr_lines(o);
    assert_eq!(shell_status(o.status), status, "status for {name}: {lines:?}");
    assert_eq!(lines.len(), 1, "one line for {name}: {lines:?}");
    assert!(lines[0].contains(name), "{:?} names {name}", lines[0]);
    assert!(lines[0].contains(reason), "{:?} says {reason}", lines[0]);
    assert!(!lines[0].contains("panicked"));
}

#[test]
fn missing_program_is_127() {
    let o = run(&["/nonexistent/prog"]);
    assert_one_line(&o, "/nonexistent/prog", 127, "No such file or directory");
}

#[test]
fn directory_is_126() {
    let d = TempDir::new("dir");
    let p = d.path().to_str().unwrap();
    assert_one_line(&run(&[p]), p, 126, "Is a directory");
}

#[test]
fn non_elf_is_126() {
    let d = TempDir::new("txt");
    let f = d.path().join("script.txt");
    std::fs::write(&f, "just text\n").unwrap();
    executable(&f);
    let p = f.to_str().unwrap();
    assert_one_line(&run(&[p]), p, 126, "not an ELF");
}

fn example() -> Vec<u8> {
    std::fs::read(workspace().join("examples/hello-aarch64")).unwrap()
}

#[test]
fn truncated_elf_is_126() {
    let d = TempDir::new("trunc");
    for len in [10usize, 40, 100, 4000] {
        let f = d.path().join(format!("trunc{len}"));
        std::fs::write(&f, &example()[..len]).unwrap();
        executable(&f);
        let p = f.to_str().unwrap();
        let o = run(&[p]);
        assert_one_line(&o, p, 126, "ELF");
    }
}

#[test]
fn file_without_execute_permission_is_126() {
    // As a shell's execve(2): EACCES, "Permission denied", status 126 (qemu-user refuses too),
    // before the contents are looked at: a text file without it says the same.
    let d = TempDir::new("noexec");
    let f = d.path().join("hello");
    std::fs::write(&f, example()).unwrap();
    std::fs::set_permissions(&f, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let p = f.to_str().unwrap();
    assert_one_line(&run(&[p]), p, 126, "Permission denied");
    let t = d.path().join("text");
    std::fs::write(&t, "just text\n").unwrap();
    let p = t.to_str().unwrap();
    assert_one_line(&run(&[p]), p, 126, "Permission denied");
}

#[test]
fn a_program_path_that_is_not_utf8_runs() {
    // Linux paths are bytes: "x\xff" (and a directory named so) runs from the command line and
    // from a guest shell's execve, as natively (endgate used to say "No such file").
    use std::os::unix::ffi::OsStrExt;
    let d = TempDir::new("nonutf8");
    let dir = d.path().join(std::ffi::OsStr::from_bytes(b"d\xfe"));
    std::fs::create_dir(&dir).unwrap();
    let prog = dir.join(std::ffi::OsStr::from_bytes(b"x\xff"));
    std::fs::write(&prog, example()).unwrap();
    executable(&prog);
    let o = Command::new(endgate()).arg(&prog).output().unwrap();
    assert_eq!(shell_status(o.status), 0, "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Hello from endgate"));
    let sh = common::busybox("arm64");
    let o =
        Command::new(endgate()).arg(&sh).args(["sh", "-c", "\"$0\" > /dev/null; echo $?"]).arg(&prog).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "0\n", "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn unsupported_machine_is_126() {
    let d = TempDir::new("mach");
    let mut bytes = example();
    // e_machine at offset 18: EM_SPARCV9 (43), which endgate does not run.
    bytes[18] = 43;
    bytes[19] = 0;
    let f = d.path().join("sparc64");
    std::fs::write(&f, &bytes).unwrap();
    executable(&f);
    let p = f.to_str().unwrap();
    assert_one_line(&run(&[p]), p, 126, "unsupported architecture");
}

#[test]
fn version_reports_byte_order_and_strategy() {
    let o = run(&["--version"]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(s.contains("little-endian"), "{s}");
    assert!(s.contains("software byteswap"), "{s}");
}

#[test]
fn guest_options_are_not_endgate_options() {
    let ex = workspace().join("examples/hello-aarch64");
    let o = run(&[ex.to_str().unwrap(), "--help", "-strace"]);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(s.contains("argv[1] = --help") && s.contains("argv[2] = -strace"), "{s}");
    assert!(o.stderr.is_empty());
}

#[test]
fn argv0_and_environment_options() {
    // -0 sets argv[0]; -E/-U edit the environment (checked with busybox-free means: the
    // example prints its arguments only, so use the strace of execve-free startup instead).
    let ex = workspace().join("examples/hello-aarch64");
    let o = run(&["-0", "renamed", "-E", "ENDGATE_TEST=1", "-U", "PATH", "-strace", ex.to_str().unwrap()]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("exit_group(0) = ?"), "{err}");
    assert!(err.contains("uname("), "{err}");
}

/// Assembles a freestanding guest with the arch's cross gcc.
fn asm_guest(dir: &Path, arch: &str, name: &str, src: &str) -> PathBuf {
    let cc = common::arch(arch).cc;
    let s = dir.join(format!("{name}.S"));
    let out = dir.join(name);
    std::fs::write(&s, src).unwrap();
    let st = Command::new(cc)
        .args(["-nostdlib", "-static", "-no-pie", "-o"])
        .arg(&out)
        .arg(&s)
        .status()
        .unwrap_or_else(|e| panic!("{cc} not found ({e}): run scripts/install-deps.sh"));
    assert!(st.success(), "assembling {name} for {arch}");
    out
}

const X86_STORE_RO: &str = r#"
    .globl _start
    .text
_start:
    lea ro_word(%rip), %rax
    movl $1, 4(%rax)
    .section .rodata
    .balign 4096
ro_word:
    .long 0, 0
"#;

const X86_JUMP_UNMAPPED: &str = r#"
    .globl _start
    .text
_start:
    movabs $0x12345000, %rax
    jmp *%rax
"#;

const X86_JUMP_DATA: &str = r#"
    .globl _start
    .text
_start:
    lea data_code(%rip), %rax
    jmp *%rax
    .data
    .balign 4096
data_code:
    nop
    ret
"#;

const A64_JUMP_DATA: &str = r#"
    .globl _start
    .text
_start:
    adrp x0, data_code
    add x0, x0, :lo12:data_code
    br x0
    .data
    .balign 4096
data_code:
    nop
    ret
"#;

const A64_STORE_RO: &str = r#"
    .globl _start
    .text
_start:
    adrp x0, ro_word
    add x0, x0, :lo12:ro_word
    mov w1, #1
    str w1, [x0, #4]
    .section .rodata
    .balign 4096
ro_word:
    .word 0, 0
"#;

const A64_JUMP_UNMAPPED: &str = r#"
    .globl _start
    .text
_start:
    movz x0, #0x1234, lsl #16
    movk x0, #0x5000
    br x0
"#;

const RV_JUMP_DATA: &str = r#"
    .globl _start
    .text
_start:
    la a0, data_code
    jr a0
    .data
    .balign 4096
data_code:
    nop
    ret
"#;

/// A compressed store (`c.sw`), whose operands capstone gives as register, immediate, register.
const RV_STORE_RO: &str = r#"
    .globl _start
    .text
_start:
    la a0, ro_word
    li a1, 1
    sw a1, 4(a0)
    .section .rodata
    .balign 4096
ro_word:
    .word 0, 0
"#;

const RV_JUMP_UNMAPPED: &str = r#"
    .globl _start
    .text
_start:
    li a0, 0x12345000
    jr a0
"#;

fn nm_address(bin: &Path, sym: &str) -> u64 {
    let o = Command::new("nm").arg(bin).output().expect("nm (binutils)");
    let s = String::from_utf8_lossy(&o.stdout);
    let line = s.lines().find(|l| l.ends_with(&format!(" {sym}"))).expect("symbol");
    u64::from_str_radix(line.split_whitespace().next().unwrap(), 16).unwrap()
}

fn check_fault(bin: &Path, pc_or_addr: &str, insn: &str) {
    let o = Command::new(endgate()).arg(bin).output().unwrap();
    let lines = stderr_lines(&o);
    // endgate dies by the signal, as the native process and qemu-user do (not exit(139)).
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&o.status), Some(libc::SIGSEGV), "{lines:?}");
    assert_eq!(shell_status(o.status), 139, "{lines:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    let l = &lines[0];
    assert!(l.contains("SIGSEGV"), "{l}");
    assert!(l.contains(pc_or_addr), "{l} should contain {pc_or_addr}");
    assert!(l.contains(insn), "{l} should contain {insn}");
}

/// How a fault guest's report is checked: `Addr(sym)` expects the exact address of `sym`+4 as
/// the fault address, `Target(sym)` a jump whose PC and fault address are both `sym`, `Fixed`
/// the unmapped address 0x12345000 as both.
enum Expect {
    Addr(&'static str),
    Target(&'static str),
    Fixed,
}

#[test]
fn faults_end_with_139_and_a_report() {
    use Expect::*;
    let cases: [(&str, &str, &str, Expect, &str); 9] = [
        ("x86_64", "x86_store_ro", X86_STORE_RO, Addr("ro_word"), "mov dword ptr [rax + 4], 1"),
        ("x86_64", "x86_jump", X86_JUMP_UNMAPPED, Fixed, ""),
        // A jump into a mapped but non-executable page (.data) faults at the target.
        ("x86_64", "x86_jump_data", X86_JUMP_DATA, Target("data_code"), "nop"),
        ("aarch64", "a64_jump_data", A64_JUMP_DATA, Target("data_code"), "nop"),
        ("aarch64", "a64_store_ro", A64_STORE_RO, Addr("ro_word"), "str w1, [x0, #4]"),
        ("aarch64", "a64_jump", A64_JUMP_UNMAPPED, Fixed, ""),
        ("riscv64", "rv_jump_data", RV_JUMP_DATA, Target("data_code"), "nop"),
        ("riscv64", "rv_store_ro", RV_STORE_RO, Addr("ro_word"), "sw a1, 4(a0)"),
        ("riscv64", "rv_jump", RV_JUMP_UNMAPPED, Fixed, ""),
    ];
    let d = TempDir::new("fault");
    for (arch, name, src, expect, insn) in cases {
        let b = asm_guest(d.path(), arch, name, src);
        match expect {
            Addr(sym) => check_fault(&b, &format!("fault address {:#x}", nm_address(&b, sym) + 4), insn),
            Target(sym) => {
                let t = nm_address(&b, sym);
                check_fault(&b, &format!("pc {t:#x} (fault address {t:#x})"), insn)
            }
            Fixed => check_fault(&b, "pc 0x12345000", "fault address 0x12345000"),
        }
    }
}

/// riscv64 CPU exceptions other than `ecall`: unicorn moves the PC 4 past the faulting
/// instruction before the hook and stops on `ebreak` as an invalid instruction; both must
/// still end as Linux does, with the faulting instruction's PC.
const RV_EXCEPTIONS: [(&str, &str, i32, &str); 5] = [
    ("rv_ill", "fault: .word 0xffffffff", 132, "SIGILL"),
    // Guests run in U-mode: machine CSRs are out of reach, as under Linux.
    ("rv_csr_mstatus", "fault: csrr a0, mstatus", 132, "SIGILL"),
    ("rv_ebreak", ".option norvc\nfault: ebreak", 133, "SIGTRAP"),
    ("rv_c_ebreak", "fault: c.ebreak", 133, "SIGTRAP"),
    // A misaligned atomic; plain loads and stores may be misaligned.
    ("rv_misaligned_amo", "la a0, w\n    addi a0, a0, 1\nfault: amoadd.w a2, a1, (a0)", 135, "SIGBUS"),
];

#[test]
fn riscv64_exceptions_become_linux_signals() {
    let d = TempDir::new("rvexc");
    for (name, body, status, sig) in RV_EXCEPTIONS {
        let src = format!(
            "    .globl _start\n    .text\n_start:\n    nop\n    {body}\n    .data\n    .balign 8\nw: .word 0, 0\n"
        );
        let b = asm_guest(d.path(), "riscv64", name, &src);
        let o = Command::new(endgate()).arg(&b).output().unwrap();
        let lines = stderr_lines(&o);
        assert_eq!(shell_status(o.status), status, "{name}: {lines:?}");
        assert_eq!(lines.len(), 1, "{name}: {lines:?}");
        let pc = nm_address(&b, "fault");
        assert!(lines[0].contains(&format!("killed by {sig} at pc {pc:#x}")), "{name}: {}", lines[0]);
    }
}

const X86_EFAULT: &str = r#"
    .globl _start
    .text
_start:
    mov $1, %eax          # write(1, 0x10, 5)
    mov $1, %edi
    mov $0x10, %esi
    mov $5, %edx
    syscall
    cmp $-14, %rax        # -EFAULT
    jne bad
    mov $257, %eax        # openat(AT_FDCWD, 0x10, O_RDONLY)
    mov $-100, %edi
    mov $0x10, %esi
    xor %edx, %edx
    syscall
    cmp $-14, %rax
    jne bad
    mov $1, %eax          # write(1, "ok\n", 3): the guest carried on
    mov $1, %edi
    lea msg(%rip), %rsi
    mov $3, %edx
    syscall
    mov $60, %eax
    xor %edi, %edi
    syscall
bad:
    mov $60, %eax
    mov $1, %edi
    syscall
msg: .ascii "ok\n"
"#;

const A64_EFAULT: &str = r#"
    .globl _start
    .text
_start:
    mov x8, #64           // write(1, 0x10, 5)
    mov x0, #1
    mov x1, #0x10
    mov x2, #5
    svc #0
    cmn x0, #14           // -EFAULT
    b.ne bad
    mov x8, #56           // openat(AT_FDCWD, 0x10, O_RDONLY)
    mov x0, #-100
    mov x1, #0x10
    mov x2, #0
    svc #0
    cmn x0, #14
    b.ne bad
    mov x8, #64
    mov x0, #1
    adr x1, msg
    mov x2, #3
    svc #0
    mov x8, #93
    mov x0, #0
    svc #0
bad:
    mov x8, #93
    mov x0, #1
    svc #0
msg: .ascii "ok\n"
"#;

const RV_EFAULT: &str = r#"
    .globl _start
    .text
_start:
    li a7, 64             # write(1, 0x10, 5)
    li a0, 1
    li a1, 0x10
    li a2, 5
    ecall
    li t0, -14            # -EFAULT
    bne a0, t0, bad
    li a7, 56             # openat(AT_FDCWD, 0x10, O_RDONLY)
    li a0, -100
    li a1, 0x10
    li a2, 0
    ecall
    bne a0, t0, bad
    li a7, 64
    li a0, 1
    la a1, msg
    li a2, 3
    ecall
    li a7, 93
    li a0, 0
    ecall
bad:
    li a7, 93
    li a0, 1
    ecall
msg: .ascii "ok\n"
"#;

#[test]
fn bad_guest_pointer_is_efault_and_guest_continues() {
    let d = TempDir::new("efault");
    for (arch, src) in [("x86_64", X86_EFAULT), ("aarch64", A64_EFAULT), ("riscv64", RV_EFAULT)] {
        let b = asm_guest(d.path(), arch, &format!("efault_{arch}"), src);
        let o = Command::new(endgate()).arg(&b).output().unwrap();
        assert_eq!(shell_status(o.status), 0, "{arch}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, b"ok\n", "{arch}");
        // Under --strace the failure is shown with its errno name.
        let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("= -1 EFAULT (Bad address)"), "{arch}: {err}");
    }
}

#[test]
fn strace_formats_like_strace() {
    let ex = workspace().join("examples/hello-aarch64");
    let o = run(&["--strace", ex.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("write(1, \"Hello from endgate: this guest r\"..., 48) = 48"), "{err}");
    // glibc registers its rseq area at start.
    assert!(err.contains(", 32, 0, 0xd428bc00) = 0"), "{err}");
    assert!(err.trim_end().ends_with("exit_group(0) = ?\n+++ exited with 0 +++"), "{err}");
    // A call endgate does not serve is named once and fails with ENOSYS each time.
    let d = TempDir::new("strace_unserved");
    let b = asm_guest(d.path(), "x86_64", "unserved", X86_UNSERVED_TWICE);
    let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("= -1 ENOSYS (Function not implemented)").count(), 2, "{err}");
    assert_eq!(err.matches("is not implemented").count(), 1, "{err}");
    assert!(err.contains("(io_uring_setup)"), "{err}");
}

/// Opens a directory through glibc's large-file `open` (which adds `O_LARGEFILE` on 32-bit
/// arches) and maps 8 KiB through the old one-pointer `mmap` (s390x's glibc `mmap`; i386 only
/// by number 90 directly).
const STRACE_OLD_MMAP: &str = r#"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
    int fd = open("/", O_RDONLY | O_DIRECTORY);
#if defined(__i386__)
    unsigned long a[6] = {0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (unsigned long)-1, 0};
    void *p = (void *)syscall(SYS_mmap, a);
#else
    void *p = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#endif
    return fd < 0 || p == MAP_FAILED;
}
"#;

#[test]
fn strace_names_largefile_and_reads_old_mmap_arguments() {
    // strace prints O_LARGEFILE by name (endgate printed 0x8000) and the old mmap's six
    // arguments from its block (endgate printed the block's address), as for mmap.
    let d = TempDir::new("strace_old_mmap");
    let src = d.path().join("old_mmap.c");
    std::fs::write(&src, STRACE_OLD_MMAP).unwrap();
    for arch in ["i386", "s390x"] {
        let a = common::arch(arch);
        let b = common::build_static(
            a.cc,
            &src,
            &d.path().join(format!("old_mmap_{arch}")),
            &["-D_FILE_OFFSET_BITS=64".as_ref()],
        );
        let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(shell_status(o.status), 0, "{arch}: {err}");
        assert!(
            err.contains("mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x"),
            "{arch}: {err}"
        );
        if arch == "i386" {
            assert!(err.contains("\"/\", O_RDONLY|O_LARGEFILE|O_DIRECTORY)"), "{arch}: {err}");
        }
    }
}

const STRACE_FCNTL_MMAP: &str = r#"
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void) {
    int fd = open("/dev/null", O_RDWR | O_ASYNC);
    fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, O_NONBLOCK | O_APPEND);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    fcntl(fd, F_GETFD);
    fcntl(fd, F_DUPFD_CLOEXEC, 10);
    fcntl(fd, F_SETSIG, SIGUSR1);
#ifdef __x86_64__
    mmap(0, 4096, PROT_READ | 0x8, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
#endif
    mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << 26), -1, 0);
    mprotect(0, 0, PROT_READ | PROT_GROWSDOWN);
    return 0;
}
"#;

#[test]
fn strace_names_fcntl_commands_and_mmap_flags() {
    // Each line as strace 6.1 prints the same program natively on x86_64 (up to its column
    // padding): fcntl's command and argument by name, FASYNC, PROT_SEM, PROT_GROWSDOWN,
    // MAP_32BIT, MAP_HUGETLB with its page size. arm's libc calls fcntl64, which prints the same.
    let d = TempDir::new("strace_fcntl");
    let src = d.path().join("fcntl.c");
    std::fs::write(&src, STRACE_FCNTL_MMAP).unwrap();
    for arch in ["x86_64", "arm", "mips64el"] {
        let a = common::arch(arch);
        let b = common::build_static(a.cc, &src, &d.path().join(format!("fcntl_{arch}")), &[]);
        let o = Command::new(endgate()).arg("--strace").arg(&b).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(shell_status(o.status), 0, "{arch}: {err}");
        let f = if arch == "arm" { "fcntl64" } else { "fcntl" };
        let mut want = vec![
            "\"/dev/null\", O_RDWR|FASYNC".to_string(),
            format!("{f}(3, F_GETFL) = 0x"),
            "(flags O_RDWR|O_LARGEFILE|FASYNC)".to_string(),
            format!("{f}(3, F_SETFL, O_RDONLY|O_APPEND|O_NONBLOCK) = 0"),
            format!("{f}(3, F_SETFD, FD_CLOEXEC) = 0"),
            format!("{f}(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)"),
            format!("{f}(3, F_DUPFD_CLOEXEC, 10) = "),
            format!("{f}(3, F_SETSIG, SIGUSR1) = 0"),
            "PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT, -1, 0) = ".to_string(),
            "mprotect(NULL, 0, PROT_READ|PROT_GROWSDOWN) = 0".to_string(),
        ];
        if arch == "x86_64" {
            want.push("mmap(NULL, 4096, PROT_READ|PROT_SEM, MAP_PRIVATE|MAP_ANONYMOUS|MAP_32BIT, -1, 0) = 0x".into());
        }
        for w in want {
            assert!(err.contains(&w), "{arch}: no {w:?} in\n{err}");
        }
    }
}

const X86_UNSERVED_TWICE: &str = r#"
    .globl _start
    .text
_start:
    mov $425, %eax        # io_uring_setup(0, NULL), twice: not served
    xor %edi, %edi
    xor %esi, %esi
    syscall
    mov $425, %eax
    syscall
    mov $60, %eax
    xor %edi, %edi
    syscall
"#;

#[test]
fn write_to_a_closed_pipe_ends_with_sigpipe_like_native() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let bb = common::busybox("arm64");
    let mut child = Command::new(endgate()).arg(&bb).arg("yes").stdout(std::process::Stdio::piped()).spawn().unwrap();
    let mut buf = [0u8; 64];
    child.stdout.as_mut().unwrap().read_exact(&mut buf).unwrap();
    drop(child.stdout.take());
    let st = child.wait().unwrap();
    // Natively `busybox yes` dies by SIGPIPE here (signal(7): default action terminate).
    assert_eq!(st.signal(), Some(libc::SIGPIPE), "{st:?}");
}

/// x86_64: writes argv[0] and a newline to stdout, exits 0.
const X86_PRINT_ARGV0: &str = r#"
    .globl _start
    .text
_start:
    mov 8(%rsp), %rsi     # argv[0]
    xor %edx, %edx
1:  cmpb $0, (%rsi,%rdx)
    je 2f
    inc %rdx
    jmp 1b
2:  movb $10, (%rsi,%rdx) # its NUL becomes a newline
    inc %rdx
    mov $1, %eax
    mov $1, %edi
    syscall
    mov $60, %eax
    xor %edi, %edi
    syscall
"#;

/// The guest's environment as busybox `env` prints it, with endgate started with an empty
/// environment plus `inherited`.
fn guest_env_lines(inherited: &[(&str, &str)], opts: &[&std::ffi::OsStr]) -> (Output, Vec<Vec<u8>>) {
    let o = Command::new(endgate())
        .env_clear()
        .envs(inherited.iter().copied())
        .args(opts)
        .arg(common::busybox("arm64"))
        .arg("env")
        .output()
        .unwrap();
    let lines = o.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(<[u8]>::to_vec).collect();
    (o, lines)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

#[test]
fn option_values_may_start_with_a_dash() {
    let d = TempDir::new("argv0");
    let b = asm_guest(d.path(), "x86_64", "argv0", X86_PRINT_ARGV0);
    // The login-shell form; also after other options and with a dashed sysroot.
    for opts in [&["-0", "-sh"][..], &["-L", "-nonexistent", "-0", "-sh", "--strace"], &["-0", "--", "-0", "-sh"]] {
        let o = Command::new(endgate()).args(opts).arg(&b).arg("-x").output().unwrap();
        assert!(o.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, b"-sh\n", "{opts:?}");
    }
    let (o, env) = guest_env_lines(&[], &[os("-E"), os("-x=-y"), os("-E"), os("--=-U")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(env, [b"-x=-y".to_vec(), b"--=-U".to_vec()]);
}

#[test]
fn environment_options_take_any_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let set = std::ffi::OsStr::from_bytes(b"K\xff=v\xfe");
    let (o, env) = guest_env_lines(&[], &[os("-E"), set, os("-E"), os("A=1")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(env, [b"K\xff=v\xfe".to_vec(), b"A=1".to_vec()]);
    let (o, env) = guest_env_lines(&[], &[os("-E"), set, os("-U"), std::ffi::OsStr::from_bytes(b"K\xff")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(env.is_empty(), "{env:?}");
}

#[test]
fn bad_environment_options_are_usage_errors() {
    let ex = workspace().join("examples/hello-aarch64");
    for (opt, val, msg) in [
        ("-E", "NOEQ", "endgate: -E wants VAR=VALUE, got 'NOEQ'"),
        ("-E", "=v", "endgate: -E wants VAR=VALUE, got '=v'"),
        ("-U", "A=1", "endgate: -U wants VAR, got 'A=1'"),
    ] {
        let o = run(&[opt, val, ex.to_str().unwrap()]);
        assert_eq!(shell_status(o.status), 2, "{opt} {val}");
        assert_eq!(stderr_lines(&o), [msg], "{opt} {val}");
        assert!(o.stdout.is_empty(), "the guest did not run");
    }
}

#[test]
fn environment_options_apply_in_order() {
    let inherited = [("A", "0"), ("B", "0")];
    let cases: [(&[&str], &[&[u8]]); 4] = [
        (&["-E", "A=3", "-U", "A"], &[b"B=0"]),
        (&["-U", "A", "-E", "A=3"], &[b"B=0", b"A=3"]),
        (&["-E", "A=1", "-E", "A=2", "-U", "B"], &[b"A=2"]),
        (&["-U", "B", "-E", "B=1", "-U", "B", "-E", "A=x=y"], &[b"A=x=y"]),
    ];
    for (opts, want) in cases {
        let opts: Vec<_> = opts.iter().map(|s| os(s)).collect();
        let (o, env) = guest_env_lines(&inherited, &opts);
        assert!(o.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(env, want, "{opts:?}");
    }
}

#[test]
fn repeated_options_are_accepted() {
    let ex = workspace().join("examples/hello-aarch64");
    let ex = ex.to_str().unwrap();
    for opts in [&["--strace", "--strace"][..], &["-strace", "-strace"], &["-strace", "--strace", "-L", "/", "-L", "/"]]
    {
        let o = Command::new(endgate()).args(opts).arg(ex).output().unwrap();
        assert!(o.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stderr).contains("exit_group(0) = ?"), "{opts:?}");
    }
    let o = run(&["-0", "first", "-0", "second", "--version", "--version"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn help_shows_program_as_required() {
    let o = run(&["--help"]);
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(s.contains("endgate [OPTIONS] PROGRAM [ARGS]"), "{s}");
    assert!(!s.contains("[PROGRAM]"), "{s}");
    // The first line names every guest endgate runs; the binfmt subcommand is listed.
    let first = s.lines().next().unwrap_or_default();
    for arch in ["x86_64", "aarch64", "riscv64", "arm", "i386", "s390x", "mips64el"] {
        assert!(first.contains(arch), "{arch} missing from {first:?}");
    }
    assert!(!first.contains("so far"), "{first}");
    assert!(s.contains("endgate binfmt --print|--install|--uninstall"), "{s}");
    assert!(s.contains("Subcommands:\n  binfmt  "), "{s}");
    let o = run(&["--strace"]);
    assert_eq!(shell_status(o.status), 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("PROGRAM"));
}

fn dev_full() -> std::process::Stdio {
    std::process::Stdio::from(std::fs::File::create("/dev/full").expect("/dev/full"))
}

#[test]
fn output_errors_do_not_panic() {
    // stdout full: --version fails with status 1 and says so on stderr; --help is status 0.
    let o = Command::new(endgate()).arg("--version").stdout(dev_full()).output().unwrap();
    assert_eq!(shell_status(o.status), 1, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stderr_lines(&o), ["endgate: write error: No space left on device (os error 28)"]);
    let o = Command::new(endgate()).arg("--help").stdout(dev_full()).output().unwrap();
    assert_eq!(shell_status(o.status), 0, "{}", String::from_utf8_lossy(&o.stderr));
    // stderr full: every status is what it is with a working stderr.
    let d = TempDir::new("devfull");
    let segv = asm_guest(d.path(), "x86_64", "x86_store_ro", X86_STORE_RO);
    let dir = d.path().to_str().unwrap().to_string();
    let hello = workspace().join("examples/hello-aarch64");
    let cases: [(Vec<&std::ffi::OsStr>, i32); 6] = [
        (vec![os("/nonexistent/prog")], 127),
        (vec![os(&dir)], 126),
        (vec![segv.as_os_str()], 139),
        (vec![os("-E"), os("NOEQ"), segv.as_os_str()], 2),
        (vec![os("--bogus")], 2),
        (vec![os("--strace"), hello.as_os_str()], 0),
    ];
    for (args, status) in &cases {
        let o = Command::new(endgate()).args(args).stderr(dev_full()).output().unwrap();
        assert_eq!(shell_status(o.status), *status, "{args:?}");
    }
}

#[test]
fn external_sigsegv_ends_endgate_like_a_native_process() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let mut cmd = Command::new(endgate());
    cmd.arg(common::busybox("arm64")).args(["sleep", "10"]);
    // SAFETY: setrlimit is async-signal-safe; no core file is left behind.
    unsafe {
        cmd.pre_exec(|| {
            let zero = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            libc::setrlimit(libc::RLIMIT_CORE, &zero);
            Ok(())
        });
    }
    for sig in [libc::SIGSEGV, libc::SIGBUS] {
        let mut child = cmd.spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(libc::pid_t::try_from(child.id()).unwrap(), sig) };
        let t = std::time::Instant::now();
        let st = child.wait().unwrap();
        assert_eq!(st.signal(), Some(sig), "{st:?}");
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "the first signal ended endgate");
    }
}

const A64_EL0_CHECKS: &str = r#"
    .globl _start
    .text
_start:
    mrs x0, midr_el1         // trapped at EL0 and completed as Linux does (HWCAP_CPUID)
    ubfx x1, x0, #16, #4     // architecture: 0xf, features in the ID registers (every ARMv8 CPU)
    cmp x1, #0xf
    b.ne bad
    mrs x2, ctr_el0          // allowed at EL0 by SCTLR_EL1.UCT on Linux
    mrs x3, cntvct_el0       // allowed by CNTKCTL_EL1.EL0VCTEN
    fmov d0, #1.0            // FP enabled for EL0
    msr daifset, #2          // privileged at EL0 (SCTLR_EL1.UMA is 0): SIGILL
    mov x8, #93
    mov x0, #0
    svc #0
bad:
    mov x8, #93
    mov x0, #1
    svc #0
"#;

#[test]
fn aarch64_guests_run_at_el0_like_linux_user_space() {
    let d = TempDir::new("el0");
    let b = asm_guest(d.path(), "aarch64", "a64_el0", A64_EL0_CHECKS);
    let o = Command::new(endgate()).arg(&b).output().unwrap();
    let lines = stderr_lines(&o);
    assert_eq!(shell_status(o.status), 132, "{lines:?}");
    assert!(lines.len() == 1 && lines[0].contains("SIGILL") && lines[0].contains("msr daifset"), "{lines:?}");
}

const RV_RDTIME: &str = r#"
    .globl _start
    .text
_start:
    rdtime t0                 # readable from user mode on Linux (scounteren.TM)
    beqz t0, bad
    li t2, 100000
1:  addi t2, t2, -1
    bnez t2, 1b
    rdtime t1
    bleu t1, t0, bad          # the clock moved forward
    li a7, 93
    li a0, 0
    ecall
bad:
    li a7, 93
    li a0, 1
    ecall
"#;

#[test]
fn riscv64_rdtime_reads_a_running_clock() {
    let d = TempDir::new("rdtime");
    let b = asm_guest(d.path(), "riscv64", "rv_rdtime", RV_RDTIME);
    let o = Command::new(endgate()).arg(&b).output().unwrap();
    assert_eq!(shell_status(o.status), 0, "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn binfmt_usage_names_the_subcommand() {
    // A bad option of `endgate binfmt` is a usage error (status 2) whose usage line names the
    // command as typed, as clap does for the main command.
    let o = run(&["binfmt", "--bogus"]);
    assert_eq!(shell_status(o.status), 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.lines().any(|l| l.starts_with("Usage: endgate binfmt ")), "{err}");
}
