//! unicorn-engine-sys 2.1.5, built from the published crate's source with endgate's patches
//! (`unicorn/PATCHES.md`). The Rust API is the published crate's own (`api.rs`, taken from that
//! source by `build.rs`) over bindings generated from the patched copy's headers.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, missing_docs, unused)]
#![allow(clippy::all, clippy::pedantic, clippy::nursery)]

include!(concat!(env!("OUT_DIR"), "/api.rs"));
