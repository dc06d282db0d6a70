/* Freestanding s390x: N raw getppid syscalls (N = decimal argv[1], default 1000), every
 * result equal to the first. Used to time syscall dispatch. Expected: "ok\n", status 0;
 * a mismatch prints "mismatch\n" and exits 1. */
    .section .rodata
    .balign 2
ok:     .ascii "ok\n"
    .balign 2
bad:    .ascii "mismatch\n"

    .text
    .globl _start
_start:
    lghi %r6, 1000              /* N */
    lg %r0, 0(%r15)             /* argc */
    cghi %r0, 2
    jl have_n
    lg %r3, 16(%r15)            /* argv[1] */
    lghi %r6, 0
parse:
    llgc %r0, 0(%r3)
    aghi %r0, -48
    clgfi %r0, 9
    jh have_n
    mghi %r6, 10
    agr %r6, %r0
    aghi %r3, 1
    j parse
have_n:
    svc 64                      /* getppid */
    lgr %r7, %r2                /* the first answer */
loop:
    ltgr %r6, %r6
    jz done
    svc 64
    cgr %r2, %r7
    jne mismatch
    aghi %r6, -1
    j loop
done:
    lghi %r2, 1
    larl %r3, ok
    lghi %r4, 3
    svc 4
    lghi %r2, 0
    svc 248
mismatch:
    lghi %r2, 1
    larl %r3, bad
    lghi %r4, 9
    svc 4
    lghi %r2, 1
    svc 248
