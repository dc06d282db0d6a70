/*
 * store_arm.S - freestanding 32-bit arm (EABI, ARM state) Linux guest for
 * endgate-bench.
 *
 * A counted loop doing one 4-byte (word-sized) store to a stack slot per
 * iteration (store, decrement, branch), N iterations, then exit(0).  N is
 * argv[1] in decimal (default 100000000; "0" gives the start-up/exit-only
 * baseline).  Exit status 3 means the slot does not hold the last stored
 * value (1).
 *
 * Build: arm-linux-gnueabihf-gcc -nostdlib -static -o store_arm store_arm.S
 */
        .syntax unified
        .arm
        .globl  _start
        .text
_start:
        ldr     r0, [sp]                /* argc */
        ldr     r4, =100000000          /* default iteration count */
        cmp     r0, #2
        blt     .Lrun
        ldr     r1, [sp, #8]            /* argv[1] */
        mov     r4, #0
        mov     r3, #10
.Lparse:
        ldrb    r2, [r1], #1
        sub     r2, r2, #'0'
        cmp     r2, #9
        bhi     .Lrun                   /* stop at the first non-digit */
        mla     r4, r4, r3, r2
        b       .Lparse
.Lrun:
        sub     sp, sp, #64
        cmp     r4, #0
        beq     .Lok
.Lloop:
        str     r4, [sp, #8]            /* the store being measured */
        subs    r4, r4, #1
        bne     .Lloop
        ldr     r0, [sp, #8]
        cmp     r0, #1
        bne     .Lbad
.Lok:
        mov     r0, #0
        b       .Lexit
.Lbad:
        mov     r0, #3
.Lexit:
        mov     r7, #1                  /* __NR_exit */
        svc     #0
        udf     #0
        .ltorg

        .section .note.GNU-stack,"",%progbits
