/*
 * shims.h - the C interface of host-shims (mirrored by src/ffi.rs). Built into the Rust crate
 * by build.rs and into the static POWER test programs (tests/ppc/), so both run the same probes.
 */
#ifndef ENDGATE_SHIMS_H
#define ENDGATE_SHIMS_H
#include <stdint.h>

/* Strategies, in the order probe tries them. */
enum endgate_strategy {
	ENDGATE_FAST_SWITCH = 0,	/* sc 0x1ebe (CONFIG_PPC_FAST_ENDIAN_SWITCH, Linux < 6.12) */
	ENDGATE_SWITCH_ENDIAN = 1,	/* switch_endian, syscall 363 (ppc64, Linux 4.1+) */
	ENDGATE_PRCTL = 2,		/* prctl(PR_SET_ENDIAN) (powerpc, Linux 2.6.18+) */
	ENDGATE_SOFTWARE = 3,		/* software byteswap: always available */
};

/* Outcome of one probe: ENDGATE_WORKS, an errno value (> 0) the kernel returned,
 * ENDGATE_NO_SWITCH (the call succeeded but the byte order did not change) or
 * ENDGATE_NOT_TRIED (the mechanism does not exist on this architecture). */
#define ENDGATE_WORKS		0
#define ENDGATE_NO_SWITCH	(-1)
#define ENDGATE_NOT_TRIED	(-2)

struct endgate_probe {
	int32_t fast;			/* sc 0x1ebe round trip (on non-POWER: syscall(0x1ebe)) */
	int32_t switch_endian;		/* switch_endian round trip (POWER only) */
	int32_t prctl_get;		/* prctl(PR_GET_ENDIAN, &mode) */
	int32_t prctl_set;		/* PR_SET_ENDIAN round trip (non-POWER: PR_SET_ENDIAN to 0) */
	uint32_t prctl_mode;		/* the mode PR_GET_ENDIAN wrote (valid when prctl_get == 0) */
	int32_t chosen;			/* enum endgate_strategy: the first that works */
};

/* Runs the whole fallback chain; every step is safe on every kernel. */
void endgate_probe_chain(struct endgate_probe *out);

/* The cycle / time-base counter: rdtsc (x86_64), cntvct_el0 (aarch64), mftb (POWER);
 * 0 on other hosts. */
uint64_t endgate_counter(void);
/* Its frequency in Hz as the platform reports it, 0 when it does not: CPUID leaf 0x15 (x86_64),
 * cntfrq_el0 (aarch64), glibc's __ppc_get_timebase_freq (POWER). */
uint64_t endgate_counter_hz(void);

#if defined(__powerpc64__)
/* ppc64.S: n switch round trips (0, an errno, or ENDGATE_NO_SWITCH). */
long endgate_ppc_fast_round_trips(uint64_t n);
long endgate_ppc_switch_endian_round_trips(uint64_t n);
long endgate_ppc_prctl_round_trips(uint64_t n);
/* ppc64.S: call byte-reversed code in the other byte order (see ppc64.S for the contract). */
long endgate_ppc_run_other_endian(long strategy, const uint32_t *code, uint64_t *inout);
#endif

#endif
