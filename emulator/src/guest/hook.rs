//! The hooks on a system call's path, registered with the engine directly.
//!
//! The unicorn crate's hooks reach their closure through a proxy that makes a new
//! [`Cpu`] handle for every call: its `Weak` reference to the engine is upgraded (a check for
//! a dangling reference, the strong count read, incremented and, when the handle is dropped,
//! decremented and tested), about 2 ns of each gated system call and vDSO clock read on an
//! x86_64 host (docs/performance.md). The hooks every guest system call passes through (the
//! interrupt hook, x86_64's `syscall` instruction hook, the gate's code hook) are registered
//! here instead, with callbacks of endgate's own whose data holds the closure beside an
//! uncounted copy of the engine's handle.
//!
//! The copy is the handle's pointer to the engine, taken without a count: never dropped, and
//! only used while the engine calls the hook, which it does only while it runs, so while the
//! engine (which owns the hook's data, [`Task::hook_data`]) lives. The closure sees the engine
//! as the crate's proxy would show it.
//!
//! Like the crate's proxies, the callbacks are `extern "C"`: a panic cannot unwind into the
//! engine (the closures run their work under [`crate::guard::guarded`], whose panic hook ends
//! the process as an internal error first).

use std::ffi::c_void;
use std::mem::ManuallyDrop;

use unicorn_engine::unicorn_const::uc_error;
use unicorn_engine::{uc_engine, HookType, X86Insn};

use super::Cpu;

/// The data of an engine's hooks registered here, kept by its task ([`super::Task::hook_data`])
/// so that it lives as long as the engine.
#[derive(Default)]
pub struct HookKeep(Vec<Box<dyn std::any::Any>>);

// SAFETY: only `HookData::new` adds to a `HookKeep`, through the engine whose task holds it,
// on the thread that runs that engine; a task travels to another thread only before it is
// given its engine (`task::spawn` sends the new thread's task, which opens its engine there),
// when its `HookKeep` is empty. A task inside an engine is reachable only through the engine's
// handle, which cannot be sent.
unsafe impl Send for HookKeep {}

/// A hook's closure and the engine's handle it is called with.
struct HookData<F> {
    cpu: ManuallyDrop<Cpu<'static>>,
    f: F,
}

impl<F: 'static> HookData<F> {
    /// The data for `f` on `cpu`'s engine, kept by the engine's task.
    fn new(cpu: &mut Cpu<'static>, f: F) -> *mut HookData<F> {
        // SAFETY: a bitwise copy of the handle (a reference-counted pointer to the engine)
        // without a count; `ManuallyDrop` keeps it from ever giving one back, and the engine
        // calls the hook only while it runs, so while the engine lives (see the module's doc).
        let alias = ManuallyDrop::new(unsafe { std::ptr::read(std::ptr::from_ref(cpu)) });
        let mut data = Box::new(HookData { cpu: alias, f });
        let p = std::ptr::from_mut(data.as_mut());
        cpu.get_data_mut().hook_data.0.push(data);
        p
    }
}

/// Registers `callback` with `data` for hooks of `kind` on `[begin, end]`, with the extra
/// argument `insn` for an instruction hook. Errors: the engine's.
fn register(
    cpu: &mut Cpu<'static>,
    kind: HookType,
    callback: *mut c_void,
    data: *mut c_void,
    (begin, end): (u64, u64),
    insn: Option<X86Insn>,
) -> Result<(), uc_error> {
    let mut id: unicorn_engine::uc_hook = 0;
    let handle = cpu.get_handle();
    // SAFETY: a live engine; `callback` has the C signature the engine calls for `kind`, and
    // `data` lives as long as the engine (its task keeps it).
    let r = unsafe {
        match insn {
            Some(insn) => unicorn_engine::uc_hook_add(
                handle,
                std::ptr::from_mut(&mut id).cast(),
                kind.0 as i32,
                callback,
                data,
                begin,
                end,
                insn as i32,
            ),
            None => unicorn_engine::uc_hook_add(
                handle,
                std::ptr::from_mut(&mut id).cast(),
                kind.0 as i32,
                callback,
                data,
                begin,
                end,
            ),
        }
    };
    if r == uc_error::OK {
        Ok(())
    } else {
        Err(r)
    }
}

/// A code hook on `[begin, end]` (the engine's `UC_HOOK_CODE`): `f(cpu, address, size)`
/// before each instruction there. Errors: the engine's.
pub fn add_code_hook<F>(cpu: &mut Cpu<'static>, begin: u64, end: u64, f: F) -> Result<(), uc_error>
where
    F: FnMut(&mut Cpu<'static>, u64, u32) + 'static,
{
    unsafe extern "C" fn call<F: FnMut(&mut Cpu<'static>, u64, u32)>(
        _uc: *mut uc_engine,
        address: u64,
        size: u32,
        data: *mut c_void,
    ) {
        // SAFETY: the data registered with this callback ([`HookData::new`]), alive while the
        // engine runs; the engine does not call a hook from inside another.
        let d = unsafe { &mut *data.cast::<HookData<F>>() };
        (d.f)(&mut d.cpu, address, size);
    }
    let data = HookData::new(cpu, f);
    register(cpu, HookType::CODE, call::<F> as *mut c_void, data.cast(), (begin, end), None)
}

/// The interrupt hook (`UC_HOOK_INTR`): `f(cpu, intno)` for every interrupt or exception the
/// guest raises. Errors: the engine's.
pub fn add_intr_hook<F>(cpu: &mut Cpu<'static>, f: F) -> Result<(), uc_error>
where
    F: FnMut(&mut Cpu<'static>, u32) + 'static,
{
    unsafe extern "C" fn call<F: FnMut(&mut Cpu<'static>, u32)>(_uc: *mut uc_engine, intno: u32, data: *mut c_void) {
        // SAFETY: as in `add_code_hook`.
        let d = unsafe { &mut *data.cast::<HookData<F>>() };
        (d.f)(&mut d.cpu, intno);
    }
    let data = HookData::new(cpu, f);
    // The range is not looked at for interrupt hooks (the crate passes 0, 0 too).
    register(cpu, HookType::INTR, call::<F> as *mut c_void, data.cast(), (0, 0), None)
}

/// The hook of x86's `syscall` or `sysenter` instruction `insn` (`UC_HOOK_INSN`) on
/// `[begin, end]` (every address when `begin > end`): `f(cpu)` instead of the instruction's own
/// effect. Errors: the engine's.
pub fn add_insn_sys_hook<F>(cpu: &mut Cpu<'static>, insn: X86Insn, begin: u64, end: u64, f: F) -> Result<(), uc_error>
where
    F: FnMut(&mut Cpu<'static>) + 'static,
{
    unsafe extern "C" fn call<F: FnMut(&mut Cpu<'static>)>(_uc: *mut uc_engine, data: *mut c_void) {
        // SAFETY: as in `add_code_hook`.
        let d = unsafe { &mut *data.cast::<HookData<F>>() };
        (d.f)(&mut d.cpu);
    }
    let data = HookData::new(cpu, f);
    register(cpu, HookType::INSN, call::<F> as *mut c_void, data.cast(), (begin, end), Some(insn))
}
