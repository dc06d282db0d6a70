/* Freestanding aarch64: computes sum(1..1000) and fib(50) in loops, prints both in decimal
 * (converted with udiv/msub), and checks them against the known values 500500 and
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
/* print(x1 = ptr, x2 = len) */
print:
    mov x8, #64
    mov x0, #1
    svc #0
    ret
/* print_dec(x0 = value): decimal digits and a newline; uses x9-x13 */
print_dec:
    adrp x9, buf
    add x9, x9, :lo12:buf
    add x10, x9, #32            /* end */
    sub x1, x10, #1
    mov w11, #'\n'
    strb w11, [x1]
    mov x12, #10
1:
    udiv x13, x0, x12
    msub x11, x13, x12, x0      /* digit = x0 - q*10 */
    add w11, w11, #'0'
    strb w11, [x1, #-1]!
    mov x0, x13
    cbnz x0, 1b
    sub x2, x10, x1
    b print

_start:
    mov x19, #0                 /* sum */
    mov x3, #1000
2:
    add x19, x19, x3
    subs x3, x3, #1
    b.ne 2b
    adr x1, s_sum
    mov x2, #4
    bl print
    mov x0, x19
    bl print_dec

    mov x20, #0                 /* fib(0) */
    mov x21, #1                 /* fib(1) */
    mov x22, #50
3:
    add x4, x20, x21
    mov x20, x21
    mov x21, x4
    subs x22, x22, #1
    b.ne 3b                     /* x20 = fib(50) */
    adr x1, s_fib
    mov x2, #6
    bl print
    mov x0, x20
    bl print_dec

    ldr x5, =500500
    cmp x19, x5
    b.ne fail
    ldr x5, =12586269025
    cmp x20, x5
    b.ne fail
    adr x1, s_ok
    mov x2, #3
    bl print
    mov x8, #94
    mov x0, #0
    svc #0
fail:
    adr x1, s_bad
    mov x2, #4
    bl print
    mov x8, #94
    mov x0, #1
    svc #0
    .ltorg
