/* Freestanding arm (EABI, ARM state): reads the initial stack (argc, argv[], NULL, envp[])
 * and prints each argv[i] for i >= 1 on its own line, then "env ok\n" if envp holds TEST=1,
 * and exits with argc as the status. */
    .syntax unified
    .arm
    .section .rodata
nl:     .ascii "\n"
envok:  .ascii "env ok\n"
want:   .asciz "TEST=1"

    .text
    .globl _start
_start:
    ldr r4, [sp]                /* argc */
    add r5, sp, #4              /* argv */
    mov r6, #1                  /* i */
1:
    cmp r6, r4
    bhs 3f
    ldr r1, [r5, r6, lsl #2]    /* argv[i] */
    mov r2, #0
2:
    ldrb r3, [r1, r2]
    cmp r3, #0
    beq 2f
    add r2, r2, #1
    b 2b
2:
    mov r7, #4                  /* write(1, argv[i], len) */
    mov r0, #1
    svc #0
    mov r7, #4
    mov r0, #1
    ldr r1, =nl
    mov r2, #1
    svc #0
    add r6, r6, #1
    b 1b
3:
    add r8, r5, r4, lsl #2
    add r8, r8, #4              /* envp: past argv's NULL */
4:
    ldr r1, [r8]
    cmp r1, #0
    beq exit
    ldr r2, =want
5:
    ldrb r3, [r2]
    ldrb r9, [r1]
    cmp r3, r9
    bne 6f
    cmp r3, #0
    beq found
    add r2, r2, #1
    add r1, r1, #1
    b 5b
6:
    add r8, r8, #4
    b 4b
found:
    mov r7, #4
    mov r0, #1
    ldr r1, =envok
    mov r2, #7
    svc #0
exit:
    mov r7, #248                /* exit_group(argc) */
    mov r0, r4
    svc #0
