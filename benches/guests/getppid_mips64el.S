/*
 * getppid_mips64el.S - freestanding mips64el (n64 ABI) Linux guest for
 * endgate-bench.
 *
 * Calls getppid(2) N times, then exits with status 0.  N is argv[1] in decimal
 * (default 1000000; "0" gives a start-up/exit-only run used as the baseline).
 * Exit status 2 means the last getppid returned a non-positive value.
 * System calls: syscall with the number in v0 (n64: getppid 5108, exit 5058);
 * the result comes back in v0, a3 != 0 flags an error.  The assembler fills
 * the branch delay slots (reorder mode).
 *
 * Build: mips64el-linux-gnuabi64-gcc -nostdlib -static -o getppid_mips64el getppid_mips64el.S
 */
        .option pic0
        .globl  __start
        .text
__start:
        ld      $t0, 0($sp)             /* argc */
        li      $s0, 1000000            /* default iteration count */
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
        beqz    $s0, .Lok
.Lloop:
        li      $v0, 5108               /* __NR_getppid */
        syscall
        daddiu  $s0, $s0, -1
        bnez    $s0, .Lloop
        bnez    $a3, .Lbad
        blez    $v0, .Lbad
.Lok:
        li      $a0, 0
        b       .Lexit
.Lbad:
        li      $a0, 2
.Lexit:
        li      $v0, 5058               /* __NR_exit */
        syscall
        break

        .section .note.GNU-stack,"",@progbits
