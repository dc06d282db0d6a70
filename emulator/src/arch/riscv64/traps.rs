//! Instructions that trap in the engine but that Linux user space can execute.
//!
//! `rdtime rd` (`csrrs rd, time, x0`) reads the `time` CSR, which Linux lets user mode read
//! (`scounteren.TM`); unicorn has no timer behind it and raises an illegal-instruction
//! exception. endgate completes it from the host's monotonic clock at 10 MHz, the
//! `timebase-frequency` of QEMU's `virt` machine (the value a guest finds for it in
//! `/proc/device-tree/cpus/timebase-frequency` on such a machine).

use crate::guard::Checked;
use unicorn_engine::RegisterRISCV;

use crate::guest::Cpu;
use crate::mm::GuestAddr;

/// Ticks per second of the emulated `time` CSR.
pub const TIMEBASE_HZ: u64 = 10_000_000;

/// `csrrs rd, time (0xc01), x0` with the rd field masked out.
const RDTIME: u32 = 0xc010_2073;
const RD_MASK: u32 = 0x1f << 7;

/// Completes a trapped `rdtime` whose encoding starts at `insn_pc`; the engine's PC is already
/// past it. `false` if the instruction is something else.
pub fn emulate_rdtime(cpu: &mut Cpu<'_>, insn_pc: GuestAddr) -> bool {
    let Ok(insn) = cpu.get_data().mm.read_u32(insn_pc) else { return false };
    if insn & !RD_MASK != RDTIME {
        return false;
    }
    let rd = (insn & RD_MASK) >> 7;
    if rd != 0 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: a local out struct.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        let ticks = crate::abi::bits64(ts.tv_sec) * TIMEBASE_HZ
            + crate::abi::bits64(ts.tv_nsec) / (1_000_000_000 / TIMEBASE_HZ);
        cpu.set_reg(RegisterRISCV::X0 as i32 + crate::abi::int32(rd), ticks);
    }
    true
}
