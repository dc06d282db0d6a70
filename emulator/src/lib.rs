//! endgate: a user-mode Linux emulator. It runs a Linux program built for another CPU on this
//! host, the way `qemu-aarch64 ./prog` does: guest code is translated by unicorn (QEMU's TCG),
//! guest system calls are served by endgate on the host.
//!
//! Start at [`launch`]; the path of one system call is described in [`syscall`], the guest
//! address space in [`mm`], and what one guest architecture changes in [`arch`].

pub mod abi;
pub mod arch;
pub mod cli;
pub mod loader;
pub mod mm;
pub mod signal;
pub mod syscall;
pub mod task;
pub mod trace;

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use unicorn_engine::{MemType, TlbEntry, TlbType};

use crate::loader::stack::{self, StackInput};
use crate::loader::{ImageKind, LoaderError};
use crate::mm::{AddressSpace, Prot};
use crate::syscall::DispatchTable;
use crate::task::{ExeInfo, Exit, Options, Task};

/// Size of each unicorn instance's TCG translation buffer, in bytes (unicorn's default is
/// 1 GiB of address space per instance; 64 MiB holds the hot code of large programs).
pub const TCG_BUFFER_BYTES: u32 = 64 << 20;

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
    /// Path of the ELF file as the user named it.
    pub path: String,
    /// The guest's argv (`argv[0]` included).
    pub argv: Vec<Vec<u8>>,
    /// The guest's environment.
    pub envp: Vec<Vec<u8>>,
}

/// Host path for a guest absolute path under the `-L` sysroot, if it exists there.
pub fn sysroot_path(opts: &Options, guest: &str) -> PathBuf {
    if let Some(root) = &opts.sysroot {
        if guest.starts_with('/') {
            let p = root.join(guest.trim_start_matches('/'));
            if p.symlink_metadata().is_ok() {
                return p;
            }
        }
    }
    PathBuf::from(guest)
}

/// Names the host thread after the guest program (its first 15 bytes, as the kernel names a
/// task after the file it executes), so that `/proc/self/comm`, `/proc/self/stat` and `ps`
/// show the guest's name.
fn set_thread_name(path: &str) {
    let base = path.rsplit('/').next().unwrap_or(path);
    let mut name: Vec<u8> = base.bytes().filter(|&b| b != 0).take(15).collect();
    name.push(0);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe { libc::prctl(libc::PR_SET_NAME, name.as_ptr()) };
}

/// Loads `prog` and runs it to the end; returns how the guest ended and, for a fatal signal,
/// the one-line report to print.
pub fn launch(opts: Options, prog: Program) -> Result<(Exit, Option<String>), LaunchError> {
    // An absolute program path is a guest path, looked up under the sysroot first (as a
    // guest's execve names its program).
    let prog_host = sysroot_path(&opts, &prog.path);
    let elf = loader::read_elf(&prog.path, &prog_host)?;
    let arch = elf.arch;
    let opts = Arc::new(opts);
    let interp = match loader::interpreter(&elf) {
        Some(ipath) => {
            let host = sysroot_path(&opts, &ipath);
            // Errors name the program and its interpreter, as in "PROG: interpreter X: reason".
            let ielf = loader::read_elf(&format!("{}: interpreter {ipath}", prog.path), &host)?;
            if ielf.arch.elf_machine() != arch.elf_machine() {
                return Err(
                    LoaderError::NotElf { path: ipath, reason: "interpreter for another machine".into() }.into()
                );
            }
            Some(ielf)
        }
        None => None,
    };
    let mm = AddressSpace::new(arch.layout(), arch.data_model())?;
    let host_path = std::fs::canonicalize(&prog_host).unwrap_or(prog_host);
    let task = Task {
        arch,
        mm,
        opts: opts.clone(),
        exe: ExeInfo { guest_path: prog.path.clone(), host_path },
        dispatch: Arc::new(DispatchTable::new(arch)),
        sig: syscall::exec::inherited_sig_state(&opts),
        exit: None,
        clear_child_tid: 0,
        robust_list: (0, 0),
        warned: HashSet::new(),
        argv: prog.argv.clone(),
        auxv: Vec::new(),
        sigtramp: 0,
        start_stack: 0,
        pending_op: None,
        sync_fault: None,
        interrupted: None,
    };
    set_thread_name(&prog.path);
    let engine = LaunchError::Engine;
    let mut cpu = arch.new_cpu(task).map_err(engine)?;
    cpu.ctl_set_tlb_type(TlbType::VIRTUAL).map_err(engine)?;
    let windows: Vec<_> = cpu.get_data().mm.windows().to_vec();
    for w in windows {
        // SAFETY: each window is a host reservation owned by the task's AddressSpace, which
        // lives inside the unicorn instance and therefore outlives every use of the mapping.
        unsafe { cpu.mem_map_ptr(w.guest, w.len, unicorn_engine::Prot::ALL, w.host.cast()) }.map_err(engine)?;
    }
    cpu.add_tlb_hook(1, 0, |cpu, va, ty| {
        let access = match ty {
            MemType::WRITE => Prot::WRITE,
            MemType::FETCH => Prot::EXEC,
            _ => Prot::READ,
        };
        let entry = cpu.get_data_mut().mm.tlb_fill(va, access).map(|p| TlbEntry { paddr: va, perms: p.to_unicorn() });
        cpu.get_data().arch.after_tlb_fill(cpu, ty == MemType::FETCH);
        entry
    })
    .map_err(engine)?;
    arch.install_hooks(&mut cpu).map_err(engine)?;
    if std::env::var_os("ENDGATE_TRACE_BLOCKS").is_some() {
        cpu.add_block_hook(1, 0, |_cpu, addr, size| crate::elog!("block {addr:#x} {size}")).map_err(engine)?;
    }

    let task = cpu.get_data_mut();
    let main = loader::load_image(&mut task.mm, &elf, ImageKind::Main)?;
    task.mm.brk_start = main.end;
    task.mm.brk = main.end;
    let stack_input_interp;
    let entry = match &interp {
        Some(ielf) => {
            // The interpreter goes top-down below the stack gap, so place the stack first.
            task.mm.mmap_base = stack::mmap_base(task.mm.task_size);
            let i = loader::load_image(&mut task.mm, ielf, ImageKind::Interpreter)?;
            stack_input_interp = Some(i);
            i.entry
        }
        None => {
            stack_input_interp = None;
            main.entry
        }
    };
    let input = StackInput {
        argv: &prog.argv,
        envp: &prog.envp,
        execfn: prog.path.as_bytes(),
        main,
        interp: stack_input_interp,
    };
    let st = stack::build(&mut task.mm, arch, &input).map_err(|e| LoaderError::Map {
        path: prog.path.clone(),
        addr: 0,
        reason: format!("initial stack: {e}"),
    })?;
    task.auxv = st.auxv;
    task.start_stack = st.sp;
    task.sigtramp = signal::frame::map_sigtramp(&mut task.mm, arch).map_err(|e| LoaderError::Map {
        path: prog.path.clone(),
        addr: 0,
        reason: format!("signal trampoline page: {e}"),
    })?;
    arch.init_regs(&mut cpu, entry, st.sp).map_err(engine)?;
    let exit = task::run(&mut cpu);
    if std::env::var_os("ENDGATE_DEBUG_MAPS").is_some() {
        for (start, v) in cpu.get_data().mm.vmas() {
            crate::elog!("endgate: map {start:#x}-{:#x} {:?} {:?}", v.end, v.prot, v.name);
        }
    }
    let report = trace::fault::report(&cpu, exit);
    if opts.strace {
        // strace's closing line.
        match exit {
            Exit::Code(c) => crate::elog!("+++ exited with {c} +++"),
            Exit::Signal { sig, .. } => crate::elog!("+++ killed by {sig} +++"),
            Exit::Internal => {}
        }
    }
    Ok((exit, report))
}
