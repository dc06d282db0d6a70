//! Fuzz target: `endgate::fuzz::syscall_live` (docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| endgate::fuzz::syscall_live(data));
