/* Freestanding mips64el (n64): N raw getppid syscalls (5108; N = decimal argv[1], default
 * 1000), every result equal to the first. Used to time syscall dispatch. Expected: "ok\n",
 * status 0; a mismatch prints "mismatch\n" and exits 1. */
    .option pic0
    .section .rodata
ok:     .ascii "ok\n"
bad:    .ascii "mismatch\n"

    .text
    .globl __start
__start:
    li $s0, 1000                /* N */
    ld $t0, 0($sp)              /* argc */
    sltiu $t1, $t0, 2
    bnez $t1, have_n
    ld $t2, 16($sp)             /* argv[1] */
    li $s0, 0
    li $t3, 10
parse:
    lbu $t0, 0($t2)
    daddiu $t0, $t0, -48
    sltiu $t1, $t0, 10
    beqz $t1, have_n
    dmultu $s0, $t3
    mflo $s0
    daddu $s0, $s0, $t0
    daddiu $t2, $t2, 1
    b parse
have_n:
    li $v0, 5108                /* getppid */
    syscall
    move $s1, $v0               /* the first answer */
loop:
    beqz $s0, done
    li $v0, 5108
    syscall
    bne $v0, $s1, mismatch
    daddiu $s0, $s0, -1
    b loop
done:
    li $v0, 5001
    li $a0, 1
    dla $a1, ok
    li $a2, 3
    syscall
    li $v0, 5205
    li $a0, 0
    syscall
mismatch:
    li $v0, 5001
    li $a0, 1
    dla $a1, bad
    li $a2, 9
    syscall
    li $v0, 5205
    li $a0, 1
    syscall
