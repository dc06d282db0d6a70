/* Freestanding s390x: computes sum(1..1000) and fib(50) in loops, prints both in decimal
 * (converted with dlgr), and checks them against the known values 500500 and 12586269025.
 * Expected: "sum 500500\nfib50 12586269025\nok\n", status 0 (a wrong value prints "bad\n",
 * status 1). */
    .section .rodata
    .balign 8
fib50:  .quad 12586269025
s_sum:  .ascii "sum "
    .balign 2
s_fib:  .ascii "fib50 "
    .balign 2
s_ok:   .ascii "ok\n"
    .balign 2
s_bad:  .ascii "bad\n"

    .bss
    .balign 8
buf:    .skip 32

    .text
    .globl _start
/* print(r3 = ptr, r4 = len); clobbers r2 */
print:
    lghi %r2, 1
    svc 4
    br %r14
/* print_dec(r2 = value): decimal digits and a newline; clobbers r0-r5, r9 */
print_dec:
    larl %r5, buf
    aghi %r5, 31
    mvi 0(%r5), 10              /* '\n' */
    lgr %r1, %r2
    lghi %r9, 10
1:
    lghi %r0, 0
    dlgr %r0, %r9               /* r0:r1 / 10: quotient in r1, remainder in r0 */
    aghi %r0, 48
    aghi %r5, -1
    stc %r0, 0(%r5)
    ltgr %r1, %r1
    jnz 1b
    lgr %r3, %r5
    larl %r4, buf
    aghi %r4, 32
    sgr %r4, %r5
    j print

_start:
    lghi %r6, 0                 /* sum */
    lghi %r1, 1000
2:
    agr %r6, %r1
    brctg %r1, 2b
    larl %r3, s_sum
    lghi %r4, 4
    brasl %r14, print
    lgr %r2, %r6
    brasl %r14, print_dec

    lghi %r7, 0                 /* fib(0) */
    lghi %r8, 1                 /* fib(1) */
    lghi %r1, 50
3:
    lgr %r2, %r7
    agr %r2, %r8
    lgr %r7, %r8
    lgr %r8, %r2
    brctg %r1, 3b               /* r7 = fib(50) */
    larl %r3, s_fib
    lghi %r4, 6
    brasl %r14, print
    lgr %r2, %r7
    brasl %r14, print_dec

    cgfi %r6, 500500
    jne fail
    larl %r1, fib50
    cg %r7, 0(%r1)
    jne fail
    larl %r3, s_ok
    lghi %r4, 3
    brasl %r14, print
    lghi %r2, 0
    svc 248
fail:
    larl %r3, s_bad
    lghi %r4, 4
    brasl %r14, print
    lghi %r2, 1
    svc 248
