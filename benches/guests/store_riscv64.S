/*
 * store_riscv64.S - freestanding riscv64 Linux guest for endgate-bench.
 *
 * A counted loop doing one 8-byte store to a stack slot per iteration
 * (store, decrement, branch), N iterations, then exit(0).  N is argv[1] in
 * decimal (default 100000000; "0" gives the start-up/exit-only baseline).
 * Exit status 3 means the slot does not hold the last stored value (1).
 *
 * Build: riscv64-linux-gnu-gcc -nostdlib -static -o store_riscv64 store_riscv64.S
 */
        .globl  _start
        .text
_start:
        ld      a0, 0(sp)               /* argc */
        li      s1, 100000000           /* default iteration count */
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
        addi    sp, sp, -64
        beqz    s1, .Lok
.Lloop:
        sd      s1, 8(sp)               /* the store being measured */
        addi    s1, s1, -1
        bnez    s1, .Lloop
        ld      a0, 8(sp)
        li      t0, 1
        bne     a0, t0, .Lbad
.Lok:
        li      a0, 0
        j       .Lexit
.Lbad:
        li      a0, 3
.Lexit:
        li      a7, 93                  /* __NR_exit */
        ecall
        ebreak

        .section .note.GNU-stack,"",@progbits
