//! Running a new program: `execve` and `execveat`.
//!
//! endgate checks the target as the kernel's exec would before its point of no return, so
//! that every refusal comes back to the guest as `-errno` with the guest still running:
//! - the file must exist (`ENOENT`, `ENOTDIR`, `ELOOP`…), be a regular file with execute
//!   permission (`EACCES`);
//! - an ELF for an arch endgate runs (with its `PT_INTERP` present, else `ENOENT`), or a
//!   `#!` script, whose interpreter is resolved as a guest path (through the `-L` sysroot)
//!   and checked the same way, up to four levels deep (`ELOOP` beyond), with the kernel's
//!   arguments (fs/binfmt_script.c): interpreter, its optional single argument, the script's
//!   path as given to exec, then the original `argv[1..]`;
//! - anything else is `ENOEXEC`, as the kernel gives for a format it has no handler for.
//!
//! The new program then runs in a fresh endgate: the host process execs endgate's own
//! binary through the descriptor endgate opened at its start and passes on (`--exe-fd=N`,
//! [`super::selfref`]; `/proc/self/exe` when it holds none), so no path of the host's needs to
//! resolve where the guest runs, with the same `--strace` and `-L`, `-0 argv[0]` and the
//! program's guest path, and the
//! guest's `envp` as the host environment (which endgate hands on to the guest unchanged when
//! no `-E`/`-U` is given), less the variables the host's loader and C library would act on in
//! endgate itself (`LD_*`, `GLIBC_TUNABLES`, `MALLOC_*`), which go in `--guest-env` arguments
//! and back to their places in the guest's environment. The guest's pid, open descriptors
//! (minus `O_CLOEXEC` ones), signal mask and cwd carry over as the host's do. What the host cannot carry, the exec state does
//! (`--exec-state=FD`, a memfd of lines, read and closed by the new endgate before it loads
//! the program): endgate's own handles, the guest's seccomp filters, and, after the guest
//! changed its root, that root, which the new endgate enters again: the exec itself happens
//! from the root endgate started in, where its dynamic loader and libraries are. A tool built
//! on the library API (`crate::api`) is not endgate's command: it names the `endgate` binary to
//! exec instead, or none, and then `execve` fails with `ENOEXEC` after the checks
//! ([`crate::guest::ExecWith`]).

use std::ffi::CString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use syscalls::Errno;

use super::path::HostPath;
use super::SysResult;
use crate::guest::Task;
use crate::guest::{Cpu, SyscallArgs};
use crate::mm::{GuestAddr, PATH_MAX};

/// `MAX_ARG_STRLEN` (include/uapi/linux/binfmts.h): the longest argument or environment string.
const MAX_ARG_STRLEN: usize = 32 * 4096;
/// Total bytes of arguments and environment accepted before `E2BIG` (the kernel's limit is a
/// quarter of the stack rlimit; 2 MiB is that for the usual 8 MiB).
const MAX_ARG_TOTAL: usize = 2 << 20;
/// `BINPRM_BUF_SIZE`: how much of the file the kernel reads to recognise its format.
const BINPRM_BUF_SIZE: usize = 256;
/// How many `#!` levels the kernel follows (fs/exec.c: 4 rewrites of the interpreter).
const MAX_SCRIPT_DEPTH: usize = 4;
/// `AT_SYMLINK_NOFOLLOW`.
const AT_SYMLINK_NOFOLLOW: u64 = 0x100;
/// `AT_EMPTY_PATH`.
const AT_EMPTY_PATH: u64 = 0x1000;

/// `execve(const char *path, char *const argv[], char *const envp[])` (execve(2)). Returns
/// only on failure. Errors: `ENOENT`, `EACCES`, `ENOEXEC`, `ELOOP`, `E2BIG`, `EFAULT`, the
/// host's.
pub fn execve(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let path = cpu.get_data().mm.read_cstr(a.ptr(0), PATH_MAX)?;
    exec(cpu, a, libc::AT_FDCWD, path, a.raw(1), a.raw(2), 0)
}

/// `execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)`
/// (execveat(2)): a relative `path` is taken from `dirfd`, `AT_EMPTY_PATH` runs `dirfd`
/// itself. Errors: as [`execve`], and `EINVAL` for unknown flags, `EBADF`.
pub fn execveat(cpu: &mut Cpu<'_>, a: &SyscallArgs) -> SysResult {
    let flags = a.raw(4);
    if flags & !(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) != 0 {
        return Err(Errno::EINVAL);
    }
    let path = cpu.get_data().mm.read_cstr(a.ptr(1), PATH_MAX)?;
    exec(cpu, a, a.int(0), path, a.raw(2), a.raw(3), flags)
}

/// Reads a NULL-terminated guest array of string pointers (`argv`/`envp`); a NULL array is
/// empty. `total` counts the bytes read so far. Errors: `EFAULT`, `E2BIG`.
fn read_strings(t: &Task, addr: u64, total: &mut usize) -> Result<Vec<Vec<u8>>, Errno> {
    let mut out = Vec::new();
    if addr == 0 {
        return Ok(out);
    }
    let w = t.mm.long_bytes();
    for i in 0.. {
        let p = t.mm.read_ulong(GuestAddr::new(addr + i * w))?;
        if p == 0 {
            break;
        }
        let s = t.mm.read_cstr(GuestAddr::new(p), MAX_ARG_STRLEN).map_err(|e| {
            if e == Errno::ENAMETOOLONG {
                Errno::E2BIG
            } else {
                e
            }
        })?;
        *total += s.len() + 1 + crate::abi::u64_to_usize(w);
        if *total > MAX_ARG_TOTAL {
            return Err(Errno::E2BIG);
        }
        out.push(s);
    }
    Ok(out)
}

fn cstring(b: &[u8]) -> CString {
    // Guest strings were read up to their NUL, so none is inside.
    CString::new(b.to_vec()).unwrap_or_default()
}

/// What a checked exec target is.
enum Format {
    /// An ELF endgate can run.
    Elf,
    /// A `#!` script: interpreter and optional argument.
    Script(Vec<u8>, Option<Vec<u8>>),
}

/// Checks that exec may open the file at host path `host`: it exists, is a regular file
/// (`EACCES` otherwise; `ELOOP` for a symlink under `AT_SYMLINK_NOFOLLOW`) with execute
/// permission.
fn check_access(host: &std::ffi::CStr, nofollow: bool) -> Result<(), Errno> {
    // SAFETY: stat64 is plain data; all-zero is a valid value.
    let mut st: libc::stat64 = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a local stat buffer.
    let r = unsafe {
        if nofollow {
            libc::lstat64(host.as_ptr(), &mut st)
        } else {
            libc::stat64(host.as_ptr(), &mut st)
        }
    };
    if r < 0 {
        return Err(Errno::last());
    }
    if st.st_mode & libc::S_IFMT == libc::S_IFLNK {
        return Err(Errno::ELOOP);
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFREG {
        return Err(Errno::EACCES);
    }
    // SAFETY: a NUL-terminated path.
    if unsafe { libc::access(host.as_ptr(), libc::X_OK) } < 0 {
        return Err(Errno::last());
    }
    Ok(())
}

/// Checks the file at host path `host` as exec would and says what it is.
fn check_file(t: &Task, host: &std::ffi::CStr, nofollow: bool) -> Result<Format, Errno> {
    check_access(host, nofollow)?;
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(host.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(Errno::last());
    }
    let mut buf = [0u8; BINPRM_BUF_SIZE];
    // SAFETY: a local buffer of its own length; `fd` is ours to close.
    let n = unsafe {
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    let Ok(n) = usize::try_from(n) else {
        return Err(Errno::last());
    };
    let head = &buf[..n];
    if head.starts_with(b"\x7fELF") {
        return check_elf(t, host, head).map(|()| Format::Elf);
    }
    if head.starts_with(b"#!") {
        return parse_shebang(head, n == BINPRM_BUF_SIZE);
    }
    Err(Errno::ENOEXEC)
}

/// An ELF endgate runs: class, byte order and machine of a supported arch, and its
/// interpreter (`PT_INTERP`, a guest path) present.
fn check_elf(t: &Task, host: &std::ffi::CStr, head: &[u8]) -> Result<(), Errno> {
    if head.len() < 20 {
        return Err(Errno::ENOEXEC);
    }
    let is_64 = head[4] == 2;
    let big = head[5] == 2;
    let machine = if big { u16::from_be_bytes([head[18], head[19]]) } else { u16::from_le_bytes([head[18], head[19]]) };
    let arch = crate::arch::for_elf_machine(machine, is_64).ok_or(Errno::ENOEXEC)?;
    if (arch.info().endian() == crate::mm::Endian::Big) != big {
        return Err(Errno::ENOEXEC);
    }
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(host.to_bytes()));
    let elf = crate::loader::read_elf(&path.to_string_lossy(), path).map_err(|_| Errno::ENOEXEC)?;
    if let Some(interp) = crate::loader::interpreter(&elf) {
        if crate::syscall::path::sysroot_path(&t.opts, interp.as_bytes()).metadata().is_err() {
            return Err(Errno::ENOENT);
        }
    }
    Ok(())
}

/// Parses a `#!` line as fs/binfmt_script.c does: blanks after `#!` skipped, the interpreter
/// up to the next blank, and everything after further blanks up to the end of the line, with
/// trailing blanks removed, as one optional argument. `full` is true when the line may have
/// been cut at `BINPRM_BUF_SIZE`: a cut interpreter name is `ENOEXEC`.
fn parse_shebang(head: &[u8], full: bool) -> Result<Format, Errno> {
    let blank = |c: &u8| *c == b' ' || *c == b'\t';
    let body = &head[2..];
    let (line, cut) = match body.iter().position(|&c| c == b'\n') {
        Some(i) => (&body[..i], false),
        None => (body, full),
    };
    // A NUL ends the line too.
    let line = &line[..line.iter().position(|&c| c == 0).unwrap_or(line.len())];
    let start = line.iter().position(|c| !blank(c)).ok_or(Errno::ENOEXEC)?;
    let rest = &line[start..];
    let end = rest.iter().position(blank).unwrap_or(rest.len());
    if cut && end == rest.len() {
        return Err(Errno::ENOEXEC);
    }
    let interp = rest[..end].to_vec();
    let after = &rest[end..];
    let arg = match after.iter().position(|c| !blank(c)) {
        Some(s) => {
            let a = &after[s..];
            let e = a.iter().rposition(|c| !blank(c)).map_or(0, |i| i + 1);
            Some(a[..e].to_vec())
        }
        None => None,
    };
    Ok(Format::Script(interp, arg))
}

/// The host path for a guest exec path: `/proc/self/exe` and absolute paths as every path
/// call maps them; a relative one under `dirfd` through `/proc/self/fd`.
fn exec_host_path(t: &Task, dirfd: i32, path: &[u8], nofollow: bool) -> Result<HostPath, Errno> {
    let last = if nofollow { super::path::Last::NoFollow } else { super::path::Last::Follow };
    if path.first() == Some(&b'/') || dirfd == libc::AT_FDCWD || super::rootfs::active() && !path.is_empty() {
        return super::path::lookup(t, dirfd, path.to_vec(), last);
    }
    // In a root the guest chose, the host's /proc may not be there: the directory's path
    // from endgate's own /proc handle.
    let dir = super::selfref::root_changed().then(|| super::selfref::fd_link(dirfd)).flatten();
    let mut p = match dir {
        Some(d) => d.into_os_string().into_encoded_bytes(),
        None => format!("/proc/self/fd/{dirfd}").into_bytes(),
    };
    if !path.is_empty() {
        p.push(b'/');
        p.extend_from_slice(path);
    }
    Ok(HostPath::from(cstring(&p)))
}

fn exec(
    cpu: &mut Cpu<'_>,
    a: &SyscallArgs,
    dirfd: i32,
    path: Vec<u8>,
    argv_addr: u64,
    envp_addr: u64,
    flags: u64,
) -> SysResult {
    let t = cpu.get_data();
    if path.is_empty() && flags & AT_EMPTY_PATH == 0 {
        return Err(Errno::ENOENT);
    }
    if dirfd != libc::AT_FDCWD && path.first() != Some(&b'/') {
        // SAFETY: F_GETFD only queries the descriptor.
        if unsafe { libc::fcntl(dirfd, libc::F_GETFD) } < 0 {
            return Err(Errno::EBADF);
        }
    }
    // As the kernel: the file is opened first, then argv and envp are copied, then the format
    // is recognised.
    let first = exec_host_path(t, dirfd, &path, false)?;
    check_access(&first, flags & AT_SYMLINK_NOFOLLOW != 0)?;
    let mut total = 0;
    let mut argv = read_strings(t, argv_addr, &mut total)?;
    let envp = read_strings(t, envp_addr, &mut total)?;
    // The kernel gives a program started with an empty argv one empty argument.
    if argv.is_empty() {
        argv.push(Vec::new());
    }
    // The program and arguments as the guest gave them, for a binfmt_misc start without a
    // handle on endgate's executable (below).
    let as_given = (first.to_owned(), argv.clone());
    let comm = exec_comm(dirfd, &path);
    let execfn = exec_filename(dirfd, &path);
    let mut guest_path = path;
    let mut host = first;
    let mut nofollow = flags & AT_SYMLINK_NOFOLLOW != 0;
    let mut depth = 0;
    loop {
        match check_file(t, &host, nofollow)? {
            Format::Elf => break,
            Format::Script(interp, arg) => {
                depth += 1;
                if depth > MAX_SCRIPT_DEPTH {
                    return Err(Errno::ELOOP);
                }
                // argv[0] of the script gives way to interpreter, argument and script path.
                let script = if dirfd != libc::AT_FDCWD && guest_path.first() != Some(&b'/') {
                    host.to_bytes().to_vec()
                } else {
                    guest_path
                };
                let mut new = vec![interp.clone()];
                new.extend(arg);
                new.push(script);
                new.extend(argv.drain(..).skip(1));
                argv = new;
                host = super::path::lookup(t, libc::AT_FDCWD, interp.clone(), super::path::Last::Follow)?;
                guest_path = interp;
                nofollow = false;
            }
        }
    }
    // The program endgate is to start: the guest path where the new endgate can open it as
    // such. The file itself goes over as a descriptor (`program-fd`, below) where the new
    // endgate might not reach it by a name: `/proc/self/exe` (after a chroot the file may lie
    // outside the root) and a descriptor-relative name (a memfd, an unlinked file, a
    // close-on-exec descriptor: `fexecve`); it is then named as the kernel shows the file.
    let self_exe = super::path::is_proc_self_exe(&guest_path);
    let by_fd = dirfd != libc::AT_FDCWD && guest_path.first() != Some(&b'/') && depth == 0;
    let handover: Option<(i32, Vec<u8>)> = if self_exe {
        let fd = if super::selfref::root_changed() && !super::rootfs::active() {
            open_from_start_root(&t.exe.host_path)
        } else if !super::rootfs::active()
            && PROGRAM_FILE_ID.get().is_some()
            && file_id(&host) == PROGRAM_FILE_ID.get().copied()
        {
            // The path still names the running program's file: the new endgate opens it by
            // that name, and no descriptor is held across the exec (under a small
            // RLIMIT_NOFILE the host's loader needs it to start endgate).
            None
        } else {
            open_for_handover(&host)
        };
        fd.map(|fd| (fd, t.exe.host_path.as_os_str().as_bytes().to_vec()))
    } else if by_fd {
        open_for_handover(&host).and_then(|fd| {
            let name = super::selfref::fd_link(fd).map(|p| p.into_os_string().into_encoded_bytes());
            if name.is_none() {
                // SAFETY: our descriptor, just opened.
                unsafe { libc::close(fd) };
            }
            name.map(|n| (fd, n))
        })
    } else {
        None
    };
    let program = if let Some((_, name)) = &handover {
        in_guest_root(name.clone())
    } else if self_exe {
        in_guest_root(host.to_bytes().to_vec())
    } else if by_fd {
        let h = std::path::Path::new(std::ffi::OsStr::from_bytes(host.to_bytes()));
        in_guest_root(
            std::fs::canonicalize(h).map(|p| p.into_os_string().into_encoded_bytes()).map_err(|_| Errno::ENOENT)?,
        )
    } else {
        guest_path
    };
    let exec_with = t.opts.exec_with.clone();
    if exec_with == crate::guest::ExecWith::Refused {
        // A library tool that has no endgate command to run the new program under.
        return Err(Errno::ENOEXEC);
    }
    let mut args: Vec<CString> = vec![cstring(b"endgate")];
    if t.opts.strace {
        args.push(cstring(b"--strace"));
    }
    if let Some(seed) = crate::seed::get() {
        args.push(cstring(format!("--seed={seed}").as_bytes()));
    }
    // `-d`, `-D` (appended to), `-dfilter`, `-one-insn-per-tb`, `--drcov` (the next file name).
    args.extend(t.opts.trace.to_args().iter().map(|a| cstring(a.as_bytes())));
    if let Some(root) = t.opts.sysroot.as_ref().filter(|_| !super::selfref::root_changed()) {
        args.push(cstring(b"-L"));
        args.push(cstring(root.as_os_str().as_bytes()));
    }
    if let Some((dir, current, binds)) = super::rootfs::exec_args() {
        args.push(cstring(b"--root"));
        args.push(cstring(dir.as_os_str().as_bytes()));
        args.push(cstring(b"--no-default-binds"));
        for b in binds {
            let mut spec = b.host.as_os_str().as_bytes().to_vec();
            spec.push(b':');
            spec.extend(super::rootfs::join(&b.guest));
            args.push(cstring(b"--bind"));
            args.push(cstring(&spec));
        }
        if current != b"/" {
            let mut flag = crate::cli::ROOT_CHROOT_FLAG.as_bytes().to_vec();
            flag.push(b'=');
            flag.extend(current);
            args.push(cstring(&flag));
        }
    }
    if crate::syscall::fork::is_guest_child() {
        args.push(cstring(crate::cli::GUEST_CHILD_FLAG.as_bytes()));
    }
    let ignored = ignored_signals(t);
    if ignored != 0 {
        // One argument (`--flag=value`), which the option scan passes on as it is.
        args.push(cstring(format!("{}={ignored:x}", crate::cli::SIG_IGNORED_FLAG).as_bytes()));
    }
    if let Some(p) = &t.mempolicy {
        let v = format!(
            "{}={:x},{:x},{:x},{:x}",
            crate::cli::MEMPOLICY_FLAG,
            p.mode,
            p.flags,
            p.nodes,
            u8::from(p.home_node)
        );
        args.push(cstring(v.as_bytes()));
    }
    // What the new endgate must take over: its handles, the guest's root, seccomp filters,
    // the personality.
    let mut state = super::selfref::exec_lines();
    state.extend(super::seccomp::exec_lines());
    state.extend(super::process::exec_lines());
    state.extend(crate::mm::limits::exec_lines());
    state.extend(super::fakeroot::exec_lines());
    if let Some(fd) = crate::log::debug_log_fd() {
        state.push(format!("debug-log {fd}"));
    }
    if crate::log::tracing_pids() {
        state.push("trace-pids".into());
    }
    // `/proc/self/exe` names the running program's file whatever the root: after the guest
    // changed its root the file may lie outside it, where the new endgate, which loads its
    // program inside the root, cannot name it. It gets the file as a descriptor, opened from
    // the root endgate started in (`program-fd N`).
    let program_fd = handover.as_ref().map(|(fd, _)| *fd);
    if let Some((fd, name)) = &handover {
        state.push(format!("program-fd {fd} {}", super::selfref::hex(name)));
    }
    if execfn != program {
        state.push(format!("execfn {}", super::selfref::hex(&execfn)));
    }
    // The variables the host's loader and C library act on stay in their places in the
    // environment of the host's exec of endgate, disguised (see [`acts_on_endgate`]), and one
    // argument lists their places.
    let mut host_env: Vec<Vec<u8>> = envp.to_vec();
    let hidden: Vec<String> =
        host_env.iter_mut().enumerate().filter_map(|(i, e)| disguise(e).then(|| i.to_string())).collect();
    let mut list = String::new();
    for (k, place) in hidden.iter().enumerate() {
        if !list.is_empty() {
            list.push(',');
        }
        list.push_str(place);
        if list.len() >= GUEST_ENV_ARG_MAX || k + 1 == hidden.len() {
            args.push(cstring(format!("{}={list}", crate::cli::GUEST_ENV_FLAG).as_bytes()));
            list.clear();
        }
    }
    let escaped = if super::selfref::root_changed() { leave_guest_root() } else { None };
    if let Some((root, cwd)) = escaped {
        state.push(format!("reenter {root} {cwd}"));
    }
    // A guest that cannot leave its root (it gave up CAP_SYS_CHROOT: `su`) runs endgate
    // again through the host's loader, from the host's root as working directory
    // ([`super::selfref::loader_route`]); the new endgate takes the guest's back (`cwd FD`).
    let via_loader = if escaped.is_none() && super::selfref::root_changed() {
        super::selfref::loader_route().and_then(|(loader, pre)| {
            let root = super::selfref::root_fd()?;
            // SAFETY: opens the working directory; inherited by the new endgate.
            let cwd = unsafe { libc::open(c".".as_ptr(), libc::O_PATH | libc::O_DIRECTORY) };
            (cwd >= 0).then_some((loader, pre, root, cwd))
        })
    } else {
        None
    };
    if let Some((_, _, _, cwd)) = &via_loader {
        state.push(format!("cwd {cwd}"));
    }
    // Short state goes in an argument: a descriptor held across the exec would take the one
    // the host's loader needs to start endgate under a small RLIMIT_NOFILE (`ulimit -n 4`).
    let text = state.join("\n");
    let inline = !state.is_empty() && text.len() <= EXEC_STATE_INLINE_MAX;
    if inline {
        args.push(cstring(
            format!("{}={}", crate::cli::EXEC_STATE_TEXT_FLAG, super::selfref::hex(text.as_bytes())).as_bytes(),
        ));
    }
    let state_fd = if state.is_empty() || inline { None } else { state_memfd(&state) };
    if let Some(fd) = state_fd {
        args.push(cstring(format!("{}={fd}", crate::cli::EXEC_STATE_FLAG).as_bytes()));
    }
    let exe = super::selfref::exe_fd();
    if let (crate::guest::ExecWith::Itself, Some(fd)) = (&exec_with, exe) {
        args.push(cstring(format!("{}={fd}", crate::cli::EXE_FD_FLAG).as_bytes()));
    }
    let mut comm_arg = format!("{}=", crate::cli::COMM_FLAG).into_bytes();
    comm_arg.extend(&comm);
    args.push(cstring(&comm_arg));
    args.push(cstring(b"-0"));
    args.push(cstring(&argv[0]));
    args.push(cstring(b"--"));
    args.push(cstring(&program));
    args.extend(argv[1..].iter().map(|a| cstring(a)));
    let env: Vec<CString> = host_env.iter().map(|e| cstring(e)).collect();
    let mut argp: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    argp.push(std::ptr::null());
    let mut envpp: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
    envpp.push(std::ptr::null());
    // The guest's whole environment, for a host program run in endgate's place (binfmt).
    let full_env: Vec<CString> = envp.iter().map(|e| cstring(e)).collect();
    let mut full_envpp: Vec<*const libc::c_char> = full_env.iter().map(|e| e.as_ptr()).collect();
    full_envpp.push(std::ptr::null());
    if t.opts.strace {
        // The call succeeds from here on (the host's execve of endgate fails only for lack of
        // resources), and strace prints its line with the result 0 before the new program's.
        let def = super::DispatchTable::of(t.arch).get(a.nr);
        let pre = crate::syscall::strace::format_entry(cpu.get_data(), def, a);
        crate::syscall::strace::print_line(cpu.get_data(), def, a, &pre, 0, false);
    }
    // The threads' robust futexes are released as the kernel's exec does (`exec_mm_release`
    // for this thread; the others die in `de_thread`): the exec fails from here on only for
    // lack of host resources.
    crate::syscall::robust::process_ending(cpu.get_data());
    super::selfref::set_inherited(true);
    crate::log::set_debug_log_inherited(true);
    // The image ends here: `--drcov` writes its file, the `-d` log its buffer.
    crate::guest::image_ending(t);
    let err = match (exec_with, exe) {
        // The host's loader, from the host's root (see above).
        (crate::guest::ExecWith::Itself, Some(_)) if via_loader.is_some() => {
            if let Some((loader, pre, root, _)) = &via_loader {
                let mut lp: Vec<*const libc::c_char> = pre.iter().map(|a| a.as_ptr()).collect();
                lp.extend(argp.iter().skip(1));
                // SAFETY: our root handle; NUL-terminated strings in NULL-terminated arrays
                // (`argp` ends with its NULL), all alive across the call.
                unsafe {
                    if libc::fchdir(*root) == 0 {
                        libc::execve(loader.as_ptr(), lp.as_ptr(), envpp.as_ptr());
                    }
                }
            }
            Errno::last()
        }
        // A library tool's endgate command (`crate::api`).
        (crate::guest::ExecWith::Binary(bin), _) => {
            let bin = cstring(bin.as_os_str().as_bytes());
            // SAFETY: NUL-terminated strings in NULL-terminated arrays, alive across the call.
            unsafe { libc::execve(bin.as_ptr(), argp.as_ptr(), envpp.as_ptr()) };
            Errno::last()
        }
        (_, Some(exe)) => {
            // SAFETY: our executable's descriptor, an empty path, and NUL-terminated strings in
            // NULL-terminated arrays, all alive across the call.
            unsafe {
                libc::syscall(libc::SYS_execveat, exe, c"".as_ptr(), argp.as_ptr(), envpp.as_ptr(), libc::AT_EMPTY_PATH)
            };
            Errno::last()
        }
        // No handle on the executable (none was found at start): its /proc link, if /proc is
        // there now.
        (_, None) => {
            // SAFETY: as above.
            unsafe { libc::execve(c"/proc/self/exe".as_ptr(), argp.as_ptr(), envpp.as_ptr()) };
            let e = Errno::last();
            if matches!(e, Errno::ENOENT | Errno::ELOOP | Errno::ENOTDIR | Errno::EACCES) {
                exec_through_binfmt(&as_given.0, &as_given.1, &full_envpp)
                    .inspect_err(|_| {
                        crate::elog!(
                            "endgate: execve: cannot run endgate again: it found no file of its own at start and /proc/self/exe: {e}"
                        );
                    })
                    .err()
                    .unwrap_or(e)
            } else {
                e
            }
        }
    };
    super::selfref::set_inherited(false);
    crate::log::set_debug_log_inherited(false);
    if let Some((_, _, _, cwd)) = via_loader {
        // SAFETY: the guest's working directory again; our descriptor.
        unsafe {
            libc::fchdir(cwd);
            libc::close(cwd);
        }
    }
    if let Some((root, cwd)) = escaped {
        super::selfref::enter_root(root, cwd);
    }
    for fd in state_fd.into_iter().chain(program_fd) {
        // SAFETY: our memfd, the program's descriptor.
        unsafe { libc::close(fd) };
    }
    Err(err)
}

/// The name Linux gives the new program in `AT_EXECFN` (`bprm->filename`, fs/exec.c
/// `alloc_bprm`): the path as the caller passed it, or for a descriptor-relative one
/// `/dev/fd/N/PATH` (`/dev/fd/N` for `AT_EMPTY_PATH`); a `#!` script's, not its interpreter's.
fn exec_filename(dirfd: i32, path: &[u8]) -> Vec<u8> {
    if dirfd == libc::AT_FDCWD || path.first() == Some(&b'/') {
        return path.to_vec();
    }
    let mut name = format!("/dev/fd/{dirfd}").into_bytes();
    if !path.is_empty() {
        name.push(b'/');
        name.extend_from_slice(path);
    }
    name
}

/// `AT_EXECFN` for the program a guest's `execve` started, when it is not the program's path
/// (exec state line `execfn HEX`): see [`exec_filename`].
static EXECFN: std::sync::Mutex<Option<Vec<u8>>> = std::sync::Mutex::new(None);

/// Takes the `AT_EXECFN` the previous endgate passed on, if any (see [`EXECFN`]).
pub fn take_execfn() -> Option<Vec<u8>> {
    EXECFN.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
}

/// The task name Linux gives the program `execveat(dirfd, path, …)` starts (fs/exec.c
/// `begin_new_exec`): the last component of `path` (of a `#!` script, the script's, not its
/// interpreter's), cut to 15 bytes; for an empty `path` (`AT_EMPTY_PATH`, fexecve), whose
/// `bprm->filename` is `/dev/fd/N`, the name of the file the descriptor holds, as recent
/// kernels give (Linux 6.18 does, checked natively; older ones gave `N`).
fn exec_comm(dirfd: i32, path: &[u8]) -> Vec<u8> {
    if !path.is_empty() {
        return crate::thread::title::comm_of(path);
    }
    let link = std::fs::read_link(format!("/proc/self/fd/{dirfd}")).map(|p| p.into_os_string().into_encoded_bytes());
    match link {
        Ok(l) => crate::thread::title::comm_of(l.strip_suffix(b" (deleted)").unwrap_or(&l)),
        Err(_) => crate::thread::title::comm_of(dirfd.to_string().as_bytes()),
    }
}

/// A host path as the new endgate must name the program: under `--root`, the guest's path
/// of it.
fn in_guest_root(host: Vec<u8>) -> Vec<u8> {
    if super::rootfs::active() {
        super::rootfs::guest_view(&host).unwrap_or(host)
    } else {
        host
    }
}

/// For an endgate that binfmt_misc started (`AT_FLAGS_PRESERVE_ARGV0` in its auxiliary vector)
/// and that has no way to run its own file again (a chroot or container without `/proc`,
/// where the kernel opened endgate for a `F` entry): the guest's program is exec'd as the
/// guest named it, and the kernel starts it as it started this one (through binfmt_misc, or
/// natively for the host's own arch). What only the exec state carries (seccomp filters, a
/// changed root's re-entry, the personality) is lost. Returns the host's error, or `ENOEXEC`
/// when this endgate was not started by binfmt_misc.
fn exec_through_binfmt(host: &CString, argv: &[Vec<u8>], envpp: &[*const libc::c_char]) -> Result<(), Errno> {
    // SAFETY: getauxval reads the process's auxiliary vector.
    if unsafe { libc::getauxval(libc::AT_FLAGS) } & crate::abi::at::AT_FLAGS_PRESERVE_ARGV0 == 0 {
        return Err(Errno::ENOEXEC);
    }
    let args: Vec<CString> = argv.iter().map(|a| cstring(a)).collect();
    let mut argp: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    argp.push(std::ptr::null());
    // SAFETY: NUL-terminated strings in NULL-terminated arrays (`envpp` ends with its NULL),
    // alive across the call.
    unsafe { libc::execve(host.as_ptr(), argp.as_ptr(), envpp.as_ptr()) };
    Err(Errno::last())
}

/// Whether the guest environment entry `e` (`NAME=VALUE`) is one the host's dynamic loader or
/// C library would act on in endgate itself (ld.so(8): `LD_PRELOAD`, `LD_LIBRARY_PATH`,
/// `LD_TRACE_LOADED_OBJECTS`, `LD_DEBUG`, `LD_AUDIT`…; `GLIBC_TUNABLES`; malloc's
/// `MALLOC_*`), or one it removes when the exec is a secure one (`AT_SECURE`: a guest whose
/// effective and real ids differ; glibc's list of unsafe variables, ld.so(8) "Secure-execution
/// mode"): such a variable must reach the guest's loader and not the host's (`ldd` under
/// endgate listed endgate's own libraries), and none may go missing.
fn acts_on_endgate(e: &[u8]) -> bool {
    /// Removed in secure-execution mode, besides `LD_*` and `MALLOC_TRACE`.
    const UNSECURE: &[&[u8]] = &[
        b"GCONV_PATH",
        b"GETCONF_DIR",
        b"HOSTALIASES",
        b"LOCALDOMAIN",
        b"LOCPATH",
        b"NIS_PATH",
        b"NLSPATH",
        b"RESOLV_HOST_CONF",
        b"RES_OPTIONS",
        b"TMPDIR",
        b"TZDIR",
    ];
    let name = e.split(|&b| b == b'=').next().unwrap_or(e);
    name.starts_with(b"LD_") || name.starts_with(b"MALLOC_") || name == b"GLIBC_TUNABLES" || UNSECURE.contains(&name)
}

/// The longest `--guest-env` argument: a list of places longer than that (tens of thousands of
/// disguised entries) goes in several, each well below `MAX_ARG_STRLEN` (128 KiB).
const GUEST_ENV_ARG_MAX: usize = 60 << 10;

/// Disguises the guest environment entry `e` for the host's exec of endgate if the host's
/// loader or C library would act on it ([`acts_on_endgate`]): its first letter (`L`, `M`,
/// `G`) in lower case, a name neither reads, of the same length, so that the entry takes no
/// more room than the guest gave it (`ARG_MAX`, and `MAX_ARG_STRLEN` for one entry). The new
/// endgate undoes it at the places `crate::cli::GUEST_ENV_FLAG` lists
/// ([`crate::cli::undisguise`]).
/// Returns whether `e` was disguised.
fn disguise(e: &mut [u8]) -> bool {
    if !acts_on_endgate(e) {
        return false;
    }
    e[0] = e[0].to_ascii_lowercase();
    true
}

/// The longest exec state passed in an argument (`--exec-state-text`, twice as long in
/// hexadecimal); longer state (seccomp filters) goes in a memfd. The argument takes room from
/// the guest's own arguments and environment (`ARG_MAX`, which programs such as `xargs` fill
/// up to a margin), so only short state goes there: the flags and a path or two.
const EXEC_STATE_INLINE_MAX: usize = 512;

/// Lines of exec state in a memfd the new endgate inherits (`--exec-state=FD`), which reads
/// and closes it before it loads the program ([`restore_state`]); `debug-log FD` hands on the
/// `-D` file.
fn state_memfd(lines: &[String]) -> Option<i32> {
    let text = lines.join("\n") + "\n";
    // SAFETY: a NUL-terminated name; no close-on-exec, the new endgate takes it.
    let fd = unsafe { libc::memfd_create(c"endgate-exec-state".as_ptr(), 0) };
    if fd < 0 {
        return None;
    }
    // SAFETY: our memfd and a buffer of its length.
    let n = unsafe { libc::write(fd, text.as_ptr().cast(), text.len()) };
    if usize::try_from(n).ok() != Some(text.len()) {
        // SAFETY: our memfd.
        unsafe { libc::close(fd) };
        return None;
    }
    Some(fd)
}

/// In a new endgate, before anything else: takes over the exec state the previous one left in
/// `fd` (see [`state_memfd`]) and closes it: endgate's handles, the guest's root (entered
/// again), seccomp filters.
pub fn restore_state(fd: i32) {
    // SAFETY: the descriptor the previous endgate passed; File reads and closes it.
    let mut f = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    let mut text = String::new();
    let _ = std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(0));
    let _ = std::io::Read::read_to_string(&mut f, &mut text);
    drop(f);
    restore_lines(&text);
}

/// [`restore_state`] for state passed in the argument (`--exec-state-text`, hexadecimal).
pub fn restore_state_text(hex: &str) {
    if let Some(text) = super::selfref::unhex(hex).and_then(|b| String::from_utf8(b).ok()) {
        restore_lines(&text);
    }
}

/// Takes over the lines of exec state, however they came.
fn restore_lines(text: &str) {
    for line in text.lines() {
        if let Some(fd) = line.strip_prefix("debug-log ").and_then(|f| f.parse().ok()) {
            crate::log::adopt_debug_log(fd);
            continue;
        }
        if line == "trace-pids" {
            crate::log::trace_pids();
            continue;
        }
        if let Some(name) = line.strip_prefix("execfn ").and_then(super::selfref::unhex) {
            *EXECFN.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(name);
            continue;
        }
        if let Some((fd, name)) = line.strip_prefix("program-fd ").and_then(|r| r.split_once(' ')) {
            if let (Ok(fd), Some(name)) = (fd.parse::<i32>(), super::selfref::unhex(name)) {
                // SAFETY: an integer descriptor; close-on-exec from now on, as the guest's own
                // descriptors must not see it.
                unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
                *PROGRAM_FILE.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((fd, name));
            }
            continue;
        }
        let _ = super::selfref::restore_line(line)
            || super::selfref::reenter_line(line)
            || super::seccomp::restore_line(line)
            || super::process::restore_line(line)
            || crate::mm::limits::restore_line(line)
            || super::fakeroot::restore_line(line);
    }
}

/// Opens the host file at `path` (absolute, in the root endgate started in) for reading,
/// inherited across exec, through the handle on that root; `None` without one or if it
/// cannot be opened.
fn open_from_start_root(path: &std::path::Path) -> Option<i32> {
    let root = super::selfref::root_fd()?;
    let rel = cstring(path.as_os_str().as_bytes().strip_prefix(b"/").unwrap_or(path.as_os_str().as_bytes()));
    // SAFETY: our root handle and a NUL-terminated relative path.
    let fd = unsafe { libc::openat(root, rel.as_ptr(), libc::O_RDONLY) };
    (fd >= 0).then_some(fd)
}

/// The program file's device and inode when it was loaded (the process's; a fork's child
/// runs the same program): an `execve` of `/proc/self/exe` hands the file over as a descriptor
/// only when the path no longer names it. Kept out of `Task`, whose layout the hot paths feel
/// (in `Task` it cost riscv64's vDSO clock 10 ns a call).
static PROGRAM_FILE_ID: std::sync::OnceLock<(u64, u64)> = std::sync::OnceLock::new();

/// Notes the loaded program's file (see [`PROGRAM_FILE_ID`]).
pub fn note_program_file(host: &std::path::Path) {
    if let Ok(m) = std::fs::metadata(host) {
        let _ = PROGRAM_FILE_ID.set((std::os::unix::fs::MetadataExt::dev(&m), std::os::unix::fs::MetadataExt::ino(&m)));
    }
}

/// The device and inode of the file `host` names.
fn file_id(host: &std::ffi::CStr) -> Option<(u64, u64)> {
    // SAFETY: plain data; all-zero is a valid value.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a local stat buffer.
    (unsafe { libc::stat(host.as_ptr(), &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// Opens the exec target `host` for reading, inherited across exec, to hand it over.
fn open_for_handover(host: &std::ffi::CStr) -> Option<i32> {
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(host.as_ptr(), libc::O_RDONLY) };
    (fd >= 0).then_some(fd)
}

/// The program file a guest's `execve` handed over and the host path the kernel shows for it
/// (exec state line `program-fd N HEX`), for [`crate::launch`] to load in place of the path.
static PROGRAM_FILE: std::sync::Mutex<Option<(i32, Vec<u8>)>> = std::sync::Mutex::new(None);

/// Takes the program file handed over by the previous endgate and its host path, if any (see
/// [`PROGRAM_FILE`]).
pub fn take_program_file() -> Option<(std::fs::File, std::path::PathBuf)> {
    let (fd, name) = PROGRAM_FILE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()?;
    // SAFETY: a descriptor the previous endgate passed for us alone; the File owns it now.
    let f = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    Some((f, std::path::PathBuf::from(std::ffi::OsString::from_vec(name))))
}

/// For an exec after the guest changed its root: this thread goes back to the root endgate
/// started in, where the dynamic loader and libraries endgate's binary needs are (the new root
/// need not have them). Only this thread's root changes (`unshare(CLONE_FS)`: exec ends the
/// other threads anyway). Returns descriptors of the guest's root and working directory,
/// inherited by the new endgate, which enters them again; `None` (nothing changed) when there
/// is no handle on the old root or the host refuses (`chroot` needs `CAP_SYS_CHROOT`): the
/// exec then happens in the guest's root.
fn leave_guest_root() -> Option<(i32, i32)> {
    let real = super::selfref::root_fd()?;
    // SAFETY: opening, changing to and closing directories; our own descriptors.
    unsafe {
        let root = libc::open(c"/".as_ptr(), libc::O_PATH | libc::O_DIRECTORY);
        let cwd = libc::open(c".".as_ptr(), libc::O_PATH | libc::O_DIRECTORY);
        if root < 0 || cwd < 0 || libc::unshare(libc::CLONE_FS) != 0 {
            libc::close(root);
            libc::close(cwd);
            return None;
        }
        if libc::fchdir(real) != 0 || libc::chroot(c".".as_ptr()) != 0 {
            libc::fchdir(cwd);
            libc::close(root);
            libc::close(cwd);
            return None;
        }
        Some((root, cwd))
    }
}

/// The guest's `SIG_IGN` signals (host-numbered mask), which exec keeps ignored.
fn ignored_signals(t: &Task) -> u64 {
    (1..=crate::signal::NSIG)
        .filter(|&n| t.sig.actions[(n - 1) as usize].handler == crate::signal::SIG_IGN)
        .fold(0, |m, n| m | 1u64 << (n - 1))
}

/// The signal state a program starts with: every signal at `SIG_DFL` except those an exec
/// kept ignored ([`crate::guest::Options::sig_ignored`], which also go back to `SIG_IGN` on
/// the host, where endgate's start reset some), and the blocked mask the host process
/// inherited (endgate keeps the host's mask equal to the guest's, so after an exec it is the
/// guest's).
pub fn inherited_sig_state(opts: &crate::guest::Options) -> crate::signal::SigState {
    use crate::signal::{host, SigState, Signal, NSIG, SIG_IGN};
    let mut st = SigState::default();
    host::set_strace_defaults(opts.strace);
    for n in 1..=NSIG {
        let s = Signal(n);
        // Ignored by whoever started endgate (a shell's `trap ''`, nohup): the guest inherits
        // that, as a native program would (endgate skips Rust's start-up code, which would
        // ignore SIGPIPE itself: see main.rs).
        let inherited = host::disposition_is_ignore(s);
        if (opts.sig_ignored & crate::signal::bit(s) != 0 || inherited) && s != Signal::SIGKILL && s != Signal::SIGSTOP
        {
            st.actions[(n - 1) as usize].handler = SIG_IGN;
            host::set_disposition(s, SIG_IGN);
        } else if opts.strace && s != Signal::SIGKILL && s != Signal::SIGSTOP {
            // --strace catches the signals whose default ends the process (host.rs).
            host::set_disposition(s, crate::signal::SIG_DFL);
        }
    }
    st.mask = host::current_mask();
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(line: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>), Errno> {
        match parse_shebang(line, false)? {
            Format::Script(i, a) => Ok((i, a)),
            Format::Elf => unreachable!(),
        }
    }

    #[test]
    fn loader_variables_cross_the_exec_disguised_in_place() {
        let guest: Vec<Vec<u8>> = [
            &b"A=1"[..],
            b"LD_PRELOAD=/x.so",
            b"NOEQ",
            b"MALLOC_PERTURB_=85",
            b"GLIBC_TUNABLES=glibc.malloc.check=3",
            b"LD_NOEQ",
            b"ld_lower=1",
            b"TMPDIR=/t",
            b"Z=2",
        ]
        .iter()
        .map(|e| e.to_vec())
        .collect();
        let mut host = guest.clone();
        let places: Vec<String> =
            host.iter_mut().enumerate().filter_map(|(i, e)| disguise(e).then(|| i.to_string())).collect();
        assert_eq!(places, ["1", "3", "4", "5", "7"], "and TMPDIR, which a secure exec's loader drops");
        assert_eq!(host[1], b"lD_PRELOAD=/x.so", "same length, a name the host's loader ignores");
        assert_eq!(host[4], b"gLIBC_TUNABLES=glibc.malloc.check=3");
        assert!(host.iter().zip(&guest).all(|(h, g)| h.len() == g.len()));
        // A guest entry that looks disguised but is not listed stays as it is.
        let mut back = host;
        let mut entries: Vec<&mut [u8]> = back.iter_mut().map(|e| e.as_mut_slice()).collect();
        crate::cli::undisguise(&mut entries, &[std::ffi::OsString::from(places.join(","))]);
        assert_eq!(back, guest);
    }

    #[test]
    fn shebang_lines_split_as_the_kernel_splits_them() {
        assert_eq!(script(b"#!/bin/sh\necho").unwrap(), (b"/bin/sh".to_vec(), None));
        assert_eq!(script(b"#! /bin/sh  -e -x \t\n").unwrap(), (b"/bin/sh".to_vec(), Some(b"-e -x".to_vec())));
        assert_eq!(script(b"#!/usr/bin/env\tpython3").unwrap(), (b"/usr/bin/env".to_vec(), Some(b"python3".to_vec())));
        assert_eq!(script(b"#!   \n").err(), Some(Errno::ENOEXEC));
        assert!(matches!(parse_shebang(b"#!/ab", true), Err(Errno::ENOEXEC)));
    }
}
