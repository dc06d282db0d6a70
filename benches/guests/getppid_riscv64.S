/*
 * getppid_riscv64.S - freestanding riscv64 Linux guest for endgate-bench.
 *
 * Calls getppid(2) N times, then exits with status 0.  N is argv[1] in decimal
 * (default 1000000; "0" gives a start-up/exit-only run used as the baseline).
 * Exit status 2 means the last getppid returned a non-positive value.
 * System calls: ecall with the number in a7 (asm-generic: getppid 173, exit 93).
 *
 * Build: riscv64-linux-gnu-gcc -nostdlib -static -o getppid_riscv64 getppid_riscv64.S
 */
        .globl  _start
        .text
_start:
        ld      a0, 0(sp)               /* argc */
        li      s1, 1000000             /* default iteration count */
        li      t0, 2
        blt     a0, t0, .Lrun
        ld      a1, 16(sp)              /* argv[1] */
        li      s1, 0
        li      t1, 10
        li      t2, 9
.Lparse:
        lbu     t0, 0(a1)
        addi    t0, t0, -48             /* '0' */
        bgtu    t0, t2, .Lrun           /* stop at the first non-digit */
        mul     s1, s1, t1
        add     s1, s1, t0
        addi    a1, a1, 1
        j       .Lparse
.Lrun:
        beqz    s1, .Lok
.Lloop:
        li      a7, 173                 /* __NR_getppid */
        ecall
        addi    s1, s1, -1
        bnez    s1, .Lloop
        blez    a0, .Lbad
.Lok:
        li      a0, 0
        j       .Lexit
.Lbad:
        li      a0, 2
.Lexit:
        li      a7, 93                  /* __NR_exit */
        ecall
        ebreak

        .section .note.GNU-stack,"",@progbits
