//! Fuzz target: `endgate::fuzz::abi_convert` (docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| endgate::fuzz::abi_convert(data));
