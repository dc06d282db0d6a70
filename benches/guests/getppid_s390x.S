/*
 * getppid_s390x.S - freestanding s390x Linux guest for endgate-bench.
 *
 * Calls getppid(2) N times, then exits with status 0.  N is argv[1] in decimal
 * (default 1000000; "0" gives a start-up/exit-only run used as the baseline).
 * Exit status 2 means the last getppid returned a non-positive value.
 * System calls: svc with the number as its immediate (s390x: getppid 64,
 * exit 1); the result comes back in r2.
 *
 * Build: s390x-linux-gnu-gcc -nostdlib -static -o getppid_s390x getppid_s390x.S
 */
        .globl  _start
        .text
_start:
        lg      %r0, 0(%r15)            /* argc */
        lgfi    %r6, 1000000            /* default iteration count */
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
        ltgr    %r6, %r6
        jz      .Lok
.Lloop:
        svc     64                      /* __NR_getppid */
        aghi    %r6, -1
        jnz     .Lloop
        ltgr    %r2, %r2
        jle     .Lbad
.Lok:
        lghi    %r2, 0
        j       .Lexit
.Lbad:
        lghi    %r2, 2
.Lexit:
        svc     1                       /* __NR_exit */
        .word   0                       /* illegal instruction */

        .section .note.GNU-stack,"",@progbits
