//! Fuzz target: `endgate::fuzz::gdb_packets` (docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| endgate::fuzz::gdb_packets(data));
