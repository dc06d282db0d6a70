//! Fuzz target: `endgate::fuzz::elf_loader` (docs/fuzzing.md).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| endgate::fuzz::elf_loader(data));
