/* Freestanding mips64el (n64): reads the initial stack (argc, argv[], NULL, envp[]) and
 * prints each argv[i] for i >= 1 on its own line, then "env ok\n" if envp holds TEST=1, and
 * exits with argc as the status. State lives in $s registers, which syscalls preserve. */
    .option pic0
    .section .rodata
nl:     .ascii "\n"
envok:  .ascii "env ok\n"
want:   .asciz "TEST=1"

    .text
    .globl __start
__start:
    ld $s0, 0($sp)              /* argc */
    daddiu $s1, $sp, 8          /* argv */
    li $s2, 1                   /* i */
1:
    sltu $t0, $s2, $s0
    beqz $t0, 3f
    dsll $t0, $s2, 3
    daddu $t0, $s1, $t0
    ld $a1, 0($t0)              /* argv[i] */
    li $a2, 0
2:
    daddu $t1, $a1, $a2
    lbu $t2, 0($t1)
    beqz $t2, 2f
    daddiu $a2, $a2, 1
    b 2b
2:
    li $v0, 5001                /* write(1, argv[i], len) */
    li $a0, 1
    syscall
    li $v0, 5001
    li $a0, 1
    dla $a1, nl
    li $a2, 1
    syscall
    daddiu $s2, $s2, 1
    b 1b
3:
    dsll $s3, $s0, 3
    daddu $s3, $s1, $s3
    daddiu $s3, $s3, 8          /* envp: past argv's NULL */
4:
    ld $a1, 0($s3)
    beqz $a1, exit
    dla $a4, want
5:
    lbu $a5, 0($a4)
    lbu $a6, 0($a1)
    bne $a5, $a6, 6f
    beqz $a5, found
    daddiu $a4, $a4, 1
    daddiu $a1, $a1, 1
    b 5b
6:
    daddiu $s3, $s3, 8
    b 4b
found:
    li $v0, 5001
    li $a0, 1
    dla $a1, envok
    li $a2, 7
    syscall
exit:
    li $v0, 5205                /* exit_group(argc) */
    move $a0, $s0
    syscall
