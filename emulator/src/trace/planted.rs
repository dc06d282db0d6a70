//! `ENDGATE_TEST_WRONG_RESULT=PC:REG`: a deliberately wrong instruction result, for testing
//! `endgate-diff` (docs/diff.md). After every run of the guest instruction at `PC`, register
//! `REG` (a name of the `-d cpu` dump: `X00`, `RAX`, `a0`, `R02`…) has its lowest bit flipped,
//! as if the instruction had computed it wrongly.
//!
//! Test-only and free when unset: the variable is read once, when the first engine instance
//! gets its tools; without it no hook is added. With it, three hooks: a code hook at `PC`
//! marks the result as due, and a code hook and a block hook over every address flip the bit
//! before the next instruction (or the next block) runs. They are added before the `-d`
//! hooks, so `-d cpu` shows the wrong value at the next block's entry, as it would show an
//! instruction's wrong result.

use std::cell::Cell;
use std::rc::Rc;

use unicorn_engine::uc_error;

use crate::guard::Checked;
use crate::guest::Cpu;
use crate::mm::MMAP_MIN_ADDR;

/// The variable's name.
pub const VAR: &str = "ENDGATE_TEST_WRONG_RESULT";

/// `PC:REG` from [`VAR`], read once; `None` when unset.
fn setting() -> Option<&'static (u64, String)> {
    static SETTING: std::sync::OnceLock<Option<(u64, String)>> = std::sync::OnceLock::new();
    SETTING
        .get_or_init(|| {
            let v = std::env::var(VAR).ok()?;
            // The variable may come from a guest's own environment (an endgate its execve
            // started): a bad value is one warning and no hook, never an internal error.
            let parsed = v.split_once(':').and_then(|(pc, reg)| {
                let pc = pc.trim();
                let pc = pc.strip_prefix("0x").map_or_else(|| pc.parse().ok(), |h| u64::from_str_radix(h, 16).ok())?;
                Some((pc, reg.to_string()))
            });
            if parsed.is_none() {
                eprintln!("endgate: {VAR} wants PC:REG, got '{v}': ignored");
            }
            parsed
        })
        .as_ref()
}

/// Adds the hooks when [`VAR`] is set (see the module's text); nothing otherwise.
pub fn install(cpu: &mut Cpu<'static>) -> Result<(), uc_error> {
    let Some((pc, reg)) = setting() else { return Ok(()) };
    let arch = cpu.get_data().arch.info().name;
    let id = crate::trace::debug::register_id(arch, reg)
        .unwrap_or_else(|| panic!("{VAR}: {arch} has no register '{reg}' in its -d cpu dump"));
    let due = Rc::new(Cell::new(false));
    let flip = move |due: &Cell<bool>, cpu: &mut Cpu<'_>| {
        if due.replace(false) {
            let v = cpu.reg(id);
            cpu.set_reg(id, v ^ 1);
        }
    };
    let d = due.clone();
    cpu.add_code_hook(MMAP_MIN_ADDR, u64::MAX, move |cpu, _, _| {
        crate::guard::guarded(&"wrong-result hook", || flip(&d, cpu));
    })?;
    let d = due.clone();
    cpu.add_block_hook(MMAP_MIN_ADDR, u64::MAX, move |cpu, _, _| {
        crate::guard::guarded(&"wrong-result hook", || flip(&d, cpu));
    })?;
    cpu.add_code_hook(*pc, *pc, move |_, _, _| due.set(true))?;
    Ok(())
}
