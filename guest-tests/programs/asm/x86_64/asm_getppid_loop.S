/* Freestanding x86_64: N raw getppid syscalls (N = decimal argv[1], default 1000), every
 * result equal to the first. Used to time syscall dispatch. Expected: "ok\n", status 0;
 * a mismatch prints "mismatch\n" and exits 1. */
    .section .rodata
ok:     .ascii "ok\n"
bad:    .ascii "mismatch\n"

    .text
    .globl _start
_start:
    mov $1000, %r12             /* N */
    mov (%rsp), %rax            /* argc */
    cmp $2, %rax
    jb  have_n
    mov 16(%rsp), %rsi          /* argv[1] */
    xor %r12d, %r12d
parse:
    movzbl (%rsi), %eax
    sub $'0', %eax
    cmp $9, %eax
    ja  have_n
    imul $10, %r12, %r12
    add %rax, %r12
    inc %rsi
    jmp parse
have_n:
    mov $110, %eax              /* getppid */
    syscall
    mov %rax, %r13              /* the first answer */
loop:
    test %r12, %r12
    jz  done
    mov $110, %eax
    syscall
    cmp %rax, %r13
    jne mismatch
    dec %r12
    jmp loop
done:
    mov $1, %eax
    mov $1, %edi
    lea ok(%rip), %rsi
    mov $3, %edx
    syscall
    mov $231, %eax
    xor %edi, %edi
    syscall
mismatch:
    mov $1, %eax
    mov $1, %edi
    lea bad(%rip), %rsi
    mov $9, %edx
    syscall
    mov $231, %eax
    mov $1, %edi
    syscall
