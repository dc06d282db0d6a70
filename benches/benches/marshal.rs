//! Criterion micro-benchmark of the marshalling layer: one host `struct stat` written into
//! guest memory as the guest's `struct stat`, for an arch whose byte order matches the host
//! (aarch64: fields copied) and one whose does not (s390x: every field byte-swapped). The
//! issue's target: the swapped conversion within 1.5x of the unswapped one.
//!
//! Run: `cargo bench -p endgate-benches --bench marshal`.

use criterion::{black_box, criterion_main, Criterion};
use endgate::arch::for_elf_machine;
use endgate::mm::{AddressSpace, GuestAddr, Prot, VmaName};

/// ELF machine numbers (include/uapi/linux/elf-em.h).
const EM_AARCH64: u16 = 183;
const EM_S390: u16 = 22;

fn host_stat() -> libc::stat {
    // SAFETY: plain data, filled by fstat below.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat of stdin-or-not into a local struct; a failure leaves zeroes, which is fine
    // for timing.
    unsafe { libc::fstat(0, &mut st) };
    st
}

fn bench_arch(c: &mut Criterion, machine: u16, label: &str) {
    let Some(arch) = for_elf_machine(machine, true) else {
        eprintln!("marshal: {label} guests are not built into this endgate; skipped");
        return;
    };
    let mut mm =
        AddressSpace::new(arch.info().layout, arch.info().data_model).expect("reserve the guest address space");
    let addr = 0x10_000;
    mm.map_anon(addr, 4096, Prot::READ | Prot::WRITE, VmaName::Anon).expect("map one page");
    let st = host_stat();
    c.bench_function(&format!("write_stat/{label}"), |b| {
        b.iter(|| (arch.info().write_stat)(&mut mm, black_box(GuestAddr::new(addr)), black_box(&st)).expect("write"))
    });
}

fn marshal(c: &mut Criterion) {
    bench_arch(c, EM_AARCH64, "aarch64 (same byte order)");
    bench_arch(c, EM_S390, "s390x (byte-swapped)");
}

/// The criterion group (its generated function has no docs of its own).
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::marshal);
}
criterion_main!(group::benches);
