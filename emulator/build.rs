//! Links the `endgate` executable as a position-dependent (non-PIE) program.
//!
//! unicorn's C code carries about 120 000 absolute pointers in tables (`.data.rel.ro`); in a PIE
//! every one is a dynamic relocation that the host's dynamic loader applies at each start, which
//! reads 2.9 MiB of `.rela.dyn` and dirties 1.9 MiB of pages per process. A fixed-address
//! executable has them resolved at link time: faster startup and a smaller resident set (see
//! docs/performance.md).

fn main() {
    println!("cargo:rustc-link-arg-bin=endgate=-no-pie");
}
