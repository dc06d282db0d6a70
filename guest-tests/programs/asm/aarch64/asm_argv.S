/* Freestanding aarch64: reads the initial stack (argc, argv[], NULL, envp[]) and prints
 * each argv[i] for i >= 1 on its own line, then "env ok\n" if envp holds TEST=1, and exits
 * with argc as the status. */
    .section .rodata
nl:     .ascii "\n"
envok:  .ascii "env ok\n"
want:   .asciz "TEST=1"

    .text
    .globl _start
_start:
    ldr x19, [sp]               /* argc */
    add x20, sp, #8             /* argv */
    mov x21, #1
1:
    cmp x21, x19
    b.hs 3f
    ldr x1, [x20, x21, lsl #3]
    mov x2, #0
2:
    ldrb w3, [x1, x2]
    cbz w3, 2f
    add x2, x2, #1
    b 2b
2:
    mov x8, #64
    mov x0, #1
    svc #0
    mov x8, #64
    mov x0, #1
    adr x1, nl
    mov x2, #1
    svc #0
    add x21, x21, #1
    b 1b
3:
    add x22, x20, x19, lsl #3
    add x22, x22, #8            /* envp: past argv's NULL */
4:
    ldr x1, [x22]
    cbz x1, exit
    adr x4, want
5:
    ldrb w5, [x4]
    ldrb w6, [x1]
    cmp w5, w6
    b.ne 6f
    cbz w5, found
    add x4, x4, #1
    add x1, x1, #1
    b 5b
6:
    add x22, x22, #8
    b 4b
found:
    mov x8, #64
    mov x0, #1
    adr x1, envok
    mov x2, #7
    svc #0
exit:
    mov x8, #94
    mov x0, x19
    svc #0
