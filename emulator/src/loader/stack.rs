//! The initial process stack, laid out as Linux's `create_elf_tables` (fs/binfmt_elf.c) does.
//!
//! From the top of the stack downwards:
//! ```text
//!   [ 8 zero bytes ]                      end marker
//!   [ AT_EXECFN string ]                  the path the program was started as
//!   [ envp strings ][ argv strings ]      argv[0] lowest
//!   [ AT_PLATFORM string ]                (16-byte aligned below the strings)
//!   [ AT_RANDOM: 16 random bytes ]
//!   [ padding to 16 bytes ]
//!   auxv pairs, AT_NULL
//!   NULL, envp[envc-1] … envp[0]
//!   NULL, argv[argc-1] … argv[0]
//!   argc                                  <- stack pointer at entry (16-byte aligned)
//! ```
//! Words are the guest's pointer width and byte order.

use crate::guest::GuestArch;
use crate::loader::LoadedImage;
use crate::mm::{AddressSpace, GuestAddr, Prot, VmaName};

/// Largest main-thread stack endgate reserves, in bytes (for `RLIMIT_STACK` unlimited or huge).
const STACK_MAX: u64 = 2 << 30;

/// How much stack Linux maps below the arguments at exec (`stack_expand`, fs/exec.c).
const STACK_EXPAND: u64 = 128 << 10;

/// Smallest gap between the top of the address space and the mmap area (Linux's `MIN_GAP`,
/// 128 MiB, in mm/util.c).
const MIN_GAP: u64 = 128 << 20;

/// How far below its Linux position the mmap area starts (512 KiB, half of the 1 MiB period of
/// unicorn's TLB index).
///
/// unicorn's softmmu TLB is direct-mapped: page `p` of the guest goes to entry `p mod 256` (256
/// entries until a flush finds them crowded). The stack top and Linux's `mmap_base` are both
/// multiples of 1 MiB, and so is, often, the end of a program's brk heap: the hottest pages of
/// the stack, of the first `mmap`s (malloc's large buffers) and of the heap then share the same
/// few entries and evict each other on every access. Linux randomises these bases (ASLR), which
/// spreads them; endgate's layout is fixed, so it moves the mmap area to the other half of the
/// period instead. Measured (docs/performance.md): arm64 busybox `gzip -9` 7.45 s -> 6.30 s CPU,
/// 6.6 M victim-TLB hits -> 189 on a 4 MiB input.
const TLB_COLOR_OFFSET: u64 = 512 << 10;

/// The main thread's stack size in bytes: the soft `RLIMIT_STACK` endgate was started with
/// (the limit the guest inherits and reads back with getrlimit), page-aligned, at least
/// 128 KiB and at most 2 GiB: the room the stack has to grow into below its initial mapping.
pub fn stack_size() -> u64 {
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a local out struct.
    let cur = if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut rl) } == 0 { rl.rlim_cur } else { 8 << 20 };
    let cur = if cur == libc::RLIM_INFINITY { STACK_MAX } else { cur };
    crate::mm::page_ceil(cur.clamp(128 << 10, STACK_MAX)).unwrap_or(STACK_MAX)
}

/// Where the top-down mmap area starts below the stack: `stack_top` minus the stack size and
/// a guard gap, at least `MIN_GAP` (Linux's `mmap_base`, without randomisation), minus
/// 512 KiB (`TLB_COLOR_OFFSET`: keeps the first mmaps off the stack's TLB entries).
pub fn mmap_base(stack_top: u64) -> u64 {
    let gap = (stack_size() + (1 << 20)).max(MIN_GAP);
    stack_top - gap - TLB_COLOR_OFFSET
}

pub use crate::abi::at;
use at::*;

/// What the stack is built from.
pub struct StackInput<'a> {
    /// The guest's argv (`argv[0]` included).
    pub argv: &'a [Vec<u8>],
    /// The guest's environment, `NAME=value` strings.
    pub envp: &'a [Vec<u8>],
    /// `AT_EXECFN`: the path the program was started as.
    pub execfn: &'a [u8],
    /// The program image.
    pub main: LoadedImage,
    /// Its interpreter, if dynamically linked.
    pub interp: Option<LoadedImage>,
    /// The gate's entries (`AT_SYSINFO`, `AT_SYSINFO_EHDR`), first in the vector as Linux
    /// puts them.
    pub gate: Vec<(u64, u64)>,
}

/// The stack that was built.
pub struct InitialStack {
    /// Stack pointer at entry (points at argc).
    pub sp: u64,
    /// The auxiliary vector as written (for `/proc/self/auxv`).
    pub auxv: Vec<(u64, u64)>,
    /// `arg_start`, `arg_end`, `env_start`, `env_end`: the argument strings, then the
    /// environment strings, each area ending after its last string's NUL (fs/binfmt_elf.c
    /// `create_elf_tables`).
    pub arg_env: [u64; 4],
}

/// Maps the stack at the top of the address space, fills it, and sets `mm.mmap_base` below
/// it. Errors are guest-memory errnos (only on an impossible layout).
pub fn build(
    mm: &mut AddressSpace,
    arch: &dyn GuestArch,
    input: &StackInput<'_>,
) -> Result<InitialStack, syscalls::Errno> {
    let top = mm.stack_top;
    let mut prot = Prot::READ | Prot::WRITE;
    if input.main.exec_stack {
        prot = prot | Prot::EXEC;
    }
    let size = stack_size();
    mm.map_anon(top - size, size, prot, VmaName::Stack)?;
    mm.mmap_base = mmap_base(top);

    let word: u64 = if arch.info().is_64bit() { 8 } else { 4 };
    let mut p = top - word; // end marker
    let mut push_bytes = |mm: &mut AddressSpace, bytes: &[u8]| -> Result<u64, syscalls::Errno> {
        p -= bytes.len() as u64 + 1;
        mm.write_bytes(GuestAddr::new(p), bytes)?;
        mm.write_bytes(GuestAddr::new(p + bytes.len() as u64), &[0])?;
        Ok(p)
    };
    let execfn = push_bytes(mm, input.execfn)?;
    let mut env_ptrs: Vec<u64> = Vec::with_capacity(input.envp.len());
    for e in input.envp.iter().rev() {
        env_ptrs.push(push_bytes(mm, e)?);
    }
    env_ptrs.reverse();
    let mut arg_ptrs: Vec<u64> = Vec::with_capacity(input.argv.len());
    for a in input.argv.iter().rev() {
        arg_ptrs.push(push_bytes(mm, a)?);
    }
    arg_ptrs.reverse();
    let env_start = env_ptrs.first().copied().unwrap_or(execfn);
    let arg_env = [arg_ptrs.first().copied().unwrap_or(env_start), env_start, env_start, execfn];
    p &= !15;
    let platform = match arch.info().platform {
        Some(s) => {
            p -= s.len() as u64 + 1;
            mm.write_bytes(GuestAddr::new(p), s.as_bytes())?;
            mm.write_bytes(GuestAddr::new(p + s.len() as u64), &[0])?;
            Some(p)
        }
        None => None,
    };
    let mut random = [0u8; 16];
    fill_random(&mut random);
    p -= 16;
    let random_at = p;
    mm.write_bytes(GuestAddr::new(random_at), &random)?;

    let (hwcap, hwcap2) = arch.info().hwcap;
    let main = input.main;
    let mut auxv: Vec<(u64, u64)> = input.gate.clone();
    if let Some(m) = arch.info().minsigstksz {
        auxv.push((AT_MINSIGSTKSZ, m));
    }
    auxv.extend([
        (AT_HWCAP, hwcap),
        (AT_PAGESZ, crate::mm::PAGE_SIZE),
        (AT_CLKTCK, 100),
        (AT_PHDR, main.phdr),
        (AT_PHENT, main.phent),
        (AT_PHNUM, main.phnum),
        (AT_BASE, input.interp.map_or(0, |i| i.bias)),
        (AT_FLAGS, 0),
        (AT_ENTRY, main.entry),
        // SAFETY: these four only read the caller's credentials.
        (AT_UID, u64::from(unsafe { libc::getuid() })),
        // SAFETY: as above.
        (AT_EUID, u64::from(unsafe { libc::geteuid() })),
        // SAFETY: as above.
        (AT_GID, u64::from(unsafe { libc::getgid() })),
        // SAFETY: as above.
        (AT_EGID, u64::from(unsafe { libc::getegid() })),
        // The host kernel's answer for this process's exec, made with the guest's credentials
        // (a secure exec: the effective ids are not the real ones, or the file gave privileges).
        // SAFETY: getauxval has no preconditions.
        (AT_SECURE, u64::from(unsafe { libc::getauxval(libc::AT_SECURE) } != 0)),
        (AT_RANDOM, random_at),
        (AT_HWCAP2, hwcap2),
        (AT_EXECFN, execfn),
    ]);
    if let Some(pl) = platform {
        auxv.push((AT_PLATFORM, pl));
    }
    auxv.push((AT_NULL, 0));

    let items = 1 + (arg_ptrs.len() as u64 + 1) + (env_ptrs.len() as u64 + 1) + 2 * auxv.len() as u64;
    let sp = (p - items * word) & !(arch.info().stack_align - 1);
    let mut words: Vec<u64> = Vec::with_capacity(crate::abi::u64_to_usize(items));
    words.push(arg_ptrs.len() as u64);
    words.extend(&arg_ptrs);
    words.push(0);
    words.extend(&env_ptrs);
    words.push(0);
    for &(k, v) in &auxv {
        words.push(k);
        words.push(v);
    }
    let mut at = sp;
    for w in words {
        if word == 8 {
            mm.write_u64(GuestAddr::new(at), w)?;
        } else {
            mm.write_u32(GuestAddr::new(at), crate::abi::low32(w))?;
        }
        at += word;
    }
    // As fs/exec.c `setup_arg_pages`: the stack mapping is the pages the arguments use and
    // 128 KiB more; it grows down on demand from there, up to RLIMIT_STACK.
    let low = crate::mm::page_floor(sp).saturating_sub(STACK_EXPAND).max(top - size);
    mm.unmap(top - size, low - (top - size))?;
    mm.set_grows_down(low);
    Ok(InitialStack { sp, auxv, arg_env })
}

fn fill_random(buf: &mut [u8]) {
    if crate::seed::fill(buf) {
        return;
    }
    // SAFETY: writes at most buf.len() bytes into buf.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if usize::try_from(n).ok() != Some(buf.len()) {
        // getrandom cannot fail for 16 bytes once the pool is ready; keep the stack usable.
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        buf.copy_from_slice(&t.to_le_bytes()[..16]);
    }
}
