/* Freestanding arm (EABI, ARM state): computes sum(1..1000) and fib(50) in loops (fib in
 * 64 bits, as an adds/adc pair), prints both in decimal (no divide instruction: digits by
 * subtracting 64-bit powers of ten), and checks them against the known values 500500 and
 * 12586269025. Expected: "sum 500500\nfib50 12586269025\nok\n", status 0 (a wrong value
 * prints "bad\n", status 1). */
    .syntax unified
    .arm
    .section .rodata
s_sum:  .ascii "sum "
s_fib:  .ascii "fib50 "
s_ok:   .ascii "ok\n"
s_bad:  .ascii "bad\n"
    .balign 8
/* The 64-bit powers of ten, 10^19 (below 2^64) down to 10^0. */
pow10:
    .quad 10000000000000000000, 1000000000000000000, 100000000000000000, 10000000000000000
    .quad 1000000000000000, 100000000000000, 10000000000000, 1000000000000, 100000000000
    .quad 10000000000, 1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1
pow10_end:

    .bss
buf:    .skip 32

    .text
    .globl _start
/* print(r1 = ptr, r2 = len); clobbers r0, r7 */
print:
    mov r7, #4
    mov r0, #1
    svc #0
    bx lr
/* print_dec(r1:r0 = value, high:low): decimal digits (no leading zeros) and a newline;
 * clobbers r0-r3, r7, r10-r12 */
print_dec:
    ldr r10, =pow10
    ldr r11, =buf
    mov r12, #0                 /* a digit was written */
1:
    ldrd r2, r3, [r10], #8      /* r3:r2 = power of ten */
    mov r7, #'0'
2:
    subs r2, r0, r2             /* value - power, 64-bit */
    sbcs r3, r1, r3
    blo 3f                      /* borrow: value < power */
    mov r0, r2
    mov r1, r3
    add r7, r7, #1
    ldrd r2, r3, [r10, #-8]
    b 2b
3:
    ldr r2, =pow10_end
    cmp r7, #'0'
    cmpeq r12, #0
    bne 5f                      /* a non-zero digit, or one after it: written */
    cmp r10, r2
    bne 4f                      /* a leading zero (the last digit is always written) */
5:
    strb r7, [r11], #1
    mov r12, #1
4:
    cmp r10, r2
    bne 1b
    mov r7, #'\n'
    strb r7, [r11], #1
    ldr r1, =buf
    sub r2, r11, r1
    b print

_start:
    mov r4, #0                  /* sum */
    mov r3, #1000
2:
    add r4, r4, r3
    subs r3, r3, #1
    bne 2b
    ldr r1, =s_sum
    mov r2, #4
    bl print
    mov r0, r4
    mov r1, #0
    bl print_dec

    mov r5, #0                  /* a = fib(0) in r6:r5 */
    mov r6, #0
    mov r8, #1                  /* b = fib(1) in r9:r8 */
    mov r9, #0
    mov r3, #50
3:
    adds r0, r5, r8             /* t = a + b */
    adc r1, r6, r9
    mov r5, r8
    mov r6, r9
    mov r8, r0
    mov r9, r1
    subs r3, r3, #1
    bne 3b                      /* r6:r5 = fib(50) */
    ldr r1, =s_fib
    mov r2, #6
    bl print
    mov r0, r5
    mov r1, r6
    bl print_dec

    ldr r0, =500500
    cmp r4, r0
    bne fail
    ldr r0, =0xee333961         /* 12586269025 = 0x2_ee33_3961 */
    cmp r5, r0
    bne fail
    cmp r6, #2
    bne fail
    ldr r1, =s_ok
    mov r2, #3
    bl print
    mov r7, #248
    mov r0, #0
    svc #0
fail:
    ldr r1, =s_bad
    mov r2, #4
    bl print
    mov r7, #248
    mov r0, #1
    svc #0
