//! `/proc/cpuinfo` as an s390 kernel prints it (arch/s390/kernel/processor.c
//! `show_cpuinfo`): the summary with `features` from the guest's `AT_HWCAP`, then one line
//! per processor, for unicorn's "qemu" CPU model (machine type 2964, a z13).

use std::fmt::Write as _;

/// `AT_HWCAP` bit names, bit 0 first (`hwcap_str`; the bits of arch/s390/include/asm/elf.h
/// `HWCAP_S390_*`).
pub(super) const HWCAP_NAMES: &[&str] = &[
    "esan3", "zarch", "stfle", "msa", "ldisp", "eimm", "dfp", "edat", "etf3eh", "highgprs", "te", "vx", "vxd", "vxe",
    "gs", "vxe2", "vxp", "sort", "dflt", "vxp2", "nnpa", "pcimio", "sie",
];

/// The text for `ncpu` processors.
pub fn cpuinfo(ncpu: usize) -> String {
    let features = super::super::hwcap_names(super::INFO.hwcap.0, HWCAP_NAMES);
    let mut s = format!(
        "vendor_id       : IBM/S390\n# processors    : {ncpu}\nbogomips per cpu: 3033.00\n\
         max thread id   : 0\nfeatures\t: {features} \n"
    );
    for i in 0..ncpu {
        let _ = writeln!(s, "processor {i}: version = 00,  identification = 000000,  machine = 2964");
    }
    s.push('\n');
    for i in 0..ncpu {
        let _ = write!(s, "cpu number      : {i}\ncpu MHz dynamic : 5000\ncpu MHz static  : 5000\n\n");
    }
    s
}
