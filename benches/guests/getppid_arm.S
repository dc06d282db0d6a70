/*
 * getppid_arm.S - freestanding 32-bit arm (EABI, ARM state) Linux guest for
 * endgate-bench.
 *
 * Calls getppid(2) N times, then exits with status 0.  N is argv[1] in decimal
 * (default 1000000; "0" gives a start-up/exit-only run used as the baseline).
 * Exit status 2 means the last getppid returned a non-positive value.
 * System calls: svc #0 with the number in r7 (EABI: getppid 64, exit 1).
 *
 * Build: arm-linux-gnueabihf-gcc -nostdlib -static -o getppid_arm getppid_arm.S
 */
        .syntax unified
        .arm
        .globl  _start
        .text
_start:
        ldr     r0, [sp]                /* argc */
        ldr     r4, =1000000            /* default iteration count */
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
        cmp     r4, #0
        beq     .Lok
.Lloop:
        mov     r7, #64                 /* __NR_getppid */
        svc     #0
        subs    r4, r4, #1
        bne     .Lloop
        cmp     r0, #0
        ble     .Lbad
.Lok:
        mov     r0, #0
        b       .Lexit
.Lbad:
        mov     r0, #2
.Lexit:
        mov     r7, #1                  /* __NR_exit */
        svc     #0
        udf     #0
        .ltorg

        .section .note.GNU-stack,"",%progbits
