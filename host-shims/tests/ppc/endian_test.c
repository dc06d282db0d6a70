/*
 * endian_test.c - static POWER test program for host-shims (ppc64 and ppc64le). Built by the
 * crate's lab module (src/lab.rs) with Debian's powerpc64(le)-linux-gnu-gcc together with the
 * crate's own csrc/shims.c and csrc/ppc64.S, so it runs exactly the probes endgate runs.
 *
 * It prints one "key value" line per fact (parsed by tests/ppc_*.rs and the benches):
 *   probe <fast|switch_endian|prctl_get|prctl_set> <works|errno N|no-switch|not-tried> ...
 *   chosen <fast|switch_endian|prctl|software>
 *   pattern reversed=<id> native=<id>  (0 = every register matched; only when a switch works)
 *   block <strategy> arg=0x.. result=0x..  (lwz run in the other byte order via each strategy)
 *   time <what> iters=N ticks=T ns=X    (X = ns per iteration, from CLOCK_MONOTONIC)
 *   then a Markdown table, and "end".
 * Run as /init (pid 1) under a real kernel it mounts /proc for the time-base frequency and
 * powers the machine off at the end.
 */
#define _GNU_SOURCE
#include "shims.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long endgate_ppc_pattern_round_trip(void);
extern const uint32_t endgate_test_block[];

static const char *const strategy_names[] = { "fast", "switch_endian", "prctl", "software" };

static void print_outcome(const char *what, int32_t v)
{
	if (v == ENDGATE_WORKS)
		printf("probe %s works\n", what);
	else if (v == ENDGATE_NO_SWITCH)
		printf("probe %s no-switch\n", what);
	else if (v == ENDGATE_NOT_TRIED)
		printf("probe %s not-tried\n", what);
	else
		printf("probe %s errno %d (%s)\n", what, (int)v, strerror(v));
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Time base frequency: glibc's __ppc_get_timebase_freq (via shims.c), else /proc/cpuinfo's
 * "timebase" line. */
static uint64_t timebase_hz(void)
{
	uint64_t hz = endgate_counter_hz();
	char line[256];
	FILE *f;

	if (hz)
		return hz;
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "timebase : %lu", &hz) == 1)
			break;
	fclose(f);
	return hz;
}

struct timing {
	const char *name;
	uint64_t iters, ticks, ns;
	int ok;
};

static struct timing timings[8];
static int ntimings;

static void record(const char *name, uint64_t iters, uint64_t t0, uint64_t t1,
		   uint64_t n0, uint64_t n1, int ok)
{
	struct timing *t = &timings[ntimings++];
	t->name = name;
	t->iters = iters;
	t->ticks = t1 - t0;
	t->ns = n1 - n0;
	t->ok = ok;
	if (ok)
		printf("time %s iters=%lu ticks=%lu ns=%.1f\n", name, iters, t->ticks,
		       (double)t->ns / (double)iters);
	else
		printf("time %s unavailable\n", name);
}

typedef long (*round_trips_fn)(uint64_t);

static void time_switch(const char *name, round_trips_fn fn, int works, uint64_t iters)
{
	uint64_t t0, t1, n0, n1;
	long rc;

	if (!works) {
		record(name, iters, 0, 0, 0, 0, 0);
		return;
	}
	fn(1000);	/* warm up: both byte orders' translations (under TCG) and caches */
	n0 = now_ns();
	t0 = endgate_counter();
	rc = fn(iters);
	t1 = endgate_counter();
	n1 = now_ns();
	record(name, iters, t0, t1, n0, n1, rc == 0);
}

static uint32_t swapbuf[1024];	/* 4 KiB */

static void time_bswap(uint64_t iters)
{
	uint64_t t0, t1, n0, n1, i;
	size_t j;
	for (j = 0; j < 1024; j++)
		swapbuf[j] = (uint32_t)j * 0x9e3779b9u;
	n0 = now_ns();
	t0 = endgate_counter();
	for (i = 0; i < iters; i++) {
		for (j = 0; j < 1024; j++)
			swapbuf[j] = __builtin_bswap32(swapbuf[j]);
		__asm__ volatile("" ::: "memory");	/* keep every pass */
	}
	t1 = endgate_counter();
	n1 = now_ns();
	record("bswap_4k", iters, t0, t1, n0, n1, 1);
}

static void time_getppid(uint64_t iters)
{
	uint64_t t0, t1, n0, n1, i;
	n0 = now_ns();
	t0 = endgate_counter();
	for (i = 0; i < iters; i++)
		syscall(SYS_getppid);
	t1 = endgate_counter();
	n1 = now_ns();
	record("getppid", iters, t0, t1, n0, n1, 1);
}

int main(int argc, char **argv)
{
	struct endgate_probe p;
	uint64_t iters = 100000, hz;
	int i, init = getpid() == 1;

	if (argc > 1)
		iters = strtoull(argv[1], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (init) {
		mkdir("/proc", 0555);
		mount("proc", "/proc", "proc", 0, NULL);
	}
#if defined(__LITTLE_ENDIAN__)
	printf("endgate-ppc-test start arch=ppc64le\n");
#else
	printf("endgate-ppc-test start arch=ppc64\n");
#endif
	endgate_probe_chain(&p);
	print_outcome("fast", p.fast);
	print_outcome("switch_endian", p.switch_endian);
	print_outcome("prctl_get", p.prctl_get);
	if (p.prctl_get == 0)
		printf("prctl_mode %u\n", p.prctl_mode);
	print_outcome("prctl_set", p.prctl_set);
	printf("chosen %s\n", strategy_names[p.chosen]);

	if (p.switch_endian == ENDGATE_WORKS) {
		long r = endgate_ppc_pattern_round_trip();
		if (r >= 0 && r < 0x10000)
			printf("pattern reversed=%ld native=%ld\n", r & 0xff, (r >> 8) & 0xff);
		else
			printf("pattern failed rc=%ld\n", r);
	}
	{
		const int32_t *const works[3] = { &p.fast, &p.switch_endian, &p.prctl_set };
		static const uint32_t word = 0x11223344;
		int s;
		for (s = 0; s < 3; s++) {
			uint64_t io = (uint64_t)(uintptr_t)&word;
			long rc;
			if (*works[s] != ENDGATE_WORKS)
				continue;
			rc = endgate_ppc_run_other_endian(s, endgate_test_block, &io);
			printf("block %s rc=%ld arg=0x%08x result=0x%08lx\n", strategy_names[s], rc,
			       word, (unsigned long)io);
		}
	}

	hz = timebase_hz();
	printf("timebase_hz %lu\n", hz);
	time_switch("fast", endgate_ppc_fast_round_trips, p.fast == ENDGATE_WORKS, iters);
	time_switch("switch_endian", endgate_ppc_switch_endian_round_trips,
		    p.switch_endian == ENDGATE_WORKS, iters);
	time_switch("prctl", endgate_ppc_prctl_round_trips, p.prctl_set == ENDGATE_WORKS, iters);
	time_getppid(iters);
	time_bswap(iters / 10 ? iters / 10 : 1);

	printf("\n| what (per iteration) | iterations | time-base ticks | ns |\n");
	printf("|---|---:|---:|---:|\n");
	for (i = 0; i < ntimings; i++) {
		struct timing *t = &timings[i];
		if (t->ok)
			printf("| %s | %lu | %.1f | %.1f |\n", t->name, t->iters,
			       (double)t->ticks / (double)t->iters, (double)t->ns / (double)t->iters);
		else
			printf("| %s | - | unavailable | unavailable |\n", t->name);
	}
	printf("end\n");
	fflush(stdout);
	if (init) {
		sync();
		reboot(RB_POWER_OFF);
	}
	return 0;
}
