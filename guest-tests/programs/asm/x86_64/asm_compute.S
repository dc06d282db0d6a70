/* Freestanding x86_64: computes sum(1..1000) and fib(50) in loops, prints both in decimal
 * (converted with div), and checks them against the known values 500500 and 12586269025.
 * Expected: "sum 500500\nfib50 12586269025\nok\n", status 0 (a wrong value prints "bad\n",
 * status 1). */
    .section .rodata
s_sum:  .ascii "sum "
s_fib:  .ascii "fib50 "
s_ok:   .ascii "ok\n"
s_bad:  .ascii "bad\n"

    .bss
buf:    .skip 32

    .text
    .globl _start
/* print(rsi = ptr, rdx = len) */
print:
    mov $1, %eax
    mov $1, %edi
    syscall
    ret
/* print_dec(rax = value): decimal digits and a newline */
print_dec:
    lea buf+31(%rip), %rsi
    movb $'\n', (%rsi)
    mov $10, %rcx
1:
    xor %edx, %edx
    div %rcx
    add $'0', %dl
    dec %rsi
    mov %dl, (%rsi)
    test %rax, %rax
    jnz 1b
    lea buf+32(%rip), %rdx
    sub %rsi, %rdx
    jmp print

_start:
    xor %ebx, %ebx              /* sum */
    mov $1000, %ecx
2:
    add %rcx, %rbx
    loop 2b
    lea s_sum(%rip), %rsi
    mov $4, %edx
    call print
    mov %rbx, %rax
    call print_dec

    xor %r12d, %r12d            /* fib(0) */
    mov $1, %r13d               /* fib(1) */
    mov $50, %r14d
3:
    lea (%r12, %r13), %rax
    mov %r13, %r12
    mov %rax, %r13
    dec %r14
    jnz 3b                      /* r12 = fib(50) */
    lea s_fib(%rip), %rsi
    mov $6, %edx
    call print
    mov %r12, %rax
    call print_dec

    cmp $500500, %rbx
    jne fail
    movabs $12586269025, %rax
    cmp %rax, %r12
    jne fail
    lea s_ok(%rip), %rsi
    mov $3, %edx
    call print
    mov $231, %eax
    xor %edi, %edi
    syscall
fail:
    lea s_bad(%rip), %rsi
    mov $4, %edx
    call print
    mov $231, %eax
    mov $1, %edi
    syscall
