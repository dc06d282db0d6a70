/* Freestanding i386: write(1, msg, len) with int $0x80, then exit_group(7).
 * Expected: stdout "hello from asm\n", status 7. */
    .section .rodata
msg:
    .ascii "hello from asm\n"
    .set len, . - msg

    .text
    .globl _start
_start:
    mov $4, %eax                /* write */
    mov $1, %ebx
    mov $msg, %ecx
    mov $len, %edx
    int $0x80
    cmp $len, %eax
    jne 1f
    mov $252, %eax              /* exit_group */
    mov $7, %ebx
    int $0x80
1:
    mov $252, %eax
    mov $1, %ebx
    int $0x80
