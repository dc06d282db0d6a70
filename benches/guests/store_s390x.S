/*
 * store_s390x.S - freestanding s390x Linux guest for endgate-bench.
 *
 * A counted loop doing one 8-byte store to a stack slot per iteration
 * (store, decrement, branch), N iterations, then exit(0).  N is argv[1] in
 * decimal (default 100000000; "0" gives the start-up/exit-only baseline).
 * Exit status 3 means the slot does not hold the last stored value (1).
 *
 * Build: s390x-linux-gnu-gcc -nostdlib -static -o store_s390x store_s390x.S
 */
        .globl  _start
        .text
_start:
        lg      %r0, 0(%r15)            /* argc */
        lgfi    %r6, 100000000          /* default iteration count */
        cghi    %r0, 2
        jl      .Lrun
        lg      %r3, 16(%r15)           /* argv[1] */
        lghi    %r6, 0
.Lparse:
        llgc    %r0, 0(%r3)
        aghi    %r0, -48                /* '0' */
        clgfi   %r0, 9
        jh      .Lrun                   /* stop at the first non-digit */
        mghi    %r6, 10
        agr     %r6, %r0
        aghi    %r3, 1
        j       .Lparse
.Lrun:
        aghi    %r15, -64
        ltgr    %r6, %r6
        jz      .Lok
.Lloop:
        stg     %r6, 8(%r15)            /* the store being measured */
        aghi    %r6, -1
        jnz     .Lloop
        lg      %r2, 8(%r15)
        cghi    %r2, 1
        jne     .Lbad
.Lok:
        lghi    %r2, 0
        j       .Lexit
.Lbad:
        lghi    %r2, 3
.Lexit:
        svc     1                       /* __NR_exit */
        .word   0                       /* illegal instruction */

        .section .note.GNU-stack,"",@progbits
