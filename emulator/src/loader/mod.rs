//! Loading a guest program: reading and checking the ELF file, mapping its segments, and (in
//! [`stack`]) building the initial stack with argv, envp and the auxiliary vector.
//!
//! The ELF header and program headers are parsed with `goblin`. The guest arch and byte order
//! come from the header (`e_machine`, `EI_CLASS`, `EI_DATA`); no flag is needed.
//! Placement follows Linux's `load_elf_binary`: `ET_EXEC` at its link addresses; `ET_DYN` (PIE,
//! static-PIE) at the arch's `ELF_ET_DYN_BASE`; a `PT_INTERP` interpreter top-down in the mmap
//! area. Segment pages are mapped from the file as private mappings, as Linux's `elf_map` does
//! (the guest never writes through to the file, and pages it never touches cost no memory);
//! the few pages two segments share are copied. Each segment then gets its `p_flags`
//! permissions.

pub mod stack;

use std::path::{Path, PathBuf};

use goblin::container::{Container, Ctx, Endian as GEndian};
use goblin::elf::header::{self, Header};
use goblin::elf::program_header::{ProgramHeader, PF_R, PF_W, PF_X, PT_GNU_STACK, PT_INTERP, PT_LOAD, PT_PHDR};

use crate::abi::u64_to_usize;
use crate::guest::GuestArch;

use crate::arch::{elf_machine_name, for_elf_machine};
use crate::mm::{page_ceil, page_floor, AddressSpace, Endian, FileMap, GuestAddr, Prot, VmaName, PAGE_SIZE};

/// Why a program could not be started. Each prints as one line naming the file and the reason;
/// [`LoaderError::exit_status`] gives the shell's status for it.
#[derive(Debug, thiserror::Error)]
pub enum LoaderError {
    /// The file could not be opened or read.
    #[error("{path}: {}", os_message(source))]
    Io {
        /// The file.
        path: String,
        /// The host error (ENOENT, EACCES, EISDIR…).
        source: std::io::Error,
    },
    /// The file is not an ELF file, or its headers are malformed.
    #[error("{path}: not an ELF executable: {reason}")]
    NotElf {
        /// The file.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The headers point past the end of the file.
    #[error("{path}: truncated ELF file: {reason}")]
    Truncated {
        /// The file.
        path: String,
        /// Which part is missing.
        reason: String,
    },
    /// An ELF for a machine endgate cannot run.
    #[error("{path}: unsupported architecture {machine} (e_machine {code}, {bits}-bit)")]
    Unsupported {
        /// The file.
        path: String,
        /// The machine's name.
        machine: &'static str,
        /// `e_machine`.
        code: u16,
        /// 32 or 64.
        bits: u32,
    },
    /// Byte order in the header does not match the arch.
    #[error("{path}: {arch} ELF with unexpected byte order")]
    WrongEndian {
        /// The file.
        path: String,
        /// The arch.
        arch: &'static str,
    },
    /// Not `ET_EXEC` or `ET_DYN`.
    #[error("{path}: not an executable (ELF type {kind})")]
    NotExecutable {
        /// The file.
        path: String,
        /// `e_type`.
        kind: u16,
    },
    /// The segments do not fit the guest address space.
    #[error("{path}: cannot map segment at {addr:#x}: {reason}")]
    Map {
        /// The file.
        path: String,
        /// Guest address.
        addr: u64,
        /// Why.
        reason: String,
    },
}

/// An I/O error's text without Rust's " (os error N)" suffix, as a shell prints it.
fn os_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl LoaderError {
    /// The exit status a shell gives for this failure: 127 when the file (or its interpreter)
    /// does not exist, 126 when it exists but cannot be executed.
    pub fn exit_status(&self) -> i32 {
        match self {
            LoaderError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => 127,
            _ => 126,
        }
    }
}

/// An ELF file read into memory with its parsed header.
pub struct ElfFile {
    /// Path as the guest names it.
    pub path: String,
    /// Host path it was read from.
    pub host_path: PathBuf,
    /// The open file (segments are mapped from it).
    pub file: std::fs::File,
    /// The whole file, mapped read-only (pages are read only when touched).
    pub bytes: memmap2::Mmap,
    /// The ELF header.
    pub header: Header,
    /// Program headers.
    pub phdrs: Vec<ProgramHeader>,
    /// The guest arch of this file.
    pub arch: &'static dyn GuestArch,
}

/// Reads and checks an ELF file. Errors name the file: missing, unreadable, a directory, not
/// ELF, truncated, or for an arch endgate does not run.
pub fn read_elf(path: &str, host_path: &Path) -> Result<ElfFile, LoaderError> {
    let io = |source| LoaderError::Io { path: path.to_string(), source };
    // The kind first: opening a FIFO would wait for a writer.
    check_kind(path, &std::fs::metadata(host_path).map_err(io)?)?;
    let f = std::fs::File::open(host_path).map_err(io)?;
    read_elf_file(path, host_path, f)
}

/// Refuses what is not a regular file, as execve(2) does: a directory (`EISDIR`), anything
/// else (`EACCES`).
fn check_kind(path: &str, meta: &std::fs::Metadata) -> Result<(), LoaderError> {
    let io = |source| LoaderError::Io { path: path.to_string(), source };
    if meta.is_dir() {
        return Err(io(std::io::Error::from_raw_os_error(libc::EISDIR)));
    }
    if !meta.is_file() {
        return Err(io(std::io::Error::from_raw_os_error(libc::EACCES)));
    }
    Ok(())
}

/// [`read_elf`] of a file already open (`f`), whose host path `host_path` is what
/// `/proc/self/maps` shows and need not resolve from here (a guest's `execve` of
/// `/proc/self/exe` after it changed its root: `crate::syscall::exec::take_program_file`).
pub fn read_elf_file(path: &str, host_path: &Path, mut f: std::fs::File) -> Result<ElfFile, LoaderError> {
    let io = |source| LoaderError::Io { path: path.to_string(), source };
    check_kind(path, &f.metadata().map_err(io)?)?;
    let not_elf = |reason: &str| LoaderError::NotElf { path: path.to_string(), reason: reason.to_string() };
    let truncated = |reason: &str| LoaderError::Truncated { path: path.to_string(), reason: reason.to_string() };
    // Look at the magic before reading a possibly huge file.
    let mut magic = [0u8; 4];
    let got = std::io::Read::read(&mut f, &mut magic).map_err(io)?;
    if got < 4 || &magic != b"\x7fELF" {
        return Err(not_elf("no ELF magic"));
    }
    // SAFETY: a private read-only mapping of the file; endgate only reads the headers and the
    // segments' bytes from it while loading (a file truncated under it meanwhile would fault,
    // as it would for the kernel's own loader reading it).
    let bytes = unsafe { memmap2::Mmap::map(&f) }.map_err(io)?;
    if bytes.len() < header::SIZEOF_IDENT + 2 {
        return Err(truncated("ELF header"));
    }
    let class = bytes[header::EI_CLASS];
    let is_64 = match class {
        header::ELFCLASS64 => true,
        header::ELFCLASS32 => false,
        _ => return Err(not_elf("bad EI_CLASS")),
    };
    let need = if is_64 { header::header64::SIZEOF_EHDR } else { header::header32::SIZEOF_EHDR };
    if bytes.len() < need {
        return Err(truncated("ELF header"));
    }
    let header = goblin::elf::Elf::parse_header(&bytes).map_err(|e| not_elf(&e.to_string()))?;
    let Some(arch) = for_elf_machine(header.e_machine, is_64) else {
        let machine = match (header.e_machine, is_64) {
            (21, _) | (20, true) if bytes[header::EI_DATA] == header::ELFDATA2LSB => {
                "ppc64le (not supported by the CPU engine)"
            }
            (21, _) | (20, true) => "ppc64 (not supported by the CPU engine)",
            (m, _) => elf_machine_name(m),
        };
        return Err(LoaderError::Unsupported {
            path: path.to_string(),
            machine,
            code: header.e_machine,
            bits: if is_64 { 64 } else { 32 },
        });
    };
    let endian = match bytes[header::EI_DATA] {
        header::ELFDATA2LSB => Endian::Little,
        header::ELFDATA2MSB => Endian::Big,
        _ => return Err(not_elf("bad EI_DATA")),
    };
    if endian != arch.info().endian() {
        return Err(LoaderError::WrongEndian { path: path.to_string(), arch: arch.info().name });
    }
    if header.e_type != header::ET_EXEC && header.e_type != header::ET_DYN {
        return Err(LoaderError::NotExecutable { path: path.to_string(), kind: header.e_type });
    }
    let ctx = Ctx::new(
        if is_64 { Container::Big } else { Container::Little },
        if endian == Endian::Little { GEndian::Little } else { GEndian::Big },
    );
    let phsize = usize::from(header.e_phentsize);
    let want_phsize = if is_64 { 56 } else { 32 };
    if phsize != want_phsize {
        return Err(not_elf(&format!("e_phentsize {phsize}, expected {want_phsize}")));
    }
    let phoff = usize::try_from(header.e_phoff).map_err(|_| truncated("program headers"))?;
    let phnum = usize::from(header.e_phnum);
    if phnum == 0 {
        return Err(not_elf("no program headers"));
    }
    if phoff.checked_add(phsize * phnum).is_none_or(|end| end > bytes.len()) {
        return Err(truncated("program headers"));
    }
    let phdrs = ProgramHeader::parse(&bytes, phoff, phnum, ctx).map_err(|e| truncated(&e.to_string()))?;
    for ph in phdrs.iter().filter(|p| p.p_type == PT_LOAD || p.p_type == PT_INTERP) {
        if ph.p_offset.checked_add(ph.p_filesz).is_none_or(|end| end > bytes.len() as u64) {
            return Err(truncated(&format!("segment at file offset {:#x} runs past the end", ph.p_offset)));
        }
        if ph.p_type == PT_LOAD && ph.p_memsz < ph.p_filesz {
            return Err(not_elf("segment p_memsz < p_filesz"));
        }
        if ph.p_type == PT_INTERP {
            let raw = &bytes[u64_to_usize(ph.p_offset)..u64_to_usize(ph.p_offset + ph.p_filesz)];
            if raw.last() != Some(&0) || raw.len() < 2 {
                return Err(not_elf("PT_INTERP is not a NUL-terminated path"));
            }
        }
    }
    if !phdrs.iter().any(|p| p.p_type == PT_LOAD) {
        return Err(not_elf("no loadable segment"));
    }
    Ok(ElfFile { path: path.to_string(), host_path: host_path.to_path_buf(), file: f, bytes, header, phdrs, arch })
}

/// Where an image ended up.
#[derive(Clone, Copy, Debug)]
pub struct LoadedImage {
    /// Added to every link address (0 for `ET_EXEC`).
    pub bias: u64,
    /// Entry point (guest address).
    pub entry: u64,
    /// Program headers in guest memory (`AT_PHDR`).
    pub phdr: u64,
    /// `e_phentsize`.
    pub phent: u64,
    /// `e_phnum`.
    pub phnum: u64,
    /// Page-aligned end of the highest segment: where brk starts.
    pub end: u64,
    /// The stack must be executable (`PT_GNU_STACK` with `PF_X`).
    pub exec_stack: bool,
}

/// Which placement rule an image follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// The program itself.
    Main,
    /// Its `PT_INTERP` dynamic loader.
    Interpreter,
}

/// The `PT_INTERP` path of `elf`, if any.
pub fn interpreter(elf: &ElfFile) -> Option<String> {
    let ph = elf.phdrs.iter().find(|p| p.p_type == PT_INTERP)?;
    let raw = &elf.bytes[u64_to_usize(ph.p_offset)..u64_to_usize(ph.p_offset + ph.p_filesz)];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    Some(String::from_utf8_lossy(&raw[..end]).into_owned())
}

fn segment_prot(flags: u32) -> Prot {
    let mut p = Prot::NONE;
    if flags & PF_R != 0 {
        p = p | Prot::READ;
    }
    if flags & PF_W != 0 {
        p = p | Prot::WRITE;
    }
    if flags & PF_X != 0 {
        p = p | Prot::EXEC;
    }
    p
}

/// Maps the file pages of segment `ph` (loaded at guest `vaddr`) from `file` as a private
/// mapping, as Linux's `elf_map` does, so the image costs no copy and its untouched pages no
/// memory. Pages that another segment also covers (its page ranges are `others`) are left out,
/// and so is a segment whose file offset and address disagree modulo the page size: their bytes
/// are copied. Returns the mapped guest range, `None` if nothing was mapped.
fn map_segment_pages(
    mm: &mut AddressSpace,
    file: &std::fs::File,
    ph: &ProgramHeader,
    vaddr: u64,
    others: &[(u64, u64)],
    name: &VmaName,
) -> Result<Option<(u64, u64)>, LoaderError> {
    use std::os::fd::AsRawFd;
    if (ph.p_offset ^ vaddr) & (PAGE_SIZE - 1) != 0 {
        return Ok(None);
    }
    let shared = |page: u64| others.iter().any(|&(s, e)| page >= s && page < e);
    let mut ms = page_floor(vaddr);
    let Some(mut me) = page_ceil(vaddr + ph.p_filesz) else { return Ok(None) };
    if shared(ms) {
        ms += PAGE_SIZE;
    }
    if me > ms && shared(me - PAGE_SIZE) {
        me -= PAGE_SIZE;
    }
    if me <= ms {
        return Ok(None);
    }
    let offset = page_floor(ph.p_offset) + (ms - page_floor(vaddr));
    let fm = FileMap { fd: file.as_raw_fd(), offset, shared: false };
    match mm.map_file(ms, me - ms, Prot::READ | Prot::WRITE, name.clone(), fm) {
        Ok(()) => Ok(Some((ms, me))),
        // A file the host cannot map (a filesystem without mmap) is copied instead.
        Err(_) => {
            mm.map_anon(ms, me - ms, Prot::READ | Prot::WRITE, name.clone()).map_err(|e| LoaderError::Map {
                path: String::new(),
                addr: ms,
                reason: e.to_string(),
            })?;
            Ok(None)
        }
    }
}

/// Maps `elf`'s loadable segments into `mm` and returns where they went.
pub fn load_image(mm: &mut AddressSpace, elf: &ElfFile, kind: ImageKind) -> Result<LoadedImage, LoaderError> {
    let map_err = |addr: u64, reason: String| LoaderError::Map { path: elf.path.clone(), addr, reason };
    let loads: Vec<&ProgramHeader> = elf.phdrs.iter().filter(|p| p.p_type == PT_LOAD).collect();
    let lo = page_floor(loads.iter().map(|p| p.p_vaddr).min().unwrap_or(0));
    let hi = loads
        .iter()
        .map(|p| p.p_vaddr.saturating_add(p.p_memsz))
        .max()
        .and_then(page_ceil)
        .ok_or_else(|| map_err(lo, "segment end overflows".into()))?;
    let span = hi - lo;
    let bias = if elf.header.e_type == header::ET_EXEC {
        0
    } else {
        let base = match kind {
            ImageKind::Main => mm.dyn_base,
            ImageKind::Interpreter => {
                mm.find_free(span).ok_or_else(|| map_err(0, "no room for the interpreter".into()))?
            }
        };
        base.wrapping_sub(lo)
    };
    let (start, end) = (lo.wrapping_add(bias), hi.wrapping_add(bias));
    if !mm.is_placeable(start, span) {
        return Err(map_err(start, "outside the guest address space".into()));
    }
    // `/proc/self/maps` names the file as the kernel does: its absolute path with symlinks
    // resolved (the host's, as for the guest's own file mappings), whatever path or
    // interpreter label the program was started by.
    let name = VmaName::File(
        std::fs::canonicalize(&elf.host_path).map_or_else(|_| elf.path.clone(), |p| p.to_string_lossy().into_owned()),
    );
    mm.map_anon(start, span, Prot::READ | Prot::WRITE, name.clone()).map_err(|e| map_err(start, e.to_string()))?;
    // A file that cannot be opened again is copied instead of mapped.
    let file = elf.file.try_clone().ok();
    for (i, ph) in loads.iter().enumerate() {
        let vaddr = ph.p_vaddr.wrapping_add(bias);
        let (fs, fe) = (vaddr, vaddr + ph.p_filesz);
        let others: Vec<(u64, u64)> = loads
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, o)| {
                let os = o.p_vaddr.wrapping_add(bias);
                (page_floor(os), page_ceil(os + o.p_memsz).unwrap_or(end))
            })
            .collect();
        let mapped = match &file {
            Some(f) if ph.p_filesz > 0 => map_segment_pages(mm, f, ph, fs, &others, &name)?,
            _ => None,
        };
        let (ms, me) = mapped.unwrap_or((fe, fe));
        // The bytes outside the file-mapped pages are copied.
        let data = &elf.bytes[u64_to_usize(ph.p_offset)..u64_to_usize(ph.p_offset + ph.p_filesz)];
        let head = &data[..u64_to_usize(ms.max(fs) - fs)];
        mm.poke_bytes(GuestAddr::new(fs), head).map_err(|e| map_err(fs, e.to_string()))?;
        if me < fe {
            mm.poke_bytes(GuestAddr::new(me), &data[u64_to_usize(me - fs)..])
                .map_err(|e| map_err(me, e.to_string()))?;
        }
        // Like Linux's padzero: the rest of the last file page is the start of the bss.
        if ph.p_memsz > ph.p_filesz && fe > ms && fe < me {
            mm.poke_bytes(GuestAddr::new(fe), &vec![0; u64_to_usize(me - fe)])
                .map_err(|e| map_err(fe, e.to_string()))?;
        }
    }
    // Page permissions: each segment's pages get its flags; a page shared by two segments
    // gets both. Pages between segments are unmapped, as Linux leaves them.
    let mut ranges: Vec<(u64, u64, Prot)> = loads
        .iter()
        .map(|ph| {
            let s = page_floor(ph.p_vaddr.wrapping_add(bias));
            let e = page_ceil(ph.p_vaddr.wrapping_add(bias) + ph.p_memsz).unwrap_or(end);
            (s, e, segment_prot(ph.p_flags))
        })
        .collect();
    ranges.sort_by_key(|r| r.0);
    let mut cur = start;
    for &(s, e, _) in &ranges {
        if s > cur {
            mm.unmap(cur, s - cur).map_err(|er| map_err(cur, er.to_string()))?;
        }
        cur = cur.max(e);
    }
    for &(s, e, prot) in &ranges {
        if e > s {
            mm.protect(s, e - s, prot).map_err(|er| map_err(s, er.to_string()))?;
        }
    }
    for w in ranges.windows(2) {
        if w[1].0 < w[0].1 {
            mm.protect(w[1].0, w[0].1 - w[1].0, w[0].2 | w[1].2).map_err(|er| map_err(w[1].0, er.to_string()))?;
        }
    }
    // The bss pages after each segment's last page with file bytes are anonymous memory, as
    // Linux maps them (fs/binfmt_elf.c), not part of the file's mapping.
    // A page another segment starts in stays that segment's.
    for ph in &loads {
        let vaddr = ph.p_vaddr.wrapping_add(bias);
        if let (Some(s), Some(e)) = (page_ceil(vaddr + ph.p_filesz), page_ceil(vaddr + ph.p_memsz)) {
            let next =
                loads.iter().map(|o| page_floor(o.p_vaddr.wrapping_add(bias))).filter(|&os| os >= s).min().unwrap_or(e);
            let e = e.min(next);
            if e > s {
                mm.name_anonymous(s, e);
            }
        }
    }
    let phdr = match elf.phdrs.iter().find(|p| p.p_type == PT_PHDR) {
        Some(p) => p.p_vaddr.wrapping_add(bias),
        None => loads
            .iter()
            .find(|p| elf.header.e_phoff >= p.p_offset && elf.header.e_phoff < p.p_offset + p.p_filesz)
            .map(|p| p.p_vaddr + (elf.header.e_phoff - p.p_offset))
            .unwrap_or(0)
            .wrapping_add(bias),
    };
    let exec_stack = elf.phdrs.iter().find(|p| p.p_type == PT_GNU_STACK).is_some_and(|p| p.p_flags & PF_X != 0);
    Ok(LoadedImage {
        bias,
        entry: elf.header.e_entry.wrapping_add(bias),
        phdr,
        phent: u64::from(elf.header.e_phentsize),
        phnum: u64::from(elf.header.e_phnum),
        end,
        exec_stack,
    })
}
