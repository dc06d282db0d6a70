/*
 * getppid_aarch64.S - freestanding aarch64 Linux guest for endgate-bench.
 *
 * Calls getppid(2) N times, then exits with status 0.  N is argv[1] in decimal
 * (default 1000000; "0" gives a start-up/exit-only run used as the baseline).
 * Exit status 2 means the last getppid returned a non-positive value.
 *
 * Build: aarch64-linux-gnu-gcc -nostdlib -static -o getppid_aarch64 getppid_aarch64.S
 */
        .globl  _start
        .text
_start:
        ldr     x0, [sp]                /* argc */
        ldr     x19, =1000000           /* default iteration count */
        cmp     x0, #2
        b.lt    .Lrun
        ldr     x1, [sp, #16]           /* argv[1] */
        mov     x19, #0
        mov     x3, #10
.Lparse:
        ldrb    w2, [x1], #1
        sub     w2, w2, #'0'
        cmp     w2, #9
        b.hi    .Lrun                   /* stop at the first non-digit */
        madd    x19, x19, x3, x2
        b       .Lparse
.Lrun:
        cbz     x19, .Lok
.Lloop:
        mov     x8, #173                /* __NR_getppid */
        svc     #0
        subs    x19, x19, #1
        b.ne    .Lloop
        cmp     x0, #0
        b.le    .Lbad
.Lok:
        mov     x0, #0
        b       .Lexit
.Lbad:
        mov     x0, #2
.Lexit:
        mov     x8, #93                 /* __NR_exit */
        svc     #0
        brk     #0
        .ltorg

        .section .note.GNU-stack,"",@progbits
