/* Freestanding x86_64: reads the initial stack (argc, argv[], NULL, envp[]) and prints
 * each argv[i] for i >= 1 on its own line, then "env ok\n" if envp holds TEST=1, and exits
 * with argc as the status. */
    .section .rodata
nl:     .ascii "\n"
envok:  .ascii "env ok\n"
want:   .asciz "TEST=1"

    .text
    .globl _start
_start:
    mov (%rsp), %r12            /* argc */
    lea 8(%rsp), %r13           /* argv */
    mov $1, %r14d
1:
    cmp %r12, %r14
    jae 3f
    mov (%r13, %r14, 8), %rsi
    xor %edx, %edx
2:
    cmpb $0, (%rsi, %rdx)
    je  2f
    inc %rdx
    jmp 2b
2:
    mov $1, %eax
    mov $1, %edi
    syscall
    mov $1, %eax
    mov $1, %edi
    lea nl(%rip), %rsi
    mov $1, %edx
    syscall
    inc %r14
    jmp 1b
3:
    lea 8(%r13, %r12, 8), %r15  /* envp: past argv's NULL */
4:
    mov (%r15), %rsi
    test %rsi, %rsi
    jz  exit
    lea want(%rip), %rdi
5:
    movzbl (%rdi), %eax
    cmpb (%rsi), %al
    jne 6f
    test %al, %al
    jz  found
    inc %rdi
    inc %rsi
    jmp 5b
6:
    add $8, %r15
    jmp 4b
found:
    mov $1, %eax
    mov $1, %edi
    lea envok(%rip), %rsi
    mov $7, %edx
    syscall
exit:
    mov $231, %eax
    mov %r12, %rdi
    syscall
