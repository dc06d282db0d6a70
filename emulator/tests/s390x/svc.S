# System calls without libc, in every form the s390x kernel accepts: the number in the svc
# immediate (svc 4 = write), in r1 with svc 0, and an svc run by EX and by EXRL whose
# immediate comes from r1's low byte (EXECUTE ORs it into the target's second byte).
# Exits with status 42.
        .section .rodata
        .balign 2                   # larl addresses halfwords
m1:     .ascii "svc 4\n"
        .balign 2
m2:     .ascii "svc 0 + r1\n"
        .balign 2
m3:     .ascii "ex svc\n"
        .balign 2
m4:     .ascii "exrl svc\n"
        .text
        .globl _start
_start:
        lghi    %r2,1
        larl    %r3,m1
        lghi    %r4,6
        svc     4                   # write(1, m1, 6)
        lghi    %r2,1
        larl    %r3,m2
        lghi    %r4,11
        lghi    %r1,4
        svc     0                   # write(1, m2, 11), number in r1
        lghi    %r2,1
        larl    %r3,m3
        lghi    %r4,7
        lghi    %r1,4
        larl    %r5,target
        ex      %r1,0(%r5)          # svc 0|4 = write(1, m3, 7)
        lghi    %r2,1
        larl    %r3,m4
        lghi    %r4,9
        lghi    %r1,4
        exrl    %r1,target          # svc 0|4 = write(1, m4, 9)
        lghi    %r2,42
        svc     1                   # exit(42)
target: svc     0
