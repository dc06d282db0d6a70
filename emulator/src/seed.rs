//! `-seed N` (qemu-user's option of the same name): the guest's random bytes — the 16 bytes
//! `AT_RANDOM` points at (glibc's stack protector and pointer guard) and what `getrandom(2)`
//! returns — come from a generator seeded with N instead of the host's, so that two runs of
//! the same program make the same choices (for `endgate-diff`, docs/diff.md, and for
//! reproducing a failure). Without it the host's random bytes are used, as natively. A forked
//! child goes on from a copy of the generator (its bytes repeat its parent's); a program the
//! guest starts with `execve` is seeded again with N.

use std::sync::Mutex;

/// The seed and the generator, once `-seed` was given.
static SEEDED: Mutex<Option<(u64, fastrand::Rng)>> = Mutex::new(None);

/// Seeds the guest's random bytes with `seed`.
pub fn set(seed: u64) {
    *SEEDED.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((seed, fastrand::Rng::with_seed(seed)));
}

/// The seed given with `-seed`, for an `execve` to hand on.
pub fn get() -> Option<u64> {
    SEEDED.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref().map(|s| s.0)
}

/// Fills `buf` from the seeded generator; `false` (nothing written) without `-seed`.
pub fn fill(buf: &mut [u8]) -> bool {
    let mut g = SEEDED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some((_, rng)) = g.as_mut() else { return false };
    rng.fill(buf);
    true
}
