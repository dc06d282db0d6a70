/*
 * ppc64-asm.h - assembler helpers for the POWER shims (ppc64.S and the test programs).
 *
 * FUNC_START/FUNC_END declare a C-callable function under both 64-bit PowerPC ABIs:
 * ELFv2 (ppc64le; _CALL_ELF == 2) has plain entry points; ELFv1 (big-endian ppc64) reaches a
 * function through a descriptor in .opd (entry, TOC base, environment). None of the shims use
 * the TOC, so no global entry prologue is needed.
 *
 * REV(word) is an instruction word with its 4 bytes reversed: placed in the code, it executes
 * correctly after the thread's MSR[LE] has been flipped, i.e. in the other byte order. The
 * encodings below come from the Power ISA (v3.0B, Book I): D-form addi, SC-form sc, XFX-form mtspr,
 * XL-form bcctrl, X-form or.
 */
#ifndef ENDGATE_PPC64_ASM_H
#define ENDGATE_PPC64_ASM_H

/* GPR names as numbers (GAS takes bare numbers without -mregnames). */
#define r0 0
#define r1 1
#define r2 2
#define r3 3
#define r4 4
#define r5 5
#define r6 6
#define r7 7
#define r8 8
#define r9 9
#define r10 10
#define r11 11
#define r12 12
#define r13 13
#define r14 14
#define r15 15
#define r16 16
#define r17 17
#define r18 18
#define r19 19
#define r20 20
#define r21 21
#define r22 22
#define r23 23
#define r24 24
#define r25 25
#define r26 26
#define r27 27
#define r28 28
#define r29 29
#define r30 30
#define r31 31

#if defined(_CALL_ELF) && _CALL_ELF == 2
#define FUNC_START(name) \
	.text; .globl name; .type name,@function; .p2align 4; name:
#define FUNC_END(name) .size name,.-name
#else
#define FUNC_START(name) \
	.section ".opd","aw"; .p2align 3; .globl name; \
	name: .quad name##_entry, .TOC.@tocbase, 0; \
	.text; .type name##_entry,@function; .p2align 4; name##_entry:
#define FUNC_END(name) .size name##_entry,.-name##_entry
#endif

#define REV(w) ((((w) >> 24) & 0xff) | (((w) >> 8) & 0xff00) | \
		(((w) << 8) & 0xff0000) | (((w) << 24) & 0xff000000))

/* Instruction words (native encoding); wrap in REV() for the other byte order. */
#define I_SC		0x44000002		/* sc */
#define I_LI(rt, v)	(0x38000000 | ((rt) << 21) | ((v) & 0xffff))	/* li rt,v (addi rt,0,v) */
#define I_MTCTR(rs)	(0x7c0903a6 | ((rs) << 21))	/* mtctr rs (mtspr 9,rs) */
#define I_BCTRL		0x4e800421		/* bctrl */
#define I_MR(ra, rs)	(0x7c000378 | ((rs) << 21) | ((ra) << 16) | ((rs) << 11)) /* mr ra,rs */

/*
 * "Did the byte order change?" guard, placed right after a switching `sc`. tdi 0,0,0x48
 * (0x08000048) never traps; read byte-reversed it is 0x48000008, `b .+8`. So in the old byte
 * order the next word (a native `b` to the failure path) runs; in the new byte order it is
 * skipped and the byte-reversed words after it run. Linux's FIXUP_ENDIAN macro uses the same
 * trick (arch/powerpc/include/asm/ppc_asm.h).
 */
#define SWITCHED_OR(fail) tdi 0,0,0x48; b fail

/* System call numbers and prctl values (arch/powerpc/include/uapi/asm/unistd.h via
 * syscall.tbl, include/uapi/linux/prctl.h). */
#define NR_PRCTL		171
#define NR_SWITCH_ENDIAN	363
#define NR_FAST_ENDIAN		0x1ebe
#define PR_SET_ENDIAN		20
#define PR_ENDIAN_BIG		0
#define PR_ENDIAN_LITTLE	1
#ifdef __LITTLE_ENDIAN__
#define PR_ENDIAN_NATIVE	PR_ENDIAN_LITTLE
#define PR_ENDIAN_OTHER		PR_ENDIAN_BIG
#else
#define PR_ENDIAN_NATIVE	PR_ENDIAN_BIG
#define PR_ENDIAN_OTHER		PR_ENDIAN_LITTLE
#endif

#endif
