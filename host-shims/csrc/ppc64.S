/*
 * ppc64.S - the POWER endian switches: round trips (probe and timing) and "run this code in
 * the other byte order". Built by host-shims' build.rs on powerpc64/powerpc64le hosts and into
 * the static test programs (tests/ppc/), big- and little-endian alike.
 *
 * Three ways to flip MSR[LE] for the calling thread (facts in the crate docs, src/lib.rs):
 *   fast   sc with r0 = 0x1ebe (CONFIG_PPC_FAST_ENDIAN_SWITCH, removed in Linux 6.12): handled
 *          at the top of the 0xc00 vector, clobbers r12 only (r13 reloaded, rfid back);
 *   se     switch_endian (363, 64-bit tasks only, Linux 4.1+): keeps r3 (TIF_RESTOREALL),
 *          clobbers r9-r12, XER, CTR, CR0-1,5-7;
 *   prctl  prctl(PR_SET_ENDIAN, mode): an ordinary system call, r3 = 0 on return, clobbers
 *          the syscall-volatile set r0, r3-r12, XER, CTR, CR0-1,5-7.
 * Each sequence below switches, runs byte-reversed words (REV) in the other byte order, switches
 * back with the same mechanism and goes on natively. Where the first `sc` did not switch (ENOSYS,
 * EINVAL, qemu-user) the SWITCHED_OR guard branches to the failure path, so every function is
 * safe to call on any kernel. All functions follow the C ABI: they may clobber r0, r3-r12, CTR,
 * XER, LR, CR0-1,5-7 and save what else they use.
 *
 * Return values: 0 = switched and back (n times); > 0 = errno from the first `sc` (CR0[SO] set);
 * -1 = the first `sc` returned without an error and without switching.
 */
#include "ppc64-asm.h"

/* Failure exit shared by the functions below (r3 holds the sc result, CR0 its status). */
#define FAIL_RESULT(label) \
label:	bns 1f; b 2f; 1: li r3,-1; 2:

/* long endgate_ppc_fast_round_trips(uint64_t n): n round trips through sc 0x1ebe. */
FUNC_START(endgate_ppc_fast_round_trips)
	std	r31,-8(r1)		/* red zone: leaf function, no calls */
	mr	r31,r3			/* r31: round trips left */
	cmpdi	r31,0
	beq	9f
0:	li	r0,NR_FAST_ENDIAN
	sc
	SWITCHED_OR(8f)
	.long	REV(I_LI(0, NR_FAST_ENDIAN))	/* other byte order: li r0,0x1ebe */
	.long	REV(I_SC)			/* other byte order: sc, back to native */
	addi	r31,r31,-1
	cmpdi	r31,0
	bne	0b
9:	li	r3,0
	b	7f
	FAIL_RESULT(8)
7:	ld	r31,-8(r1)
	blr
FUNC_END(endgate_ppc_fast_round_trips)

/* long endgate_ppc_switch_endian_round_trips(uint64_t n): n round trips through switch_endian. */
FUNC_START(endgate_ppc_switch_endian_round_trips)
	std	r31,-8(r1)
	mr	r31,r3
	cmpdi	r31,0
	beq	9f
0:	li	r0,NR_SWITCH_ENDIAN
	sc
	SWITCHED_OR(8f)
	.long	REV(I_LI(0, NR_SWITCH_ENDIAN))	/* other byte order: li r0,363 */
	.long	REV(I_SC)			/* other byte order: sc, back to native */
	addi	r31,r31,-1
	cmpdi	r31,0
	bne	0b
9:	li	r3,0
	b	7f
	FAIL_RESULT(8)
7:	ld	r31,-8(r1)
	blr
FUNC_END(endgate_ppc_switch_endian_round_trips)

/* long endgate_ppc_prctl_round_trips(uint64_t n): n round trips through prctl(PR_SET_ENDIAN). */
FUNC_START(endgate_ppc_prctl_round_trips)
	std	r31,-8(r1)
	mr	r31,r3
	cmpdi	r31,0
	beq	9f
0:	li	r0,NR_PRCTL
	li	r3,PR_SET_ENDIAN
	li	r4,PR_ENDIAN_OTHER
	sc
	SWITCHED_OR(8f)
	.long	REV(I_LI(0, NR_PRCTL))		/* other byte order: li r0,171 */
	.long	REV(I_LI(3, PR_SET_ENDIAN))	/* li r3,PR_SET_ENDIAN */
	.long	REV(I_LI(4, PR_ENDIAN_NATIVE))	/* li r4,<native mode> */
	.long	REV(I_SC)			/* sc, back to native */
	addi	r31,r31,-1
	cmpdi	r31,0
	bne	0b
9:	li	r3,0
	b	7f
	FAIL_RESULT(8)
7:	ld	r31,-8(r1)
	blr
FUNC_END(endgate_ppc_prctl_round_trips)

/*
 * long endgate_ppc_run_other_endian(long strategy, const uint32_t *code, uint64_t *inout)
 *
 * Switches with `strategy` (0 fast, 1 switch_endian, 2 prctl), calls `code` in the other byte
 * order with r3 = *inout, switches back and stores the block's r3 to *inout. The block is
 * entered by bctrl and must end with a (byte-reversed) blr; it may clobber r0, r3-r12, CTR,
 * XER, CR0-1,5-7 and must keep r1, r2, r13-r31 and CR2-4 (the C ABI's rules). r3 crosses both
 * switches in r30, so the strategies that clobber r3 (prctl) work too.
 */
/* Per strategy: the native switching sequence and the byte-reversed words that switch back. */
#define THERE_FAST	li r0,NR_FAST_ENDIAN; sc
#define BACK_FAST	.long REV(I_LI(0, NR_FAST_ENDIAN)); .long REV(I_SC)
#define THERE_SE	li r0,NR_SWITCH_ENDIAN; sc
#define BACK_SE		.long REV(I_LI(0, NR_SWITCH_ENDIAN)); .long REV(I_SC)
#define THERE_PRCTL	li r0,NR_PRCTL; li r3,PR_SET_ENDIAN; li r4,PR_ENDIAN_OTHER; sc
#define BACK_PRCTL	.long REV(I_LI(0, NR_PRCTL)); .long REV(I_LI(3, PR_SET_ENDIAN)); \
			.long REV(I_LI(4, PR_ENDIAN_NATIVE)); .long REV(I_SC)

#define RUN_BODY(s) \
	THERE_##s; \
	SWITCHED_OR(8f); \
	.long REV(I_MTCTR(31)); /* other byte order: mtctr r31 */ \
	.long REV(I_MR(3, 30)); /* mr r3,r30 (the argument) */ \
	.long REV(I_BCTRL);     /* call the block */ \
	.long REV(I_MR(30, 3)); /* mr r30,r3 (its result) */ \
	BACK_##s; \
	b 6f

FUNC_START(endgate_ppc_run_other_endian)
	mflr	r0
	std	r0,16(r1)		/* LR save word of the caller's frame */
	stdu	r1,-144(r1)		/* our frame: the block may use the red zone below it */
	std	r29,112(r1)
	std	r30,120(r1)
	std	r31,128(r1)
	mr	r31,r4			/* the block */
	mr	r29,r5			/* inout */
	ld	r30,0(r5)		/* the argument */
	cmpdi	r3,1
	beq	1f
	cmpdi	r3,2
	beq	2f
	cmpdi	r3,0
	beq	0f
	li	r3,22			/* EINVAL: unknown strategy */
	b	7f
0:	RUN_BODY(FAST)
1:	RUN_BODY(SE)
2:	RUN_BODY(PRCTL)
6:	std	r30,0(r29)		/* native again: the block's result */
	li	r3,0
	b	7f
	FAIL_RESULT(8)
7:	ld	r29,112(r1)
	ld	r30,120(r1)
	ld	r31,128(r1)
	addi	r1,r1,144
	ld	r0,16(r1)
	mtlr	r0
	blr
FUNC_END(endgate_ppc_run_other_endian)

	.section .note.GNU-stack,"",@progbits
