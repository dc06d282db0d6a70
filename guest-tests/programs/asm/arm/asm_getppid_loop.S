/* Freestanding arm (EABI, ARM state): N raw getppid syscalls (N = decimal argv[1], default
 * 1000), every result equal to the first. Used to time syscall dispatch. Expected: "ok\n",
 * status 0; a mismatch prints "mismatch\n" and exits 1. */
    .syntax unified
    .arm
    .section .rodata
ok:     .ascii "ok\n"
bad:    .ascii "mismatch\n"

    .text
    .globl _start
_start:
    mov r4, #1000               /* N */
    ldr r0, [sp]                /* argc */
    cmp r0, #2
    blo have_n
    ldr r1, [sp, #8]            /* argv[1] */
    mov r4, #0
    mov r3, #10
parse:
    ldrb r0, [r1]
    sub r0, r0, #'0'
    cmp r0, #9
    bhi have_n
    mla r4, r4, r3, r0          /* N = N * 10 + digit */
    add r1, r1, #1
    b parse
have_n:
    mov r7, #64                 /* getppid */
    svc #0
    mov r5, r0                  /* the first answer */
loop:
    cmp r4, #0
    beq done
    mov r7, #64
    svc #0
    cmp r0, r5
    bne mismatch
    sub r4, r4, #1
    b loop
done:
    mov r7, #4
    mov r0, #1
    ldr r1, =ok
    mov r2, #3
    svc #0
    mov r7, #248
    mov r0, #0
    svc #0
mismatch:
    mov r7, #4
    mov r0, #1
    ldr r1, =bad
    mov r2, #9
    svc #0
    mov r7, #248
    mov r0, #1
    svc #0
