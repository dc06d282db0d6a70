//! Guest threads in serial mode (`ENDGATE_THREADS=serial`: one thread runs guest code at a
//! time, under the global lock, as under GDB): a thread that spins without a system call
//! waiting for another must be preempted by the timer (docs/ARCHITECTURE.md, "Threads"), whose
//! request reaches the running engine through its stop bytes (unicorn patches 0004 and 0031).
//! The programs are the guest tests `thread_spin` (two threads pass a turn 40 times by
//! spinning) and `thread_counter` (4 threads x 1,000,000 atomic increments); their expected
//! output is the guest suite's.

mod common;

use std::process::Command;
use std::time::Duration;

use common::{endgate, run_with_timeout, workspace, AARCH64, ARM, S390X, X86_64};

#[test]
fn threads_take_turns_in_serial_mode() {
    let dir = common::TempDir::new("serial");
    let programs = workspace().join("guest-tests/programs");
    for arch in [X86_64, AARCH64, ARM, S390X] {
        for name in ["thread_spin", "thread_counter"] {
            let out = dir.path().join(format!("{name}-{}", arch.name));
            let mut flags: Vec<&std::ffi::OsStr> = arch.cflags.iter().map(std::ffi::OsStr::new).collect();
            let include = format!("-I{}", programs.display());
            flags.push(std::ffi::OsStr::new(&include));
            flags.push(std::ffi::OsStr::new("-pthread"));
            common::build_static(arch.cc, &programs.join(format!("{name}.c")), &out, &flags);
            let want =
                std::fs::read_to_string(workspace().join(format!("guest-tests/expected/{name}.stdout"))).unwrap();
            let mut cmd = Command::new(endgate());
            cmd.arg(&out).env("ENDGATE_THREADS", "serial");
            let t = run_with_timeout(&mut cmd, None, Duration::from_secs(120));
            assert!(!t.timed_out, "{name} on {} timed out in serial mode", arch.name);
            assert_eq!(
                (String::from_utf8_lossy(&t.stdout).as_ref(), t.status),
                (want.as_str(), 0),
                "{name} on {} in serial mode: {}",
                arch.name,
                String::from_utf8_lossy(&t.stderr)
            );
        }
    }
}
