//! guest-tests: a conformance suite for user-mode Linux emulators.
//!
//! Small guest programs (C, plus freestanding asm per arch) live under `programs/`; the
//! [`builder`] compiles them for every [`arch`] with Debian's cross gcc, the [`runner`] runs
//! them under any emulator (endgate, qemu-user, or natively) and compares stdout and exit
//! status with `expected/`, which only [`expected::regenerate`] writes — from native x86_64
//! runs. The [`report`] module prints the matrix and writes JSON and JUnit.

pub mod arch;
pub mod builder;
pub mod error;
pub mod exec;
pub mod expected;
pub mod manifest;
pub mod pool;
pub mod report;
pub mod runner;
pub mod suite;

pub use error::{Error, Result};
