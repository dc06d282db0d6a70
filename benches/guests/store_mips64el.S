/*
 * store_mips64el.S - freestanding mips64el (n64 ABI) Linux guest for
 * endgate-bench.
 *
 * A counted loop doing one 8-byte store to a stack slot per iteration
 * (store, decrement, branch), N iterations, then exit(0).  N is argv[1] in
 * decimal (default 100000000; "0" gives the start-up/exit-only baseline).
 * Exit status 3 means the slot does not hold the last stored value (1).
 * The assembler fills the branch delay slots (reorder mode).
 *
 * Build: mips64el-linux-gnuabi64-gcc -nostdlib -static -o store_mips64el store_mips64el.S
 */
        .option pic0
        .globl  __start
        .text
__start:
        ld      $t0, 0($sp)             /* argc */
        li      $s0, 100000000          /* default iteration count */
        sltiu   $t1, $t0, 2
        bnez    $t1, .Lrun
        ld      $t2, 16($sp)            /* argv[1] */
        li      $s0, 0
        li      $t3, 10
.Lparse:
        lbu     $t0, 0($t2)
        daddiu  $t0, $t0, -48           /* '0' */
        sltiu   $t1, $t0, 10
        beqz    $t1, .Lrun              /* stop at the first non-digit */
        dmultu  $s0, $t3
        mflo    $s0
        daddu   $s0, $s0, $t0
        daddiu  $t2, $t2, 1
        b       .Lparse
.Lrun:
        daddiu  $sp, $sp, -64
        beqz    $s0, .Lok
.Lloop:
        sd      $s0, 8($sp)             /* the store being measured */
        daddiu  $s0, $s0, -1
        bnez    $s0, .Lloop
        ld      $t0, 8($sp)
        li      $t1, 1
        bne     $t0, $t1, .Lbad
.Lok:
        li      $a0, 0
        b       .Lexit
.Lbad:
        li      $a0, 3
.Lexit:
        li      $v0, 5058               /* __NR_exit */
        syscall
        break

        .section .note.GNU-stack,"",@progbits
