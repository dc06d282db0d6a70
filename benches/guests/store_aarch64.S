/*
 * store_aarch64.S - freestanding aarch64 Linux guest for endgate-bench.
 *
 * A counted loop doing one 8-byte store to a stack slot per iteration
 * (store, decrement, branch), N iterations, then exit(0).  N is argv[1] in
 * decimal (default 100000000; "0" gives the start-up/exit-only baseline).
 * Exit status 3 means the slot does not hold the last stored value (1).
 *
 * Build: aarch64-linux-gnu-gcc -nostdlib -static -o store_aarch64 store_aarch64.S
 */
        .globl  _start
        .text
_start:
        ldr     x0, [sp]                /* argc */
        ldr     x19, =100000000         /* default iteration count */
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
        sub     sp, sp, #64
        cbz     x19, .Lok
.Lloop:
        str     x19, [sp, #8]           /* the store being measured */
        subs    x19, x19, #1
        b.ne    .Lloop
        ldr     x0, [sp, #8]
        cmp     x0, #1
        b.ne    .Lbad
.Lok:
        mov     x0, #0
        b       .Lexit
.Lbad:
        mov     x0, #3
.Lexit:
        mov     x8, #93                 /* __NR_exit */
        svc     #0
        brk     #0
        .ltorg

        .section .note.GNU-stack,"",@progbits
