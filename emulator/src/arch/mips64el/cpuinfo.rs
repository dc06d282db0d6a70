//! `/proc/cpuinfo` as a MIPS kernel prints it (arch/mips/kernel/proc.c `show_cpuinfo`) for
//! unicorn's `MIPS64R2-generic` model: its ISA levels, and MIPS-3D, the one ASE it has (the
//! `AT_HWCAP` the guest gets names the same).

use std::fmt::Write as _;

/// The text for `ncpu` processors.
pub fn cpuinfo(ncpu: usize) -> String {
    let ases = if super::INFO.hwcap.0 & (1 << 5) != 0 { " mips3d" } else { "" };
    let mut s = String::from("system type\t\t: MIPS Malta\nmachine\t\t\t: Unknown\n");
    for i in 0..ncpu {
        let _ = write!(
            s,
            "processor\t\t: {i}\ncpu model\t\t: MIPS64R2-generic V0.0  FPU V0.0\nBogoMIPS\t\t: 100.00\n\
             tlb_entries\t\t: {}\nisa\t\t\t: mips1 mips2 mips3 mips4 mips5 mips32r1 mips32r2 mips64r1 mips64r2\n\
             ASEs implemented\t:{ases}\nshadow register sets\t: 1\n\n",
            super::TLB_ENTRIES
        );
    }
    s
}
