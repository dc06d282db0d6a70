//! System calls only riscv64 has: none beyond the generic table so far
//! (`riscv_flush_icache` and `riscv_hwprobe` answer `ENOSYS` like any unknown call).
