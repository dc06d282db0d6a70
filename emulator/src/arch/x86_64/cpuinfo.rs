//! `/proc/cpuinfo` for x86 guests (x86_64 and i386) from the CPUID the guest itself sees: a
//! scratch engine of the guest's CPU model runs `cpuid` for the leaves Linux reads
//! (arch/x86/kernel/cpu/proc.c `show_cpuinfo`; flag names from arch/x86/include/asm/
//! cpufeatures.h words 0, 1, 4, 6 and 9), so `flags` lists what CPUID reports and nothing of
//! the host's (no `avx` where the guest's CPUID has none). Flags Linux synthesizes in software
//! (`rep_good`, `nopl`…) are not listed.

use std::fmt::Write as _;

use unicorn_engine::unicorn_const::{uc_ctl, ControlType};
use unicorn_engine::{Arch, Mode, Prot, RegisterX86, Unicorn};

/// `CPUID.1:EDX` (word 0).
const W0: [&str; 32] = [
    "fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", "", "sep", "mtrr", "pge", "mca", "cmov",
    "pat", "pse36", "pn", "clflush", "", "dts", "acpi", "mmx", "fxsr", "sse", "sse2", "ss", "ht", "tm", "ia64", "pbe",
];
/// `CPUID.80000001h:EDX` (word 1; the bits that repeat word 0 are not named again).
const W1: [&str; 32] = [
    "", "", "", "", "", "", "", "", "", "", "", "syscall", "", "", "", "", "", "", "", "mp", "nx", "", "mmxext", "",
    "", "fxsr_opt", "pdpe1gb", "rdtscp", "", "lm", "3dnowext", "3dnow",
];
/// `CPUID.1:ECX` (word 4; `osxsave` is not shown by Linux).
const W4: [&str; 32] = [
    "pni",
    "pclmulqdq",
    "dtes64",
    "monitor",
    "ds_cpl",
    "vmx",
    "smx",
    "est",
    "tm2",
    "ssse3",
    "cid",
    "sdbg",
    "fma",
    "cx16",
    "xtpr",
    "pdcm",
    "",
    "pcid",
    "dca",
    "sse4_1",
    "sse4_2",
    "x2apic",
    "movbe",
    "popcnt",
    "tsc_deadline_timer",
    "aes",
    "xsave",
    "",
    "avx",
    "f16c",
    "rdrand",
    "hypervisor",
];
/// `CPUID.80000001h:ECX` (word 6).
const W6: [&str; 32] = [
    "lahf_lm",
    "cmp_legacy",
    "svm",
    "extapic",
    "cr8_legacy",
    "abm",
    "sse4a",
    "misalignsse",
    "3dnowprefetch",
    "osvw",
    "ibs",
    "xop",
    "skinit",
    "wdt",
    "",
    "lwp",
    "fma4",
    "tce",
    "",
    "nodeid_msr",
    "",
    "tbm",
    "topoext",
    "perfctr_core",
    "perfctr_nb",
    "",
    "bpext",
    "ptsc",
    "perfctr_llc",
    "mwaitx",
    "",
    "",
];
/// `CPUID.(7,0):EBX` (word 9).
const W9: [&str; 32] = [
    "fsgsbase",
    "tsc_adjust",
    "sgx",
    "bmi1",
    "hle",
    "avx2",
    "",
    "smep",
    "bmi2",
    "erms",
    "invpcid",
    "rtm",
    "cqm",
    "",
    "mpx",
    "rdt_a",
    "avx512f",
    "avx512dq",
    "rdseed",
    "adx",
    "smap",
    "avx512ifma",
    "",
    "clflushopt",
    "clwb",
    "intel_pt",
    "avx512pf",
    "avx512er",
    "avx512cd",
    "sha_ni",
    "avx512bw",
    "avx512vl",
];

/// `cpuid` for each `(leaf, subleaf)` on a scratch engine of `mode` and `model`, as
/// `[eax, ebx, ecx, edx]`. `None` if the engine cannot be made.
fn cpuid(mode: Mode, model: Option<i32>, leaves: &[(u32, u32)]) -> Option<Vec<[u32; 4]>> {
    let mut uc = Unicorn::new(Arch::X86, mode).ok()?;
    let ctl = ControlType(ControlType::TCG_BUFFER_SIZE.0 | ControlType::IO_WRITE.0);
    // SAFETY: a live handle; UC_CTL_TCG_BUFFER_SIZE takes one uint32_t (a small buffer: one
    // instruction is translated).
    let r: Result<(), unicorn_engine::uc_error> = unsafe { uc_ctl(uc.get_handle(), ctl, 1u32 << 20) }.into();
    r.ok()?;
    if let Some(m) = model {
        uc.ctl_set_cpu_model(m).ok()?;
    }
    uc.mem_map(0x1000, 0x1000, Prot::ALL).ok()?;
    uc.mem_write(0x1000, &[0x0f, 0xa2]).ok()?;
    let mut out = Vec::with_capacity(leaves.len());
    for &(leaf, sub) in leaves {
        uc.reg_write(RegisterX86::EAX, u64::from(leaf)).ok()?;
        uc.reg_write(RegisterX86::ECX, u64::from(sub)).ok()?;
        uc.emu_start(0x1000, 0x1002, 0, 1).ok()?;
        let r = |reg| uc.reg_read(reg).map(crate::abi::low32).ok();
        out.push([r(RegisterX86::EAX)?, r(RegisterX86::EBX)?, r(RegisterX86::ECX)?, r(RegisterX86::EDX)?]);
    }
    Some(out)
}

fn names(bits: u32, table: &'static [&'static str; 32], out: &mut Vec<&'static str>) {
    for (i, n) in table.iter().enumerate() {
        if !n.is_empty() && bits >> i & 1 == 1 {
            out.push(n);
        }
    }
}

/// The text for `ncpu` processors of an x86 guest whose engine is `mode` with `model`.
pub fn x86_cpuinfo(ncpu: usize, mode: Mode, model: Option<i32>) -> String {
    let leaves = [(0, 0), (1, 0), (7, 0), (0x8000_0001, 0), (0x8000_0002, 0), (0x8000_0003, 0), (0x8000_0004, 0)];
    let Some(r) = cpuid(mode, model, &leaves) else { return String::new() };
    let vendor: Vec<u8> = [r[0][1], r[0][3], r[0][2]].iter().flat_map(|w| w.to_le_bytes()).collect();
    let brand: Vec<u8> = r[4..7].iter().flat_map(|l| l.iter().flat_map(|w| w.to_le_bytes())).collect();
    let brand = String::from_utf8_lossy(&brand).trim_matches(char::from(0)).trim().to_string();
    let eax = r[1][0];
    let (base_family, base_model, stepping) = ((eax >> 8) & 0xf, (eax >> 4) & 0xf, eax & 0xf);
    let family = if base_family == 0xf { base_family + ((eax >> 20) & 0xff) } else { base_family };
    let model_nr = if base_family >= 6 { base_model | (((eax >> 16) & 0xf) << 4) } else { base_model };
    let mut flags: Vec<&'static str> = Vec::new();
    names(r[1][3], &W0, &mut flags);
    let max_leaf = r[0][0];
    names(r[3][3], &W1, &mut flags);
    names(r[1][2], &W4, &mut flags);
    names(r[3][2], &W6, &mut flags);
    if max_leaf >= 7 {
        names(r[2][1], &W9, &mut flags);
    }
    let flags = flags.join(" ");
    let lm = r[3][3] >> 29 & 1 == 1;
    let addr = if lm { "40 bits physical, 48 bits virtual" } else { "36 bits physical, 32 bits virtual" };
    let mut s = String::new();
    for i in 0..ncpu {
        let _ = write!(
            s,
            "processor\t: {i}\nvendor_id\t: {}\ncpu family\t: {family}\nmodel\t\t: {model_nr}\nmodel name\t: {brand}\n\
             stepping\t: {stepping}\ncpu MHz\t\t: 2000.000\ncache size\t: 512 KB\nphysical id\t: 0\nsiblings\t: {ncpu}\n\
             core id\t\t: {i}\ncpu cores\t: {ncpu}\napicid\t\t: {i}\ninitial apicid\t: {i}\nfpu\t\t: yes\n\
             fpu_exception\t: yes\ncpuid level\t: {max_leaf}\nwp\t\t: yes\nflags\t\t: {flags}\nbugs\t\t:\n\
             bogomips\t: 4000.00\nclflush size\t: 64\ncache_alignment\t: 64\naddress sizes\t: {addr}\n\
             power management:\n\n",
            String::from_utf8_lossy(&vendor)
        );
    }
    s
}

/// x86_64's `/proc/cpuinfo` (`ArchInfo::cpuinfo`).
pub fn cpuinfo(ncpu: usize) -> String {
    let e = &super::INFO.engine;
    x86_cpuinfo(ncpu, e.mode, e.cpu_model)
}
