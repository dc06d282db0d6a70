//! Links the `endgate` executable as a position-dependent (non-PIE) program.
//!
//! unicorn's C code carries about 120 000 absolute pointers in tables (`.data.rel.ro`); in a PIE
//! every one is a dynamic relocation that the host's dynamic loader applies at each start, which
//! reads 2.9 MiB of `.rela.dyn` and dirties 1.9 MiB of pages per process. A fixed-address
//! executable has them resolved at link time: faster startup and a smaller resident set (see
//! docs/performance.md).

//!
//! `hot-helpers.ld` aligns the unicorn helper that translated code calls after every guest
//! memory access to a cache line, so its speed does not depend on the size of the code linked
//! before it.

fn main() {
    println!("cargo:rustc-link-arg-bin=endgate=-no-pie");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("hot-helpers.ld");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rustc-link-arg-bin=endgate=-Wl,-T,{}", script.display());
}
