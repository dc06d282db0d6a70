//! `endgate binfmt --print | --install | --uninstall`: binfmt_misc entries that make the kernel
//! run foreign ELF programs through endgate when they are executed by name
//! (Documentation/admin-guide/binfmt-misc.rst). docs/binfmt.md describes the entries.
//!
//! One entry per guest arch, named `endgate-<arch>`, of type `M` (magic), offset 0, matching
//! the first 20 bytes of the ELF header: `e_ident`'s magic, class (32/64-bit), data (byte
//! order) and version, any OS ABI and padding (mask 0), an `e_type` of `ET_EXEC` or `ET_DYN`
//! (the mask leaves out the bit between 2 and 3), and the arch's `e_machine`. Every byte is
//! written `\xNN`, so no NUL or `:` reaches the kernel's parser unescaped.
//!
//! Flags: `F` (the kernel opens endgate when the entry is registered, so programs run by name
//! also inside containers, chroots and other mount namespaces where endgate's path does not
//! exist; a dynamically linked endgate's C library must still be found there, the static build
//! of docs/static.md needs nothing) and `P`
//! (preserve-argv0: the kernel passes the program's own `argv[0]` after its path, and sets
//! `AT_FLAGS_PRESERVE_ARGV0` in endgate's auxiliary vector, which endgate reads to give the guest
//! that `argv[0]`; multi-call programs such as busybox need it). Not `C`: it would compute the
//! credentials from the guest program, so a setuid guest would run all of endgate, which serves
//! the guest's system calls with its own credentials, as that user (root); and `C` implies `O`,
//! which hands the program over as `AT_EXECFD`, which endgate does not read.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::mm::Endian;

/// `AT_FLAGS` bit 0 (include/uapi/linux/binfmts.h `AT_FLAGS_PRESERVE_ARGV0`): binfmt_misc's `P`
/// flag put the program's own `argv[0]` after its path.
pub const AT_FLAGS_PRESERVE_ARGV0: u64 = crate::abi::at::AT_FLAGS_PRESERVE_ARGV0;

/// The flags endgate's entries carry (see the module doc).
pub const FLAGS: &str = "FP";

/// Where binfmt_misc is usually mounted.
pub const DEFAULT_DIR: &str = "/proc/sys/fs/binfmt_misc";

/// One binfmt_misc entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name (`endgate-aarch64`): its file under the binfmt_misc mount.
    pub name: String,
    /// The first bytes of a matching file, after the mask is applied.
    pub magic: Vec<u8>,
    /// What of each byte is compared.
    pub mask: Vec<u8>,
    /// The interpreter: endgate.
    pub interpreter: PathBuf,
    /// The flags ([`FLAGS`]).
    pub flags: &'static str,
}

impl Entry {
    /// The registration string `:name:M:0:magic:mask:interpreter:flags`, bytes as `\xNN`.
    pub fn register_line(&self) -> String {
        let esc = |b: &[u8]| b.iter().map(|x| format!("\\x{x:02x}")).collect::<String>();
        format!(
            ":{}:M:0:{}:{}:{}:{}",
            self.name,
            esc(&self.magic),
            esc(&self.mask),
            self.interpreter.display(),
            self.flags
        )
    }
}

/// The entry for the arch labelled `label` (a name of [`crate::arch::ALL`]) with `interpreter`.
pub fn entry(label: &str, interpreter: &Path) -> Option<Entry> {
    let arch = crate::arch::ALL.iter().find(|(l, _)| *l == label)?.1;
    let info = arch.info();
    let be = info.endian() == Endian::Big;
    let [m0, m1] = if be { info.elf_machine.to_be_bytes() } else { info.elf_machine.to_le_bytes() };
    let class = if info.is_64bit() { 2 } else { 1 };
    let data = if be { 2 } else { 1 };
    // e_type ET_EXEC (2) or ET_DYN (3): the low bit is masked out.
    let (t, tmask) = if be { ([0, 2], [0xff, 0xfe]) } else { ([2, 0], [0xfe, 0xff]) };
    let mut magic = vec![0x7f, b'E', b'L', b'F', class, data, 1];
    magic.extend([0u8; 9]);
    magic.extend(t);
    magic.extend([m0, m1]);
    let mut mask = vec![0xff; 7];
    mask.extend([0u8; 9]);
    mask.extend(tmask);
    mask.extend([0xff, 0xff]);
    Some(Entry { name: format!("endgate-{label}"), magic, mask, interpreter: interpreter.to_path_buf(), flags: FLAGS })
}

/// The arches whose programs this host's kernel runs itself (an x86_64 host runs x86_64 and,
/// with IA-32 emulation, i386 programs): `--install` leaves them out unless named.
fn native(label: &str) -> bool {
    matches!((std::env::consts::ARCH, label), ("x86_64", "x86_64" | "i386") | ("aarch64", "aarch64" | "arm"))
}

fn command() -> clap::Command {
    use clap::{Arg, ArgAction, ArgGroup};
    let labels: Vec<&str> = crate::arch::ALL.iter().map(|(l, _)| *l).collect();
    clap::Command::new("endgate binfmt")
        // Not argv[0] ("binfmt": the arguments start at the subcommand).
        .bin_name("endgate binfmt")
        .about("binfmt_misc entries that run foreign programs through endgate")
        .arg(Arg::new("print").long("print").action(ArgAction::SetTrue).help("Print the registration strings"))
        .arg(Arg::new("install").long("install").action(ArgAction::SetTrue).help("Register the entries"))
        .arg(Arg::new("uninstall").long("uninstall").action(ArgAction::SetTrue).help("Remove the entries"))
        .group(ArgGroup::new("what").args(["print", "install", "uninstall"]).required(true))
        .arg(
            Arg::new("arch")
                .long("arch")
                .value_name("ARCH")
                .action(ArgAction::Append)
                .value_parser(clap::builder::PossibleValuesParser::new(labels))
                .help("Only this guest arch (repeatable; default: all, and for --install all the host does not run itself)"),
        )
        .arg(
            Arg::new("interpreter")
                .long("interpreter")
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The endgate to register (default: this one)"),
        )
        .arg(
            Arg::new("dir")
                .long("dir")
                .value_name("DIR")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Where binfmt_misc is mounted (default /proc/sys/fs/binfmt_misc)"),
        )
}

/// `true` if the running kernel's release (`uname -r`) is `major.minor` or later.
fn kernel_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: plain data; all-zero is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: a local utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return true;
    }
    // SAFETY: uname NUL-terminates the release.
    let release = unsafe { std::ffi::CStr::from_ptr(u.release.as_ptr()) }.to_string_lossy();
    let mut parts = release.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0)) >= (major, minor)
}

/// `endgate binfmt …` (`args` from `binfmt` on); returns the exit status: 0, 1 when the
/// registration files cannot be written, 2 for a usage error.
pub fn run(args: Vec<OsString>) -> u8 {
    let m = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code().rem_euclid(256)).unwrap_or(2);
        }
    };
    let interpreter = match m.get_one::<PathBuf>("interpreter") {
        Some(p) => p.clone(),
        None => match std::env::current_exe().and_then(std::fs::canonicalize) {
            Ok(p) => p,
            Err(e) => {
                crate::elog!("endgate: binfmt: cannot find endgate's own path: {e}");
                return 1;
            }
        },
    };
    if !interpreter.is_absolute() || interpreter.as_os_str().len() > 127 {
        crate::elog!(
            "endgate: binfmt: the interpreter must be an absolute path of at most 127 bytes: {}",
            interpreter.display()
        );
        return 2;
    }
    let named: Vec<&String> = m.get_many::<String>("arch").into_iter().flatten().collect();
    let install = m.get_flag("install");
    let labels: Vec<&str> = crate::arch::ALL
        .iter()
        .map(|(l, _)| *l)
        .filter(|l| if named.is_empty() { !(install && native(l)) } else { named.iter().any(|n| n == l) })
        .collect();
    let mut entries: Vec<Entry> = labels.iter().filter_map(|l| entry(l, &interpreter)).collect();
    if install && !kernel_at_least(5, 12) {
        // Before Linux 5.12 the kernel does not tell the interpreter that P is set
        // (AT_FLAGS), so endgate would take the guest's argv[0] for its first argument.
        crate::elog!("endgate: binfmt: this kernel is older than 5.12: registering without P (argv[0] is the path)");
        for e in &mut entries {
            e.flags = "F";
        }
    }
    if m.get_flag("print") {
        let text: String = entries.iter().map(|e| e.register_line() + "\n").collect();
        let mut out = std::io::stdout().lock();
        return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => 0,
            Err(e) => {
                crate::elog!("endgate: write error: {e}");
                1
            }
        };
    }
    let dir = m.get_one::<PathBuf>("dir").cloned().unwrap_or_else(|| PathBuf::from(DEFAULT_DIR));
    if !dir.join("register").exists() {
        crate::elog!(
            "endgate: binfmt: binfmt_misc is not mounted at {} (mount -t binfmt_misc binfmt_misc {})",
            dir.display(),
            dir.display()
        );
        return 1;
    }
    let mut status = 0;
    for e in &entries {
        let file = dir.join(&e.name);
        // An entry of the same name is removed first: registering it again fails with EEXIST.
        if file.exists() {
            if let Err(err) = std::fs::write(&file, "-1") {
                crate::elog!("endgate: binfmt: removing {}: {err}", file.display());
                status = 1;
                continue;
            }
        }
        if install {
            // One write(2) of the whole line: the kernel parses each write as one entry.
            if let Err(err) = std::fs::write(dir.join("register"), e.register_line()) {
                crate::elog!("endgate: binfmt: registering {}: {err}", e.name);
                status = 1;
            }
        }
    }
    status
}

/// The command line endgate was started with, rewritten when binfmt_misc's `P` flag started
/// it (`AT_FLAGS_PRESERVE_ARGV0` in its auxiliary vector): the kernel then passes
/// `[endgate, PATH, ARGV0, ARGS…]`, which becomes `[endgate, -0, ARGV0, --, PATH, ARGS…]`.
/// Any other command line is returned as it is.
pub fn preserve_argv0(args: Vec<OsString>, at_flags: u64) -> Vec<OsString> {
    if at_flags & AT_FLAGS_PRESERVE_ARGV0 == 0 || args.len() < 3 {
        return args;
    }
    let mut it = args.into_iter();
    let (Some(me), Some(path), Some(argv0)) = (it.next(), it.next(), it.next()) else { return Vec::new() };
    let mut out = vec![me, "-0".into(), argv0, "--".into(), path];
    out.extend(it);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aarch64_entry_matches_its_elf_header() {
        let e = entry("aarch64", Path::new("/usr/bin/endgate")).expect("aarch64");
        // 7f 'E' 'L' 'F', ELFCLASS64, ELFDATA2LSB, EV_CURRENT, …, ET_EXEC, EM_AARCH64 (183).
        assert_eq!(&e.magic[..7], b"\x7fELF\x02\x01\x01");
        assert_eq!(&e.magic[16..], [2, 0, 183, 0]);
        assert_eq!(&e.mask[16..], [0xfe, 0xff, 0xff, 0xff]);
        let s = entry("s390x", Path::new("/e")).expect("s390x");
        assert_eq!(&s.magic[4..6], [2, 2]);
        assert_eq!(&s.magic[16..], [0, 2, 0, 22], "big-endian e_type and EM_S390");
        assert!(e.register_line().starts_with(":endgate-aarch64:M:0:\\x7f\\x45\\x4c\\x46\\x02"));
        assert!(e.register_line().ends_with(":/usr/bin/endgate:FP"));
    }

    #[test]
    fn preserved_argv0_becomes_the_guests() {
        let v = |s: &[&str]| s.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            preserve_argv0(v(&["/e", "/bin/ls", "ls", "-l"]), AT_FLAGS_PRESERVE_ARGV0),
            v(&["/e", "-0", "ls", "--", "/bin/ls", "-l"])
        );
        assert_eq!(preserve_argv0(v(&["/e", "/bin/ls", "-l"]), 0), v(&["/e", "/bin/ls", "-l"]));
    }
}
