/* Freestanding arm (EABI, ARM state): write(1, msg, len) with svc #0 (number in r7), then
 * exit_group(7). Expected: stdout "hello from asm\n", status 7. */
    .syntax unified
    .arm
    .section .rodata
msg:
    .ascii "hello from asm\n"
    .set len, . - msg

    .text
    .globl _start
_start:
    mov r7, #4                  /* write */
    mov r0, #1
    ldr r1, =msg
    mov r2, #len
    svc #0
    cmp r0, #len
    bne 1f
    mov r7, #248                /* exit_group */
    mov r0, #7
    svc #0
1:
    mov r7, #248
    mov r0, #1
    svc #0
