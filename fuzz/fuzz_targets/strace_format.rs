//! Fuzz target: `endgate::fuzz::strace_format` (docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| endgate::fuzz::strace_format(data));
