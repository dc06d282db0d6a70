/* Freestanding aarch64: write(1, msg, len) with svc #0, then exit_group(7).
 * Expected: stdout "hello from asm\n", status 7. */
    .section .rodata
msg:
    .ascii "hello from asm\n"
    .set len, . - msg

    .text
    .globl _start
_start:
    mov x8, #64                 /* write */
    mov x0, #1
    adr x1, msg
    mov x2, #len
    svc #0
    cmp x0, #len
    b.ne 1f
    mov x8, #94                 /* exit_group */
    mov x0, #7
    svc #0
1:
    mov x8, #94
    mov x0, #1
    svc #0
