/*
 * check-body.S - register check run by pattern.S twice: once byte-reversed, in the other byte
 * order right after switch_endian (check-rev.S, reversed by objcopy --reverse-bytes=4), and once
 * natively after switching back. It compares r3-r8, r13-r31, LR and CR fields 2-4 with the
 * pattern pattern.S set (PATTERN + register number; LR = PATTERN + 32; CR2-4 = 0xa,0x5,0xc) and
 * stores one byte at -176(r1) (red zone): 0 when all match, else the first mismatching
 * register number (32 = LR, 33 = CR). A byte store is the same in both byte orders. Uses only
 * r9-r11 and CR0, which switch_endian clobbers anyway. Position independent, no relocations.
 */
#include "pattern.h"

	nop	/* read byte-reversed this is 0x00000060 (primary opcode 0, illegal): if no switch
		   happened, the reversed copy faults here at once */
#define CHECK(n) LOADP(r9); addi r9,r9,n; li r10,n; cmpd r9,r##n; bne 99f
	CHECK(3); CHECK(4); CHECK(5); CHECK(6); CHECK(7); CHECK(8)
	CHECK(13); CHECK(14); CHECK(15); CHECK(16); CHECK(17); CHECK(18); CHECK(19)
	CHECK(20); CHECK(21); CHECK(22); CHECK(23); CHECK(24); CHECK(25); CHECK(26)
	CHECK(27); CHECK(28); CHECK(29); CHECK(30); CHECK(31)
	mflr	r11
	LOADP(r9)
	addi	r9,r9,32
	li	r10,32
	cmpd	r9,r11
	bne	99f
	mfcr	r11
	rlwinm	r11,r11,0,8,19		/* CR fields 2-4: mask 0x00fff000 */
	lis	r9,CR_PATTERN_HI
	ori	r9,r9,CR_PATTERN_LO
	li	r10,33
	cmpw	r9,r11
	bne	99f
	li	r10,0
99:	stb	r10,-176(r1)
