/*
 * shims.c - host-shims' probes and counters in C, one file for every host architecture.
 *
 * On POWER a probe must switch and come back in a single asm sequence (ppc64.S): once MSR[LE]
 * flips, the compiled code after a plain syscall() would run byte-reversed. Elsewhere the
 * numbers are plain system calls with no effect: 0x1ebe is beyond every syscall table (ENOSYS),
 * and prctl(PR_GET/SET_ENDIAN) is EINVAL from kernel/sys.c's generic GET_ENDIAN/SET_ENDIAN.
 */
#define _GNU_SOURCE
#include "shims.h"
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__powerpc64__)
#include <sys/platform/ppc.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#ifndef PR_GET_ENDIAN
#define PR_GET_ENDIAN 19
#define PR_SET_ENDIAN 20
#endif

/* errno of a call that returned -1, 0 for success. */
static int32_t err_of(long rc)
{
	return rc == -1 ? (int32_t)errno : 0;
}

void endgate_probe_chain(struct endgate_probe *out)
{
	unsigned int mode = 0;

	out->prctl_get = err_of(prctl(PR_GET_ENDIAN, (unsigned long)&mode, 0, 0, 0));
	out->prctl_mode = out->prctl_get == 0 ? mode : 0;
#if defined(__powerpc64__)
	out->fast = (int32_t)endgate_ppc_fast_round_trips(1);
	out->switch_endian = (int32_t)endgate_ppc_switch_endian_round_trips(1);
	out->prctl_set = (int32_t)endgate_ppc_prctl_round_trips(1);
#else
	out->fast = err_of(syscall(0x1ebe));
	if (out->fast == 0)
		out->fast = ENDGATE_NO_SWITCH;	/* something else answered 0x1ebe */
	out->switch_endian = ENDGATE_NOT_TRIED;	/* 363 is switch_endian only on powerpc */
	/* PR_ENDIAN_BIG; generic kernels refuse every value with EINVAL. */
	out->prctl_set = err_of(prctl(PR_SET_ENDIAN, 0UL, 0, 0, 0));
	if (out->prctl_set == 0)
		out->prctl_set = ENDGATE_NO_SWITCH;
#endif
	if (out->fast == ENDGATE_WORKS)
		out->chosen = ENDGATE_FAST_SWITCH;
	else if (out->switch_endian == ENDGATE_WORKS)
		out->chosen = ENDGATE_SWITCH_ENDIAN;
	else if (out->prctl_set == ENDGATE_WORKS)
		out->chosen = ENDGATE_PRCTL;
	else
		out->chosen = ENDGATE_SOFTWARE;
}

uint64_t endgate_counter(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));	/* clobbers only rax, rdx */
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#elif defined(__powerpc64__)
	uint64_t v;
	__asm__ volatile("mftb %0" : "=r"(v));	/* Time Base, readable from user mode */
	return v;
#else
	return 0;
#endif
}

uint64_t endgate_counter_hz(void)
{
#if defined(__x86_64__)
	unsigned int max = __get_cpuid_max(0, 0), a = 0, b = 0, c = 0, d = 0;
	/* Leaf 0x15: TSC/crystal ratio b/a and crystal Hz in c (Intel SDM vol. 2A, CPUID);
	 * many VMs and AMD parts leave it 0. */
	if (max >= 0x15 && __get_cpuid(0x15, &a, &b, &c, &d) && a && b && c)
		return (uint64_t)c * b / a;
	return 0;
#elif defined(__aarch64__)
	uint64_t f;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
#elif defined(__powerpc64__)
	return __ppc_get_timebase_freq();
#else
	return 0;
#endif
}
