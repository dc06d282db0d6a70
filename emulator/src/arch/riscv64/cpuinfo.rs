//! `/proc/cpuinfo` as a riscv kernel prints it (arch/riscv/kernel/cpu.c `c_show`): one
//! entry per hart with the ISA string of the extensions in `AT_HWCAP` (one bit per letter),
//! unicorn's SiFive U54 (RV64GC, Sv39).

use std::fmt::Write as _;

/// The text for `ncpu` harts.
pub fn cpuinfo(ncpu: usize) -> String {
    let hwcap = super::INFO.hwcap.0;
    // The kernel prints the single-letter extensions in its canonical order.
    let isa: String = "imafdqcbkjpvh".chars().filter(|c| hwcap >> (*c as u8 - b'a') & 1 == 1).collect();
    let mut s = String::new();
    for i in 0..ncpu {
        let _ = write!(s, "processor\t: {i}\nhart\t\t: {i}\nisa\t\t: rv64{isa}\nmmu\t\t: sv39\n\n");
    }
    s
}
