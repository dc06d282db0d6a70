/* Freestanding riscv64: write(1, msg, len) with ecall, then exit_group(7).
 * Expected: stdout "hello from asm\n", status 7. */
    .section .rodata
msg:
    .ascii "hello from asm\n"
    .set len, . - msg

    .text
    .globl _start
_start:
    li a7, 64                   /* write */
    li a0, 1
    la a1, msg
    li a2, len
    ecall
    li t0, len
    bne a0, t0, 1f
    li a7, 94                   /* exit_group */
    li a0, 7
    ecall
1:
    li a7, 94
    li a0, 1
    ecall
