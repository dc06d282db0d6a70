//! System calls only aarch64 has: none beyond the generic table so far.
