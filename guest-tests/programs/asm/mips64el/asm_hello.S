/* Freestanding mips64el (n64): write(1, msg, len) with the syscall instruction (number in
 * $v0: 5001), then exit_group(7) (5205). Expected: stdout "hello from asm\n", status 7.
 * Absolute addresses (.option pic0); the assembler fills the branch delay slots. */
    .option pic0
    .section .rodata
msg:
    .ascii "hello from asm\n"
    .set len, . - msg

    .text
    .globl __start
__start:
    li $v0, 5001                /* write */
    li $a0, 1
    dla $a1, msg
    li $a2, len
    syscall
    li $t0, len
    bne $v0, $t0, 1f
    li $v0, 5205                /* exit_group */
    li $a0, 7
    syscall
1:
    li $v0, 5205
    li $a0, 1
    syscall
