/* Freestanding i386: reads the initial stack (argc, argv[], NULL, envp[]) and prints
 * each argv[i] for i >= 1 on its own line, then "env ok\n" if envp holds TEST=1, and exits
 * with argc as the status. */
    .section .rodata
nl:     .ascii "\n"
envok:  .ascii "env ok\n"
want:   .asciz "TEST=1"

    .text
    .globl _start
_start:
    mov (%esp), %esi            /* argc */
    lea 4(%esp), %edi           /* argv */
    mov $1, %ebp                /* i */
1:
    cmp %esi, %ebp
    jae 3f
    mov (%edi,%ebp,4), %ecx     /* argv[i] */
    xor %edx, %edx
2:
    cmpb $0, (%ecx,%edx)
    je 2f
    inc %edx
    jmp 2b
2:
    mov $4, %eax                /* write(1, argv[i], len) */
    mov $1, %ebx
    int $0x80
    mov $4, %eax
    mov $1, %ebx
    mov $nl, %ecx
    mov $1, %edx
    int $0x80
    inc %ebp
    jmp 1b
3:
    lea 4(%edi,%esi,4), %ebp    /* envp: past argv's NULL */
4:
    mov (%ebp), %ecx
    test %ecx, %ecx
    jz exit
    mov $want, %edx
5:
    mov (%edx), %al
    cmp (%ecx), %al
    jne 6f
    test %al, %al
    jz found
    inc %edx
    inc %ecx
    jmp 5b
6:
    add $4, %ebp
    jmp 4b
found:
    mov $4, %eax
    mov $1, %ebx
    mov $envok, %ecx
    mov $7, %edx
    int $0x80
exit:
    mov $252, %eax              /* exit_group(argc) */
    mov %esi, %ebx
    int $0x80
