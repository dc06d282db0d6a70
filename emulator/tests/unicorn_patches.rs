//! Tests of endgate's patches to unicorn (`unicorn/PATCHES.md`), through the engine's own API on
//! small code sequences (mostly aarch64, encodings from the Arm ARM, A64 base instructions):
//! what each patch must keep true, and what it changes.

use unicorn_engine::{
    uc_error, Arch, HookType, MemType, Mode, Prot, RegisterARM64, RegisterMIPS, TlbEntry, TlbType, Unicorn,
};

/// Patch 0032: aarch64 `ic ivau` drops the translations of its cache line, which a store the
/// engine does not see as self-modifying code left stale (a JIT's double mapping: the code is
/// stored through a second, writable mapping of the same memory), and reports the line to the
/// code-write callback for the other engines. One run: call a function, rewrite it through
/// the alias, call it again (the old translation runs: no flush yet), `ic ivau` and `isb`, call
/// it a third time (the new code runs).
#[test]
fn aarch64_ic_ivau_drops_stale_code() {
    let reported = Reported::default();
    const IC_IVAU_X7: u32 = 0xd50b_7527; // ic ivau, x7 (sys #3, c7, c5, #1, x7)
    const ISB: u32 = 0xd503_3fdf;
    const STR_W9_X8: u32 = 0xb900_0109; // str w9, [x8]
    const RET: u32 = 0xd65f_03c0;
    let bl = |from: u64, to: u64| 0x9400_0000 | words(from, to, 0x03ff_ffff);
    let (page_b, alias) = (CODE + 0x1000, DATA + 0x1000);
    let code = [bl(CODE, page_b), STR_W9_X8, bl(CODE + 8, page_b), IC_IVAU_X7, ISB, bl(CODE + 20, page_b), NOP];
    let mut uc = engine(&code);
    reported.attach(&mut uc);
    let mut host_b = vec![0u8; 0x1000];
    host_b[..4].copy_from_slice(&ADD_X4_1.to_le_bytes());
    host_b[4..8].copy_from_slice(&RET.to_le_bytes());
    // SAFETY: host_b outlives the engine's use of it (the engine is dropped first below); the
    // two mappings share it, as a memfd mapped twice does.
    unsafe {
        uc.mem_map_ptr(page_b, 0x1000, Prot::READ | Prot::EXEC, host_b.as_mut_ptr().cast()).unwrap();
        uc.mem_map_ptr(alias, 0x1000, Prot::READ | Prot::WRITE, host_b.as_mut_ptr().cast()).unwrap();
    }
    uc.reg_write(RegisterARM64::X7, page_b + 8).unwrap();
    uc.reg_write(RegisterARM64::X8, alias).unwrap();
    uc.reg_write(RegisterARM64::X9, u64::from(ADD_X6_1)).unwrap();
    uc.emu_start(CODE, CODE + 24, 0, 0).unwrap();
    assert_eq!(
        (reg(&uc, RegisterARM64::X4), reg(&uc, RegisterARM64::X6)),
        (2, 1),
        "calls 1 and 2 ran the old code (no flush between), call 3 the new"
    );
    assert_eq!(reported.take(), vec![(page_b, 64)], "the line went to the code-write callback");
    drop(uc);
}

/// Patch 0039: a TLB entry with `UC_PROT_STORE_WATCH` (a writable view whose physical page is
/// the one an executable view runs code from: endgate's `mm::alias`) sends every store through
/// it to the self-modifying-code path, which drops that physical page's translations and tells
/// the code-write callback; without the watch only the first store was seen. One run: call a
/// function, store a new instruction through the view, call it, store another, call it again:
/// each call runs the code stored last, and both stores were reported. The same run with an
/// unwatched entry runs the first store's code twice.
#[test]
fn a_watched_entry_reports_every_store_and_drops_the_code_of_its_physical_page() {
    let reported = Reported::default();
    const STR_W9_X8: u32 = 0xb900_0109; // str w9, [x8]
    const STR_W10_X8: u32 = 0xb900_010a; // str w10, [x8]
    const ADD_X5_1: u32 = 0x9100_04a5; // add x5, x5, #1
    const RET: u32 = 0xd65f_03c0;
    let bl = |from: u64, to: u64| 0x9400_0000 | words(from, to, 0x03ff_ffff);
    let (page_b, view) = (CODE + 0x1000, DATA + 0x1000);
    let code = [bl(CODE, page_b), STR_W9_X8, bl(CODE + 8, page_b), STR_W10_X8, bl(CODE + 16, page_b), NOP];
    let run = |watch: bool| {
        let mut uc = engine(&code);
        reported.attach(&mut uc);
        let mut host_b = vec![0u8; 0x1000];
        host_b[..4].copy_from_slice(&ADD_X4_1.to_le_bytes());
        host_b[4..8].copy_from_slice(&RET.to_le_bytes());
        // SAFETY: host_b outlives the engine's use of it (the engine is dropped first below).
        unsafe { uc.mem_map_ptr(page_b, 0x1000, Prot::ALL, host_b.as_mut_ptr().cast()).unwrap() };
        uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
        let watched = Prot(Prot::READ.0 | Prot::WRITE.0 | if watch { Prot::STORE_WATCH.0 } else { 0 });
        uc.add_tlb_hook(0, u64::MAX, move |_, va, _| match va & !0xfff {
            // The writable view: the executable page's physical page, not executable itself.
            v if v == view => Some(TlbEntry { paddr: page_b, perms: watched }),
            v if v == page_b => Some(TlbEntry { paddr: page_b, perms: Prot::READ | Prot::EXEC }),
            v => Some(TlbEntry { paddr: v, perms: Prot::ALL }),
        })
        .unwrap();
        uc.reg_write(RegisterARM64::X8, view).unwrap();
        uc.reg_write(RegisterARM64::X9, u64::from(ADD_X5_1)).unwrap();
        uc.reg_write(RegisterARM64::X10, u64::from(ADD_X6_1)).unwrap();
        uc.emu_start(CODE, CODE + 20, 0, 0).unwrap();
        let counts = (reg(&uc, RegisterARM64::X4), reg(&uc, RegisterARM64::X5), reg(&uc, RegisterARM64::X6));
        drop(uc);
        drop(host_b);
        (counts, reported.take())
    };
    let (counts, reports) = run(true);
    assert_eq!(counts, (1, 1, 1), "each call ran the code stored last (x4: first, x5: second, x6: third)");
    assert_eq!(reports, vec![(view, 4), (view, 4)], "both stores went to the code-write callback");
    let (counts, reports) = run(false);
    assert_eq!(counts, (1, 2, 0), "unwatched, the second store was not seen: the third call ran the second code");
    assert_eq!(reports, vec![], "unwatched, no store was reported");
}

/// The stores an engine reported to its code-write callback (unicorn patch 0007), each test's
/// own (the callback's opaque pointer names the list).
#[derive(Default)]
struct Reported(Box<std::sync::Mutex<Vec<(u64, u32)>>>);

impl Reported {
    /// Makes `uc` report its code writes here; `self` must outlive the engine's runs.
    fn attach(&self, uc: &mut Unicorn<'static, ()>) {
        unsafe extern "C" fn record(
            _uc: *mut unicorn_engine::uc_engine,
            addr: u64,
            size: u32,
            opaque: *mut std::ffi::c_void,
        ) -> bool {
            // SAFETY: `opaque` is the boxed list `attach` passed, alive while the engine runs.
            let list = unsafe { &*opaque.cast::<std::sync::Mutex<Vec<(u64, u32)>>>() };
            list.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((addr, size));
            false
        }
        let opaque = std::ptr::from_ref::<std::sync::Mutex<Vec<(u64, u32)>>>(&self.0).cast_mut().cast();
        // SAFETY: a live engine, not running; the callback never unwinds and reads only the
        // list, which the box keeps at one address.
        let r: Result<(), uc_error> =
            unsafe { unicorn_engine::uc_set_code_write_cb(uc.get_handle(), Some(record), opaque) }.into();
        r.unwrap();
    }

    /// The stores reported so far, leaving none.
    fn take(&self) -> Vec<(u64, u32)> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

const CODE: u64 = 0x1000;
const DATA: u64 = 0x8000;
const UNMAPPED: u64 = 0x10_0000;

const STR_X1_X0: u32 = 0xf900_0001; // str x1, [x0]
const LDR_X3_X0: u32 = 0xf940_0003; // ldr x3, [x0]
const MOV_X2_1: u32 = 0xd280_0022; // movz x2, #1
const ADD_X4_1: u32 = 0x9100_0484; // add x4, x4, #1
const B_MINUS_8: u32 = 0x17ff_fffe; // b . - 8
const NOP: u32 = 0xd503_201f;

fn engine(code: &[u32]) -> Unicorn<'static, ()> {
    let mut uc = Unicorn::new(Arch::ARM64, Mode::ARM).expect("aarch64 engine");
    uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).expect("map code");
    uc.mem_map(DATA, 0x1000, Prot::READ | Prot::WRITE).expect("map data");
    let bytes: Vec<u8> = code.iter().flat_map(|insn| insn.to_le_bytes()).collect();
    uc.mem_write(CODE, &bytes).expect("write code");
    uc.reg_write(RegisterARM64::X1, 0x1122_3344_5566_7788).expect("x1");
    uc
}

fn end_of(code: &[u32]) -> u64 {
    CODE + 4 * code.len() as u64
}

fn reg(uc: &Unicorn<'static, ()>, r: RegisterARM64) -> u64 {
    uc.reg_read(r).expect("register read")
}

/// Patch 0001: a store the engine refuses (no memory there) stops the guest at the store; the
/// instruction after it in the same block never runs, although translated code no longer checks
/// for an exit request after each access.
#[test]
fn refused_store_stops_at_the_store() {
    let code = [STR_X1_X0, MOV_X2_1, NOP];
    let mut uc = engine(&code);
    uc.reg_write(RegisterARM64::X0, UNMAPPED).unwrap();
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::WRITE_UNMAPPED));
    assert_eq!(reg(&uc, RegisterARM64::X2), 0, "the instruction after the refused store ran");
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE, "pc is the refused store's");
}

/// Patch 0001: the same for a refused load (its register keeps its value).
#[test]
fn refused_load_stops_at_the_load() {
    let code = [LDR_X3_X0, MOV_X2_1, NOP];
    let mut uc = engine(&code);
    uc.reg_write(RegisterARM64::X0, UNMAPPED).unwrap();
    uc.reg_write(RegisterARM64::X3, 7).unwrap();
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::READ_UNMAPPED));
    assert_eq!(reg(&uc, RegisterARM64::X2), 0, "the instruction after the refused load ran");
    assert_eq!(reg(&uc, RegisterARM64::X3), 7, "the refused load wrote its register");
}

/// Patch 0001: with endgate's virtual TLB, a page the TLB-fill hook refuses raises the guest's
/// own exception at the store (endgate turns it into SIGSEGV), and nothing after it runs.
#[test]
fn store_refused_by_the_tlb_hook_raises_at_the_store() {
    let code = [STR_X1_X0, MOV_X2_1, NOP];
    let mut uc = engine(&code);
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    uc.add_tlb_hook(0, u64::MAX, |_, va, _| (va < DATA + 0x1000).then_some(TlbEntry { paddr: va, perms: Prot::ALL }))
        .unwrap();
    uc.reg_write(RegisterARM64::X0, UNMAPPED).unwrap();
    // The aarch64 engine reports the data abort as an exception it did not deliver.
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::EXCEPTION));
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE, "pc is the faulting store's");
    assert_eq!(reg(&uc, RegisterARM64::X2), 0, "the instruction after the faulting store ran");
}

/// Patch 0001 keeps the check where a memory hook needs it: a write hook that stops the engine
/// stops it right after that store.
#[test]
fn write_hook_still_stops_after_its_store() {
    let code = [STR_X1_X0, MOV_X2_1, NOP];
    let mut uc = engine(&code);
    uc.add_mem_hook(HookType::MEM_WRITE, DATA, DATA + 0xfff, |uc, kind, address, _, value| {
        assert!(matches!(kind, MemType::WRITE));
        assert_eq!((address, value), (DATA, 0x1122_3344_5566_7788));
        uc.emu_stop().unwrap();
        true
    })
    .unwrap();
    uc.reg_write(RegisterARM64::X0, DATA).unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X2), 0, "the instruction after the hooked store ran");
    let mut stored = [0u8; 8];
    uc.mem_read(DATA, &mut stored).unwrap();
    assert_eq!(u64::from_le_bytes(stored), 0x1122_3344_5566_7788);
}

/// Patch 0001: a loop of stores with no memory hook still stops when asked from outside (here
/// unicorn's own timeout): exit requests are checked at every block start.
#[test]
fn store_loop_stops_on_request() {
    let code = [STR_X1_X0, ADD_X4_1, B_MINUS_8];
    let mut uc = engine(&code);
    uc.reg_write(RegisterARM64::X0, DATA).unwrap();
    uc.emu_start(CODE, end_of(&code), 20_000, 0).unwrap();
    assert!(reg(&uc, RegisterARM64::X4) > 1000, "the loop ran");
}

/// Patch 0001: counted stepping (endgate's single-instruction runs) stops after the count.
#[test]
fn counted_run_stops_after_count() {
    let code = [STR_X1_X0, MOV_X2_1, ADD_X4_1, NOP];
    let mut uc = engine(&code);
    uc.reg_write(RegisterARM64::X0, DATA).unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 1).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE + 4);
    assert_eq!(reg(&uc, RegisterARM64::X2), 0);
    uc.emu_start(CODE + 4, end_of(&code), 0, 2).unwrap();
    assert_eq!((reg(&uc, RegisterARM64::X2), reg(&uc, RegisterARM64::X4)), (1, 1));
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE + 12);
}

const MOV_X5_1: u32 = 0xd280_0025; // movz x5, #1
const B_PLUS_8: u32 = 0x1400_0002; // b . + 8

/// Patch 0002: a block hook that stops the engine (endgate's way of delivering a signal at a
/// block boundary) stops it before any instruction of that block runs, with the pc at the
/// block's start; the exit is the inline check at the start of the block.
#[test]
fn stop_from_block_hook_leaves_pc_at_block_start() {
    // 0x1000: b 0x1008 | 0x1004: nop | 0x1008: movz x2, #1 | nop
    let code = [B_PLUS_8, NOP, MOV_X2_1, NOP];
    let mut uc = engine(&code);
    let hook = uc
        .add_block_hook(CODE + 8, CODE + 8, |uc, address, _| {
            assert_eq!(address, CODE + 8);
            uc.emu_stop().unwrap();
        })
        .unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE + 8);
    assert_eq!(reg(&uc, RegisterARM64::X2), 0, "the stopped block ran");
    // Started again there without the hook, the block runs (the stop request was consumed).
    uc.remove_hook(hook).unwrap();
    uc.emu_start(CODE + 8, end_of(&code), 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X2), 1);
}

/// Patch 0002: a pc written by a block hook wins over the block's start (unicorn's
/// "quit the block and go on at the new pc").
#[test]
fn pc_written_by_block_hook_is_kept() {
    // 0x1000: b 0x1008 | 0x1004: nop | 0x1008: movz x2, #1 | 0x100c: movz x5, #1 | nop
    let code = [B_PLUS_8, NOP, MOV_X2_1, MOV_X5_1, NOP];
    let mut uc = engine(&code);
    let mut redirected = false;
    uc.add_block_hook(CODE + 8, CODE + 8, move |uc, _, _| {
        if !redirected {
            redirected = true;
            uc.reg_write(RegisterARM64::PC, CODE + 12).unwrap();
        }
    })
    .unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X2), 0, "the block whose pc was rewritten ran");
    assert_eq!(reg(&uc, RegisterARM64::X5), 1, "execution did not go on at the written pc");
    assert_eq!(reg(&uc, RegisterARM64::PC), end_of(&code));
}

/// Patch 0002: stopping from another thread (endgate's preemption timer and signal senders call
/// `uc_emu_stop` on a running engine) ends a loop that never leaves translated code: the
/// chained blocks check the request at their start.
#[test]
fn stop_from_another_thread_ends_a_chained_loop() {
    let code = [ADD_X4_1, B_MINUS_4];
    let mut uc = engine(&code);
    let handle = SendPtr(uc.get_handle());
    let stopper = std::thread::spawn(move || {
        let handle = handle;
        std::thread::sleep(std::time::Duration::from_millis(50));
        // SAFETY: uc_emu_stop is the one call unicorn allows from another thread while the engine
        // runs; the engine outlives this thread (joined below).
        unsafe { unicorn_engine::uc_emu_stop(handle.0) };
    });
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    stopper.join().unwrap();
    assert!(reg(&uc, RegisterARM64::X4) > 1000, "the loop ran");
    let pc = reg(&uc, RegisterARM64::PC);
    assert!(pc == CODE || pc == CODE + 4, "pc {pc:#x} is not in the loop");
}

const B_MINUS_4: u32 = 0x17ff_ffff; // b . - 4

struct SendPtr(*mut unicorn_engine::uc_engine);
// SAFETY: the pointer is only used for uc_emu_stop, which unicorn allows from any thread.
unsafe impl Send for SendPtr {}

const SUB_X5_1: u32 = 0xd100_04a5; // sub x5, x5, #1
const ADD_X6_1: u32 = 0x9100_04c6; // add x6, x6, #1

/// A branch from `from` to `to` (both 4-byte aligned, within ±128 MiB): `b to`.
fn b(from: u64, to: u64) -> u32 {
    0x1400_0000 | words(from, to, 0x03ff_ffff)
}

/// The word offset from `from` to `to`, two's complement, masked to the field's bits.
fn words(from: u64, to: u64, mask: u64) -> u32 {
    u32::try_from((to.wrapping_sub(from) >> 2) & mask).expect("mask fits in 32 bits")
}

/// `cbnz x5, to` at `from`.
fn cbnz_x5(from: u64, to: u64) -> u32 {
    0xb500_0005 | (words(from, to, 0x7ffff) << 5)
}

/// Patch 0003: blocks chain to blocks on other guest pages, and dropping a page's translations
/// (what endgate does when a mapping goes or the host writes code behind the engine's back)
/// unlinks the jumps into it: the loop then runs the page's new code.
#[test]
fn cross_page_chains_are_unlinked_when_the_page_is_dropped() {
    // Page A (CODE): add x4, x4, #1; b PAGE_B.  Page B: sub x5, x5, #1; cbnz x5, CODE; nop.
    let page_b = CODE + 0x1000;
    let code = [ADD_X4_1, b(CODE + 4, page_b)];
    let mut uc = engine(&code);
    let mut host_b = vec![0u8; 0x1000];
    for (i, insn) in [SUB_X5_1, cbnz_x5(page_b + 4, CODE), NOP].iter().enumerate() {
        host_b[i * 4..i * 4 + 4].copy_from_slice(&insn.to_le_bytes());
    }
    // SAFETY: host_b outlives the engine's use of it (the engine is dropped first below).
    unsafe { uc.mem_map_ptr(page_b, 0x1000, Prot::READ | Prot::EXEC, host_b.as_mut_ptr().cast()) }.unwrap();
    let end = page_b + 8;
    uc.reg_write(RegisterARM64::X5, 1000).unwrap();
    uc.emu_start(CODE, end, 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X4), 1000);

    // Rewrite page B behind the engine's back (as the host kernel writes a guest's pages) so
    // that it also counts in x6, drop its translations, and run the loop again.
    host_b[..4].copy_from_slice(&ADD_X6_1.to_le_bytes());
    host_b[4..8].copy_from_slice(&SUB_X5_1.to_le_bytes());
    host_b[8..12].copy_from_slice(&cbnz_x5(page_b + 8, CODE).to_le_bytes());
    uc.ctl_remove_cache(page_b, page_b + 0x1000).unwrap();
    uc.reg_write(RegisterARM64::X5, 1000).unwrap();
    uc.emu_start(CODE, page_b + 12, 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X4), 2000);
    assert_eq!(reg(&uc, RegisterARM64::X6), 1000, "a chained jump ran page B's dropped code");
    drop(uc);
}

/// The engine's four stop bytes and its exit request's high half (patches 0004 and 0031,
/// `uc_stop_flags`), as atomics.
fn stop_flags(
    uc: &Unicorn<'static, ()>,
) -> (&'static [std::sync::atomic::AtomicU8; 4], &'static std::sync::atomic::AtomicU16) {
    let (mut p, mut k): (*mut u8, *mut u16) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: a live engine; `p` and `k` are valid outputs.
    let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_stop_flags(uc.get_handle(), &mut p, &mut k) }.into();
    r.unwrap();
    // SAFETY: bytes in the engine's CPU state, which the test's engine outlives its use of; any
    // thread may store to them (the engine reads them as it runs).
    unsafe { (&*p.cast::<[std::sync::atomic::AtomicU8; 4]>(), &*k.cast::<std::sync::atomic::AtomicU16>()) }
}

/// Patches 0004 and 0031: a stop flag that is up when the run starts stops it at its first
/// block, before any instruction (a signal recorded while endgate was outside `emu_start` is
/// not lost), and the run goes on normally once the flag is down. Each of the four bytes
/// stops it; they start at 0.
#[test]
fn stop_flag_up_before_the_run_stops_it_at_once() {
    use std::sync::atomic::Ordering;
    let code = [MOV_X2_1, ADD_X4_1, NOP];
    let mut uc = engine(&code);
    let (flags, _) = stop_flags(&uc);
    assert!(flags.iter().all(|f| f.load(Ordering::SeqCst) == 0), "the flags start down");
    for flag in flags {
        flag.store(1, Ordering::SeqCst);
        uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
        assert_eq!(reg(&uc, RegisterARM64::PC), CODE);
        assert_eq!(reg(&uc, RegisterARM64::X2), 0, "an instruction ran under a raised stop flag");
        // Still up: the next run stops at once again (the flag is a level, not an event).
        uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
        assert_eq!(reg(&uc, RegisterARM64::X2), 0);
        flag.store(0, Ordering::SeqCst);
    }
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!((reg(&uc, RegisterARM64::X2), reg(&uc, RegisterARM64::X4)), (1, 1));
}

/// Patches 0004 and 0031: a flag raised by another thread while a loop of chained blocks runs
/// (endgate's preemption timer, a signal), with the exit request set after it, stops the loop
/// at a block start.
#[test]
fn stop_flag_from_another_thread_stops_a_chained_loop() {
    use std::sync::atomic::Ordering;
    let code = [ADD_X4_1, B_MINUS_4];
    let mut uc = engine(&code);
    let (flags, kick) = stop_flags(&uc);
    let raiser = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        flags[1].store(1, Ordering::SeqCst);
        kick.store(1, Ordering::SeqCst);
    });
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    raiser.join().unwrap();
    assert!(reg(&uc, RegisterARM64::X4) > 1000, "the loop ran");
    let pc = reg(&uc, RegisterARM64::PC);
    assert!(pc == CODE || pc == CODE + 4, "pc {pc:#x} is not a block start of the loop");
    flags[1].store(0, Ordering::SeqCst);
}

/// Patch 0005: with the virtual TLB, a MIPS `ll`/`sc` pair works on memory the CPU's own TLB
/// has no entry for (endgate never fills it); unpatched, `ll` raised a TLB refill exception.
/// Encodings from the MIPS64 ISA manual (LL 0x30, SC 0x38, ADDIU 0x09), little-endian.
#[test]
fn mips_ll_sc_with_the_virtual_tlb() {
    const LL_T0_A0: u32 = 0xc088_0000; // ll $t0, 0($a0)
    const ADDIU_T0_1: u32 = 0x2508_0001; // addiu $t0, $t0, 1
    const SC_T0_A0: u32 = 0xe088_0000; // sc $t0, 0($a0)
    const MIPS_NOP: u32 = 0;
    let code = [LL_T0_A0, ADDIU_T0_1, SC_T0_A0, MIPS_NOP];
    let mut uc = Unicorn::new(Arch::MIPS, Mode::MIPS64 | Mode::LITTLE_ENDIAN).expect("mips64el engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    uc.add_tlb_hook(0, u64::MAX, |_, va, _| Some(TlbEntry { paddr: va, perms: Prot::ALL })).unwrap();
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_map(DATA, 0x1000, Prot::ALL).unwrap();
    let bytes: Vec<u8> = code.iter().flat_map(|insn| insn.to_le_bytes()).collect();
    uc.mem_write(CODE, &bytes).unwrap();
    uc.mem_write(DATA, &41u32.to_le_bytes()).unwrap();
    uc.reg_write(RegisterMIPS::A0, DATA).unwrap();
    // endgate's Status (arch/mips64el): kernel mode with ERL clear (at reset ERL is set, which
    // leaves the user segment unmapped and untranslated), 64-bit addressing (KX, SX, UX).
    uc.reg_write(RegisterMIPS::CP0_STATUS, (1 << 7) | (1 << 6) | (1 << 5)).unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    let mut word = [0u8; 4];
    uc.mem_read(DATA, &mut word).unwrap();
    assert_eq!(u32::from_le_bytes(word), 42, "the store-conditional did not store");
    assert_eq!(uc.reg_read(RegisterMIPS::T0).unwrap(), 1, "sc reports failure");
}

/// A page of host memory that several engines map (`mem_map_ptr`), freed on drop.
struct SharedPage(*mut u8);

// SAFETY: the page is plain memory; the engines access it with atomics (or not: the serial
// control run only counts the damage).
unsafe impl Send for SharedPage {}
// SAFETY: as for Send: shared plain memory, nothing else in the value.
unsafe impl Sync for SharedPage {}

impl SharedPage {
    fn new() -> SharedPage {
        // SAFETY: a fresh anonymous page.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                0x1000,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        SharedPage(p.cast())
    }

    fn word(&self) -> u64 {
        self.word_at(0)
    }

    fn word_at(&self, offset: usize) -> u64 {
        assert!(offset % 8 == 0 && offset < 0x1000);
        // SAFETY: inside the page, aligned; the page lives until drop; the engines have stopped.
        unsafe { std::ptr::read_volatile(self.0.add(offset).cast::<u64>()) }
    }
}

impl Drop for SharedPage {
    fn drop(&mut self) {
        // SAFETY: mapped in `new`, unmapped once.
        unsafe { libc::munmap(self.0.cast(), 0x1000) };
    }
}

/// Runs `code` on `threads` engines at once, one per host thread, each with the shared page at
/// DATA (its first word the counter) and `setup` to set its registers; returns the word.
fn race(
    arch: Arch,
    mode: Mode,
    code: &[u8],
    threads: usize,
    parallel: bool,
    setup: fn(&mut Unicorn<'static, ()>),
) -> u64 {
    race_page(arch, mode, code, threads, parallel, setup).word()
}

/// [`race`], returning the shared page.
fn race_page(
    arch: Arch,
    mode: Mode,
    code: &[u8],
    threads: usize,
    parallel: bool,
    setup: fn(&mut Unicorn<'static, ()>),
) -> std::sync::Arc<SharedPage> {
    let page = std::sync::Arc::new(SharedPage::new());
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (page, barrier, code) = (page.clone(), barrier.clone(), code.to_vec());
            std::thread::spawn(move || {
                let mut uc = Unicorn::new(arch, mode).expect("engine");
                if parallel {
                    // SAFETY: a live engine, not running.
                    let r: Result<(), uc_error> =
                        unsafe { unicorn_engine::uc_set_parallel(uc.get_handle(), true) }.into();
                    r.unwrap();
                }
                uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
                uc.mem_write(CODE, &code).unwrap();
                // SAFETY: the page outlives the engine (the Arc is held until the thread ends).
                unsafe { uc.mem_map_ptr(DATA, 0x1000, Prot::ALL, page.0.cast()) }.unwrap();
                setup(&mut uc);
                barrier.wait();
                uc.emu_start(CODE, CODE + code.len() as u64, 0, 0).unwrap();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    page
}

const RACE_THREADS: usize = 4;
const RACE_ROUNDS: u64 = 250_000;

/// Patch 0006: in parallel mode, aarch64 LDXR/STXR increments from four engines on four host
/// threads over one shared word lose nothing (serially translated, they lose many: the
/// exclusive pair is a plain load and compare-and-store then).
#[test]
fn parallel_mode_keeps_aarch64_exclusives_atomic() {
    const LOOP: [u32; 6] = [
        0xc85f_7c01, // ldxr x1, [x0]
        0x9100_0421, // add x1, x1, #1
        0xc802_7c01, // stxr w2, x1, [x0]
        0x35ff_ffa2, // cbnz w2, <ldxr>
        0xf100_04a5, // subs x5, x5, #1
        0x54ff_ff61, // b.ne <ldxr>
    ];
    let code: Vec<u8> = LOOP.iter().flat_map(|i| i.to_le_bytes()).collect();
    fn setup(uc: &mut Unicorn<'static, ()>) {
        uc.reg_write(RegisterARM64::X0, DATA).unwrap();
        uc.reg_write(RegisterARM64::X5, RACE_ROUNDS).unwrap();
    }
    let total = race(Arch::ARM64, Mode::ARM, &code, RACE_THREADS, true, setup);
    assert_eq!(total, RACE_THREADS as u64 * RACE_ROUNDS);
}

/// Patch 0006: the same for x86-64 `lock inc qword [rdi]`.
#[test]
fn parallel_mode_keeps_x86_lock_atomic() {
    // lock inc qword [rdi]; dec rcx; jnz <lock>
    let code = [0xf0, 0x48, 0xff, 0x07, 0x48, 0xff, 0xc9, 0x75, 0xf7];
    fn setup(uc: &mut Unicorn<'static, ()>) {
        uc.reg_write(unicorn_engine::RegisterX86::RDI, DATA).unwrap();
        uc.reg_write(unicorn_engine::RegisterX86::RCX, RACE_ROUNDS).unwrap();
    }
    let total = race(Arch::X86, Mode::MODE_64, &code, RACE_THREADS, true, setup);
    assert_eq!(total, RACE_THREADS as u64 * RACE_ROUNDS);
}

/// Patch 0006: an atomic the host cannot do as one atomic operation (a misaligned x86
/// `lock inc`: TCG's atomic helpers then ask for EXCP_ATOMIC) runs alone, without CF_PARALLEL,
/// and completes (unpatched, the engine would raise it again at once, forever).
#[test]
fn parallel_mode_runs_an_exclusive_step() {
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86-64 engine");
    // SAFETY: a live engine, not running.
    let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_set_parallel(uc.get_handle(), true) }.into();
    r.unwrap();
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_map(DATA, 0x1000, Prot::ALL).unwrap();
    // lock inc qword [rdi]; lock inc qword [rdi]
    let code = [0xf0, 0x48, 0xff, 0x07, 0xf0, 0x48, 0xff, 0x07];
    uc.mem_write(CODE, &code).unwrap();
    uc.mem_write(DATA + 6, &u64::MAX.to_le_bytes()).unwrap();
    uc.reg_write(unicorn_engine::RegisterX86::RDI, DATA + 6).unwrap();
    // A bound (5 s, in microseconds) so that a regression fails instead of hanging.
    uc.emu_start(CODE, CODE + code.len() as u64, 5_000_000, 0).unwrap();
    assert_eq!(uc.reg_read(unicorn_engine::RegisterX86::RIP).unwrap(), CODE + code.len() as u64, "did not finish");
    let mut b = [0u8; 8];
    uc.mem_read(DATA + 6, &mut b).unwrap();
    assert_eq!(u64::from_le_bytes(b), 1);
}

/// Patch 0008: x86 `xchg` with memory (always locked) is one host atomic exchange in parallel
/// mode: four engines take a spinlock made of it and increment a plain counter under it, and no
/// increment is lost (unicorn's helper was a plain load and store, so two engines took the
/// lock at once).
#[test]
fn parallel_mode_keeps_x86_xchg_atomic() {
    let code = [
        0xb8, 0x01, 0x00, 0x00, 0x00, // spin: mov eax, 1
        0x87, 0x47, 0x08, // xchg [rdi+8], eax
        0x85, 0xc0, // test eax, eax
        0x75, 0xf4, // jnz spin
        0x48, 0xff, 0x07, // inc qword [rdi] (not locked: the spinlock protects it)
        0xc7, 0x47, 0x08, 0x00, 0x00, 0x00, 0x00, // mov dword [rdi+8], 0
        0x48, 0xff, 0xc9, // dec rcx
        0x75, 0xe5, // jnz spin
    ];
    fn setup(uc: &mut Unicorn<'static, ()>) {
        uc.reg_write(unicorn_engine::RegisterX86::RDI, DATA).unwrap();
        uc.reg_write(unicorn_engine::RegisterX86::RCX, RACE_ROUNDS / 5).unwrap();
    }
    let total = race(Arch::X86, Mode::MODE_64, &code, RACE_THREADS, true, setup);
    assert_eq!(total, RACE_THREADS as u64 * (RACE_ROUNDS / 5));
}

/// Patch 0008: x86 `xchg` with memory passes tokens without losing or doubling one: four
/// engines each exchange their own distinct tokens (1, 2, 3, … across all engines) into one
/// word and add up what they get back; what they got back plus the word's final value must be
/// the sum of every token. With unicorn's plain load and store, two engines could read the
/// same old token and both store theirs, one of which was then never seen.
#[test]
fn parallel_mode_x86_xchg_conserves_tokens() {
    let t = u8::try_from(RACE_THREADS).expect("a few threads");
    let code = [
        0xbb, 0x01, 0x00, 0x00, 0x00, // mov ebx, 1
        0xf0, 0x48, 0x0f, 0xc1, 0x5f, 0x10, // lock xadd [rdi+16], rbx (rbx = this engine's index)
        0x48, 0xff, 0xc3, // inc rbx (first token)
        0x45, 0x31, 0xc0, // xor r8d, r8d
        0x48, 0x89, 0xd8, // loop: mov rax, rbx
        0x48, 0x87, 0x07, // xchg [rdi], rax
        0x49, 0x01, 0xc0, // add r8, rax
        0x48, 0x83, 0xc3, t, // add rbx, THREADS (the next token of this engine)
        0x48, 0xff, 0xc9, // dec rcx
        0x75, 0xee, // jnz loop
        0xf0, 0x4c, 0x01, 0x47, 0x08, // lock add [rdi+8], r8
    ];
    fn setup(uc: &mut Unicorn<'static, ()>) {
        uc.reg_write(unicorn_engine::RegisterX86::RDI, DATA).unwrap();
        uc.reg_write(unicorn_engine::RegisterX86::RCX, RACE_ROUNDS).unwrap();
    }
    let page = race_page(Arch::X86, Mode::MODE_64, &code, RACE_THREADS, true, setup);
    let tokens = RACE_THREADS as u64 * RACE_ROUNDS;
    assert_eq!(page.word_at(16), RACE_THREADS as u64, "every engine ran");
    assert_eq!(page.word() + page.word_at(8), tokens * (tokens + 1) / 2, "a token was lost or doubled");
}

/// Patch 0008: s390x `laag` (load and add, a big-endian fetch-and-add: on a little-endian host
/// unicorn's helper was a plain read-modify-write loop) from four engines loses nothing.
#[test]
fn parallel_mode_keeps_s390x_load_and_add_atomic() {
    let code = [
        0xeb, 0x14, 0x20, 0x00, 0x00, 0xe8, // laag %r1, %r4, 0(%r2)
        0xa7, 0x37, 0xff, 0xfd, // brctg %r3, <laag>
    ];
    fn setup(uc: &mut Unicorn<'static, ()>) {
        uc.reg_write(unicorn_engine::RegisterS390X::R2, DATA).unwrap();
        uc.reg_write(unicorn_engine::RegisterS390X::R3, RACE_ROUNDS).unwrap();
        uc.reg_write(unicorn_engine::RegisterS390X::R4, 1).unwrap();
    }
    let total = race(Arch::S390X, Mode::BIG_ENDIAN, &code, RACE_THREADS, true, setup);
    // The guest's doubleword is big-endian in memory.
    assert_eq!(u64::from_be(total), RACE_THREADS as u64 * RACE_ROUNDS);
}

/// Runs `lock inc qword [rdi]` twice on a parallel-mode x86-64 engine with RDI = DATA + `at`,
/// counting the exclusive-step callback's calls (and checking they alternate start, end);
/// returns the calls and the qword's final value.
fn two_locked_incs(at: u64) -> (u32, u64) {
    use std::sync::atomic::{AtomicU32, Ordering};
    static CALLS: AtomicU32 = AtomicU32::new(0);
    static INSIDE: AtomicU32 = AtomicU32::new(0);
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    unsafe extern "C" fn cb(_uc: *mut unicorn_engine::uc_engine, start: bool, _o: *mut std::ffi::c_void) {
        CALLS.fetch_add(1, Ordering::SeqCst);
        if start {
            assert_eq!(INSIDE.swap(1, Ordering::SeqCst), 0);
        } else {
            assert_eq!(INSIDE.swap(0, Ordering::SeqCst), 1);
        }
    }
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    CALLS.store(0, Ordering::SeqCst);
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86-64 engine");
    // SAFETY: a live engine, not running; the callback never unwinds on this path (the
    // asserts hold, checked by the counts below).
    let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_set_parallel(uc.get_handle(), true) }.into();
    r.unwrap();
    // SAFETY: as above.
    let r: Result<(), uc_error> =
        unsafe { unicorn_engine::uc_set_exclusive_cb(uc.get_handle(), Some(cb), std::ptr::null_mut()) }.into();
    r.unwrap();
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_map(DATA, 0x1000, Prot::ALL).unwrap();
    // lock inc qword [rdi]; lock inc qword [rdi]
    let code = [0xf0, 0x48, 0xff, 0x07, 0xf0, 0x48, 0xff, 0x07];
    uc.mem_write(CODE, &code).unwrap();
    uc.reg_write(unicorn_engine::RegisterX86::RDI, DATA + at).unwrap();
    uc.emu_start(CODE, CODE + code.len() as u64, 5_000_000, 0).unwrap();
    let mut b = [0u8; 8];
    uc.mem_read(DATA + at, &mut b).unwrap();
    assert_eq!(INSIDE.load(Ordering::SeqCst), 0);
    (CALLS.load(Ordering::SeqCst), u64::from_le_bytes(b))
}

/// Patch 0009: each serial step of parallel mode (here two `lock inc` of a qword that crosses
/// a cache line, which patch 0047 leaves to serial steps) is bracketed by the exclusive-step
/// callback: one start and one end call per step, in that order.
#[test]
fn exclusive_step_callback_brackets_each_step() {
    let (calls, value) = two_locked_incs(60);
    assert_eq!(value, 2);
    assert_eq!(calls, 4, "two steps, each with a start and an end call");
}

/// Patch 0047: a misaligned locked qword inside one cache line is one host atomic, with no
/// serial step.
#[test]
fn misaligned_lock_inside_a_cache_line_needs_no_serial_step() {
    let (calls, value) = two_locked_incs(6);
    assert_eq!(value, 2);
    assert_eq!(calls, 0, "no exclusive step");
}

/// Patch 0047: four engines' misaligned `lock add` on one qword inside a cache line (bytes 6 to
/// 13 of the shared page) lose no increment: the host's locked add is atomic there.
#[test]
fn parallel_mode_keeps_misaligned_x86_lock_add_atomic() {
    let code = [
        0xf0, 0x48, 0x83, 0x47, 0x06, 0x01, // loop: lock add qword [rdi+6], 1
        0x48, 0xff, 0xc9, // dec rcx
        0x75, 0xf5, // jnz loop
    ];
    fn setup(uc: &mut Unicorn<'static, ()>) {
        uc.reg_write(unicorn_engine::RegisterX86::RDI, DATA).unwrap();
        uc.reg_write(unicorn_engine::RegisterX86::RCX, RACE_ROUNDS).unwrap();
    }
    let page = race_page(Arch::X86, Mode::MODE_64, &code, RACE_THREADS, true, setup);
    // The qword at byte 6 straddles the page's first two aligned words.
    let total = (page.word_at(0) >> 48) | (page.word_at(8) << 16);
    assert_eq!(total, RACE_THREADS as u64 * RACE_ROUNDS);
}

/// Without parallel mode the same aarch64 race loses updates (what patch 0006 cures); checked
/// only as "never more than the total", since how many are lost depends on the host.
#[test]
fn serial_mode_race_never_counts_more() {
    const LOOP: [u32; 6] = [0xc85f_7c01, 0x9100_0421, 0xc802_7c01, 0x35ff_ffa2, 0xf100_04a5, 0x54ff_ff61];
    let code: Vec<u8> = LOOP.iter().flat_map(|i| i.to_le_bytes()).collect();
    fn setup(uc: &mut Unicorn<'static, ()>) {
        uc.reg_write(RegisterARM64::X0, DATA).unwrap();
        uc.reg_write(RegisterARM64::X5, RACE_ROUNDS).unwrap();
    }
    let total = race(Arch::ARM64, Mode::ARM, &code, RACE_THREADS, false, setup);
    assert!(total <= RACE_THREADS as u64 * RACE_ROUNDS);
    eprintln!("serial mode: {total} of {} increments kept", RACE_THREADS as u64 * RACE_ROUNDS);
}

/// Patch 0010: a TLB fill inside a Thumb-2 IT block leaves the IT state as the running block
/// keeps it. Unpatched, the fill's `cpu_restore_state` wrote the load's IT bits into the CPU
/// state, which the block never clears, so the next block ran its first four instructions as
/// the rest of that IT block (here the last `mov.w` was skipped: r2 = 3). Encodings from the
/// Arm ARM (Thumb: CMP T1, IT, LDRB T1, ADDS/SUBS T2, MOVS T1, B T2, MOV.W T2).
#[test]
fn tlb_fill_inside_an_it_block_keeps_the_it_state() {
    use unicorn_engine::RegisterARM;
    let code: [u16; 16] = [
        0x2800, // cmp r0, #0
        0xbf1d, // ittte ne
        0x7801, // ldrbne r1, [r0]
        0x3101, // addne r1, #1
        0x3901, // subne r1, #1
        0x2107, // moveq r1, #7
        0xe7ff, // b.n (next instruction): ends the block
        0xf04f, 0x0201, // mov.w r2, #1
        0xf04f, 0x0202, // mov.w r2, #2
        0xf04f, 0x0203, // mov.w r2, #3
        0xf04f, 0x0205, // mov.w r2, #5
        0xbf00, // nop
    ];
    let mut uc = Unicorn::new(Arch::ARM, Mode::THUMB).expect("arm engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    uc.add_tlb_hook(0, u64::MAX, |_, va, _| Some(TlbEntry { paddr: va, perms: Prot::ALL })).unwrap();
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_map(DATA, 0x1000, Prot::ALL).unwrap();
    let bytes: Vec<u8> = code.iter().flat_map(|h| h.to_le_bytes()).collect();
    uc.mem_write(CODE, &bytes).unwrap();
    uc.reg_write(RegisterARM::R0, DATA).unwrap();
    uc.reg_write(RegisterARM::R1, 99).unwrap();
    let end = CODE + 2 * (code.len() as u64 - 1);
    uc.emu_start(CODE | 1, end, 0, 0).unwrap();
    assert_eq!(uc.reg_read(RegisterARM::R1).unwrap(), 0, "the IT block's result");
    assert_eq!(uc.reg_read(RegisterARM::R2).unwrap(), 5, "an instruction after the IT block was skipped");
}

/// Patch 0011: x86-64's `syscall` reaches the hook without a search of the translated-block
/// tree: the hook still reads the `syscall`'s own address in RIP and the flags of the
/// instruction before it (the translator stores EIP and the lazy-flags state before the call),
/// and the block goes on after it with the hook's RAX and those flags.
#[test]
fn x86_syscall_hook_sees_exact_rip_and_flags() {
    use std::sync::{Arc, Mutex};
    use unicorn_engine::{RegisterX86, X86Insn};
    let code: [u8; 17] = [
        0x48, 0xc7, 0xc0, 0x05, 0x00, 0x00, 0x00, // mov rax, 5
        0x48, 0x83, 0xf8, 0x05, // cmp rax, 5 (ZF = 1)
        0x0f, 0x05, // syscall
        0x0f, 0x94, 0xc3, // setz bl
        0x90, // nop
    ];
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86_64 engine");
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_write(CODE, &code).unwrap();
    let seen = Arc::new(Mutex::new((0u64, 0u64)));
    let s = seen.clone();
    uc.add_insn_sys_hook(X86Insn::SYSCALL, 1, 0, move |uc| {
        let rip = uc.reg_read(RegisterX86::RIP).unwrap();
        let rflags = uc.reg_read(RegisterX86::RFLAGS).unwrap();
        *s.lock().unwrap() = (rip, rflags);
        uc.reg_write(RegisterX86::RAX, 60).unwrap();
    })
    .unwrap();
    uc.emu_start(CODE, CODE + code.len() as u64, 0, 0).unwrap();
    let (rip, rflags) = *seen.lock().unwrap();
    assert_eq!(rip, CODE + 11, "RIP in the hook is the syscall's address");
    assert_ne!(rflags & 0x40, 0, "ZF from the cmp before the syscall");
    assert_eq!(uc.reg_read(RegisterX86::RAX).unwrap(), 60);
    assert_eq!(uc.reg_read(RegisterX86::RBX).unwrap() & 0xff, 1, "setz after the syscall");
}

/// Host handler of SIGSEGV and SIGBUS for the direct-load tests: hands the fault to the engine
/// (`uc_direct_fault`, or `uc_helper_fault` for one in a C helper: no test's hook faults),
/// else restores the default (the fault runs again and ends the process).
extern "C" fn direct_fault_handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel's siginfo and ucontext for this SA_SIGINFO handler.
    if !unsafe {
        unicorn_engine::uc_direct_fault(info.cast(), ctx) || unicorn_engine::uc_helper_fault(info.cast(), ctx)
    } {
        // SAFETY: restoring the default disposition.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// Installs [`direct_fault_handler`] for SIGSEGV and SIGBUS, once per test process.
fn install_direct_fault_handler() {
    static HANDLER: std::sync::Once = std::sync::Once::new();
    HANDLER.call_once(|| {
        for sig in [libc::SIGSEGV, libc::SIGBUS] {
            // SAFETY: a zeroed sigaction with an SA_SIGINFO handler that never unwinds.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = direct_fault_handler as *const () as usize;
                sa.sa_flags = libc::SA_SIGINFO;
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
        }
    });
}

/// A guest address as an offset from the direct-load base.
fn host_off(guest: u64) -> usize {
    usize::try_from(guest).expect("a 32-bit guest address")
}

/// An arm engine with direct loads (patch 0012) over a fresh 4 GiB + 64 KiB host reservation:
/// code at CODE (`ldr r1, [r0]; ldr r2, [r3]; nop`), a readable data page at DATA holding
/// 0x1234_5678, and a page at DATA + 0x1000 that is `PROT_NONE` on the host. The TLB hook
/// allows everything but that page, for which it calls `second`; it counts its fills of DATA
/// in the returned cell.
fn direct_engine(
    second: impl Fn() -> bool + 'static,
) -> (Unicorn<'static, ()>, *mut u8, std::rc::Rc<std::cell::Cell<u32>>) {
    use unicorn_engine::RegisterARM;
    install_direct_fault_handler();
    let span = (1usize << 32) + (64 << 10);
    // SAFETY: a fresh reservation; the test owns it (leaked: engines may outlive the test body).
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    assert_ne!(base, libc::MAP_FAILED);
    let base = base.cast::<u8>();
    // SAFETY: the code and data pages inside the reservation become readable and writable.
    unsafe {
        assert_eq!(libc::mprotect(base.add(host_off(CODE)).cast(), 0x1000, libc::PROT_READ | libc::PROT_WRITE), 0);
        assert_eq!(libc::mprotect(base.add(host_off(DATA)).cast(), 0x1000, libc::PROT_READ | libc::PROT_WRITE), 0);
        let code: [u32; 3] = [0xe590_1000, 0xe593_2000, 0xe320_f000]; // ldr r1, [r0]; ldr r2, [r3]; nop
        std::ptr::copy_nonoverlapping(code.as_ptr().cast::<u8>(), base.add(host_off(CODE)), 12);
        base.add(host_off(DATA)).cast::<u32>().write(0x1234_5678);
    }
    let mut uc = Unicorn::new(Arch::ARM, Mode::ARM).expect("arm engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    let data_fills = std::rc::Rc::new(std::cell::Cell::new(0));
    let counter = data_fills.clone();
    uc.add_tlb_hook(0, u64::MAX, move |_, va, _| {
        if va == DATA {
            counter.set(counter.get() + 1);
        }
        (va != DATA + 0x1000 || second()).then_some(TlbEntry { paddr: va, perms: Prot::ALL })
    })
    .unwrap();
    // SAFETY: the reservation outlives the engine (never unmapped).
    unsafe { uc.mem_map_ptr(0, 1 << 32, Prot::ALL, base.cast()) }.unwrap();
    // SAFETY: a live engine; `base..base+span` is guest memory whose host protection says what
    // the guest may read.
    let r: Result<(), uc_error> =
        unsafe { unicorn_engine::uc_set_direct_base(uc.get_handle(), base as u64, span as u64) }.into();
    r.unwrap();
    uc.reg_write(RegisterARM::R0, DATA).unwrap();
    uc.reg_write(RegisterARM::R3, DATA + 0x1000).unwrap();
    (uc, base, data_fills)
}

/// Patch 0012: loads read host memory without the TLB (no fill for the data page); a direct
/// load from a page the host refuses asks the TLB fill; refused, the guest stops at that load
/// (its PC, the registers of the instructions before it), as a refused TLB fill does without
/// direct loads.
#[test]
fn direct_load_refused_by_the_fill_stops_at_the_load() {
    use unicorn_engine::RegisterARM;
    let (mut uc, _, data_fills) = direct_engine(|| false);
    let r = uc.emu_start(CODE, CODE + 12, 0, 0);
    assert_eq!(r, Err(uc_error::EXCEPTION), "the refused load raises");
    assert_eq!(uc.reg_read(RegisterARM::PC).unwrap(), CODE + 4, "stopped at the second load");
    assert_eq!(uc.reg_read(RegisterARM::R1).unwrap(), 0x1234_5678, "the first load ran");
    assert_eq!(data_fills.get(), 0, "the first load read host memory without a TLB fill");
}

/// Patch 0012: a direct load from a page the host refuses but the fill allows (the fill has
/// just made the host page, as for stack growth) runs again and reads the page.
#[test]
fn direct_load_allowed_by_the_fill_runs_again() {
    use unicorn_engine::RegisterARM;
    let page = std::rc::Rc::new(std::cell::Cell::new(std::ptr::null_mut::<u8>()));
    let p = page.clone();
    let (mut uc, base, _) = direct_engine(move || {
        // SAFETY: the page inside the test's reservation becomes readable, holding a value.
        unsafe {
            let host = p.get().add(host_off(DATA + 0x1000));
            assert_eq!(libc::mprotect(host.cast(), 0x1000, libc::PROT_READ | libc::PROT_WRITE), 0);
            host.cast::<u32>().write(0xabcd);
        }
        true
    });
    page.set(base);
    uc.emu_start(CODE, CODE + 12, 0, 0).unwrap();
    assert_eq!(uc.reg_read(RegisterARM::R2).unwrap(), 0xabcd, "the load ran again and read the new page");
}

/// Patch 0046: a host fault inside one of the engine's C helpers (here x86's bulk `rep movsb`,
/// patch 0035, whose `memmove` writes a shared file's page after the file was truncated under
/// it) goes back to the engine as a fault of the instruction that called the helper: the TLB
/// fill is asked about the guest address, and its refusal stops the guest at the `rep movsb`
/// with the registers it had before it (a host SIGBUS, not the end of the process).
#[test]
fn helper_fault_stops_at_the_instruction_that_called_the_helper() {
    use unicorn_engine::RegisterX86;
    install_direct_fault_handler();
    const FILE_PAGE: u64 = DATA + 0x1000;
    let span = (1usize << 32) + (64 << 10);
    let base = reserve(span);
    // SAFETY: the code and data pages inside the fresh reservation become readable and
    // writable; a one-page memfd is mapped shared over FILE_PAGE inside it.
    let fd = unsafe {
        for page in [CODE, DATA] {
            assert_eq!(libc::mprotect(base.add(host_off(page)).cast(), 0x1000, libc::PROT_READ | libc::PROT_WRITE), 0);
        }
        // rep movsb; nop
        std::ptr::copy_nonoverlapping([0xf3u8, 0xa4, 0x90].as_ptr(), base.add(host_off(CODE)), 3);
        std::ptr::write_bytes(base.add(host_off(DATA)), 0x5a, 0x1000);
        let fd = libc::memfd_create(c"helper-fault".as_ptr(), 0);
        assert!(fd >= 0);
        assert_eq!(libc::ftruncate(fd, 0x1000), 0);
        let m = libc::mmap(
            base.add(host_off(FILE_PAGE)).cast(),
            0x1000,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd,
            0,
        );
        assert_eq!(m, base.add(host_off(FILE_PAGE)).cast());
        fd
    };
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_32).expect("i386 engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    let truncated = std::rc::Rc::new(std::cell::Cell::new(false));
    let refused = std::rc::Rc::new(std::cell::Cell::new(0u32));
    let (t, r) = (truncated.clone(), refused.clone());
    uc.add_tlb_hook(0, u64::MAX, move |_, va, _| {
        if va & !0xfff == FILE_PAGE && t.get() {
            r.set(r.get() + 1);
            return None;
        }
        Some(TlbEntry { paddr: va, perms: Prot::ALL })
    })
    .unwrap();
    // SAFETY: the reservation outlives the engine (never unmapped).
    unsafe { uc.mem_map_ptr(0, 1 << 32, Prot::ALL, base.cast()) }.unwrap();
    // SAFETY: a live engine; `base..base+span` is guest memory.
    let r: Result<(), uc_error> =
        unsafe { unicorn_engine::uc_set_direct_base(uc.get_handle(), base as u64, span as u64) }.into();
    r.unwrap();
    let copy = |uc: &mut Unicorn<'_, ()>| {
        uc.reg_write(RegisterX86::ESI, DATA).unwrap();
        uc.reg_write(RegisterX86::EDI, FILE_PAGE + 8).unwrap();
        uc.reg_write(RegisterX86::ECX, 64).unwrap();
        uc.emu_start(CODE, CODE + 3, 0, 0)
    };
    // The file reaches the page: the copy runs (and leaves the page's TLB entry behind).
    copy(&mut uc).unwrap();
    // SAFETY: the mapped file page.
    assert_eq!(unsafe { *base.add(host_off(FILE_PAGE + 8 + 63)) }, 0x5a, "the first copy wrote the file");
    assert_eq!(uc.reg_read(RegisterX86::ECX).unwrap(), 0);
    // Another process truncates the file: the page's host bytes are gone, its TLB entry is not.
    // SAFETY: the test's memfd.
    assert_eq!(unsafe { libc::ftruncate(fd, 0) }, 0);
    truncated.set(true);
    assert_eq!(copy(&mut uc), Err(uc_error::EXCEPTION), "the refused access raises");
    assert_eq!(refused.get(), 1, "the fill was asked once, about the file's page");
    assert_eq!(uc.reg_read(RegisterX86::EIP).unwrap(), CODE, "stopped at the rep movsb");
    assert_eq!(uc.reg_read(RegisterX86::ECX).unwrap(), 64, "no element counted as done");
    assert_eq!(uc.reg_read(RegisterX86::ESI).unwrap(), DATA);
}

/// Bytes of the direct stores' table below the direct base (patch 0019).
const STORE_TABLE: usize = 1 << 20;

/// An arm engine with direct loads and stores (patches 0012, 0019) over a fresh 4 GiB + 64 KiB
/// host reservation with the stores' table right below it. Code at CODE: `str r1, [r0]; str
/// r2, [r3]; nop`. DATA (r0) is a host-writable page whose table byte is 0xff; DATA2 (r3) is
/// host-writable with byte 0; DATA + 0x1000 is `PROT_NONE` on the host. The TLB hook allows
/// every page but DATA + 0x1000 and counts its fills of DATA and of DATA2 (returned).
#[allow(clippy::type_complexity)]
fn store_engine() -> (Unicorn<'static, ()>, *mut u8, std::rc::Rc<std::cell::Cell<(u32, u32)>>) {
    use unicorn_engine::RegisterARM;
    install_direct_fault_handler();
    const DATA2: u64 = DATA + 0x4000;
    let span = (1usize << 32) + (64 << 10);
    let table = reserve(STORE_TABLE + span);
    // SAFETY: pages inside the fresh reservation become readable and writable: the table, the
    // code page and the two data pages.
    let base = unsafe {
        assert_eq!(libc::mprotect(table.cast(), STORE_TABLE, libc::PROT_READ | libc::PROT_WRITE), 0);
        let base = table.add(STORE_TABLE);
        for page in [CODE, DATA, DATA2] {
            assert_eq!(libc::mprotect(base.add(host_off(page)).cast(), 0x1000, libc::PROT_READ | libc::PROT_WRITE), 0);
        }
        let code: [u32; 3] = [0xe580_1000, 0xe583_2000, 0xe320_f000]; // str r1, [r0]; str r2, [r3]; nop
        std::ptr::copy_nonoverlapping(code.as_ptr().cast::<u8>(), base.add(host_off(CODE)), 12);
        table.add(host_off(DATA >> 12)).write(0xff);
        base
    };
    let mut uc = Unicorn::new(Arch::ARM, Mode::ARM).expect("arm engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    let fills = std::rc::Rc::new(std::cell::Cell::new((0, 0)));
    let counter = fills.clone();
    uc.add_tlb_hook(0, u64::MAX, move |_, va, _| {
        let (d, d2) = counter.get();
        counter.set((d + u32::from(va == DATA), d2 + u32::from(va == DATA2)));
        (va != DATA + 0x1000).then_some(TlbEntry { paddr: va, perms: Prot::ALL })
    })
    .unwrap();
    // SAFETY: the reservation outlives the engine (never unmapped).
    unsafe { uc.mem_map_ptr(0, 1 << 32, Prot::ALL, base.cast()) }.unwrap();
    // SAFETY: a live engine; `base..base+span` is guest memory whose host protection says what
    // the guest may read, and the table below it says where it may store directly.
    unsafe {
        let r: Result<(), uc_error> =
            unicorn_engine::uc_set_direct_base(uc.get_handle(), base as u64, span as u64).into();
        r.unwrap();
        let r: Result<(), uc_error> = unicorn_engine::uc_set_direct_stores(uc.get_handle(), true).into();
        r.unwrap();
    }
    uc.reg_write(RegisterARM::R0, DATA).unwrap();
    uc.reg_write(RegisterARM::R1, 0x1111_2222).unwrap();
    uc.reg_write(RegisterARM::R2, 0x3333_4444).unwrap();
    uc.reg_write(RegisterARM::R3, DATA2).unwrap();
    (uc, base, fills)
}

/// Patch 0019: a store to a page whose table byte is 0xff writes host memory without the TLB
/// (no fill for it); a store to a page whose byte is 0 goes through the TLB (its fill is
/// asked) and lands too.
#[test]
fn direct_store_goes_straight_only_where_the_table_says() {
    let (mut uc, base, fills) = store_engine();
    uc.emu_start(CODE, CODE + 12, 0, 0).unwrap();
    // SAFETY: the two data pages inside the test's reservation, readable.
    let (d, d2) = unsafe {
        (base.add(host_off(DATA)).cast::<u32>().read(), base.add(host_off(DATA + 0x4000)).cast::<u32>().read())
    };
    assert_eq!((d, d2), (0x1111_2222, 0x3333_4444), "both stores landed");
    assert_eq!(fills.get(), (0, 1), "the first store went straight, the second through the TLB");
}

/// Patch 0019: a direct store that crosses from a page whose byte is 0xff into one the host
/// refuses (PROT_NONE) faults in the host; the TLB fill refuses the second page, and the guest
/// stops at that store with nothing of it written and the store before it done.
#[test]
fn direct_store_crossing_into_a_refused_page_stops_at_the_store() {
    use unicorn_engine::RegisterARM;
    let (mut uc, base, _) = store_engine();
    uc.reg_write(RegisterARM::R0, DATA + 0x100).unwrap();
    uc.reg_write(RegisterARM::R3, DATA + 0xffe).unwrap();
    // Unaligned word stores are allowed on this CPU (SCTLR.A clear).
    let r = uc.emu_start(CODE, CODE + 12, 0, 0);
    assert!(r.is_err(), "the refused store raises: {r:?}");
    assert_eq!(uc.reg_read(RegisterARM::PC).unwrap(), CODE + 4, "stopped at the second store");
    // SAFETY: the data page inside the test's reservation, readable.
    let (first, tail) = unsafe {
        (base.add(host_off(DATA + 0x100)).cast::<u32>().read(), base.add(host_off(DATA + 0xffe)).cast::<u16>().read())
    };
    assert_eq!(first, 0x1111_2222, "the first store ran");
    assert_eq!(tail, 0, "nothing of the crossing store was written");
}

/// `v` as a host size or offset (the tests run on 64-bit hosts).
fn us(v: u64) -> usize {
    usize::try_from(v).expect("a 64-bit host")
}

/// A fresh `PROT_NONE` host reservation of `len` bytes (leaked: engines may outlive the test
/// body).
fn reserve(len: usize) -> *mut u8 {
    // SAFETY: a fresh anonymous reservation the test owns.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    assert_ne!(p, libc::MAP_FAILED);
    p.cast()
}

/// Makes the host page at `p` readable and writable, holding `value` at its start.
fn open_page(p: *mut u8, value: u64) {
    // SAFETY: a page inside one of the test's reservations.
    unsafe {
        assert_eq!(libc::mprotect(p.cast(), 0x1000, libc::PROT_READ | libc::PROT_WRITE), 0);
        p.cast::<u64>().write(value);
    }
}

/// Granule of guest addresses the direct loads' table gives one host offset (patch 0013).
const GRANULE: u64 = 1 << 36;

/// Guest address in granule 5, whose window lies elsewhere in the host than granule 0's.
const FAR: u64 = 5 * GRANULE + 0x1000;

/// Guest address in granule 9, which has no window: its table entry points into the
/// `PROT_NONE` granule.
const EMPTY: u64 = 9 * GRANULE + 0x18;

/// An aarch64 engine with direct loads through a table (patch 0013): granule 0 (1 GiB of it
/// reserved) holds CODE and a readable DATA page (value 0x1111) and `PROT_NONE` DATA + 0x1000;
/// granule 5 (1 GiB reserved elsewhere) a readable page at FAR (value 0x5555); every other
/// granule points into a 64 GiB `PROT_NONE` reservation. The TLB hook maps granules 0 and 5
/// and, for addresses from 2^48 on, `HIGH + a` to `a`; it refuses the rest, and DATA + 0x1000
/// unless `second` says otherwise. It records every data address it is asked about.
fn table_engine(
    code: &[u32],
    second: impl Fn() -> bool + 'static,
) -> (Unicorn<'static, ()>, *mut u8, std::rc::Rc<std::cell::RefCell<Vec<u64>>>) {
    let (uc, low, asked, _) = table_engine_and_table(code, second);
    (uc, low, asked)
}

/// Guest memory reached through a table engine's recorded fill requests.
type Asked = std::rc::Rc<std::cell::RefCell<Vec<u64>>>;

/// [`table_engine`], also giving its table (the engine reads it while it runs: an entry may
/// change from the empty granules' offset to a window's, as `uc_set_direct_table` allows).
fn table_engine_and_table(
    code: &[u32],
    second: impl Fn() -> bool + 'static,
) -> (Unicorn<'static, ()>, *mut u8, Asked, &'static mut [u64]) {
    direct_engine(|| false); // installs the host fault handler once
    let low = reserve(1 << 30);
    let far = reserve(1 << 30);
    let none = reserve(us(GRANULE));
    // SAFETY: pages inside the reservations just made.
    unsafe {
        open_page(low.add(us(CODE)), 0);
        std::ptr::copy_nonoverlapping(code.as_ptr().cast::<u8>(), low.add(us(CODE)), code.len() * 4);
        open_page(low.add(us(DATA)), 0x1111);
        open_page(far.add(us(FAR - 5 * GRANULE)), 0x5555);
        open_page(far, 0x6666_6666_6666_6666);
    }
    // Granule 4's last page, followed in the host by a PROT_NONE page, not by granule 5.
    let edge = reserve(0x2000);
    open_page(edge, 0);
    // SAFETY: the page just opened.
    unsafe { edge.add(0xff8).cast::<u64>().write(0x4444_4444_4444_4444) };
    let mut table: Vec<u64> = (0..4096u64).map(|g| (none as u64).wrapping_sub(g * GRANULE)).collect();
    table[0] = low as u64;
    table[4] = (edge as u64).wrapping_sub(EDGE);
    table[5] = (far as u64).wrapping_sub(5 * GRANULE);
    let table = Box::leak(table.into_boxed_slice());
    let mut uc = Unicorn::new(Arch::ARM64, Mode::ARM).expect("aarch64 engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    let asked = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = asked.clone();
    uc.add_tlb_hook(0, u64::MAX, move |_, va, _| {
        if va != CODE {
            seen.borrow_mut().push(va);
        }
        let paddr = if va >= HIGH { va - HIGH } else { va };
        let mapped = paddr < 1 << 30 || (EDGE..5 * GRANULE + (1 << 30)).contains(&paddr);
        (mapped && (paddr != DATA + 0x1000 || second())).then_some(TlbEntry { paddr, perms: Prot::ALL })
    })
    .unwrap();
    // SAFETY: the reservations outlive the engine (never unmapped).
    unsafe {
        uc.mem_map_ptr(0, 1 << 30, Prot::ALL, low.cast()).unwrap();
        uc.mem_map_ptr(5 * GRANULE, 1 << 30, Prot::ALL, far.cast()).unwrap();
        uc.mem_map_ptr(EDGE, 0x1000, Prot::ALL, edge.cast()).unwrap();
    }
    // SAFETY: a live engine; the table (leaked) and the PROT_NONE granule outlive it, and the
    // host protection of every page it reaches says what the guest may read.
    let r: Result<(), uc_error> =
        unsafe { unicorn_engine::uc_set_direct_table(uc.get_handle(), table.as_ptr(), none as u64) }.into();
    r.unwrap();
    (uc, low, asked, table)
}

/// The last page of granule 4, whose window is a page of its own in the host, followed by a
/// `PROT_NONE` page (granule 5 lies elsewhere).
const EDGE: u64 = 5 * GRANULE - 0x1000;

/// Patch 0013: a load that runs from one granule into the next, whose windows do not meet in
/// the host, faults in the host page after the first window; the fill allows the guest address
/// past the boundary, and the load runs again through the TLB (however often it ran directly,
/// it would fault) and reads the bytes of both granules.
#[test]
fn direct_table_load_across_granules_apart_in_the_host() {
    // ldr x1, [x0]; ldr x2, [x0]; nop
    let code = [0xf940_0001, 0xf940_0002, 0xd503_201f];
    let (mut uc, _, _) = table_engine(&code, || false);
    uc.reg_write(RegisterARM64::X0, 5 * GRANULE - 4).unwrap();
    uc.emu_start(CODE, end_of(&code), 10_000_000, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::PC), end_of(&code), "ran to the end");
    assert_eq!(reg(&uc, RegisterARM64::X1), 0x6666_6666_4444_4444);
    assert_eq!(reg(&uc, RegisterARM64::X2), 0x6666_6666_4444_4444, "and the next load too");
}

/// An address from 2^48 on, which the table does not cover.
const HIGH: u64 = 1 << 48;

/// Patch 0013: each granule's loads read host memory at that granule's offset without a TLB
/// fill; an address from 2^48 on takes the TLB path (its fill is asked).
#[test]
fn direct_table_loads_read_each_granule_at_its_offset() {
    // ldr x1, [x0]; ldr x2, [x3]; ldr x4, [x5]; nop
    let code = [0xf940_0001, 0xf940_0062, 0xf940_00a4, 0xd503_201f];
    let (mut uc, _, asked) = table_engine(&code, || false);
    uc.reg_write(RegisterARM64::X0, DATA).unwrap();
    uc.reg_write(RegisterARM64::X3, FAR).unwrap();
    uc.reg_write(RegisterARM64::X5, HIGH + DATA).unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X1), 0x1111);
    assert_eq!(reg(&uc, RegisterARM64::X2), 0x5555);
    assert_eq!(reg(&uc, RegisterARM64::X4), 0x1111, "the high address read DATA through the TLB");
    let asked = asked.borrow();
    assert!(!asked.contains(&DATA) && !asked.contains(&FAR), "direct loads ask no fill: {asked:x?}");
    assert!(asked.contains(&(HIGH + DATA)), "the high address was filled: {asked:x?}");
}

/// Patch 0028: one load site used in turn on granules at different host offsets (its slot
/// holding the other granule's offset each time) reads each granule's bytes; no fill is asked
/// for any of it.
#[test]
fn direct_load_slot_follows_the_granule() {
    // ldr x1, [x0]; nop
    let code = [0xf940_0001, 0xd503_201f];
    let (mut uc, _, asked) = table_engine(&code, || false);
    for (addr, want) in [(DATA, 0x1111), (FAR, 0x5555), (DATA, 0x1111), (FAR, 0x5555), (FAR, 0x5555)] {
        uc.reg_write(RegisterARM64::X0, addr).unwrap();
        uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
        assert_eq!(reg(&uc, RegisterARM64::X1), want, "load from {addr:#x}");
    }
    assert!(asked.borrow().is_empty(), "direct loads ask no fill: {:x?}", asked.borrow());
}

/// Patch 0042: a slot never keeps a granule without a window. A load from one stops at the
/// load (through the TLB); once the granule has a window (its entry changed while the engine
/// lives, translations kept), the same load reads it directly, asking no fill.
#[test]
fn direct_load_slot_keeps_no_empty_granule() {
    // ldr x1, [x0]; nop
    let code = [0xf940_0001, 0xd503_201f];
    let (mut uc, _, asked, table) = table_engine_and_table(&code, || false);
    uc.reg_write(RegisterARM64::X0, EMPTY).unwrap();
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::EXCEPTION));
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE, "stopped at the load");
    assert_eq!(asked.borrow().as_slice(), &[EMPTY & !0xfff]);

    // Granule 9 gets a window (the fill still refuses it: a load asking it would stop).
    let nine = reserve(0x2000);
    open_page(nine, 0);
    // SAFETY: the page just opened.
    unsafe { nine.add(0x18).cast::<u64>().write(0x9999) };
    table[9] = (nine as u64).wrapping_sub(9 * GRANULE);
    for (addr, want) in [(EMPTY, 0x9999), (DATA, 0x1111), (EMPTY, 0x9999)] {
        uc.reg_write(RegisterARM64::X0, addr).unwrap();
        uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
        assert_eq!(reg(&uc, RegisterARM64::X1), want, "load from {addr:#x}");
    }
    assert_eq!(asked.borrow().as_slice(), &[EMPTY & !0xfff], "no fill asked once the window is there");
}

/// Patch 0013: a load from a granule without a window faults in the host's `PROT_NONE`
/// granule; the fill is asked about the guest address and, refusing, stops the guest at the
/// load.
#[test]
fn direct_table_load_from_an_empty_granule_stops_at_the_load() {
    // ldr x1, [x0]; ldr x6, [x7]; nop
    let code = [0xf940_0001, 0xf940_00e6, 0xd503_201f];
    let (mut uc, _, asked) = table_engine(&code, || false);
    uc.reg_write(RegisterARM64::X0, DATA).unwrap();
    uc.reg_write(RegisterARM64::X7, EMPTY).unwrap();
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::EXCEPTION));
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE + 4, "stopped at the second load");
    assert_eq!(reg(&uc, RegisterARM64::X1), 0x1111, "the first load ran");
    assert_eq!(asked.borrow().as_slice(), &[EMPTY & !0xfff], "the fill was asked about the guest page");
}

/// Patch 0013: a load from a page of a granule with a window that the host refuses asks the
/// fill: refused, the guest stops at the load; allowed (the fill made the page), it runs again.
#[test]
fn direct_table_load_refused_or_allowed_by_the_fill() {
    // ldr x1, [x0]; nop
    let code = [0xf940_0001, 0xd503_201f];
    let (mut uc, _, asked) = table_engine(&code, || false);
    uc.reg_write(RegisterARM64::X0, DATA + 0x1008).unwrap();
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::EXCEPTION));
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE);
    assert_eq!(asked.borrow().as_slice(), &[DATA + 0x1000]);

    let page = std::rc::Rc::new(std::cell::Cell::new(std::ptr::null_mut::<u8>()));
    let p = page.clone();
    let (mut uc, low, _) = table_engine(&code, move || {
        // SAFETY: a page of the test's reservation for granule 0.
        open_page(unsafe { p.get().add(us(DATA + 0x1000)) }, 0);
        // SAFETY: as above, now readable and writable.
        unsafe { p.get().add(us(DATA + 0x1008)).cast::<u64>().write(0xabcd) };
        true
    });
    page.set(low);
    uc.reg_write(RegisterARM64::X0, DATA + 0x1008).unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X1), 0xabcd, "the load ran again and read the new page");
}

/// Patch 0014: where the engine keeps register `id`, as `uc_reg_ptr` says (`None` when refused).
fn reg_ptr<D>(uc: &Unicorn<'_, D>, id: i32) -> Option<(*mut u8, usize)> {
    let mut ptr = std::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: a live handle; `ptr` and `size` are valid outputs.
    let r = unsafe { unicorn_engine::uc_reg_ptr(uc.get_handle(), id, &mut ptr, &mut size) };
    (r == uc_error::OK).then_some((ptr.cast(), size))
}

/// Patch 0014: on every engine endgate uses, each general-purpose register `uc_reg_ptr` serves
/// is the value `uc_reg_read` reads and `uc_reg_write` writes, at the width it gives; the
/// program counter and a flags register are refused (they are not plain storage).
#[test]
fn reg_ptr_is_the_register_on_every_engine() {
    use unicorn_engine::{RegisterARM, RegisterRISCV, RegisterS390X, RegisterX86};
    let x86_64: Vec<i32> = [
        RegisterX86::RAX,
        RegisterX86::RBX,
        RegisterX86::RCX,
        RegisterX86::RDX,
        RegisterX86::RSI,
        RegisterX86::RDI,
        RegisterX86::RBP,
        RegisterX86::RSP,
        RegisterX86::R8,
        RegisterX86::R15,
    ]
    .iter()
    .map(|&r| r as i32)
    .collect();
    let i386: Vec<i32> =
        [RegisterX86::EAX, RegisterX86::EBX, RegisterX86::ESP, RegisterX86::EDI].iter().map(|&r| r as i32).collect();
    /// Engine, mode, served registers, their width, refused registers.
    type Case = (Arch, Mode, Vec<i32>, usize, Vec<i32>);
    let cases: Vec<Case> = vec![
        (Arch::X86, Mode::MODE_64, x86_64, 8, vec![RegisterX86::RIP as i32, RegisterX86::RFLAGS as i32]),
        // The whole 8-byte register (32-bit code keeps its upper half zero): no 4-byte store
        // before the translated code's 8-byte load.
        (Arch::X86, Mode::MODE_32, i386, 8, vec![RegisterX86::EIP as i32, RegisterX86::RAX as i32]),
        (
            Arch::ARM,
            Mode::ARM,
            (0..=12)
                .map(|n| RegisterARM::R0 as i32 + n)
                .chain([RegisterARM::R13 as i32, RegisterARM::R14 as i32])
                .collect(),
            4,
            vec![RegisterARM::PC as i32, RegisterARM::CPSR as i32],
        ),
        (
            Arch::ARM64,
            Mode::ARM,
            (0..=28)
                .map(|n| RegisterARM64::X0 as i32 + n)
                .chain([RegisterARM64::X29 as i32, RegisterARM64::X30 as i32, RegisterARM64::SP as i32])
                .collect(),
            8,
            vec![RegisterARM64::PC as i32, RegisterARM64::NZCV as i32, RegisterARM64::W0 as i32],
        ),
        (
            Arch::RISCV,
            Mode::RISCV64,
            (1..=31).map(|n| RegisterRISCV::X0 as i32 + n).collect(),
            8,
            vec![RegisterRISCV::X0 as i32, RegisterRISCV::PC as i32],
        ),
        (
            Arch::MIPS,
            Mode(Mode::MIPS64.0 | Mode::LITTLE_ENDIAN.0),
            (1..=31).map(|n| RegisterMIPS::ZERO as i32 + n).collect(),
            8,
            vec![RegisterMIPS::ZERO as i32, RegisterMIPS::PC as i32, RegisterMIPS::HI as i32],
        ),
        (
            Arch::S390X,
            Mode::BIG_ENDIAN,
            (0..=15).map(|n| RegisterS390X::R0 as i32 + n).collect(),
            8,
            vec![RegisterS390X::PC as i32, RegisterS390X::PSWM as i32],
        ),
    ];
    for (arch, mode, served, width, refused) in cases {
        let mut uc = Unicorn::new(arch, mode).expect("engine");
        // The values the guest's registers hold: 32 bits on i386, in 8 bytes.
        let narrow = width == 4 || (arch == Arch::X86 && mode == Mode::MODE_32);
        let mask = if narrow { 0xffff_ffff } else { u64::MAX };
        for (i, &id) in served.iter().enumerate() {
            let (ptr, size) = reg_ptr(&uc, id).unwrap_or_else(|| panic!("{arch:?} register {id} refused"));
            assert_eq!(size, width, "{arch:?} register {id}");
            let a = 0x0102_0304_0506_0708u64.wrapping_mul(i as u64 + 3) & mask;
            uc.reg_write(id, a).unwrap();
            // SAFETY: the engine's storage of the register, `size` bytes, aligned; not running.
            let seen = unsafe {
                if size == 8 {
                    ptr.cast::<u64>().read()
                } else {
                    u64::from(ptr.cast::<u32>().read())
                }
            };
            assert_eq!(seen, a, "{arch:?} register {id}: written by uc_reg_write, read at the pointer");
            let b = !a & mask;
            // SAFETY: as above.
            unsafe {
                if size == 8 {
                    ptr.cast::<u64>().write(b)
                } else {
                    ptr.cast::<u32>().write(u32::try_from(b).expect("a 4-byte value"))
                }
            }
            assert_eq!(uc.reg_read(id).unwrap() & mask, b, "{arch:?} register {id}: written at the pointer");
        }
        for &id in &refused {
            assert!(reg_ptr(&uc, id).is_none(), "{arch:?} register {id} is not plain storage");
        }
    }
}

/// Patch 0014: a value written at RAX's pointer inside a `syscall` hook is what the code after
/// the `syscall` reads (the translator reloads the register after the hook), and RCX's pointer
/// there holds the value the code before set.
#[test]
fn reg_ptr_write_in_a_hook_reaches_the_guest() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use unicorn_engine::{RegisterX86, X86Insn};
    let code: [u8; 19] = [
        0x48, 0xc7, 0xc1, 0x2a, 0x00, 0x00, 0x00, // mov rcx, 42
        0x0f, 0x05, // syscall
        0x48, 0x89, 0xc3, // mov rbx, rax
        0x48, 0x83, 0xc3, 0x01, // add rbx, 1
        0x90, 0x90, 0x90, // nop
    ];
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86_64 engine");
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_write(CODE, &code).unwrap();
    let (rax, _) = reg_ptr(&uc, RegisterX86::RAX as i32).expect("rax");
    let (rcx, _) = reg_ptr(&uc, RegisterX86::RCX as i32).expect("rcx");
    let (rax, rcx) = (rax as usize, rcx as usize);
    let seen = Arc::new(AtomicU64::new(0));
    let s = seen.clone();
    uc.add_insn_sys_hook(X86Insn::SYSCALL, 1, 0, move |_| {
        // SAFETY: the engine's RAX and RCX, 8 bytes each; the engine waits for the hook.
        unsafe {
            s.store((rcx as *const u64).read(), Ordering::Relaxed);
            (rax as *mut u64).write(1000);
        }
    })
    .unwrap();
    uc.emu_start(CODE, CODE + 16, 0, 0).unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 42, "RCX at the hook");
    assert_eq!(uc.reg_read(RegisterX86::RBX).unwrap(), 1001, "the code after the hook read the hook's RAX");
}

/// Patch 0015: after `syscall` the block goes on to the next one through the lookup, not the
/// main loop; a stop the hook asks for still ends the run before the next instruction, with
/// RIP after the `syscall`, and a run without a stop goes on with the hook's RAX.
#[test]
fn x86_syscall_stop_from_the_hook_stops_before_the_next_block() {
    use unicorn_engine::{RegisterX86, X86Insn};
    let code: [u8; 16] = [
        0x0f, 0x05, // syscall
        0x48, 0xc7, 0xc3, 0x01, 0x00, 0x00, 0x00, // mov rbx, 1
        0x48, 0x01, 0xc3, // add rbx, rax
        0x90, 0x90, 0x90, 0x90, // nop
    ];
    for stop in [true, false] {
        let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86_64 engine");
        uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
        uc.mem_write(CODE, &code).unwrap();
        uc.add_insn_sys_hook(X86Insn::SYSCALL, 1, 0, move |uc| {
            uc.reg_write(RegisterX86::RAX, 41).unwrap();
            if stop {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, CODE + 12, 0, 0).unwrap();
        let (rip, rbx) = (uc.reg_read(RegisterX86::RIP).unwrap(), uc.reg_read(RegisterX86::RBX).unwrap());
        if stop {
            assert_eq!((rip, rbx), (CODE + 2, 0), "stopped after the syscall, before the mov");
        } else {
            assert_eq!((rip, rbx), (CODE + 12, 42), "ran on with the hook's RAX");
        }
    }
}

/// Patch 0016: aarch64 `svc` calls the interrupt hooks from a helper. The hook sees the
/// exception number and the PC after the `svc`; its register writes reach the next
/// instruction; a stop it asks for ends the run before that instruction; without an
/// interrupt hook the `svc` is still the exception that ends the run.
#[test]
fn aarch64_svc_runs_the_interrupt_hook_in_place() {
    use std::sync::{Arc, Mutex};
    const SVC_0: u32 = 0xd400_0001; // svc #0
    const MOV_X5_X0: u32 = 0xaa00_03e5; // mov x5, x0
    let code = [SVC_0, MOV_X5_X0, ADD_X4_1, NOP];
    for stop in [false, true] {
        let mut uc = engine(&code);
        uc.reg_write(RegisterARM64::X8, 172).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        uc.add_intr_hook(move |uc, intno| {
            let (pc, x8) = (uc.reg_read(RegisterARM64::PC).unwrap(), uc.reg_read(RegisterARM64::X8).unwrap());
            s.lock().unwrap().push((intno, pc, x8));
            uc.reg_write(RegisterARM64::X0, 4242).unwrap();
            if stop {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, end_of(&code) - 4, 0, 0).unwrap();
        // EXCP_SWI is 2 in QEMU's target/arm.
        assert_eq!(*seen.lock().unwrap(), vec![(2, CODE + 4, 172)], "one hook call, after the svc");
        if stop {
            assert_eq!(reg(&uc, RegisterARM64::PC), CODE + 4, "stopped before the mov");
            assert_eq!(reg(&uc, RegisterARM64::X5), 0);
        } else {
            assert_eq!(reg(&uc, RegisterARM64::X5), 4242, "the mov read the hook's x0");
            assert_eq!(reg(&uc, RegisterARM64::X4), 1);
        }
    }
    let mut uc = engine(&code);
    assert_eq!(uc.emu_start(CODE, end_of(&code) - 4, 0, 0), Err(uc_error::EXCEPTION), "no hook: the exception");
}

/// Patch 0017: riscv64 `ecall` calls the interrupt hooks from a helper. The hook sees the
/// exception number (8, `RISCV_EXCP_U_ECALL`) and the PC after the `ecall`; its a0 reaches the
/// next instruction; a stop it asks for ends the run before that instruction; without an
/// interrupt hook the `ecall` is still the exception that ends the run.
#[test]
fn riscv_ecall_runs_the_interrupt_hook_in_place() {
    use std::sync::{Arc, Mutex};
    use unicorn_engine::RegisterRISCV;
    const ECALL: u32 = 0x0000_0073;
    const MV_T0_A0: u32 = 0x0005_0293; // addi t0, a0, 0
    const ADDI_T1_1: u32 = 0x0013_0313; // addi t1, t1, 1
    const NOP_RV: u32 = 0x0000_0013;
    let code = [ECALL, MV_T0_A0, ADDI_T1_1, NOP_RV];
    let bytes: Vec<u8> = code.iter().flat_map(|i| i.to_le_bytes()).collect();
    let end = CODE + 12;
    let engine = || {
        let mut uc = Unicorn::new(Arch::RISCV, Mode::RISCV64).expect("riscv64 engine");
        uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).unwrap();
        uc.mem_write(CODE, &bytes).unwrap();
        uc.reg_write(RegisterRISCV::A7, 172).unwrap();
        uc
    };
    for stop in [false, true] {
        let mut uc = engine();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        uc.add_intr_hook(move |uc, intno| {
            let (pc, a7) = (uc.reg_read(RegisterRISCV::PC).unwrap(), uc.reg_read(RegisterRISCV::A7).unwrap());
            s.lock().unwrap().push((intno, pc, a7));
            uc.reg_write(RegisterRISCV::A0, 4242).unwrap();
            if stop {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, end, 0, 0).unwrap();
        assert_eq!(*seen.lock().unwrap(), vec![(8, CODE + 4, 172)], "one hook call, after the ecall");
        let (pc, t0) = (uc.reg_read(RegisterRISCV::PC).unwrap(), uc.reg_read(RegisterRISCV::T0).unwrap());
        if stop {
            assert_eq!((pc, t0), (CODE + 4, 0), "stopped before the mv");
        } else {
            assert_eq!(t0, 4242, "the mv read the hook's a0");
            assert_eq!(uc.reg_read(RegisterRISCV::T1).unwrap(), 1);
        }
    }
    let mut uc = engine();
    assert_eq!(uc.emu_start(CODE, end, 0, 0), Err(uc_error::EXCEPTION), "no hook: the exception");
}

/// Patch 0018: arm `svc` (ARM and Thumb) calls the interrupt hooks from a helper, as aarch64's
/// (0016): the hook sees `EXCP_SWI` and the PC after the `svc`, its r0 reaches the next
/// instruction, its stop ends the run before that instruction; a conditional `svc` whose
/// condition fails calls no hook; without a hook the `svc` ends the run with the exception.
#[test]
fn arm_svc_runs_the_interrupt_hook_in_place() {
    use std::sync::{Arc, Mutex};
    use unicorn_engine::RegisterARM;
    // ARM: svc #0; mov r5, r0; add r4, r4, #1; cmp r4, #1; svcne #0 (not taken); nop.
    const ARM: [u32; 6] = [0xef00_0000, 0xe1a0_5000, 0xe284_4001, 0xe354_0001, 0x1f00_0000, 0xe320_f000];
    let bytes: Vec<u8> = ARM.iter().flat_map(|i| i.to_le_bytes()).collect();
    let end = CODE + 20;
    let engine = || {
        let mut uc = Unicorn::new(Arch::ARM, Mode::ARM).expect("arm engine");
        uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).unwrap();
        uc.mem_write(CODE, &bytes).unwrap();
        uc.reg_write(RegisterARM::R7, 20).unwrap();
        uc
    };
    for stop in [false, true] {
        let mut uc = engine();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        uc.add_intr_hook(move |uc, intno| {
            let (pc, r7) = (uc.reg_read(RegisterARM::PC).unwrap(), uc.reg_read(RegisterARM::R7).unwrap());
            s.lock().unwrap().push((intno, pc, r7));
            uc.reg_write(RegisterARM::R0, 4242).unwrap();
            if stop {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, end, 0, 0).unwrap();
        // EXCP_SWI is 2 in QEMU's target/arm.
        assert_eq!(*seen.lock().unwrap(), vec![(2, CODE + 4, 20)], "one hook call, after the svc");
        let (pc, r5) = (uc.reg_read(RegisterARM::PC).unwrap(), uc.reg_read(RegisterARM::R5).unwrap());
        if stop {
            assert_eq!((pc, r5), (CODE + 4, 0), "stopped before the mov");
        } else {
            assert_eq!(r5, 4242, "the mov read the hook's r0");
            assert_eq!(uc.reg_read(RegisterARM::R4).unwrap(), 1);
        }
    }
    let mut uc = engine();
    assert_eq!(uc.emu_start(CODE, end, 0, 0), Err(uc_error::EXCEPTION), "no hook: the exception");
}

/// Patch 0020: mips64el `syscall` calls the interrupt hooks from a helper. The hook sees
/// `EXCP_SYSCALL` (17) and the PC after the `syscall` (unicorn's `next_pc`, where the exception
/// leaves it); its v0 reaches the next instruction; a stop it asks for ends the run before that
/// instruction; without an interrupt hook the `syscall` is still the exception that ends the run.
#[test]
fn mips_syscall_runs_the_interrupt_hook_in_place() {
    use std::sync::{Arc, Mutex};
    const SYSCALL: u32 = 0x0000_000c;
    const OR_T1_V0: u32 = 0x0040_4825; // or $t1, $v0, $zero
    const ADDIU_T2_1: u32 = 0x254a_0001; // addiu $t2, $t2, 1
    const MIPS_NOP: u32 = 0;
    let code = [SYSCALL, OR_T1_V0, ADDIU_T2_1, MIPS_NOP];
    let bytes: Vec<u8> = code.iter().flat_map(|i| i.to_le_bytes()).collect();
    let end = CODE + 12;
    let engine = || {
        let mut uc = Unicorn::new(Arch::MIPS, Mode::MIPS64 | Mode::LITTLE_ENDIAN).expect("mips64el engine");
        uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).unwrap();
        uc.mem_write(CODE, &bytes).unwrap();
        uc.reg_write(RegisterMIPS::V0, 5108).unwrap();
        uc
    };
    for stop in [false, true] {
        let mut uc = engine();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        uc.add_intr_hook(move |uc, intno| {
            let (pc, v0) = (uc.reg_read(RegisterMIPS::PC).unwrap(), uc.reg_read(RegisterMIPS::V0).unwrap());
            s.lock().unwrap().push((intno, pc, v0));
            uc.reg_write(RegisterMIPS::V0, 4242).unwrap();
            if stop {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, end, 0, 0).unwrap();
        assert_eq!(*seen.lock().unwrap(), vec![(17, CODE + 4, 5108)], "one hook call, after the syscall");
        let (pc, t1) = (uc.reg_read(RegisterMIPS::PC).unwrap(), uc.reg_read(RegisterMIPS::T1).unwrap());
        if stop {
            assert_eq!((pc, t1), (CODE + 4, 0), "stopped before the or");
        } else {
            assert_eq!(t1, 4242, "the or read the hook's v0");
            assert_eq!(uc.reg_read(RegisterMIPS::T2).unwrap(), 1);
        }
    }
    // A one-instruction run (endgate's single step, gdb's stepi) runs the syscall and its hook
    // and stops before the next instruction.
    let mut uc = engine();
    uc.add_intr_hook(|uc, _| uc.reg_write(RegisterMIPS::V0, 4242).unwrap()).unwrap();
    uc.emu_start(CODE, end, 0, 1).unwrap();
    assert_eq!(uc.reg_read(RegisterMIPS::PC).unwrap(), CODE + 4, "one step: after the syscall");
    assert_eq!((uc.reg_read(RegisterMIPS::V0).unwrap(), uc.reg_read(RegisterMIPS::T1).unwrap()), (4242, 0));
    let mut uc = engine();
    assert_eq!(uc.emu_start(CODE, end, 0, 0), Err(uc_error::EXCEPTION), "no hook: the exception");
    assert_eq!(uc.reg_read(RegisterMIPS::PC).unwrap(), CODE + 4, "no hook: pc after the syscall, as before");
}

/// Patch 0021: s390x `svc` calls the interrupt hooks from a helper. The hook sees `EXCP_SVC`
/// (2) with the PSW address still on the `svc` (where the exception leaves it, and where
/// endgate reads the svc number from) and moves it past the `svc`, as endgate's hook does; its
/// r2 and the condition code of the compare before the `svc` reach the next instructions; a
/// stop it asks for ends the run before them; without an interrupt hook the `svc` is still the
/// exception that ends the run.
#[test]
fn s390x_svc_runs_the_interrupt_hook_in_place() {
    use std::sync::{Arc, Mutex};
    use unicorn_engine::RegisterS390X;
    let code: [u8; 20] = [
        0xb9, 0x20, 0x00, 0x34, // cgr %r3, %r4 (1 < 2: cc 1)
        0x0a, 0x40, // svc 64
        0xb9, 0x04, 0x00, 0x52, // lgr %r5, %r2
        0xb2, 0x22, 0x00, 0x60, // ipm %r6 (cc into bits 28-29)
        0xa7, 0x7b, 0x00, 0x01, // aghi %r7, 1
        0x07, 0x00, // nopr
    ];
    let end = CODE + 18;
    let engine = || {
        let mut uc = Unicorn::new(Arch::S390X, Mode::BIG_ENDIAN).expect("s390x engine");
        // Writable as well, as the other s390x tests here map it: with a read-only page the
        // engine raises a program check at the first instruction, before any svc.
        uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
        uc.mem_write(CODE, &code).unwrap();
        uc.reg_write(RegisterS390X::R3, 1).unwrap();
        uc.reg_write(RegisterS390X::R4, 2).unwrap();
        uc
    };
    for stop in [false, true] {
        let mut uc = engine();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        uc.add_intr_hook(move |uc, intno| {
            let pc = uc.reg_read(RegisterS390X::PC).unwrap();
            s.lock().unwrap().push((intno, pc));
            uc.reg_write(RegisterS390X::PC, pc + 2).unwrap();
            uc.reg_write(RegisterS390X::R2, 4242).unwrap();
            if stop {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, end, 0, 0).unwrap();
        assert_eq!(*seen.lock().unwrap(), vec![(2, CODE + 4)], "one hook call, on the svc");
        let (pc, r5) = (uc.reg_read(RegisterS390X::PC).unwrap(), uc.reg_read(RegisterS390X::R5).unwrap());
        if stop {
            assert_eq!((pc, r5), (CODE + 6, 0), "stopped before the lgr");
        } else {
            assert_eq!(r5, 4242, "the lgr read the hook's r2");
            assert_eq!((uc.reg_read(RegisterS390X::R6).unwrap() >> 28) & 3, 1, "the cgr's condition code");
            assert_eq!(uc.reg_read(RegisterS390X::R7).unwrap(), 1);
        }
    }
    // A one-instruction run (gdb's stepi) from the svc runs it and its hook and stops before
    // the next instruction.
    let mut uc = engine();
    uc.add_intr_hook(|uc, _| {
        let pc = uc.reg_read(RegisterS390X::PC).unwrap();
        uc.reg_write(RegisterS390X::PC, pc + 2).unwrap();
        uc.reg_write(RegisterS390X::R2, 4242).unwrap();
    })
    .unwrap();
    uc.emu_start(CODE + 4, end, 0, 1).unwrap();
    assert_eq!(uc.reg_read(RegisterS390X::PC).unwrap(), CODE + 6, "one step: after the svc");
    assert_eq!((uc.reg_read(RegisterS390X::R2).unwrap(), uc.reg_read(RegisterS390X::R5).unwrap()), (4242, 0));
    let mut uc = engine();
    assert_eq!(uc.emu_start(CODE, end, 0, 0), Err(uc_error::EXCEPTION), "no hook: the exception");
    assert_eq!(uc.reg_read(RegisterS390X::PC).unwrap(), CODE + 4, "no hook: the psw on the svc, as before");
}

/// Patch 0030: an s390x `svc`'s interruption code and the length of the instruction that ran it
/// are registers (`UC_S390X_REG_SVC_CODE` 200, `UC_S390X_REG_SVC_ILEN` 201), through
/// `uc_reg_read` and `uc_reg_ptr` alike, for `svc I`, an `svc` run by `EX` (its `R1`'s low byte
/// ORed into the number) and by `EXRL`; the hook moves the PSW past the executing instruction
/// through `UC_S390X_REG_SVC_PSW_ADDR` (202), by the API or the pointer, and the code after each
/// runs once.
#[test]
fn s390x_svc_code_and_length_are_registers() {
    use std::sync::{Arc, Mutex};
    use unicorn_engine::RegisterS390X;
    const SVC_CODE: i32 = 200;
    const SVC_ILEN: i32 = 201;
    const SVC_PSW_ADDR: i32 = 202;
    let code: [u8; 28] = [
        0x0a, 0x40, // svc 64
        0xa7, 0x7b, 0x00, 0x01, // aghi %r7, 1
        0x44, 0x10, 0x40, 0x1a, // ex %r1, 0x1a(%r4): the svc 16 below, numbered 16 | r1's 5
        0xa7, 0x7b, 0x00, 0x01, // aghi %r7, 1
        0xc6, 0x00, 0x00, 0x00, 0x00, 0x06, // exrl %r0, .+12: the svc 16 below
        0xa7, 0x7b, 0x00, 0x01, // aghi %r7, 1
        0x07, 0x00, // nopr (the end)
        0x0a, 0x10, // svc 16, only executed
    ];
    let mut uc = Unicorn::new(Arch::S390X, Mode::BIG_ENDIAN).expect("s390x engine");
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_write(CODE, &code).unwrap();
    uc.reg_write(RegisterS390X::R1, 5).unwrap();
    uc.reg_write(RegisterS390X::R4, CODE).unwrap();
    let ptr = |uc: &Unicorn<'static, ()>, id: i32| {
        let (mut p, mut size) = (std::ptr::null_mut(), 0usize);
        // SAFETY: a live handle; `p` and `size` are valid outputs.
        let r = unsafe { unicorn_engine::uc_reg_ptr(uc.get_handle(), id, &mut p, &mut size) };
        assert_eq!(r, uc_error::OK, "register {id} has a pointer");
        (p, size)
    };
    let (code_p, code_size) = ptr(&uc, SVC_CODE);
    let (ilen_p, ilen_size) = ptr(&uc, SVC_ILEN);
    let (addr_p, addr_size) = ptr(&uc, SVC_PSW_ADDR);
    assert_eq!((code_size, ilen_size, addr_size), (4, 4, 8));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let (code_p, ilen_p, addr_p) = (code_p as usize, ilen_p as usize, addr_p as usize);
    uc.add_intr_hook(move |uc, intno| {
        let api = (uc.reg_read(SVC_CODE).unwrap(), uc.reg_read(SVC_ILEN).unwrap(), uc.reg_read(SVC_PSW_ADDR).unwrap());
        // SAFETY: the pointers `uc_reg_ptr` gave for this engine, read inside its hook.
        let direct = unsafe {
            (
                u64::from(std::ptr::read(code_p as *const u32)),
                u64::from(std::ptr::read(ilen_p as *const u32)),
                std::ptr::read(addr_p as *const u64),
            )
        };
        assert_eq!(api, direct, "the API and the pointers agree");
        assert_eq!(uc.reg_read(RegisterS390X::PC).unwrap(), api.2, "the PSW address is the PC");
        let mut v = s.lock().unwrap();
        let next = api.2 + api.1;
        if v.len() % 2 == 0 {
            uc.reg_write(SVC_PSW_ADDR, next).unwrap();
        } else {
            // SAFETY: as above; the hook ends the svc's block.
            unsafe { std::ptr::write(addr_p as *mut u64, next) };
        }
        v.push((intno, api.0, api.1, api.2 - CODE));
    })
    .unwrap();
    uc.emu_start(CODE, CODE + 24, 0, 0).unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(2, 64, 2, 0), (2, 0x15, 4, 6), (2, 0x10, 6, 14)],
        "(interrupt, code, length, PSW offset) of each svc"
    );
    assert_eq!(uc.reg_read(RegisterS390X::R7).unwrap(), 3, "the code after each svc ran once");
    assert_eq!(uc.reg_read(RegisterS390X::PC).unwrap(), CODE + 24);
}

/// Patch 0022: i386 `int $0x80` calls the interrupt hooks from a helper. The hook sees
/// interrupt 0x80 and EIP after the `int` (where the exception leaves it); its eax and the flags
/// of the compare before the `int` reach the next instructions; a stop it asks for ends the
/// run before them; without an interrupt hook the `int` is still the exception that ends the run.
#[test]
fn i386_int80_runs_the_interrupt_hook_in_place() {
    use std::sync::{Arc, Mutex};
    use unicorn_engine::RegisterX86;
    let code: [u8; 12] = [
        0x39, 0xc9, // cmp ecx, ecx (ZF = 1)
        0xcd, 0x80, // int $0x80
        0x89, 0xc2, // mov edx, eax
        0x0f, 0x94, 0xc3, // setz bl
        0x46, // inc esi
        0x90, // nop
        0x90, // nop
    ];
    let end = CODE + 10;
    let engine = || {
        let mut uc = Unicorn::new(Arch::X86, Mode::MODE_32).expect("i386 engine");
        uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).unwrap();
        uc.mem_write(CODE, &code).unwrap();
        uc.reg_write(RegisterX86::EAX, 20).unwrap();
        uc
    };
    for stop in [false, true] {
        let mut uc = engine();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        uc.add_intr_hook(move |uc, intno| {
            let (eip, eax) = (uc.reg_read(RegisterX86::EIP).unwrap(), uc.reg_read(RegisterX86::EAX).unwrap());
            s.lock().unwrap().push((intno, eip, eax));
            uc.reg_write(RegisterX86::EAX, 4242).unwrap();
            if stop {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, end, 0, 0).unwrap();
        assert_eq!(*seen.lock().unwrap(), vec![(0x80, CODE + 4, 20)], "one hook call, after the int");
        let (eip, edx) = (uc.reg_read(RegisterX86::EIP).unwrap(), uc.reg_read(RegisterX86::EDX).unwrap());
        if stop {
            assert_eq!((eip, edx), (CODE + 4, 0), "stopped before the mov");
        } else {
            assert_eq!(edx, 4242, "the mov read the hook's eax");
            assert_eq!(uc.reg_read(RegisterX86::BL).unwrap(), 1, "the cmp's zero flag");
            assert_eq!(uc.reg_read(RegisterX86::ESI).unwrap(), 1);
        }
    }
    // A one-instruction run (gdb's stepi) from the int runs it and its hook and stops before
    // the next instruction.
    let mut uc = engine();
    uc.add_intr_hook(|uc, _| uc.reg_write(RegisterX86::EAX, 4242).unwrap()).unwrap();
    uc.emu_start(CODE + 2, end, 0, 1).unwrap();
    assert_eq!(uc.reg_read(RegisterX86::EIP).unwrap(), CODE + 4, "one step: after the int");
    assert_eq!((uc.reg_read(RegisterX86::EAX).unwrap(), uc.reg_read(RegisterX86::EDX).unwrap()), (4242, 0));
    let mut uc = engine();
    assert_eq!(uc.emu_start(CODE, end, 0, 0), Err(uc_error::EXCEPTION), "no hook: the exception");
    assert_eq!(uc.reg_read(RegisterX86::EIP).unwrap(), CODE + 4, "no hook: eip after the int, as before");
}

/// Patch 0021: the exit that the s390x hook's PC write asks for is dropped after an `svc`, but
/// never a stop: `uc_emu_stop` from another thread (endgate's preemption and signal senders)
/// still ends a loop whose every iteration is an `svc` whose hook writes the PC, however it
/// falls on the hook.
#[test]
fn s390x_svc_loop_stops_from_another_thread() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use unicorn_engine::RegisterS390X;
    let code: [u8; 6] = [
        0x0a, 0x00, // svc 0
        0xa7, 0xf4, 0xff, 0xff, // j .-2 (brc 15 back to the svc)
    ];
    let mut uc = Unicorn::new(Arch::S390X, Mode::BIG_ENDIAN).expect("s390x engine");
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_write(CODE, &code).unwrap();
    let calls = Arc::new(AtomicU64::new(0));
    let c = calls.clone();
    uc.add_intr_hook(move |uc, _| {
        let pc = uc.reg_read(RegisterS390X::PC).unwrap();
        uc.reg_write(RegisterS390X::PC, pc + 2).unwrap();
        c.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    let handle = SendPtr(uc.get_handle());
    let stopper = std::thread::spawn(move || {
        let handle = handle;
        std::thread::sleep(std::time::Duration::from_millis(50));
        // SAFETY: as in stop_from_another_thread_ends_a_chained_loop.
        unsafe { unicorn_engine::uc_emu_stop(handle.0) };
    });
    let start = std::time::Instant::now();
    // The 10 s timeout only keeps a lost stop from hanging the test; the stop must come first.
    uc.emu_start(CODE, CODE + 0x100, 10_000_000, 0).unwrap();
    stopper.join().unwrap();
    assert!(start.elapsed() < std::time::Duration::from_secs(5), "the stop was lost");
    assert!(calls.load(Ordering::Relaxed) > 100, "the loop ran");
}

/// Patch 0023: a MIPS exception other than `syscall` reaches the interrupt hook with the PC on
/// the faulting instruction (a `teq` trap, `EXCP_TRAP`), not the instruction after the last
/// `syscall`; the `syscall` itself still reaches it with the PC after it.
#[test]
fn mips_exception_hook_sees_the_faulting_pc() {
    use std::sync::{Arc, Mutex};
    const SYSCALL: u32 = 0x0000_000c;
    const NOP: u32 = 0;
    const TEQ_ZERO_ZERO: u32 = 0x0000_0034;
    let code = [SYSCALL, NOP, TEQ_ZERO_ZERO, NOP];
    let bytes: Vec<u8> = code.iter().flat_map(|i| i.to_le_bytes()).collect();
    let mut uc = Unicorn::new(Arch::MIPS, Mode::MIPS64 | Mode::LITTLE_ENDIAN).expect("mips64el engine");
    uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).unwrap();
    uc.mem_write(CODE, &bytes).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    uc.add_intr_hook(move |uc, intno| {
        s.lock().unwrap().push((intno, uc.reg_read(RegisterMIPS::PC).unwrap()));
        if intno != 17 {
            uc.emu_stop().unwrap();
        }
    })
    .unwrap();
    let _ = uc.emu_start(CODE, CODE + 16, 0, 0);
    assert_eq!(*seen.lock().unwrap(), vec![(17, CODE + 4), (22, CODE + 8)], "syscall after it, the trap on the teq");
}

/// `cmpxchg16b [rdi]`, then `nop`: QEMU's x86 front end runs it in a helper that reads and
/// writes the 16 bytes through `cpu_ldq_data_ra`/`cpu_stq_data_ra`, the path of patch 0026.
const CMPXCHG16B_RDI: [u8; 5] = [0x48, 0x0f, 0xc7, 0x0f, 0x90];

/// Runs [`CMPXCHG16B_RDI`] on the 16 bytes at `at`: compares them with `old`, writes `new`.
fn cmpxchg16b(uc: &mut Unicorn<'_, ()>, at: u64, old: (u64, u64), new: (u64, u64)) -> Result<(), uc_error> {
    use unicorn_engine::RegisterX86;
    for (r, v) in [
        (RegisterX86::RDI, at),
        (RegisterX86::RAX, old.0),
        (RegisterX86::RDX, old.1),
        (RegisterX86::RBX, new.0),
        (RegisterX86::RCX, new.1),
    ] {
        uc.reg_write(r, v).unwrap();
    }
    uc.emu_start(CODE, CODE + 4, 0, 0)
}

fn qwords(uc: &Unicorn<'_, ()>, at: u64) -> (u64, u64) {
    let mut b = [0u8; 16];
    uc.mem_read(at, &mut b).unwrap();
    (u64::from_le_bytes(b[..8].try_into().unwrap()), u64::from_le_bytes(b[8..].try_into().unwrap()))
}

/// Patches 0024 and 0026: accesses a helper makes follow every change to the memory map, though
/// the region found last is kept and a plain TLB hit no longer asks for it: a protection change
/// on that region is seen at once (a write to a read-only page, a read of a `PROT_NONE` one, are
/// refused), and a region unmapped and mapped again elsewhere in the host is read and written
/// there, not through the old one.
#[test]
fn helper_accesses_follow_the_memory_map() {
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86_64 engine");
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_write(CODE, &CMPXCHG16B_RDI).unwrap();
    uc.mem_map(DATA, 0x1000, Prot::READ | Prot::WRITE).unwrap();
    uc.mem_write(DATA, &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    cmpxchg16b(&mut uc, DATA, (1, 2), (3, 4)).unwrap();
    assert_eq!(qwords(&uc, DATA), (3, 4));
    // Again, now that the TLB holds the page and the region is the one found last.
    cmpxchg16b(&mut uc, DATA, (3, 4), (5, 6)).unwrap();
    assert_eq!(qwords(&uc, DATA), (5, 6));

    uc.mem_protect(DATA, 0x1000, Prot::READ).unwrap();
    assert_eq!(cmpxchg16b(&mut uc, DATA, (5, 6), (7, 8)), Err(uc_error::WRITE_PROT));
    assert_eq!(qwords(&uc, DATA), (5, 6), "a write to a read-only page went through");
    uc.mem_protect(DATA, 0x1000, Prot::NONE).unwrap();
    assert_eq!(cmpxchg16b(&mut uc, DATA, (5, 6), (7, 8)), Err(uc_error::READ_PROT));

    // The same guest page, now other host memory.
    let mut host = vec![0u64; 512];
    host[0] = 9;
    host[1] = 10;
    uc.mem_unmap(DATA, 0x1000).unwrap();
    // SAFETY: `host` outlives the engine's use of it (it is unmapped below, before `host` drops).
    unsafe { uc.mem_map_ptr(DATA, 0x1000, Prot::READ | Prot::WRITE, host.as_mut_ptr().cast()) }.unwrap();
    cmpxchg16b(&mut uc, DATA, (9, 10), (11, 12)).unwrap();
    assert_eq!((host[0], host[1]), (11, 12), "the access did not reach the new region");
    uc.mem_unmap(DATA, 0x1000).unwrap();
    drop(host);
}

/// Patch 0026: the short path of helper accesses is taken only while no hook would see them:
/// with read and write hooks, the helper's two loads and two stores reach them.
#[test]
fn helper_accesses_reach_memory_hooks() {
    use std::sync::{Arc, Mutex};
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86_64 engine");
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_write(CODE, &CMPXCHG16B_RDI).unwrap();
    uc.mem_map(DATA, 0x1000, Prot::READ | Prot::WRITE).unwrap();
    // Once without hooks, so that the TLB and the region found last are set.
    cmpxchg16b(&mut uc, DATA, (0, 0), (1, 2)).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    uc.add_mem_hook(HookType::MEM_READ | HookType::MEM_WRITE, DATA, DATA + 0xfff, move |_, kind, at, size, value| {
        s.lock().unwrap().push((matches!(kind, MemType::WRITE), at, size, value));
        true
    })
    .unwrap();
    cmpxchg16b(&mut uc, DATA, (1, 2), (3, 4)).unwrap();
    let seen = seen.lock().unwrap().clone();
    assert!(seen.contains(&(false, DATA, 8, 0)), "{seen:x?}");
    assert!(seen.contains(&(false, DATA + 8, 8, 0)), "{seen:x?}");
    assert!(seen.contains(&(true, DATA, 8, 3)), "{seen:x?}");
    assert!(seen.contains(&(true, DATA + 8, 8, 4)), "{seen:x?}");
}

/// Patch 0025 (a TLB of 1024 entries to start with): stores to 2048 pages, more than the TLB
/// holds, all land; after a protection change (a TLB flush, which may also resize it) a store
/// to the page made read-only is refused at that page.
#[test]
fn tlb_over_two_thousand_pages() {
    use unicorn_engine::RegisterX86;
    const PAGES: u64 = 2048;
    const BASE: u64 = 0x100_0000;
    let code: [u8; 16] = [
        0x48, 0x89, 0x3f, // mov [rdi], rdi
        0x48, 0x81, 0xc7, 0x00, 0x10, 0x00, 0x00, // add rdi, 0x1000
        0x48, 0xff, 0xc9, // dec rcx
        0x75, 0xf1, // jnz .-15
        0x90, // nop
    ];
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).expect("x86_64 engine");
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    uc.mem_write(CODE, &code).unwrap();
    uc.mem_map(BASE, PAGES * 0x1000, Prot::READ | Prot::WRITE).unwrap();
    for round in 0..2 {
        uc.reg_write(RegisterX86::RDI, BASE).unwrap();
        uc.reg_write(RegisterX86::RCX, PAGES).unwrap();
        uc.emu_start(CODE, CODE + 15, 0, 0).unwrap();
        for page in 0..PAGES {
            let at = BASE + page * 0x1000;
            assert_eq!(qwords(&uc, at).0, at, "round {round}, page {page}");
        }
        uc.mem_write(BASE, &vec![0u8; usize::try_from(PAGES * 0x1000).unwrap()]).unwrap();
    }
    let refused = BASE + 1500 * 0x1000;
    uc.mem_protect(refused, 0x1000, Prot::READ).unwrap();
    uc.reg_write(RegisterX86::RDI, BASE).unwrap();
    uc.reg_write(RegisterX86::RCX, PAGES).unwrap();
    assert_eq!(uc.emu_start(CODE, CODE + 15, 0, 0), Err(uc_error::WRITE_PROT));
    assert_eq!(uc.reg_read(RegisterX86::RDI).unwrap(), refused, "stopped at another page");
    assert_eq!(qwords(&uc, refused - 0x1000).0, refused - 0x1000);
    assert_eq!(qwords(&uc, refused).0, 0);
}

/// A guest engine with direct loads at one host offset for its whole address space (patch
/// 0027): a fresh `PROT_NONE` reservation of `2^bits` bytes and a 64 KiB guard, holding `code`
/// at CODE, 0x1111 at DATA and 0x2222_2222_2222_2222 in DATA's last eight bytes, with DATA +
/// 0x1000 `PROT_NONE` on the host; the last page below `2^bits` is readable. The engine maps a page of its own (value 0x3333) at guest
/// `2^bits + DATA`. The TLB hook allows `[0, 2^bits)` and that page (`paddr = va`), refuses
/// DATA + 0x1000 unless `second` (given the reservation's base) allows it, and every other
/// address; it records every data address it is asked about.
#[allow(clippy::type_complexity)]
fn flat_engine(
    arch: Arch,
    mode: Mode,
    bits: u32,
    code: &[u32],
    second: impl Fn(*mut u8) -> bool + 'static,
) -> (Unicorn<'static, ()>, std::rc::Rc<std::cell::RefCell<Vec<u64>>>) {
    direct_engine(|| false); // installs the host fault handler once
    let top = 1u64 << bits;
    let span = top + (64 << 10);
    let base = reserve(us(span));
    // SAFETY: pages inside the reservation just made.
    unsafe {
        open_page(base.add(us(CODE)), 0);
        std::ptr::copy_nonoverlapping(code.as_ptr().cast::<u8>(), base.add(us(CODE)), code.len() * 4);
        open_page(base.add(us(DATA)), 0x1111);
        base.add(us(DATA + 0xff8)).cast::<u64>().write(0x2222_2222_2222_2222);
        open_page(base.add(us(top - 0x1000)), 0);
    }
    let high = reserve(0x1000);
    open_page(high, 0x3333);
    let mut uc = Unicorn::new(arch, mode).expect("engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    let asked = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = asked.clone();
    let base_addr = base as u64;
    uc.add_tlb_hook(0, u64::MAX, move |_, va, _| {
        if va != CODE {
            seen.borrow_mut().push(va);
        }
        let page = va & !0xfff;
        let ok = if page == DATA + 0x1000 { second(base_addr as *mut u8) } else { va < top || page == top + DATA };
        ok.then_some(TlbEntry { paddr: va, perms: Prot::ALL })
    })
    .unwrap();
    // SAFETY: the reservations outlive the engine (never unmapped).
    unsafe {
        uc.mem_map_ptr(0, top, Prot::ALL, base.cast()).unwrap();
        uc.mem_map_ptr(top + DATA, 0x1000, Prot::ALL, high.cast()).unwrap();
    }
    // SAFETY: a live engine; the reservation outlives it, and the host protection of every
    // page in it says what the guest may read.
    let r: Result<(), uc_error> =
        unsafe { unicorn_engine::uc_set_direct_base(uc.get_handle(), base_addr, span) }.into();
    r.unwrap();
    // SAFETY: a live engine with a direct base.
    let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_set_direct_bits(uc.get_handle(), bits) }.into();
    r.unwrap();
    (uc, asked)
}

/// riscv64 `ld a1, 0(a0)`, `ld a2, 0(a3)`, `nop` (RV64I LOAD, funct3 011).
const RV_LD_A1_A0: u32 = 0x0005_3583;
const RV_LD_A2_A3: u32 = 0x0006_b603;
const RV_NOP: u32 = 0x0000_0013;

/// Sv39's 38 address bits, riscv64's `TASK_SIZE` under endgate.
const RV_BITS: u32 = 38;

/// Patch 0027: a load below 2^bits reads the host memory at the one offset without asking the
/// TLB fill; one from 2^bits on takes the TLB path (its fill is asked, and it reads the page the
/// engine maps there).
#[test]
fn direct_bits_loads_read_below_the_top_and_fill_above_it() {
    use unicorn_engine::RegisterRISCV;
    let code = [RV_LD_A1_A0, RV_LD_A2_A3, RV_NOP];
    let (mut uc, asked) = flat_engine(Arch::RISCV, Mode::RISCV64, RV_BITS, &code, |_| false);
    uc.reg_write(RegisterRISCV::A0, DATA).unwrap();
    uc.reg_write(RegisterRISCV::A3, (1 << RV_BITS) + DATA).unwrap();
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!(uc.reg_read(RegisterRISCV::A1).unwrap(), 0x1111);
    assert_eq!(uc.reg_read(RegisterRISCV::A2).unwrap(), 0x3333, "the high address read its own page");
    let asked = asked.borrow();
    assert!(!asked.contains(&DATA), "the direct load asked no fill: {asked:x?}");
    assert!(asked.contains(&((1 << RV_BITS) + DATA)), "the high address was filled: {asked:x?}");
}

/// Patch 0027: a load that starts below 2^bits and runs past it faults in the guard after the
/// reservation; the fill, asked about 2^bits, refuses, and the guest stops at the load.
#[test]
fn direct_bits_load_across_the_top_stops_at_the_load() {
    use unicorn_engine::RegisterRISCV;
    let code = [RV_LD_A1_A0, RV_NOP];
    let (mut uc, asked) = flat_engine(Arch::RISCV, Mode::RISCV64, RV_BITS, &code, |_| false);
    uc.reg_write(RegisterRISCV::A0, (1 << RV_BITS) - 4).unwrap();
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::EXCEPTION));
    assert_eq!(uc.reg_read(RegisterRISCV::PC).unwrap(), CODE, "stopped at the load");
    assert!(asked.borrow().contains(&(1 << RV_BITS)), "the fill was asked about the top: {:x?}", asked.borrow());
}

/// Patch 0027: a load that runs from a readable page into one the host refuses asks the fill
/// about that page: refused, the guest stops at the load; allowed (the fill made the page), the
/// load runs again through the TLB and reads the bytes of both pages.
#[test]
fn direct_bits_load_into_a_refused_page_stops_or_runs_again() {
    use unicorn_engine::RegisterRISCV;
    let code = [RV_LD_A1_A0, RV_NOP];
    let (mut uc, asked) = flat_engine(Arch::RISCV, Mode::RISCV64, RV_BITS, &code, |_| false);
    uc.reg_write(RegisterRISCV::A0, DATA + 0xffc).unwrap();
    assert_eq!(uc.emu_start(CODE, end_of(&code), 0, 0), Err(uc_error::EXCEPTION));
    assert_eq!(uc.reg_read(RegisterRISCV::PC).unwrap(), CODE);
    assert!(asked.borrow().contains(&(DATA + 0x1000)), "{:x?}", asked.borrow());

    let (mut uc, _) = flat_engine(Arch::RISCV, Mode::RISCV64, RV_BITS, &code, |base| {
        // SAFETY: a page of the test's reservation, opened as the fill allows it.
        open_page(unsafe { base.add(us(DATA + 0x1000)) }, 0x5555_5555);
        true
    });
    uc.reg_write(RegisterRISCV::A0, DATA + 0xffc).unwrap();
    uc.emu_start(CODE, end_of(&code), 10_000_000, 0).unwrap();
    assert_eq!(uc.reg_read(RegisterRISCV::PC).unwrap(), end_of(&code), "ran to the end");
    assert_eq!(uc.reg_read(RegisterRISCV::A1).unwrap(), 0x5555_5555_2222_2222, "both pages' bytes");
}

/// Patch 0027 on MIPS, whose `lw` must be aligned (pre-R6): an aligned `lw` reads host memory
/// directly; a misaligned one takes the TLB path and raises the address error at the `lw`.
#[test]
fn direct_bits_misaligned_mips_load_raises_at_the_load() {
    const LW_V0_A0: u32 = 0x8c82_0000; // lw v0, 0(a0)
    let code = [LW_V0_A0, 0, 0];
    let (mut uc, asked) = flat_engine(Arch::MIPS, Mode::MIPS64 | Mode::LITTLE_ENDIAN, 40, &code, |_| false);
    uc.reg_write(RegisterMIPS::A0, DATA).unwrap();
    uc.emu_start(CODE, CODE + 4, 0, 0).unwrap();
    assert_eq!(uc.reg_read(RegisterMIPS::V0).unwrap(), 0x1111);
    assert!(asked.borrow().is_empty(), "the aligned load asked no fill: {:x?}", asked.borrow());
    uc.reg_write(RegisterMIPS::A0, DATA + 2).unwrap();
    uc.reg_write(RegisterMIPS::V0, 7).unwrap();
    assert_eq!(uc.emu_start(CODE, CODE + 4, 0, 0), Err(uc_error::READ_UNALIGNED), "the address error");
    assert_eq!(uc.reg_read(RegisterMIPS::PC).unwrap(), CODE, "at the lw");
    assert_eq!(uc.reg_read(RegisterMIPS::V0).unwrap(), 7, "v0 kept");
}

/// Patch 0027: `uc_set_direct_bits` wants a direct base covering 2^bits bytes and a 16-byte
/// guard, and bits in 36..=46.
#[test]
fn direct_bits_refuses_what_it_cannot_serve() {
    let mut uc = Unicorn::new(Arch::RISCV, Mode::RISCV64).expect("riscv64 engine");
    // SAFETY: a live engine; no direct base, so nothing is read through it.
    let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_set_direct_bits(uc.get_handle(), 38) }.into();
    assert_eq!(r, Err(uc_error::ARG), "no direct base");
    let base = reserve((1 << 36) + 16);
    // SAFETY: a live engine; the reservation is never read (no code runs).
    let r: Result<(), uc_error> =
        unsafe { unicorn_engine::uc_set_direct_base(uc.get_handle(), base as u64, (1 << 36) + 16) }.into();
    r.unwrap();
    for bits in [33, 35, 37, 47] {
        // SAFETY: as above.
        let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_set_direct_bits(uc.get_handle(), bits) }.into();
        assert_eq!(r, Err(uc_error::ARG), "bits {bits}");
    }
    // SAFETY: as above.
    let r: Result<(), uc_error> = unsafe { unicorn_engine::uc_set_direct_bits(uc.get_handle(), 36) }.into();
    r.unwrap();
    let _ = &mut uc;
}

/// One guest of `syscall_jumps_on_only_while_nothing_changed`: a loop of a system call, an
/// increment of `counter` and a jump back, at `CODE`; at `ALT`, an increment of `alt` and a jump
/// back to the system call; `inc_by_2` is the increment's encoding with 2, written over it at
/// `inc_at`.
struct ChainGuest {
    name: &'static str,
    arch: Arch,
    mode: Mode,
    code: Vec<u8>,
    alt: Vec<u8>,
    inc_at: u64,
    inc_by_2: Vec<u8>,
    pc: i32,
    counter: i32,
    alt_reg: i32,
    /// The hook finds the PC on the system call and moves it on by this much (s390x, as
    /// endgate's hook does); 0 where the PC is already after it.
    advance: u64,
    /// What the hook writes to the PC for the loop to go on at `ALT` (x86-64's helper adds the
    /// `syscall`'s length after the hooks).
    alt_pc: u64,
    /// x86-64's `syscall` reaches a syscall instruction hook, the others an interrupt hook.
    x86_syscall: bool,
}

fn le32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn chain_guests() -> Vec<ChainGuest> {
    use unicorn_engine::{RegisterARM, RegisterRISCV, RegisterS390X, RegisterX86};
    const ALT: u64 = CODE + 0x10;
    vec![
        ChainGuest {
            name: "aarch64",
            arch: Arch::ARM64,
            mode: Mode::ARM,
            // svc #0; add x4, x4, #1; b .-8 | add x6, x6, #1; b CODE
            code: le32(&[0xd400_0001, 0x9100_0484, 0x17ff_fffe]),
            alt: le32(&[0x9100_04c6, 0x17ff_fffb]),
            inc_at: CODE + 4,
            inc_by_2: le32(&[0x9100_0884]),
            pc: RegisterARM64::PC.into(),
            counter: RegisterARM64::X4.into(),
            alt_reg: RegisterARM64::X6.into(),
            advance: 0,
            alt_pc: ALT,
            x86_syscall: false,
        },
        ChainGuest {
            name: "arm",
            arch: Arch::ARM,
            mode: Mode::ARM,
            // svc #0; add r4, r4, #1; b CODE | add r6, r6, #1; b CODE
            code: le32(&[0xef00_0000, 0xe284_4001, 0xeaff_fffc]),
            alt: le32(&[0xe286_6001, 0xeaff_fff9]),
            inc_at: CODE + 4,
            inc_by_2: le32(&[0xe284_4002]),
            pc: RegisterARM::PC.into(),
            counter: RegisterARM::R4.into(),
            alt_reg: RegisterARM::R6.into(),
            advance: 0,
            alt_pc: ALT,
            x86_syscall: false,
        },
        ChainGuest {
            name: "riscv64",
            arch: Arch::RISCV,
            mode: Mode::RISCV64,
            // ecall; addi t1, t1, 1; j .-8 | addi t2, t2, 1; j CODE
            code: le32(&[0x0000_0073, 0x0013_0313, 0xff9f_f06f]),
            alt: le32(&[0x0013_8393, 0xfedf_f06f]),
            inc_at: CODE + 4,
            inc_by_2: le32(&[0x0023_0313]),
            pc: RegisterRISCV::PC.into(),
            counter: RegisterRISCV::T1.into(),
            alt_reg: RegisterRISCV::T2.into(),
            advance: 0,
            alt_pc: ALT,
            x86_syscall: false,
        },
        ChainGuest {
            name: "mips64el",
            arch: Arch::MIPS,
            mode: Mode::MIPS64 | Mode::LITTLE_ENDIAN,
            // syscall; daddiu s0, s0, 1; b CODE; nop | daddiu s1, s1, 1; b CODE; nop
            code: le32(&[0x0000_000c, 0x6610_0001, 0x1000_fffd, 0]),
            alt: le32(&[0x6631_0001, 0x1000_fffa, 0]),
            inc_at: CODE + 4,
            inc_by_2: le32(&[0x6610_0002]),
            pc: RegisterMIPS::PC.into(),
            counter: RegisterMIPS::S0.into(),
            alt_reg: RegisterMIPS::S1.into(),
            advance: 0,
            alt_pc: ALT,
            x86_syscall: false,
        },
        ChainGuest {
            name: "s390x",
            arch: Arch::S390X,
            mode: Mode::BIG_ENDIAN,
            // svc 0; aghi %r4, 1; j CODE | aghi %r6, 1; j CODE
            code: vec![0x0a, 0x00, 0xa7, 0x4b, 0x00, 0x01, 0xa7, 0xf4, 0xff, 0xfd],
            alt: vec![0xa7, 0x6b, 0x00, 0x01, 0xa7, 0xf4, 0xff, 0xf6],
            inc_at: CODE + 2,
            inc_by_2: vec![0xa7, 0x4b, 0x00, 0x02],
            pc: RegisterS390X::PC.into(),
            counter: RegisterS390X::R4.into(),
            alt_reg: RegisterS390X::R6.into(),
            advance: 2,
            alt_pc: ALT,
            x86_syscall: false,
        },
        ChainGuest {
            name: "i386",
            arch: Arch::X86,
            mode: Mode::MODE_32,
            // int $0x80; add ebx, 1; jmp CODE | add ecx, 1; jmp CODE
            code: vec![0xcd, 0x80, 0x83, 0xc3, 0x01, 0xeb, 0xf9],
            alt: vec![0x83, 0xc1, 0x01, 0xeb, 0xeb],
            inc_at: CODE + 2,
            inc_by_2: vec![0x83, 0xc3, 0x02],
            pc: RegisterX86::EIP.into(),
            counter: RegisterX86::EBX.into(),
            alt_reg: RegisterX86::ECX.into(),
            advance: 0,
            alt_pc: ALT,
            x86_syscall: false,
        },
        ChainGuest {
            name: "x86_64",
            arch: Arch::X86,
            mode: Mode::MODE_64,
            // syscall; add rbx, 1; jmp CODE | add rcx, 1; jmp CODE
            code: vec![0x0f, 0x05, 0x48, 0x83, 0xc3, 0x01, 0xeb, 0xf8],
            alt: vec![0x48, 0x83, 0xc1, 0x01, 0xeb, 0xea],
            inc_at: CODE + 2,
            inc_by_2: vec![0x48, 0x83, 0xc3, 0x02],
            pc: RegisterX86::RIP.into(),
            counter: RegisterX86::RBX.into(),
            alt_reg: RegisterX86::RCX.into(),
            advance: 0,
            alt_pc: ALT - 2,
            x86_syscall: true,
        },
    ]
}

/// Patch 0029: after a system call whose hooks left the CPU state alone, the block jumps
/// straight on to the next one (a link cpu_exec makes once); it still goes wherever the hooks
/// sent it, with whatever they changed. On every engine, a loop of a system call and an
/// increment runs 15 times (the first calls make the links), and the hook, on call 3, saves the
/// CPU context; on call 6 writes the counter through the API; on call 8 restores the saved
/// context; on call 10 writes the PC (the loop runs the other increment once); on call 12
/// rewrites the increment and drops the translations of the page; on call 15 stops. Each call's counter and
/// the end state are what those changes give.
#[test]
fn syscall_jumps_on_only_while_nothing_changed() {
    use std::cell::RefCell;
    use std::rc::Rc;
    for g in chain_guests() {
        let mut uc = Unicorn::new(g.arch, g.mode).unwrap_or_else(|e| panic!("{} engine: {e:?}", g.name));
        uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
        uc.mem_write(CODE, &g.code).unwrap();
        uc.mem_write(CODE + 0x10, &g.alt).unwrap();
        let seen = Rc::new(RefCell::new(Vec::new()));
        let saved = Rc::new(RefCell::new(None));
        let (s, sv) = (seen.clone(), saved.clone());
        let (pc, counter, advance, alt_pc, inc_at) = (g.pc, g.counter, g.advance, g.alt_pc, g.inc_at);
        let inc_by_2 = g.inc_by_2.clone();
        let hook = move |uc: &mut Unicorn<'_, ()>| {
            let k = {
                let mut s = s.borrow_mut();
                s.push(uc.reg_read(counter).unwrap());
                s.len()
            };
            if advance != 0 {
                let at = uc.reg_read(pc).unwrap();
                uc.reg_write(pc, at + advance).unwrap();
            }
            match k {
                3 => *sv.borrow_mut() = Some(uc.context_init().unwrap()),
                6 => uc.reg_write(counter, 100).unwrap(),
                8 => uc.context_restore(sv.borrow().as_ref().unwrap()).unwrap(),
                10 => uc.reg_write(pc, alt_pc).unwrap(),
                12 => {
                    // The whole page's translations go, the running block's among them.
                    uc.mem_write(inc_at, &inc_by_2).unwrap();
                    uc.ctl_remove_cache(CODE, CODE + 0x1000).unwrap();
                }
                15 => uc.emu_stop().unwrap(),
                _ => {}
            }
        };
        if g.x86_syscall {
            uc.add_insn_sys_hook(unicorn_engine::X86Insn::SYSCALL, 1, 0, hook).unwrap();
        } else {
            uc.add_intr_hook(move |uc, _| hook(uc)).unwrap();
        }
        // The timeout only keeps a lost stop from hanging the test.
        uc.emu_start(CODE, CODE + 0x800, 10_000_000, 0).unwrap_or_else(|e| panic!("{}: {e:?}", g.name));
        // Call 6 sees 5 and leaves 100; call 8 sees 102 and puts back call 3's 2; call 10
        // sees 4 and sends the loop through the other increment; from call 12 on, steps of 2.
        assert_eq!(
            *seen.borrow(),
            vec![0, 1, 2, 3, 4, 5, 101, 102, 3, 4, 4, 5, 7, 9, 11],
            "{}: each call's counter",
            g.name
        );
        assert_eq!(uc.reg_read(g.counter).unwrap(), 11, "{}: the counter at the stop", g.name);
        assert_eq!(uc.reg_read(g.alt_reg).unwrap(), 1, "{}: the other increment ran once", g.name);
        assert_eq!(uc.reg_read(g.pc).unwrap(), g.inc_at, "{}: stopped after the system call", g.name);
    }
}

/// Patch 0029: a change to how the next block must be translated stops the direct jump to it.
/// A riscv64 loop of `ecall`, a floating-point move and an increment; on the fifth call the
/// hook turns the FPU off in `mstatus` (its FS field is part of each block's flags), so the
/// move, translated and linked while the FPU was on, must now raise an illegal instruction
/// exception (2) instead of running. The FPU goes off in two ways: a register write through the
/// API, and a nested run of a `csrc mstatus` elsewhere that jumps back to the next instruction
/// and ends there.
#[test]
fn syscall_jump_follows_a_flags_change() {
    use std::cell::RefCell;
    use std::rc::Rc;
    use unicorn_engine::RegisterRISCV;
    const MSTATUS_FS: u64 = 3 << 13;
    const CSRC: u64 = CODE + 0x100;
    // ecall; fmv.d.x ft0, t1; addi t1, t1, 1; j .-12
    let code = le32(&[0x0000_0073, 0xf203_0053, 0x0013_0313, 0xff5f_f06f]);
    for nested in [false, true] {
        let mut uc = Unicorn::new(Arch::RISCV, Mode::RISCV64).expect("riscv64 engine");
        uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).unwrap();
        uc.mem_write(CODE, &code).unwrap();
        // csrc mstatus, t3; j CODE + 4
        uc.mem_write(CSRC, &le32(&[0x300e_3073, 0xf01f_f06f])).unwrap();
        uc.reg_write(RegisterRISCV::T3, MSTATUS_FS).unwrap();
        let mstatus = uc.reg_read(RegisterRISCV::MSTATUS).unwrap();
        uc.reg_write(RegisterRISCV::MSTATUS, mstatus | (1 << 13)).unwrap(); // FS = initial
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        uc.add_intr_hook(move |uc, intno| {
            let calls = {
                let mut s = s.borrow_mut();
                s.push((intno, uc.reg_read(RegisterRISCV::PC).unwrap(), uc.reg_read(RegisterRISCV::T1).unwrap()));
                s.len()
            };
            if calls == 5 {
                if nested {
                    // The nested run ends where the outer one goes on, so no PC write (and
                    // its exit request) follows it.
                    uc.emu_start(CSRC, CODE + 4, 0, 0).unwrap();
                } else {
                    let m = uc.reg_read(RegisterRISCV::MSTATUS).unwrap();
                    uc.reg_write(RegisterRISCV::MSTATUS, m & !MSTATUS_FS).unwrap();
                }
            }
            if intno != 8 || calls >= 20 {
                uc.emu_stop().unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, CODE + 0x800, 10_000_000, 0).unwrap();
        assert_eq!(uc.reg_read(RegisterRISCV::MSTATUS).unwrap() & MSTATUS_FS, 0, "nested {nested}: the FPU is off");
        let ecall = |t1| (8, CODE + 4, t1);
        // RISCV_EXCP_ILLEGAL_INST (2) at the move, whose hook finds the PC 4 bytes past it
        // (unicorn's riscv exception path; endgate's trap hook steps it back).
        assert_eq!(
            *seen.borrow(),
            vec![ecall(0), ecall(1), ecall(2), ecall(3), ecall(4), (2, CODE + 8, 4)],
            "nested {nested}"
        );
    }
}

/// Patch 0034: x86 port I/O checks the I/O permission only above IOPL, so code at CPL 0
/// (unicorn's reset state, where this engine runs) still reaches the IN and OUT hooks with
/// the port, as before the patch. (At CPL 3 the check raises #GP: guest test `x86_port_io`.)
#[test]
fn x86_port_io_at_cpl0_reaches_the_hooks() {
    use unicorn_engine::RegisterX86;
    const CODE: u64 = 0x1000;
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_32).unwrap();
    uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
    // mov dx, 0x80; in al, dx; out dx, al
    uc.mem_write(CODE, &[0x66, 0xba, 0x80, 0x00, 0xec, 0xee]).unwrap();
    let ports = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let (p_in, p_out) = (ports.clone(), ports.clone());
    uc.add_insn_in_hook(move |_, port, size| {
        p_in.borrow_mut().push(("in", port, size, 0));
        0x5a
    })
    .unwrap();
    uc.add_insn_out_hook(move |_, port, size, value| p_out.borrow_mut().push(("out", port, size, value))).unwrap();
    uc.emu_start(CODE, CODE + 6, 0, 0).unwrap();
    assert_eq!(*ports.borrow(), vec![("in", 0x80, 1, 0), ("out", 0x80, 1, 0x5a)]);
    assert_eq!(uc.reg_read(RegisterX86::AL).unwrap(), 0x5a);
}

/// Patch 0035: `rep movsb` and `rep stosl` move many elements per helper call where nothing
/// watches each one, and keep every iteration visible where something does: a write hook sees
/// each element's store, with its address, and a code hook on the instruction runs once per
/// iteration (and once more for the pass that finds RCX 0), as unicorn's per-element form did.
#[test]
fn x86_rep_string_in_bulk_keeps_per_element_observers() {
    use unicorn_engine::unicorn_const::{HookType, MemType};
    use unicorn_engine::RegisterX86;
    const CODE: u64 = 0x1000;
    const DATA: u64 = 0x10000;
    // rep movsb; rep stosl
    let code = [0xf3, 0xa4, 0xf3, 0xab];
    let setup = |uc: &mut Unicorn<'static, ()>, n: u64| {
        uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
        uc.mem_map(DATA, 0x4000, Prot::READ | Prot::WRITE).unwrap();
        uc.mem_write(CODE, &code).unwrap();
        let pattern: Vec<u8> = (0..0x2000u32).map(|i| (i * 7 + 3).to_le_bytes()[0]).collect();
        uc.mem_write(DATA, &pattern).unwrap();
        uc.reg_write(RegisterX86::RSI, DATA + 5).unwrap();
        uc.reg_write(RegisterX86::RDI, DATA + 0x2000 + 9).unwrap();
        uc.reg_write(RegisterX86::RCX, n).unwrap();
        uc.reg_write(RegisterX86::RAX, 0x1122_3344).unwrap();
        pattern
    };

    // Nothing watching: 5000 bytes across pages, then RCX is 0 and the fill does nothing.
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).unwrap();
    let pattern = setup(&mut uc, 5000);
    uc.emu_start(CODE, CODE + 2, 0, 0).unwrap();
    let mut got = vec![0; 5000];
    uc.mem_read(DATA + 0x2000 + 9, &mut got).unwrap();
    assert_eq!(got, pattern[5..5005]);
    assert_eq!(uc.reg_read(RegisterX86::RCX).unwrap(), 0);
    assert_eq!(uc.reg_read(RegisterX86::RSI).unwrap(), DATA + 5 + 5000);
    assert_eq!(uc.reg_read(RegisterX86::RDI).unwrap(), DATA + 0x2000 + 9 + 5000);
    // rep stosl of 3 dwords
    uc.reg_write(RegisterX86::RCX, 3).unwrap();
    uc.reg_write(RegisterX86::RDI, DATA + 0x3ffa).unwrap();
    uc.emu_start(CODE + 2, CODE + 4, 0, 0).unwrap_err(); // runs into the unmapped 0x14000
    assert_eq!(uc.reg_read(RegisterX86::RCX).unwrap(), 2, "the element that fits is done");
    assert_eq!(uc.reg_read(RegisterX86::RDI).unwrap(), DATA + 0x3ffe);
    let mut word = [0; 4];
    uc.mem_read(DATA + 0x3ffa, &mut word).unwrap();
    assert_eq!(u32::from_le_bytes(word), 0x1122_3344);

    // A write hook sees every store.
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).unwrap();
    setup(&mut uc, 40);
    let writes = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let w = writes.clone();
    uc.add_mem_hook(HookType::MEM_WRITE, 1, 0, move |_, kind, addr, size, _| {
        assert_eq!(kind, MemType::WRITE);
        w.borrow_mut().push((addr, size));
        true
    })
    .unwrap();
    uc.emu_start(CODE, CODE + 2, 0, 0).unwrap();
    let want: Vec<(u64, usize)> = (0..40).map(|i| (DATA + 0x2000 + 9 + i, 1)).collect();
    assert_eq!(*writes.borrow(), want);

    // A code hook on the instruction runs for each iteration and for the final RCX-0 pass.
    let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).unwrap();
    setup(&mut uc, 40);
    let runs = std::rc::Rc::new(std::cell::Cell::new(0));
    let r = runs.clone();
    uc.add_code_hook(CODE, CODE, move |_, _, _| r.set(r.get() + 1)).unwrap();
    uc.emu_start(CODE, CODE + 2, 0, 0).unwrap();
    assert_eq!(runs.get(), 41);
    assert_eq!(uc.reg_read(RegisterX86::RCX).unwrap(), 0);
}

/// One guest's loop for patch 0037's test: at `CODE`, call the function whose address is in
/// `target`, xor `target` with `flip`, count `count` down, loop while it is not zero; `end` is
/// the instruction after the loop. `f1` (at `CODE + 0x1000`, its own page) adds 1 to `r1`,
/// `f2` (at `CODE + 0x1100`) adds 1 to `r2`; `f1_by_2` is `f1` adding 2.
struct IndirectGuest {
    name: &'static str,
    arch: Arch,
    mode: Mode,
    code: Vec<u8>,
    end: u64,
    f1: Vec<u8>,
    f1_by_2: Vec<u8>,
    f2: Vec<u8>,
    target: i32,
    flip: i32,
    count: i32,
    r1: i32,
    r2: i32,
    /// The stack pointer, for the x86 `call`s (0: none needed).
    sp: i32,
    /// The CPU model endgate uses, where the engine's default is another.
    model: Option<i32>,
}

fn indirect_guests() -> Vec<IndirectGuest> {
    use unicorn_engine::{RegisterARM, RegisterMIPS, RegisterRISCV, RegisterS390X, RegisterX86};
    vec![
        IndirectGuest {
            name: "x86_64",
            arch: Arch::X86,
            mode: Mode::MODE_64,
            // call rcx; xor rcx, r9; dec r8; jnz CODE; nop
            code: vec![0xff, 0xd1, 0x4c, 0x31, 0xc9, 0x49, 0xff, 0xc8, 0x75, 0xf6, 0x90],
            end: CODE + 10,
            f1: vec![0x48, 0x83, 0xc3, 0x01, 0xc3], // add rbx, 1; ret
            f1_by_2: vec![0x48, 0x83, 0xc3, 0x02, 0xc3],
            f2: vec![0x48, 0x83, 0xc2, 0x01, 0xc3], // add rdx, 1; ret
            target: RegisterX86::RCX as i32,
            flip: RegisterX86::R9 as i32,
            count: RegisterX86::R8 as i32,
            r1: RegisterX86::RBX as i32,
            r2: RegisterX86::RDX as i32,
            sp: RegisterX86::RSP as i32,
            model: None,
        },
        IndirectGuest {
            name: "i386",
            arch: Arch::X86,
            mode: Mode::MODE_32,
            // call ecx; xor ecx, edi; sub esi, 1; jnz CODE; nop
            code: vec![0xff, 0xd1, 0x31, 0xf9, 0x83, 0xee, 0x01, 0x75, 0xf7, 0x90],
            end: CODE + 9,
            f1: vec![0x83, 0xc3, 0x01, 0xc3], // add ebx, 1; ret
            f1_by_2: vec![0x83, 0xc3, 0x02, 0xc3],
            f2: vec![0x83, 0xc2, 0x01, 0xc3], // add edx, 1; ret
            target: RegisterX86::ECX as i32,
            flip: RegisterX86::EDI as i32,
            count: RegisterX86::ESI as i32,
            r1: RegisterX86::EBX as i32,
            r2: RegisterX86::EDX as i32,
            sp: RegisterX86::ESP as i32,
            model: None,
        },
        IndirectGuest {
            name: "aarch64",
            arch: Arch::ARM64,
            mode: Mode::ARM,
            // blr x1; eor x1, x1, x9; subs x8, x8, #1; b.ne CODE; nop
            code: le32(&[0xd63f_0020, 0xca09_0021, 0xf100_0508, 0x54ff_ffa1, NOP]),
            end: CODE + 16,
            f1: le32(&[0x9100_0484, 0xd65f_03c0]), // add x4, x4, #1; ret
            f1_by_2: le32(&[0x9100_0884, 0xd65f_03c0]),
            f2: le32(&[0x9100_04c6, 0xd65f_03c0]), // add x6, x6, #1; ret
            target: RegisterARM64::X1 as i32,
            flip: RegisterARM64::X9 as i32,
            count: RegisterARM64::X8 as i32,
            r1: RegisterARM64::X4 as i32,
            r2: RegisterARM64::X6 as i32,
            sp: 0,
            model: None,
        },
        IndirectGuest {
            name: "arm",
            arch: Arch::ARM,
            mode: Mode::ARM,
            // blx r1; eor r1, r1, r9; subs r8, r8, #1; bne CODE; nop
            code: le32(&[0xe12f_ff31, 0xe021_1009, 0xe258_8001, 0x1aff_fffb, 0xe1a0_0000]),
            end: CODE + 16,
            f1: le32(&[0xe284_4001, 0xe12f_ff1e]), // add r4, r4, #1; bx lr
            f1_by_2: le32(&[0xe284_4002, 0xe12f_ff1e]),
            f2: le32(&[0xe286_6001, 0xe12f_ff1e]), // add r6, r6, #1; bx lr
            target: RegisterARM::R1 as i32,
            flip: RegisterARM::R9 as i32,
            count: RegisterARM::R8 as i32,
            r1: RegisterARM::R4 as i32,
            r2: RegisterARM::R6 as i32,
            sp: 0,
            model: None,
        },
        IndirectGuest {
            name: "riscv64",
            arch: Arch::RISCV,
            mode: Mode::RISCV64,
            // jalr t0; xor t0, t0, t1; addi t2, t2, -1; bnez t2, CODE; nop
            code: le32(&[0x0002_80e7, 0x0062_c2b3, 0xfff3_8393, 0xfe03_9ae3, 0x0000_0013]),
            end: CODE + 16,
            f1: le32(&[0x0019_0913, 0x0000_8067]), // addi s2, s2, 1; ret
            f1_by_2: le32(&[0x0029_0913, 0x0000_8067]),
            f2: le32(&[0x0019_8993, 0x0000_8067]), // addi s3, s3, 1; ret
            target: RegisterRISCV::T0 as i32,
            flip: RegisterRISCV::T1 as i32,
            count: RegisterRISCV::T2 as i32,
            r1: RegisterRISCV::S2 as i32,
            r2: RegisterRISCV::S3 as i32,
            sp: 0,
            model: None,
        },
        IndirectGuest {
            name: "mips64el",
            arch: Arch::MIPS,
            mode: Mode::MIPS64 | Mode::LITTLE_ENDIAN,
            // jalr $25; nop; xor $25, $25, $13; daddiu $14, $14, -1; bnez $14, CODE; nop; nop
            // (unicorn's register names are o32's: $13 is T5, $14 is T6)
            code: le32(&[0x0320_f809, 0, 0x032d_c826, 0x65ce_ffff, 0x15c0_fffb, 0, 0]),
            end: CODE + 24,
            f1: le32(&[0x03e0_0008, 0x6610_0001]), // jr ra; daddiu s0, s0, 1
            f1_by_2: le32(&[0x03e0_0008, 0x6610_0002]),
            f2: le32(&[0x03e0_0008, 0x6631_0001]), // jr ra; daddiu s1, s1, 1
            target: RegisterMIPS::T9 as i32,
            flip: RegisterMIPS::T5 as i32,
            count: RegisterMIPS::T6 as i32,
            r1: RegisterMIPS::S0 as i32,
            r2: RegisterMIPS::S1 as i32,
            sp: 0,
            // MIPS64R2-generic has neither MIPS16 nor microMIPS: its JR keeps a link.
            model: Some(unicorn_engine::Mips64CpuModel::MIPS64R2_GENERIC as i32),
        },
        IndirectGuest {
            name: "s390x",
            arch: Arch::S390X,
            mode: Mode::BIG_ENDIAN,
            // basr r14, r1; xgr r1, r9; brctg r8, CODE; nopr r7
            code: vec![0x0d, 0xe1, 0xb9, 0x82, 0x00, 0x19, 0xa7, 0x87, 0xff, 0xfd, 0x07, 0x07],
            end: CODE + 10,
            f1: vec![0xa7, 0x4b, 0x00, 0x01, 0x07, 0xfe], // aghi r4, 1; br r14
            f1_by_2: vec![0xa7, 0x4b, 0x00, 0x02, 0x07, 0xfe],
            f2: vec![0xa7, 0x6b, 0x00, 0x01, 0x07, 0xfe], // aghi r6, 1; br r14
            target: RegisterS390X::R1 as i32,
            flip: RegisterS390X::R9 as i32,
            count: RegisterS390X::R8 as i32,
            r1: RegisterS390X::R4 as i32,
            r2: RegisterS390X::R6 as i32,
            sp: 0,
            model: None,
        },
    ]
}

/// Patch 0037: an indirect jump keeps a direct link to the block it went to first, taken
/// only while it goes there again. On each engine, a loop calls one function through a
/// register 1000 times (the call and the return link), then alternates between two functions
/// (the call's link must not be taken for the other one), then the first function is rewritten
/// behind the engine's back and its page's translations dropped (the link is unlinked: the new
/// code runs).
#[test]
fn indirect_jump_link_is_taken_only_for_its_own_target() {
    let (f1, f2) = (CODE + 0x1000, CODE + 0x1100);
    for g in indirect_guests() {
        let mut uc = Unicorn::new(g.arch, g.mode).unwrap_or_else(|e| panic!("{} engine: {e:?}", g.name));
        if let Some(model) = g.model {
            uc.ctl_set_cpu_model(model).unwrap();
        }
        // (unicorn's s390x fetches only from writable pages without a TLB-fill hook)
        uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
        uc.mem_map(f1, 0x1000, Prot::ALL).unwrap();
        uc.mem_map(DATA, 0x1000, Prot::READ | Prot::WRITE).unwrap();
        uc.mem_write(CODE, &g.code).unwrap();
        uc.mem_write(f1, &g.f1).unwrap();
        uc.mem_write(f2, &g.f2).unwrap();
        let run = |uc: &mut Unicorn<'static, ()>, flip: u64| {
            uc.reg_write(g.target, f1).unwrap();
            uc.reg_write(g.flip, flip).unwrap();
            uc.reg_write(g.count, 1000).unwrap();
            if g.sp != 0 {
                uc.reg_write(g.sp, DATA + 0x800).unwrap();
            }
            uc.emu_start(CODE, g.end, 0, 0).unwrap_or_else(|e| panic!("{}: {e:?}", g.name));
            (uc.reg_read(g.r1).unwrap(), uc.reg_read(g.r2).unwrap())
        };
        assert_eq!(run(&mut uc, 0), (1000, 0), "{}: one target", g.name);
        assert_eq!(run(&mut uc, f1 ^ f2), (1500, 500), "{}: two targets in turn", g.name);
        uc.mem_write(f1, &g.f1_by_2).unwrap();
        uc.ctl_remove_cache(f1, f1 + 0x1000).unwrap();
        assert_eq!(run(&mut uc, 0), (3500, 500), "{}: the rewritten target", g.name);
    }
}

/// Patch 0044: an indirect call that goes to three functions in turn keeps links to the first
/// two (the second in the block's other slot) and looks the third up each time: each function
/// runs a third of the times, also after the second one is rewritten (its link dropped, made
/// again to the new block). On x86_64 (`call [r10 + r11*8]`) and aarch64 (`ldr x1, [x10,
/// x11, lsl #3]; blr x1`), with r11/x11 counting 0, 1, 2, 0, ...
#[test]
fn indirect_jump_keeps_a_second_link_and_looks_up_a_third_target() {
    use unicorn_engine::RegisterX86;
    let fs = [CODE + 0x1000, CODE + 0x1100, CODE + 0x1200];
    struct Guest {
        arch: Arch,
        mode: Mode,
        code: Vec<u8>,
        end: u64,
        bodies: [Vec<u8>; 3],
        f2_by_2: Vec<u8>,
        regs: [i32; 3],
        table: i32,
        index: i32,
        count: i32,
        sp: Option<i32>,
    }
    let guests = [
        Guest {
            arch: Arch::X86,
            mode: Mode::MODE_64,
            // call [r10 + r11*8]; inc r11; cmp r11, 3; jne +3; xor r11d, r11d; dec r8; jnz CODE; nop
            code: vec![
                0x43, 0xff, 0x14, 0xda, 0x49, 0xff, 0xc3, 0x49, 0x83, 0xfb, 0x03, 0x75, 0x03, 0x45, 0x31, 0xdb, 0x49,
                0xff, 0xc8, 0x75, 0xeb, 0x90,
            ],
            end: CODE + 21,
            // add rbx / rdx / rsi, 1; ret
            bodies: [
                vec![0x48, 0x83, 0xc3, 0x01, 0xc3],
                vec![0x48, 0x83, 0xc2, 0x01, 0xc3],
                vec![0x48, 0x83, 0xc6, 0x01, 0xc3],
            ],
            f2_by_2: vec![0x48, 0x83, 0xc2, 0x02, 0xc3],
            regs: [RegisterX86::RBX as i32, RegisterX86::RDX as i32, RegisterX86::RSI as i32],
            table: RegisterX86::R10 as i32,
            index: RegisterX86::R11 as i32,
            count: RegisterX86::R8 as i32,
            sp: Some(RegisterX86::RSP as i32),
        },
        Guest {
            arch: Arch::ARM64,
            mode: Mode::ARM,
            // ldr x1, [x10, x11, lsl #3]; blr x1; add x11, x11, #1; cmp x11, #3;
            // csel x11, x11, xzr, ne; subs x8, x8, #1; b.ne CODE; nop
            code: le32(&[
                0xf86b_7941,
                0xd63f_0020,
                0x9100_056b,
                0xf100_0d7f,
                0x9a9f_116b,
                0xf100_0508,
                0x54ff_ff41,
                NOP,
            ]),
            end: CODE + 28,
            // add x4 / x6 / x7, #1; ret
            bodies: [
                le32(&[0x9100_0484, 0xd65f_03c0]),
                le32(&[0x9100_04c6, 0xd65f_03c0]),
                le32(&[0x9100_04e7, 0xd65f_03c0]),
            ],
            f2_by_2: le32(&[0x9100_08c6, 0xd65f_03c0]),
            regs: [RegisterARM64::X4 as i32, RegisterARM64::X6 as i32, RegisterARM64::X7 as i32],
            table: RegisterARM64::X10 as i32,
            index: RegisterARM64::X11 as i32,
            count: RegisterARM64::X8 as i32,
            sp: None,
        },
    ];
    for g in guests {
        let mut uc = Unicorn::new(g.arch, g.mode).unwrap();
        uc.mem_map(CODE, 0x2000, Prot::ALL).unwrap();
        uc.mem_map(DATA, 0x1000, Prot::READ | Prot::WRITE).unwrap();
        uc.mem_write(CODE, &g.code).unwrap();
        for (f, body) in fs.iter().zip(&g.bodies) {
            uc.mem_write(*f, body).unwrap();
        }
        let table: Vec<u8> = fs.iter().flat_map(|f| f.to_le_bytes()).collect();
        uc.mem_write(DATA, &table).unwrap();
        let run = |uc: &mut Unicorn<'static, ()>| {
            uc.reg_write(g.table, DATA).unwrap();
            uc.reg_write(g.index, 0).unwrap();
            uc.reg_write(g.count, 999).unwrap();
            if let Some(sp) = g.sp {
                uc.reg_write(sp, DATA + 0x800).unwrap();
            }
            uc.emu_start(CODE, g.end, 0, 0).unwrap_or_else(|e| panic!("{:?}: {e:?}", g.arch));
            g.regs.map(|r| uc.reg_read(r).unwrap())
        };
        assert_eq!(run(&mut uc), [333, 333, 333], "{:?}: three targets in turn", g.arch);
        uc.mem_write(fs[1], &g.f2_by_2).unwrap();
        uc.ctl_remove_cache(fs[1], fs[1] + 0x100).unwrap();
        assert_eq!(run(&mut uc), [666, 999, 666], "{:?}: the rewritten second target", g.arch);
    }
}

/// Patch 0037 on arm: a block of the same address in the other instruction set is another
/// block, so the link's key holds the Thumb bit. The loop's `blx r1` goes to the same address
/// in Thumb state and in Arm state in turn; the word there is `adds r5, #1; bx lr` as Thumb
/// and, as Arm, a conditional load that does not run (MI, with N clear) before `add r4, r4, #1;
/// bx lr`.
#[test]
fn arm_indirect_jump_link_keeps_thumb_and_arm_apart() {
    use unicorn_engine::RegisterARM;
    let x = CODE + 0x1000;
    let mut uc = Unicorn::new(Arch::ARM, Mode::ARM).unwrap();
    uc.mem_map(CODE, 0x2000, Prot::READ | Prot::EXEC).unwrap();
    // blx r1; eor r1, r1, r9; subs r8, r8, #1; bne CODE; nop
    uc.mem_write(CODE, &le32(&[0xe12f_ff31, 0xe021_1009, 0xe258_8001, 0x1aff_fffb, 0xe1a0_0000])).unwrap();
    uc.mem_write(x, &le32(&[0x4770_3501, 0xe284_4001, 0xe12f_ff1e])).unwrap();
    uc.reg_write(RegisterARM::R1, x | 1).unwrap();
    uc.reg_write(RegisterARM::R9, 1).unwrap();
    uc.reg_write(RegisterARM::R8, 1000).unwrap();
    uc.emu_start(CODE, CODE + 16, 0, 0).unwrap();
    assert_eq!(uc.reg_read(RegisterARM::R5).unwrap(), 500, "Thumb calls");
    assert_eq!(uc.reg_read(RegisterARM::R4).unwrap(), 500, "Arm calls");
}

/// Patch 0038: a code hook at a block's start (where the flags' last operation is known only
/// at run time) no longer has the flags computed after it, and the code after it still sees
/// the right flags: those of the compare before the jump into the block when the hook leaves
/// EFLAGS alone, and those the hook wrote through the API otherwise.
#[test]
fn x86_code_hook_at_a_block_start_keeps_the_flags() {
    use unicorn_engine::RegisterX86;
    const ZF: u64 = 1 << 6;
    // cmp rax, rbx; jmp L; L: sete cl; nop
    let code = [0x48, 0x39, 0xd8, 0xeb, 0x00, 0x0f, 0x94, 0xc1, 0x90];
    for (equal, write_zf, want) in [(true, None, 1), (false, None, 0), (true, Some(false), 0), (false, Some(true), 1)] {
        let mut uc = Unicorn::new(Arch::X86, Mode::MODE_64).unwrap();
        uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
        uc.mem_write(CODE, &code).unwrap();
        uc.reg_write(RegisterX86::RAX, 5).unwrap();
        uc.reg_write(RegisterX86::RBX, if equal { 5 } else { 6 }).unwrap();
        uc.reg_write(RegisterX86::RCX, 0x77).unwrap();
        uc.add_code_hook(CODE + 5, CODE + 5, move |uc, _, _| {
            let flags = uc.reg_read(RegisterX86::EFLAGS).unwrap();
            assert_eq!(flags & ZF != 0, equal, "the hook reads the compare's flags");
            if let Some(zf) = write_zf {
                uc.reg_write(RegisterX86::EFLAGS, if zf { flags | ZF } else { flags & !ZF }).unwrap();
            }
        })
        .unwrap();
        uc.emu_start(CODE, CODE + 8, 0, 0).unwrap();
        assert_eq!(uc.reg_read(RegisterX86::RCX).unwrap(), want, "equal {equal}, hook writes ZF {write_zf:?}");
    }
}

/// Patch 0037: a hook inside a block may change what the blocks after it must be translated
/// for (the gate's `__kernel_vsyscall` serves system calls in a code hook, and `set_thread_area`
/// reloads a segment), so the cached jump of a block that calls hooks also needs the engine's
/// `chain_epoch` unchanged. A riscv64 loop calls a function through `jalr` and then runs a
/// floating-point move; on the fifth call the function's code hook turns the FPU off in
/// `mstatus` (its FS field is part of each block's flags): the move after that call, translated
/// and linked while the FPU was on, must raise an illegal instruction exception (2).
#[test]
fn cached_jump_after_a_hook_follows_a_flags_change() {
    use std::cell::RefCell;
    use std::rc::Rc;
    use unicorn_engine::RegisterRISCV;
    const MSTATUS_FS: u64 = 3 << 13;
    let f = CODE + 0x1000;
    let mut uc = Unicorn::new(Arch::RISCV, Mode::RISCV64).expect("riscv64 engine");
    uc.mem_map(CODE, 0x2000, Prot::READ | Prot::EXEC).unwrap();
    // jalr t0; fmv.d.x ft0, t1; addi t1, t1, 1; j CODE | f: nop; ret
    uc.mem_write(CODE, &le32(&[0x0002_80e7, 0xf203_0053, 0x0013_0313, 0xff5f_f06f])).unwrap();
    uc.mem_write(f, &le32(&[0x0000_0013, 0x0000_8067])).unwrap();
    uc.reg_write(RegisterRISCV::T0, f).unwrap();
    let mstatus = uc.reg_read(RegisterRISCV::MSTATUS).unwrap();
    uc.reg_write(RegisterRISCV::MSTATUS, mstatus | (1 << 13)).unwrap(); // FS = initial
    let calls = Rc::new(RefCell::new(0u32));
    let c = calls.clone();
    uc.add_code_hook(f, f, move |uc, _, _| {
        *c.borrow_mut() += 1;
        match *c.borrow() {
            5 => {
                let m = uc.reg_read(RegisterRISCV::MSTATUS).unwrap();
                uc.reg_write(RegisterRISCV::MSTATUS, m & !MSTATUS_FS).unwrap();
            }
            20 => uc.emu_stop().unwrap(),
            _ => {}
        }
    })
    .unwrap();
    let traps = Rc::new(RefCell::new(Vec::new()));
    let t = traps.clone();
    uc.add_intr_hook(move |uc, intno| {
        t.borrow_mut().push((intno, uc.reg_read(RegisterRISCV::T1).unwrap()));
        uc.emu_stop().unwrap();
    })
    .unwrap();
    uc.emu_start(CODE, CODE + 0x800, 10_000_000, 0).unwrap();
    assert_eq!(*traps.borrow(), vec![(2, 4)], "the move after the fifth call traps");
    assert_eq!(*calls.borrow(), 5);
}

/// Patch 0040: after `adc` or `sbb` the carry (`setb`, and the carry an `adc` after it takes)
/// and the signed conditions L and LE (`setl`, `setle`) are computed inline, not by
/// `helper_cc_compute_c`/`helper_cc_compute_all`. Each is checked, for operand sizes 8, 16, 32
/// (i386) and 64 (x86_64) and both carries in, against the flags the `pushf` after them reads
/// (computed by the helper) and against the arithmetic done here: CF is the unsigned borrow or
/// carry out of `a ± b ± c`, L is the signed `a - b - c < 0` (`sbb`) or the signed overflow
/// of `a + b + c` differing from its sign (`adc`), LE is L or a zero result.
#[test]
fn x86_adc_sbb_carry_and_signed_conditions_inline() {
    use unicorn_engine::RegisterX86;
    const CF: u64 = 1;
    const ZF: u64 = 1 << 6;
    const SF: u64 = 1 << 7;
    const OF: u64 = 1 << 11;
    let edges: [u64; 12] =
        [0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x7fff_ffff, 0x8000_0000, u64::MAX >> 1, u64::MAX];
    let mut values: Vec<u64> = edges.to_vec();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        values.push(x);
    }
    for (bits, mode) in [(8u32, Mode::MODE_32), (16, Mode::MODE_32), (32, Mode::MODE_32), (64, Mode::MODE_64)] {
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let sign = 1u64 << (bits - 1);
        for sbb in [false, true] {
            // bt $0, %edx (CF = carry in); adc/sbb %ecx, %eax at `bits`; setb %bl; setl %bh;
            // setle %dl; pushf; pop %esi | then, again from bt: adc $0, %edi (edi = CF)
            let op: &[u8] = match (bits, sbb) {
                (8, false) => &[0x10, 0xc8],
                (8, true) => &[0x18, 0xc8],
                (16, false) => &[0x66, 0x11, 0xc8],
                (16, true) => &[0x66, 0x19, 0xc8],
                (32, false) => &[0x11, 0xc8],
                (32, true) => &[0x19, 0xc8],
                (_, false) => &[0x48, 0x11, 0xc8],
                (_, true) => &[0x48, 0x19, 0xc8],
            };
            let mut code = vec![0x0f, 0xba, 0xe2, 0x00];
            code.extend_from_slice(op);
            code.extend_from_slice(&[0x0f, 0x92, 0xc3, 0x0f, 0x9c, 0xc7, 0x0f, 0x9e, 0xc2, 0x9c, 0x5e]);
            let second = CODE + code.len() as u64;
            code.extend_from_slice(&[0x0f, 0xba, 0xe2, 0x00]);
            code.extend_from_slice(op);
            code.extend_from_slice(&[0x83, 0xd7, 0x00]);
            // Unicorn's 32-bit engine takes the E registers by their own names.
            let wide = mode == Mode::MODE_64;
            let r = |q: RegisterX86, e: RegisterX86| if wide { q } else { e };
            let (sp, ax, cx, dx, bx, di, si) = (
                r(RegisterX86::RSP, RegisterX86::ESP),
                r(RegisterX86::RAX, RegisterX86::EAX),
                r(RegisterX86::RCX, RegisterX86::ECX),
                r(RegisterX86::RDX, RegisterX86::EDX),
                r(RegisterX86::RBX, RegisterX86::EBX),
                r(RegisterX86::RDI, RegisterX86::EDI),
                r(RegisterX86::RSI, RegisterX86::ESI),
            );
            let mut uc = Unicorn::new(Arch::X86, mode).unwrap();
            uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
            uc.mem_map(DATA, 0x1000, Prot::ALL).unwrap();
            uc.mem_write(CODE, &code).unwrap();
            for &a in &values {
                for &b in &values {
                    for carry in [0u64, 1] {
                        let (a, b) = (a & mask, b & mask);
                        let run = |uc: &mut Unicorn<'static, ()>, from: u64, to: u64| {
                            uc.reg_write(sp, DATA + 0x800).unwrap();
                            uc.reg_write(ax, a).unwrap();
                            uc.reg_write(cx, b).unwrap();
                            uc.reg_write(dx, carry).unwrap();
                            uc.reg_write(bx, 0).unwrap();
                            uc.reg_write(di, 0).unwrap();
                            uc.emu_start(from, to, 0, 0).unwrap();
                        };
                        run(&mut uc, CODE, second);
                        let flags = uc.reg_read(si).unwrap();
                        let rbx = uc.reg_read(bx).unwrap();
                        let (setb, setl, setle) = (rbx & 0xff, (rbx >> 8) & 0xff, uc.reg_read(dx).unwrap() & 0xff);
                        // What the operation does, in 128-bit arithmetic.
                        let (wa, wb, wc) = (i128::from(a), i128::from(b), i128::from(carry));
                        let sx =
                            |v: u64| if v & sign != 0 { i128::from(v) - (i128::from(mask) + 1) } else { i128::from(v) };
                        let (full, signed) =
                            if sbb { (wa - wb - wc, sx(a) - sx(b) - wc) } else { (wa + wb + wc, sx(a) + sx(b) + wc) };
                        let result = u64::try_from(full & i128::from(mask)).unwrap(); // the low `bits` bits
                        let cf = if sbb { full < 0 } else { full > i128::from(mask) };
                        let sf = result & sign != 0;
                        let of = signed != sx(result);
                        let (l, le) = (sf != of, sf != of || result == 0);
                        let what =
                            format!("{} {bits}: a {a:#x} b {b:#x} carry {carry}", if sbb { "sbb" } else { "adc" });
                        assert_eq!(
                            (flags & CF != 0, flags & SF != 0, flags & OF != 0, flags & ZF != 0),
                            (cf, sf, of, result == 0),
                            "pushf after {what}"
                        );
                        assert_eq!(
                            (setb, setl, setle),
                            (u64::from(cf), u64::from(l), u64::from(le)),
                            "setcc after {what}"
                        );
                        run(&mut uc, second, CODE + code.len() as u64);
                        assert_eq!(uc.reg_read(di).unwrap(), u64::from(cf), "adc $0 after {what}");
                    }
                }
            }
        }
    }
}

/// Patch 0041: a MIPS block of thousands of straight-line instructions translates. Unicorn's
/// MIPS translator kept one TCG temporary per instruction (its delay-slot flag's constant) and,
/// at about 365 instructions into a block, wrote past the last one (a host SIGSEGV in
/// `tcg_emit_op`).
#[test]
fn mips_long_straight_block_translates() {
    const ADDIU_V0_1: u32 = 0x2442_0001; // addiu $v0, $v0, 1
    let n = 1000u64;
    let mut uc = Unicorn::new(Arch::MIPS, Mode::MIPS64 | Mode::LITTLE_ENDIAN).expect("mips64el engine");
    uc.mem_map(CODE, 0x2000, Prot::ALL).unwrap();
    let code: Vec<u8> = (0..n).flat_map(|_| ADDIU_V0_1.to_le_bytes()).collect();
    uc.mem_write(CODE, &code).unwrap();
    uc.reg_write(RegisterMIPS::V0, 0).unwrap();
    uc.emu_start(CODE, CODE + 4 * n, 0, 0).unwrap();
    assert_eq!(uc.reg_read(RegisterMIPS::V0).unwrap(), n);
}

/// What a store-slot engine's range callback (patch 0045) answers, and how often it was asked.
#[derive(Default)]
struct StoreRange {
    range: std::cell::Cell<Option<(u64, u64)>>,
    calls: std::cell::Cell<u32>,
}

/// The range callback of [`slot_store_engine`]: answers what its [`StoreRange`] holds.
unsafe extern "C" fn store_range_cb(
    _uc: *mut unicorn_engine::uc_engine,
    addr: u64,
    start: *mut u64,
    end: *mut u64,
    opaque: *mut std::ffi::c_void,
) -> bool {
    // SAFETY: the StoreRange leaked by slot_store_engine, read on the engine's thread.
    let r = unsafe { &*opaque.cast::<StoreRange>() };
    r.calls.set(r.calls.get() + 1);
    match r.range.get() {
        Some((s, e)) if (s..e).contains(&addr) => {
            // SAFETY: the engine's out-parameters.
            unsafe {
                start.write(s);
                end.write(e);
            }
            true
        }
        _ => false,
    }
}

/// Guest page mapped (patch 0045 tests) to the same memory as DATA + 0x1000, executable.
const CODE2: u64 = 0x4_0000;

/// An aarch64 engine with direct loads through a table (patch 0013, granule 0 only) and store
/// slots (patch 0045): `code` at CODE; DATA and DATA + 0x1000 host-writable, DATA + 0x2000
/// `PROT_NONE`. The TLB hook (whose pages are the engine's, 1 KiB for arm) gives CODE all
/// permissions, [DATA, DATA + 0x2000) what `perms` holds, CODE2 read and execute on DATA +
/// 0x1000's memory, and refuses the rest; it records the data pages it is asked about. An
/// `svc` counts down `flush_at`: reaching 0, the data pages become read-only and the TLB is
/// flushed (as endgate does after an `mprotect`).
#[allow(clippy::type_complexity)]
fn slot_store_engine(
    code: &[u32],
    perms: Prot,
    flush_at: u32,
) -> (Unicorn<'static, ()>, *mut u8, Asked, &'static StoreRange) {
    install_direct_fault_handler();
    let low = reserve(1 << 30);
    let none = reserve(us(GRANULE));
    open_page(low.add_page(CODE), 0);
    // SAFETY: the page just opened.
    unsafe { std::ptr::copy_nonoverlapping(code.as_ptr().cast::<u8>(), low.add(us(CODE)), code.len() * 4) };
    open_page(low.add_page(DATA), 0);
    open_page(low.add_page(DATA + 0x1000), 0);
    let mut table: Vec<u64> = (0..4096u64).map(|g| (none as u64).wrapping_sub(g * GRANULE)).collect();
    table[0] = low as u64;
    let table = Box::leak(table.into_boxed_slice());
    let mut uc = Unicorn::new(Arch::ARM64, Mode::ARM).expect("aarch64 engine");
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    let asked = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = asked.clone();
    let perms = std::rc::Rc::new(std::cell::Cell::new(perms));
    let now = perms.clone();
    uc.add_tlb_hook(0, u64::MAX, move |_, va, _| {
        if (CODE..CODE + 0x1000).contains(&va) {
            Some(TlbEntry { paddr: va, perms: Prot::ALL })
        } else if (CODE2..CODE2 + 0x1000).contains(&va) {
            Some(TlbEntry { paddr: va - CODE2 + DATA + 0x1000, perms: Prot::READ | Prot::EXEC })
        } else {
            seen.borrow_mut().push(va);
            (DATA..DATA + 0x2000).contains(&va).then(|| TlbEntry { paddr: va, perms: now.get() })
        }
    })
    .unwrap();
    let left = std::cell::Cell::new(flush_at);
    uc.add_intr_hook(move |uc, _| {
        left.set(left.get().wrapping_sub(1));
        if left.get() == 0 {
            perms.set(Prot::READ);
            uc.ctl_flush_tlb().unwrap();
        }
    })
    .unwrap();
    // SAFETY: the reservation outlives the engine (never unmapped).
    unsafe { uc.mem_map_ptr(0, 1 << 30, Prot::ALL, low.cast()) }.unwrap();
    let range: &'static StoreRange = Box::leak(Box::default());
    // SAFETY: a live engine; the table (leaked) and the PROT_NONE granule outlive it, the host
    // protection of every page it reaches says what the guest may read; the callback never
    // unwinds and its StoreRange is leaked.
    unsafe {
        let r: Result<(), uc_error> =
            unicorn_engine::uc_set_direct_table(uc.get_handle(), table.as_ptr(), none as u64).into();
        r.unwrap();
        let r: Result<(), uc_error> = unicorn_engine::uc_set_store_slots(
            uc.get_handle(),
            Some(store_range_cb),
            std::ptr::from_ref(range).cast_mut().cast(),
        )
        .into();
        r.unwrap();
    }
    range.range.set(Some((DATA, DATA + 0x2000)));
    (uc, low, asked, range)
}

/// A host address inside a test reservation.
trait AddPage {
    fn add_page(self, guest: u64) -> *mut u8;
}

impl AddPage for *mut u8 {
    fn add_page(self, guest: u64) -> *mut u8 {
        // SAFETY: callers pass guest addresses inside the reservation.
        unsafe { self.add(us(guest)) }
    }
}

/// Reads the guest's u64 at `guest` from the host memory at `low`.
fn host_u64(low: *mut u8, guest: u64) -> u64 {
    // SAFETY: a readable page of the test's reservation.
    unsafe { low.add_page(guest).cast::<u64>().read_unaligned() }
}

/// `str x1, [x0]; svc #0; add x0, x0, x3; subs x4, x4, #1; b.ne 0b; nop`: x4 stores of x1,
/// x3 apart, from one store instruction.
const STORE_LOOP: [u32; 6] = [0xf900_0001, 0xd400_0001, 0x8b03_0000, 0xf100_0484, 0x54ff_ff81, 0xd503_201f];

/// Runs [`STORE_LOOP`] from x0 = `at`.
fn store_loop(uc: &mut Unicorn<'static, ()>, at: u64, stride: u64, n: u64, v: u64) -> Result<(), uc_error> {
    for (r, x) in [(RegisterARM64::X0, at), (RegisterARM64::X1, v), (RegisterARM64::X3, stride), (RegisterARM64::X4, n)]
    {
        uc.reg_write(r, x).unwrap();
    }
    uc.emu_start(CODE, end_of(&STORE_LOOP), 0, 0)
}

/// Patch 0045: a store outside its slot's range goes through the TLB and asks for the range
/// once; later stores from the same instruction anywhere in the range (pages the TLB never
/// saw) write host memory without the TLB, up to the range's last 8 bytes; a store past the
/// range goes through the TLB (and stops at it where the TLB refuses).
/// Once the pages are made read-only and the TLB flushed, the same store stops at the store
/// with nothing written: the flush emptied the slot.
#[test]
fn store_slot_writes_its_range_without_the_tlb_until_a_flush() {
    let (mut uc, low, asked, range) = slot_store_engine(&STORE_LOOP, Prot::READ | Prot::WRITE, 7);
    store_loop(&mut uc, DATA + 8, 0x7f8, 5, 0x11).unwrap();
    assert_eq!((asked.borrow().clone(), range.calls.get()), (vec![DATA], 1), "the first store alone asks");
    for at in [DATA + 8, DATA + 0x800, DATA + 0xff8, DATA + 0x17f0, DATA + 0x1fe8] {
        assert_eq!(host_u64(low, at), 0x11, "store at {at:#x}");
    }
    store_loop(&mut uc, DATA + 0x1ff8, 0, 1, 0x22).unwrap();
    assert_eq!(host_u64(low, DATA + 0x1ff8), 0x22, "the range's last 8 bytes");
    asked.borrow_mut().clear();

    // Right past the range (DATA + 0x2000, which the TLB refuses): through the TLB, stopped
    // (the aarch64 engine reports the data abort as an exception it did not deliver).
    assert_eq!(store_loop(&mut uc, DATA + 0x2000, 0, 1, u64::MAX), Err(uc_error::EXCEPTION));
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE, "stopped at the store");
    assert!(asked.borrow().contains(&(DATA + 0x2000)), "the TLB was asked: {:x?}", asked.borrow());

    // The loop's first svc (the seventh of the engine) makes the pages read-only and flushes.
    assert_eq!(store_loop(&mut uc, DATA + 0x10, 0x800, 3, 0x33), Err(uc_error::EXCEPTION));
    assert_eq!(reg(&uc, RegisterARM64::PC), CODE, "stopped at the store");
    assert_eq!(host_u64(low, DATA + 0x10), 0x33, "the store before the flush");
    assert_eq!(host_u64(low, DATA + 0x810), 0, "the read-only page kept its value");
}

/// Patch 0045: a slot is never filled for an executable page (a store there must see the
/// page's translated code), whatever the range callback would say: it is not asked.
#[test]
fn store_slot_is_not_filled_for_an_executable_page() {
    let (mut uc, low, _, range) = slot_store_engine(&STORE_LOOP, Prot::ALL, 0);
    store_loop(&mut uc, DATA, 0x400, 8, 0x44).unwrap();
    assert_eq!(host_u64(low, DATA + 0x1c00), 0x44);
    assert_eq!(range.calls.get(), 0, "no range asked for executable pages");
}

/// Patch 0045: a watched entry (patch 0039: a writable view of memory that an executable view
/// runs code from, as a JIT's second mapping) never fills a slot: every store through it keeps
/// taking the TLB, finds the translated code and drops it, and the new instruction runs.
#[test]
fn store_slot_is_never_filled_through_a_watched_view() {
    // 0: str x1, [x0]; blr x5; add x7, x7, x2; mov x1, x6; subs x4, x4, #1; b.ne 0b; nop
    let code = [0xf900_0001, 0xd63f_00a0, 0x8b02_00e7, 0xaa06_03e1, 0xf100_0484, 0x54ff_ff61, 0xd503_201f];
    let watched = Prot(Prot::READ.0 | Prot::WRITE.0 | Prot::STORE_WATCH.0);
    let (mut uc, _, _, range) = slot_store_engine(&code, watched, 0);
    for (r, x) in [
        (RegisterARM64::X0, DATA + 0x1000),
        (RegisterARM64::X1, 0xd65f_03c0_d280_0022), // movz x2, #1; ret
        (RegisterARM64::X6, 0xd65f_03c0_d280_0042), // movz x2, #2; ret
        (RegisterARM64::X5, CODE2),
        (RegisterARM64::X4, 2),
        (RegisterARM64::X7, 0),
    ] {
        uc.reg_write(r, x).unwrap();
    }
    uc.emu_start(CODE, end_of(&code), 0, 0).unwrap();
    assert_eq!(reg(&uc, RegisterARM64::X7), 3, "the second call ran the new code (1 + 2)");
    assert_eq!(range.calls.get(), 0, "no range asked through a watched entry");
}

/// Patch 0049: `uc_flush_tlb_range` drops the TLB entries of the range's pages and keeps the
/// others. The TLB-fill hook answers from a flag: a store fills an entry that allows it; the
/// flag then says read-only, and the cached entry keeps taking the store until it is flushed:
/// a flush of the neighbouring page keeps it (no fill), a flush of its own page drops it (the
/// fill refuses the store).
#[test]
fn tlb_flush_of_a_range_drops_only_its_pages() {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    static WRITABLE: AtomicBool = AtomicBool::new(true);
    static FILLS: AtomicU32 = AtomicU32::new(0);
    let code = [STR_X1_X0, NOP];
    let mut uc = engine(&code);
    uc.ctl_set_tlb_type(TlbType::VIRTUAL).unwrap();
    uc.add_tlb_hook(0, u64::MAX, |_, va, access| {
        FILLS.fetch_add(1, Ordering::SeqCst);
        let data = (DATA..DATA + 0x1000).contains(&va);
        let perms = if data && !WRITABLE.load(Ordering::SeqCst) { Prot::READ } else { Prot::ALL };
        let allowed = access != MemType::WRITE || perms.0 & Prot::WRITE.0 != 0;
        (va < DATA + 0x1000 && allowed).then_some(TlbEntry { paddr: va, perms })
    })
    .unwrap();
    uc.reg_write(RegisterARM64::X0, DATA + 8).unwrap();
    let run = |uc: &mut Unicorn<'static, ()>| uc.emu_start(CODE, end_of(&code), 0, 0);
    assert_eq!(run(&mut uc), Ok(()), "the first store fills a writable entry");
    WRITABLE.store(false, Ordering::SeqCst);
    let fills = FILLS.load(Ordering::SeqCst);
    assert_eq!(run(&mut uc), Ok(()), "the cached entry takes the store");
    // SAFETY: a live engine, not running.
    let r = unsafe { unicorn_engine::uc_flush_tlb_range(uc.get_handle(), DATA + 0x1000, DATA + 0x3000) };
    assert_eq!(r, uc_error::OK);
    assert_eq!(run(&mut uc), Ok(()), "a flush of other pages keeps the entry");
    assert_eq!(FILLS.load(Ordering::SeqCst), fills, "no fill after the neighbours' flush");
    // SAFETY: as above.
    // The range ends inside the store's page (the aarch64 engine's TLB pages are 1 KiB: the
    // flush goes in the target's page size).
    let r = unsafe { unicorn_engine::uc_flush_tlb_range(uc.get_handle(), DATA - 0x1000, DATA + 9) };
    assert_eq!(r, uc_error::OK);
    assert_eq!(run(&mut uc), Err(uc_error::EXCEPTION), "the store refused once its page's entry is gone");
    // SAFETY: as above.
    let r = unsafe { unicorn_engine::uc_flush_tlb_range(uc.get_handle(), DATA + 0x1000, DATA) };
    assert_eq!(r, uc_error::ARG, "begin above end");
}

/// Patch 0050: the translated blocks' hash table starts small (2^10 buckets) and grows as the
/// engine translates more. 12,000 blocks, each ending in an indirect branch to the next (so
/// that every block is found through the lookup, and the jump cache of 4,096 entries keeps
/// missing), run twice in one loop: each block runs, and runs again after the table grew,
/// found and not lost.
#[test]
fn many_blocks_are_found_after_the_small_tb_table_grows() {
    const BASE: u64 = 0x10_0000;
    const BLOCKS: u32 = 12_000;
    const ADD_X2_1: u32 = 0x9100_0442; // add x2, x2, #1
    const ADR_X4_8: u32 = 0x1000_0044; // adr x4, .+8 (the next block)
    const BR_X4: u32 = 0xd61f_0080; // br x4
    const SUBS_X3_1: u32 = 0xf100_0463; // subs x3, x3, #1
    let mut code: Vec<u32> = (0..BLOCKS).flat_map(|_| [ADD_X2_1, ADR_X4_8, BR_X4]).collect();
    // b.ne BASE, from the word after `subs`.
    let back = -i64::from(3 * BLOCKS + 1);
    let imm19 = u32::try_from(back & 0x7_ffff).expect("19 bits");
    code.extend([SUBS_X3_1, 0x5400_0001 | imm19 << 5, NOP]);
    let mut uc = Unicorn::new(Arch::ARM64, Mode::ARM).expect("aarch64 engine");
    uc.mem_map(BASE, 0x4_0000, Prot::READ | Prot::EXEC).expect("map code");
    let bytes: Vec<u8> = code.iter().flat_map(|insn| insn.to_le_bytes()).collect();
    uc.mem_write(BASE, &bytes).expect("write code");
    uc.reg_write(RegisterARM64::X2, 0).unwrap();
    uc.reg_write(RegisterARM64::X3, 2).unwrap();
    let end = BASE + 4 * (code.len() as u64 - 1);
    uc.emu_start(BASE, end, 0, 0).expect("run");
    assert_eq!(reg(&uc, RegisterARM64::X2), 2 * u64::from(BLOCKS), "every block ran twice");
    assert_eq!(reg(&uc, RegisterARM64::PC), end);
}

/// Patch 0051: closing an engine takes its regions out of its memory map at once and rebuilds
/// the map once. Fifty engines in turn map eight pages of one host buffer (and a code page of
/// their own), store through each, and are closed while a first engine over the same buffer
/// stays open: the buffer keeps every store, and the first engine still reads and writes it
/// after each close.
#[test]
fn closing_engines_leaves_shared_host_memory_and_other_engines_alone() {
    const STR_X2_X1: u32 = 0xf900_0022; // str x2, [x1]
    const LDR_X3_X1: u32 = 0xf940_0023; // ldr x3, [x1]
    const PAGES: usize = 8;
    const REGION: u64 = 0x10_0000;
    let mut host = vec![0u64; 512 * PAGES];
    let base: *mut u64 = host.as_mut_ptr();
    let host_at = |page: usize| base.wrapping_add(512 * page).cast::<core::ffi::c_void>();
    let map_all = |uc: &mut Unicorn<'static, ()>| {
        uc.mem_map(CODE, 0x1000, Prot::READ | Prot::EXEC).expect("map code");
        let bytes: Vec<u8> = [STR_X2_X1, LDR_X3_X1, NOP].iter().flat_map(|i| i.to_le_bytes()).collect();
        uc.mem_write(CODE, &bytes).expect("write code");
        for page in 0..PAGES {
            // SAFETY: `host` (4 KiB a page) outlives every engine: each is dropped before
            // the end of the test.
            unsafe { uc.mem_map_ptr(REGION * (page as u64 + 1), 0x1000, Prot::ALL, host_at(page)) }.expect("map page");
        }
    };
    let store = |uc: &mut Unicorn<'static, ()>, page: usize, value: u64| {
        let page = page as u64;
        uc.reg_write(RegisterARM64::X1, REGION * (page + 1) + 8 * page).unwrap();
        uc.reg_write(RegisterARM64::X2, value).unwrap();
        uc.emu_start(CODE, CODE + 8, 0, 0).expect("store and load");
        assert_eq!(reg(uc, RegisterARM64::X3), value);
    };
    let mut first = Unicorn::new(Arch::ARM64, Mode::ARM).expect("aarch64 engine");
    map_all(&mut first);
    for round in 1..=50u64 {
        let mut uc = Unicorn::new(Arch::ARM64, Mode::ARM).expect("aarch64 engine");
        map_all(&mut uc);
        for page in 0..PAGES {
            store(&mut uc, page, round * 100 + page as u64);
        }
        drop(uc);
        for page in 0..PAGES {
            // SAFETY: inside the buffer, which no engine is running on now.
            let got = unsafe { std::ptr::read_volatile(base.add(512 * page + page)) };
            assert_eq!(got, round * 100 + page as u64, "round {round}");
        }
        store(&mut first, usize::try_from(round).unwrap() % PAGES, round);
    }
    drop(first);
    host.clear();
}

/// Patch 0052: s390x `chrl` and `cghrl` compare a register with a sign-extended halfword at a
/// relative-long address (Principles of Operation, COMPARE HALFWORD RELATIVE LONG); unicorn's
/// QEMU base read a word (`chrl`) and a doubleword (`cghrl`) there. Each compares a register
/// equal to the halfword, where the bytes after it make the longer reads differ (24 followed
/// by 0xfffb; -5 followed by 7): condition code 0.
#[test]
fn s390x_chrl_and_cghrl_compare_a_halfword() {
    use unicorn_engine::RegisterS390X;
    // RIL-b: 0xc6, r1 << 4 | op, then the halfword offset from the instruction, big-endian.
    fn ril(op: u8, r1: u8, at: u64, to: u64) -> [u8; 6] {
        let off = i32::try_from((i64::try_from(to).unwrap() - i64::try_from(at).unwrap()) / 2).unwrap();
        let o = off.to_be_bytes();
        [0xc6, r1 << 4 | op, o[0], o[1], o[2], o[3]]
    }
    const DATA: u64 = CODE + 0x100;
    for (half, next) in [(24i16, 0xfffbu16), (-5, 7)] {
        let mut code = Vec::new();
        code.extend(ril(5, 3, CODE, DATA)); // chrl %r3, DATA
        code.extend([0xb2, 0x22, 0x00, 0x60]); // ipm %r6
        code.extend(ril(4, 4, CODE + 10, DATA)); // cghrl %r4, DATA
        code.extend([0xb2, 0x22, 0x00, 0x70]); // ipm %r7
        code.extend([0x07, 0x00]); // nopr
        let end = CODE + code.len() as u64 - 2;
        let mut uc = Unicorn::new(Arch::S390X, Mode::BIG_ENDIAN).expect("s390x engine");
        uc.mem_map(CODE, 0x1000, Prot::ALL).unwrap();
        uc.mem_write(CODE, &code).unwrap();
        let mut data = half.to_be_bytes().to_vec();
        data.extend(next.to_be_bytes());
        data.extend([0x12, 0x34, 0x56, 0x78]);
        uc.mem_write(DATA, &data).unwrap();
        let v = u64::from_ne_bytes(i64::from(half).to_ne_bytes());
        uc.reg_write(RegisterS390X::R3, v).unwrap();
        uc.reg_write(RegisterS390X::R4, v).unwrap();
        uc.emu_start(CODE, end, 0, 0).unwrap();
        let cc = |r| (uc.reg_read(r).unwrap() >> 28) & 3;
        assert_eq!(cc(RegisterS390X::R6), 0, "chrl: {half} equals the halfword");
        assert_eq!(cc(RegisterS390X::R7), 0, "cghrl: {half} equals the halfword");
    }
}
