/*
 * pattern.S - the real-kernel proof of switch_endian, in the spirit of the kernel's selftest
 * tools/testing/selftests/powerpc/switch_endian (own code): set r3-r8, r13-r31, LR and CR2-4 to
 * a pattern, switch_endian, run the check byte-reversed (check-rev.bin), switch back, run the
 * same check natively. r3 is part of the pattern, so this proves it survives both switches.
 *
 * long endgate_ppc_pattern_round_trip(void):
 *   bits 0-7   result of the check in the other byte order (0 = all matched, else register id)
 *   bits 8-15  result of the check after switching back
 *   0x10000 | errno when switch_endian failed (no switch); -1 when it returned without switching.
 *
 * Also: endgate_test_block, a byte-reversed "lwz r3,0(r3); blr" for
 * endgate_ppc_run_other_endian: run in the other byte order it loads the word byte-swapped.
 */
#include "pattern.h"

FUNC_START(endgate_ppc_pattern_round_trip)
	mflr	r0
	std	r0,-8(r1)
	mfcr	r0
	stw	r0,-12(r1)
	std	r13,-24(r1)		/* thread pointer: part of the pattern, restored below */
	std	r14,-32(r1)
	std	r15,-40(r1)
	std	r16,-48(r1)
	std	r17,-56(r1)
	std	r18,-64(r1)
	std	r19,-72(r1)
	std	r20,-80(r1)
	std	r21,-88(r1)
	std	r22,-96(r1)
	std	r23,-104(r1)
	std	r24,-112(r1)
	std	r25,-120(r1)
	std	r26,-128(r1)
	std	r27,-136(r1)
	std	r28,-144(r1)
	std	r29,-152(r1)
	std	r30,-160(r1)
	std	r31,-168(r1)
	li	r9,0xee
	stb	r9,-176(r1)		/* "not run" marker */
	stb	r9,-177(r1)
	LOADP(r9)
#define SET(n) addi r##n,r9,n
	SET(3); SET(4); SET(5); SET(6); SET(7); SET(8)
	SET(13); SET(14); SET(15); SET(16); SET(17); SET(18); SET(19); SET(20); SET(21)
	SET(22); SET(23); SET(24); SET(25); SET(26); SET(27); SET(28); SET(29); SET(30); SET(31)
	addi	r10,r9,32
	mtlr	r10
	lis	r10,CR_PATTERN_HI
	ori	r10,r10,CR_PATTERN_LO
	mtcrf	CR_PATTERN_FXM,r10
	li	r0,NR_SWITCH_ENDIAN
	sc
	SWITCHED_OR(8f)
	.incbin	"check-rev.bin"		/* the check, in the other byte order */
	.long	REV(I_LI(0, NR_SWITCH_ENDIAN))
	.long	REV(I_SC)		/* back to native; r3-r8, r13-r31 untouched */
	lbz	r9,-176(r1)		/* keep the reversed pass's result */
	stb	r9,-177(r1)
#include "check-body.S"
	lbz	r9,-177(r1)
	lbz	r10,-176(r1)
	sldi	r10,r10,8
	or	r3,r9,r10
	b	7f
8:	bns	1f
	oris	r3,r3,1			/* 0x10000 | errno */
	b	7f
1:	li	r3,-1
7:	ld	r0,-8(r1)
	mtlr	r0
	lwz	r0,-12(r1)
	mtcr	r0
	ld	r13,-24(r1)
	ld	r14,-32(r1)
	ld	r15,-40(r1)
	ld	r16,-48(r1)
	ld	r17,-56(r1)
	ld	r18,-64(r1)
	ld	r19,-72(r1)
	ld	r20,-80(r1)
	ld	r21,-88(r1)
	ld	r22,-96(r1)
	ld	r23,-104(r1)
	ld	r24,-112(r1)
	ld	r25,-120(r1)
	ld	r26,-128(r1)
	ld	r27,-136(r1)
	ld	r28,-144(r1)
	ld	r29,-152(r1)
	ld	r30,-160(r1)
	ld	r31,-168(r1)
	blr
FUNC_END(endgate_ppc_pattern_round_trip)

	.text
	.p2align 2
	.globl	endgate_test_block
endgate_test_block:
	.long	REV(0x80630000)		/* lwz r3,0(r3), in the other byte order */
	.long	REV(0x4e800020)		/* blr */

	.section .note.GNU-stack,"",@progbits
