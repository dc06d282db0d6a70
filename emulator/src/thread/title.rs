//! The host process's name as others see it: the task name (`comm`) and `/proc/PID/cmdline`.
//!
//! Linux names a task after the file `execve` was given: `kbasename(bprm->filename)`, its
//! first `TASK_COMM_LEN - 1` = 15 bytes (fs/exec.c `begin_new_exec`); new threads inherit
//! their creator's name (kernel/fork.c copies `comm`), and `prctl(PR_SET_NAME)` renames the
//! calling thread. endgate names the host thread the same way ([`set_comm`]), so a guest's
//! `comm` is what the kernel would give it, for itself, its parent and the host's `ps`.
//!
//! `/proc/PID/cmdline` is the process's argument area, `[arg_start, arg_end)` on its initial
//! stack, which holds endgate's own command line. endgate writes the guest's argv over it in
//! place ([`set_cmdline`]), as setproctitle(3) does. What the kernel then shows
//! (fs/proc/base.c `get_mm_cmdline`, Linux 5.2 and later): when the last byte of the area is
//! NUL, the whole area, byte for byte; when it is not ("the user has overwritten it with
//! setproctitle"), the first string of the area, with its NUL, up to a page. The area is
//! endgate's command line, which holds the guest's argv and more (endgate's options, its
//! program path), so it is longer than the guest's argv:
//! - a guest with one argument: its `argv[0]` and NUL, then the last byte of the area set
//!   non-NUL, so the kernel shows exactly `argv[0]` and its NUL, as for a native process;
//! - more arguments: the strings, each with its NUL, then NUL bytes to the end of the area,
//!   so the kernel shows the guest's argv followed by as many NULs as endgate's own
//!   arguments took (tools that read it, `ps`, `pgrep -f`, busybox `pidof`, drop trailing
//!   NULs; a guest reading another guest's file gets the argv without them,
//!   `crate::syscall::procfs`);
//! - an argv longer than the area (not possible for the `endgate` command, whose command
//!   line holds the guest's argv): cut to the area, its last byte NUL, as setproctitle cuts
//!   a title to the space it has.

/// `TASK_COMM_LEN` (include/linux/sched.h), the NUL included.
pub const TASK_COMM_LEN: usize = 16;

/// The task name Linux gives a program started by `execve(path, …)`: the part of `path`
/// after its last `/`, cut to 15 bytes.
pub fn comm_of(path: &[u8]) -> Vec<u8> {
    let base = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    base.iter().copied().take_while(|&b| b != 0).take(TASK_COMM_LEN - 1).collect()
}

/// Names the calling host thread `name` (cut to 15 bytes), as `prctl(PR_SET_NAME)`.
pub fn set_comm(name: &[u8]) {
    let mut n: Vec<u8> = name.iter().copied().take_while(|&b| b != 0).take(TASK_COMM_LEN - 1).collect();
    n.push(0);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe { libc::prctl(libc::PR_SET_NAME, n.as_ptr()) };
}

/// The contents to write over an argument area of `area` bytes for `argv` (see the module
/// doc); `area` is at least 1.
pub fn area_contents(argv: &[Vec<u8>], area: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(area);
    for a in argv {
        out.extend(a.iter().copied().take_while(|&b| b != 0));
        out.push(0);
    }
    if out.len() > area {
        out.truncate(area);
        out[area - 1] = 0;
        return out;
    }
    let single = argv.len() == 1 && out.len() < area;
    out.resize(area, 0);
    if single {
        // The kernel then shows the first string and its NUL only.
        out[area - 1] = b'.';
    }
    out
}

/// `[arg_start, arg_end)` of this process: fields 48 and 49 of `/proc/self/stat` (proc(5),
/// since Linux 3.5).
fn arg_area() -> Option<(usize, usize)> {
    let stat = std::fs::read("/proc/self/stat").ok()?;
    // Fields after the name, which is in parentheses and may hold anything.
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    // `rest` starts with field 3 (state).
    let mut f = rest.split_ascii_whitespace().skip(48 - 3);
    let start: usize = f.next()?.parse().ok()?;
    let end: usize = f.next()?.parse().ok()?;
    (start != 0 && end > start).then_some((start, end))
}

/// Writes `argv` over this process's argument area (see the module doc), so that
/// `/proc/PID/cmdline` shows it. Nothing may read the process's own arguments afterwards
/// (`std::env::args` would see the new strings).
pub fn set_cmdline(argv: &[Vec<u8>]) {
    let Some((start, end)) = arg_area() else { return };
    let bytes = area_contents(argv, end - start);
    let p = std::ptr::with_exposed_provenance_mut::<u8>(start);
    // SAFETY: `[arg_start, arg_end)` is this process's argument area on its initial stack,
    // mapped and writable for the life of the process; the argument strings in it were read
    // (`std::env::args_os`) before this call and nothing reads them after.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comm_is_the_basename_cut_to_15_bytes() {
        assert_eq!(comm_of(b"/proc/self/exe"), b"exe");
        assert_eq!(comm_of(b"sleep"), b"sleep");
        assert_eq!(comm_of(b"/a/b/0123456789abcdefgh"), b"0123456789abcde");
        assert_eq!(comm_of(b"/dir/"), b"");
    }

    #[test]
    fn area_holds_the_argv_then_nuls() {
        let argv = vec![b"sleep".to_vec(), b"3".to_vec()];
        assert_eq!(area_contents(&argv, 10), b"sleep\x003\0\0\0");
        assert_eq!(area_contents(&argv, 8), b"sleep\x003\0");
        // Too long: cut, the last byte NUL.
        assert_eq!(area_contents(&argv, 4), b"sle\0");
    }

    #[test]
    fn one_argument_ends_the_area_non_nul() {
        let argv = vec![b"sh".to_vec()];
        assert_eq!(area_contents(&argv, 6), b"sh\0\0\0.");
        // Exactly the area: the kernel shows it whole.
        assert_eq!(area_contents(&argv, 3), b"sh\0");
    }
}
