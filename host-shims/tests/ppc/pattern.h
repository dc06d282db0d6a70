/*
 * pattern.h - the register pattern shared by pattern.S and check-body.S.
 * PATTERN = 0x9e3779b97f4a7c15 (2^64 / golden ratio); register rN holds PATTERN + N.
 */
#include "ppc64-asm.h"
#define LOADP(r) lis r,0x9e37; ori r,r,0x79b9; sldi r,r,32; oris r,r,0x7f4a; ori r,r,0x7c15
/* CR2 = 0xa, CR3 = 0x5, CR4 = 0xc: CR word 0x00a5c000 (fields 0-1 and 5-7 are clobbered by
 * switch_endian, so only 2-4 are checked). */
#define CR_PATTERN_HI 0x00a5
#define CR_PATTERN_LO 0xc000
#define CR_PATTERN_FXM 0x38
