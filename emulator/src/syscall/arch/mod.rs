//! System calls only some guest arches have, and the arches' own forms of generic calls: one
//! file per arch with its handlers and the rows that put them in its table. A
//! [`super::DispatchTable`] lays an arch's rows over the generic rows ([`super::table::DEFS`],
//! and [`super::compat32::DEFS`] for 32-bit guests), so a row here replaces the generic row of
//! the same call.
//!
//! The CPU side of such a call (a register, a descriptor table) stays in `crate::arch::<name>`;
//! these handlers call down into it, never the other way.

pub mod aarch64;
pub mod arm;
pub mod i386;
pub mod mips64el;
pub mod riscv64;
pub mod s390x;
pub mod x86_64;

use super::SyscallDef;
use crate::guest::GuestArch;

/// Each arch's own rows, by [`GuestArch::name`]: its file's, and the shared groups it has
/// (the 16-bit-id calls of i386 and arm, [`super::uid16`]).
static BY_ARCH: &[(&str, &[&[SyscallDef]])] = &[
    ("x86_64", &[x86_64::ROWS]),
    ("aarch64", &[aarch64::ROWS]),
    ("riscv64", &[riscv64::ROWS]),
    ("armv7l", &[arm::ROWS, super::uid16::ROWS]),
    ("i686", &[i386::ROWS, super::uid16::ROWS]),
    ("s390x", &[s390x::ROWS]),
    ("mips64", &[mips64el::ROWS]),
];

/// The rows `arch` lays over the generic ones (none for most calls).
pub fn rows_of(arch: &dyn GuestArch) -> impl Iterator<Item = &'static SyscallDef> {
    let groups: &'static [&'static [SyscallDef]] =
        BY_ARCH.iter().find(|(name, _)| *name == arch.info().name).map_or(&[], |(_, rows)| rows);
    groups.iter().flat_map(|rows| rows.iter())
}
