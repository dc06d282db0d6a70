//! Builds host-shims' C/asm shims with the `cc` crate: `csrc/shims.c` on every host (probes,
//! counters) and `csrc/ppc64.S` on powerpc64 hosts (the endian switch sequences).

fn main() {
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    println!("cargo:rerun-if-changed=csrc");
    let mut b = cc::Build::new();
    b.file("csrc/shims.c").include("csrc").warnings(true);
    if arch == "powerpc64" {
        b.file("csrc/ppc64.S");
    }
    b.compile("endgate_host_shims");
}
