/* Freestanding mips64el (n64): computes sum(1..1000) and fib(50) in loops, prints both in
 * decimal (converted with ddivu), and checks them against the known values 500500 and
 * 12586269025. Expected: "sum 500500\nfib50 12586269025\nok\n", status 0 (a wrong value
 * prints "bad\n", status 1). */
    .option pic0
    .section .rodata
s_sum:  .ascii "sum "
s_fib:  .ascii "fib50 "
s_ok:   .ascii "ok\n"
s_bad:  .ascii "bad\n"

    .bss
buf:    .skip 32

    .text
    .globl __start
/* print(a1 = ptr, a2 = len) */
print:
    li $v0, 5001
    li $a0, 1
    syscall
    jr $ra
/* print_dec(a0 = value): decimal digits and a newline; uses t0-t3 */
print_dec:
    dla $t0, buf
    daddiu $t1, $t0, 32         /* end */
    daddiu $a1, $t1, -1
    li $t2, 10                  /* '\n', then the divisor */
    sb $t2, 0($a1)
1:
    ddivu $zero, $a0, $t2
    mfhi $t3                    /* remainder */
    mflo $a0                    /* quotient */
    daddiu $t3, $t3, 48
    daddiu $a1, $a1, -1
    sb $t3, 0($a1)
    bnez $a0, 1b
    dsubu $a2, $t1, $a1
    b print

__start:
    li $s1, 0                   /* sum */
    li $a3, 1000
2:
    daddu $s1, $s1, $a3
    daddiu $a3, $a3, -1
    bnez $a3, 2b
    dla $a1, s_sum
    li $a2, 4
    jal print
    move $a0, $s1
    jal print_dec

    li $s2, 0                   /* fib(0) */
    li $s3, 1                   /* fib(1) */
    li $s4, 50
3:
    daddu $t0, $s2, $s3
    move $s2, $s3
    move $s3, $t0
    daddiu $s4, $s4, -1
    bnez $s4, 3b                /* s2 = fib(50) */
    dla $a1, s_fib
    li $a2, 6
    jal print
    move $a0, $s2
    jal print_dec

    li $t0, 500500
    bne $s1, $t0, fail
    dli $t0, 12586269025
    bne $s2, $t0, fail
    dla $a1, s_ok
    li $a2, 3
    jal print
    li $v0, 5205
    li $a0, 0
    syscall
fail:
    dla $a1, s_bad
    li $a2, 4
    jal print
    li $v0, 5205
    li $a0, 1
    syscall
