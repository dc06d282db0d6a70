/* Freestanding riscv64: computes sum(1..1000) and fib(50) in loops, prints both in decimal
 * (converted with divu/remu), and checks them against the known values 500500 and
 * 12586269025. Expected: "sum 500500\nfib50 12586269025\nok\n", status 0 (a wrong value
 * prints "bad\n", status 1). */
    .section .rodata
s_sum:  .ascii "sum "
s_fib:  .ascii "fib50 "
s_ok:   .ascii "ok\n"
s_bad:  .ascii "bad\n"

    .bss
buf:    .skip 32

    .text
    .globl _start
/* print(a1 = ptr, a2 = len) */
print:
    li a7, 64
    li a0, 1
    ecall
    ret
/* print_dec(a0 = value): decimal digits and a newline; uses t0-t4 */
print_dec:
    la t0, buf
    addi t1, t0, 32             /* end */
    addi a1, t1, -1
    li t2, '\n'
    sb t2, 0(a1)
    li t3, 10
1:
    remu t2, a0, t3
    divu a0, a0, t3
    addi t2, t2, '0'
    addi a1, a1, -1
    sb t2, 0(a1)
    bnez a0, 1b
    sub a2, t1, a1
    j print

_start:
    li s1, 0                    /* sum */
    li a3, 1000
2:
    add s1, s1, a3
    addi a3, a3, -1
    bnez a3, 2b
    la a1, s_sum
    li a2, 4
    call print
    mv a0, s1
    call print_dec

    li s2, 0                    /* fib(0) */
    li s3, 1                    /* fib(1) */
    li s4, 50
3:
    add a4, s2, s3
    mv s2, s3
    mv s3, a4
    addi s4, s4, -1
    bnez s4, 3b                 /* s2 = fib(50) */
    la a1, s_fib
    li a2, 6
    call print
    mv a0, s2
    call print_dec

    li a5, 500500
    bne s1, a5, fail
    li a5, 12586269025
    bne s2, a5, fail
    la a1, s_ok
    li a2, 3
    call print
    li a7, 94
    li a0, 0
    ecall
fail:
    la a1, s_bad
    li a2, 4
    call print
    li a7, 94
    li a0, 1
    ecall
