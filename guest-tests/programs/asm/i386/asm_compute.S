/* Freestanding i386: computes sum(1..1000) and fib(50) in loops (fib in 64 bits, as an
 * add/adc pair), prints both in decimal (64-bit by 10 as two 32-bit divs), and checks them
 * against the known values 500500 and 12586269025. Expected: "sum 500500\nfib50
 * 12586269025\nok\n", status 0 (a wrong value prints "bad\n", status 1). */
    .section .rodata
s_sum:  .ascii "sum "
s_fib:  .ascii "fib50 "
s_ok:   .ascii "ok\n"
s_bad:  .ascii "bad\n"

    .bss
buf:    .skip 32

    .text
    .globl _start
/* print(ecx = ptr, edx = len); clobbers eax, ebx */
print:
    mov $4, %eax
    mov $1, %ebx
    int $0x80
    ret
/* print_dec(edx:eax = value): decimal digits and a newline; clobbers eax-edx, esi, edi */
print_dec:
    mov $buf+31, %ecx
    movb $'\n', (%ecx)
    mov %edx, %esi              /* high word */
    mov %eax, %edi              /* low word */
    mov $10, %ebx
1:
    xor %edx, %edx
    mov %esi, %eax
    div %ebx                    /* high / 10 */
    mov %eax, %esi
    mov %edi, %eax
    div %ebx                    /* (remainder:low) / 10 */
    mov %eax, %edi
    add $'0', %dl
    dec %ecx
    mov %dl, (%ecx)
    mov %esi, %eax
    or %edi, %eax
    jnz 1b
    mov $buf+32, %edx
    sub %ecx, %edx
    jmp print

_start:
    xor %ebp, %ebp              /* sum */
    mov $1000, %ecx
2:
    add %ecx, %ebp
    loop 2b
    mov $s_sum, %ecx
    mov $4, %edx
    call print
    mov %ebp, %eax
    xor %edx, %edx
    call print_dec

    /* a = fib(i) in edi:esi, b = fib(i+1) in edx:ecx */
    xor %esi, %esi
    xor %edi, %edi
    mov $1, %ecx
    xor %edx, %edx
    mov $50, %eax
3:
    mov %esi, %ebx              /* t = a + b */
    add %ecx, %ebx
    push %ebx
    mov %edi, %ebx
    adc %edx, %ebx
    mov %ecx, %esi              /* a = b */
    mov %edx, %edi
    pop %ecx                    /* b = t */
    mov %ebx, %edx
    dec %eax
    jnz 3b                      /* edi:esi = fib(50) */
    push %edi
    push %esi
    mov $s_fib, %ecx
    mov $6, %edx
    call print
    mov (%esp), %eax
    mov 4(%esp), %edx
    call print_dec

    cmp $500500, %ebp
    jne fail
    pop %eax
    pop %edx
    cmp $0xee333961, %eax       /* 12586269025 = 0x2_ee33_3961 */
    jne fail
    cmp $2, %edx
    jne fail
    mov $s_ok, %ecx
    mov $3, %edx
    call print
    mov $252, %eax
    xor %ebx, %ebx
    int $0x80
fail:
    mov $s_bad, %ecx
    mov $4, %edx
    call print
    mov $252, %eax
    mov $1, %ebx
    int $0x80
