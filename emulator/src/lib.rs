//! endgate: a user-mode Linux emulator. It runs a Linux program built for another CPU on this
//! host, the way `qemu-aarch64 ./prog` does: guest code is translated by unicorn (QEMU's TCG),
//! guest system calls are served by endgate on the host.
//!
//! Tools that run a guest with hooks on its system calls, blocks, memory accesses and signals
//! use [`api`] (docs/api.md). Start at [`launch`]; the path of one system call is described in [`syscall`], the guest
//! address space in [`mm`], and what one guest architecture changes in [`arch`].

pub mod abi;
pub mod api;
pub mod arch;
pub mod binfmt;
pub mod cli;
pub mod fuzz;
pub mod gate;
pub mod gdb;
pub mod guard;
pub mod guest;
pub mod loader;
pub mod log;
pub mod mm;
pub mod seed;
pub mod signal;
pub mod syscall;
pub mod task;
pub mod thread;
pub mod trace;

use std::sync::Arc;

use crate::guest::{ExeInfo, Exit, Options};
use crate::loader::stack::{self, StackInput};
use crate::loader::{ImageKind, LoaderError};
use crate::mm::{AddressSpace, GuestAddr};

pub use crate::arch::TCG_BUFFER_BYTES;
pub use crate::task::exit::{exit_status, finish};

/// Why endgate could not start or keep running a guest (endgate's failures, as opposed to
/// the guest's own exit status).
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The program (or its interpreter) could not be loaded.
    #[error(transparent)]
    Loader(#[from] LoaderError),
    /// The address space could not be reserved.
    #[error("{0}")]
    Mm(#[from] mm::MmError),
    /// The CPU engine refused to start.
    #[error("CPU engine: {0:?}")]
    Engine(unicorn_engine::uc_error),
    /// `-g PORT`: the GDB server could not listen or accept.
    #[error(transparent)]
    Gdb(#[from] gdb::ServeError),
}

impl LaunchError {
    /// The exit status for this failure (126/127 as a shell gives, 1 for engine failures).
    pub fn exit_status(&self) -> i32 {
        match self {
            LaunchError::Loader(l) => l.exit_status(),
            _ => 1,
        }
    }
}

/// What to run.
pub struct Program {
    /// Path of the ELF file as the user named it (any bytes, as a Linux path).
    pub path: std::ffi::OsString,
    /// The guest's argv (`argv[0]` included).
    pub argv: Vec<Vec<u8>>,
    /// The guest's environment.
    pub envp: Vec<Vec<u8>>,
    /// The task name (`comm`), when not the one `path` gives (its last component, cut to 15
    /// bytes): a guest's `execve` passes on the name Linux gives, from the path the guest
    /// named (`crate::thread::title`).
    pub comm: Option<Vec<u8>>,
}

/// Loads `prog` and runs it to the end; returns how the guest ended and, for a fatal signal,
/// the one-line report to print.
pub fn launch(opts: Options, prog: Program) -> Result<(Exit, Option<String>), LaunchError> {
    guard::install();
    // The launch thread builds the process's shared state (the address space), so it holds
    // the guest lock from here on, as every guest thread does in its run loop
    // (crate::thread::shared).
    crate::thread::lock::acquire();
    // An absolute program path is a guest path, looked up under the sysroot first (as a
    // guest's execve names its program).
    // The path as bytes (the guest's), and as text for messages and labels.
    let raw_path = prog.path.as_encoded_bytes().to_vec();
    let path_text = prog.path.to_string_lossy().into_owned();
    let (elf, prog_host) = match syscall::exec::take_program_file() {
        // A guest's execve of /proc/self/exe or fexecve: the file itself, and its host path.
        Some((f, host)) => (loader::read_elf_file(&path_text, &host, f)?, host),
        None => {
            let host = syscall::path::sysroot_path(&opts, &raw_path);
            // As execve(2), permission first: a file without execute permission (or on a
            // noexec mount) is EACCES whatever it holds, which a shell reports as status 126.
            if let Ok(c) = std::ffi::CString::new(host.as_os_str().as_encoded_bytes()) {
                // SAFETY: a NUL-terminated path.
                if unsafe { libc::access(c.as_ptr(), libc::X_OK) } != 0 {
                    let source = std::io::Error::last_os_error();
                    return Err(LoaderError::Io { path: path_text.clone(), source }.into());
                }
            }
            (loader::read_elf(&path_text, &host)?, host)
        }
    };
    let arch = elf.arch;
    let opts = Arc::new(opts);
    let interp = match loader::interpreter(&elf) {
        Some(ipath) => {
            let host = syscall::path::sysroot_path(&opts, ipath.as_bytes());
            // Errors name the program and its interpreter, as in "PROG: interpreter X: reason".
            let ielf = loader::read_elf(&format!("{path_text}: interpreter {ipath}"), &host)?;
            if ielf.arch.info().elf_machine != arch.info().elf_machine {
                return Err(
                    LoaderError::NotElf { path: ipath, reason: "interpreter for another machine".into() }.into()
                );
            }
            Some(ielf)
        }
        None => None,
    };
    let mm = AddressSpace::new(arch.info().layout, arch.info().data_model)?;
    let host_path = std::fs::canonicalize(&prog_host).unwrap_or(prog_host);
    syscall::exec::note_program_file(&host_path);
    let mut task =
        crate::task::new_process(arch, mm, opts.clone(), ExeInfo { guest_path: path_text.clone(), host_path });
    task.argv = prog.argv.clone();
    // The host thread is named as the kernel names the task, so that `/proc/PID/comm`,
    // `/proc/PID/stat` and `ps` show the guest's name (threads inherit it).
    let comm = prog.comm.clone().unwrap_or_else(|| crate::thread::title::comm_of(&raw_path));
    crate::thread::title::set_comm(&comm);
    let engine = LaunchError::Engine;
    let mut cpu = task::new_instance(task).map_err(engine)?;

    let task = cpu.get_data_mut();
    let main = loader::load_image(&mut task.mm, &elf, ImageKind::Main)?;
    task.mm.brk_start = main.end;
    task.mm.brk = main.end;
    let stack_input_interp;
    let entry = match &interp {
        Some(ielf) => {
            // The interpreter goes top-down below the stack gap, so place the stack first.
            task.mm.mmap_base = stack::mmap_base(task.mm.stack_top);
            let i = loader::load_image(&mut task.mm, ielf, ImageKind::Interpreter)?;
            stack_input_interp = Some(i);
            i.entry
        }
        None => {
            stack_input_interp = None;
            main.entry
        }
    };
    // The files are mapped: their descriptors close before the guest runs, so that the guest's
    // first descriptor is the lowest free one, as natively.
    drop(interp);
    drop(elf);
    // The vDSO goes at the top of the mmap area, below the stack, as Linux places it.
    task.mm.mmap_base = stack::mmap_base(task.mm.stack_top);
    let gate = gate::map(
        &mut task.mm,
        arch.info().vdso,
        arch.info().elf_machine,
        arch.info().is_64bit(),
        arch.info().endian(),
    )
    .map_err(|e| LoaderError::Map { path: path_text.clone(), addr: 0, reason: format!("vDSO: {e}") })?;
    // AT_EXECFN: the name the guest's execve gave, where the previous endgate passed one on.
    let execfn = syscall::exec::take_execfn().unwrap_or_else(|| raw_path.clone());
    let input = StackInput {
        gate: gate.auxv(),
        argv: &prog.argv,
        envp: &prog.envp,
        execfn: &execfn,
        main,
        interp: stack_input_interp,
    };
    let st = stack::build(&mut task.mm, arch, &input).map_err(|e| LoaderError::Map {
        path: path_text.clone(),
        addr: 0,
        reason: format!("initial stack: {e}"),
    })?;
    task.auxv = st.auxv;
    task.start_stack = st.sp;
    task.arg_env = st.arg_env;
    task.sigtramp = guest::sigframe::map_sigtramp(&mut task.mm, arch).map_err(|e| LoaderError::Map {
        path: path_text.clone(),
        addr: 0,
        reason: format!("signal trampoline page: {e}"),
    })?;
    task.gate = Arc::new(gate);
    syscall::gate::install_hook(&mut cpu).map_err(engine)?;
    task::mark_program_code(&mut cpu).map_err(engine)?;
    arch.init_regs(&mut cpu, GuestAddr::new(entry), GuestAddr::new(st.sp)).map_err(engine)?;
    task::install_tools(&mut cpu).map_err(engine)?;
    if cpu.get_data().opts.trace.has(cli::DebugItem::Page) {
        let t = cpu.get_data();
        let layout = [
            ("start_brk", t.mm.brk_start),
            ("entry", main.entry),
            ("phdr", main.phdr),
            ("load_bias", main.bias),
            ("interp", stack_input_interp.map_or(0, |i| i.bias)),
            ("start_stack", t.start_stack),
        ];
        crate::log::debug_write(&trace::debug::page_dump(&cpu, &layout));
    }
    if let Some(port) = cpu.get_data().opts.gdb {
        gdb::start(port, &mut cpu)?;
    }
    let exit = task::run(&mut cpu);
    let report = finish(&cpu, exit);
    // The engine goes when this returns: the preemption timer must not reach it through this
    // thread's stop flag any more (it writes the engine's bytes under the running set's lock).
    thread::running::unregister();
    signal::host::detach_stop_flags();
    Ok((exit, report))
}
