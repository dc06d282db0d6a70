/* Freestanding x86_64: write(1, msg, len) with the raw syscall instruction, then
 * exit_group(7). Expected: stdout "hello from asm\n", status 7. */
    .section .rodata
msg:
    .ascii "hello from asm\n"
    .set len, . - msg

    .text
    .globl _start
_start:
    mov $1, %eax                /* write */
    mov $1, %edi
    lea msg(%rip), %rsi
    mov $len, %edx
    syscall
    cmp $len, %rax
    jne 1f
    mov $231, %eax              /* exit_group */
    mov $7, %edi
    syscall
1:
    mov $231, %eax
    mov $1, %edi
    syscall
