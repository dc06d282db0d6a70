/* Freestanding s390x: reads the initial stack (argc, argv[], NULL, envp[]; %r15 points at
 * argc) and prints each argv[i] for i >= 1 on its own line, then "env ok\n" if envp holds
 * TEST=1, and exits with argc as the status. */
    .section .rodata
    .balign 2
nl:     .ascii "\n"
    .balign 2
envok:  .ascii "env ok\n"
    .balign 2
want:   .asciz "TEST=1"

    .text
    .globl _start
_start:
    lg %r6, 0(%r15)             /* argc */
    la %r7, 8(%r15)             /* argv */
    lghi %r8, 1                 /* i */
1:
    clgr %r8, %r6
    jhe 3f
    sllg %r1, %r8, 3
    lg %r3, 0(%r1, %r7)         /* argv[i] */
    lghi %r4, 0
2:
    la %r1, 0(%r4, %r3)
    cli 0(%r1), 0
    je 2f
    aghi %r4, 1
    j 2b
2:
    lghi %r2, 1                 /* write(1, argv[i], len) */
    svc 4
    lghi %r2, 1
    larl %r3, nl
    lghi %r4, 1
    svc 4
    aghi %r8, 1
    j 1b
3:
    sllg %r9, %r6, 3
    la %r9, 8(%r9, %r7)         /* envp: past argv's NULL */
4:
    lg %r3, 0(%r9)
    ltgr %r3, %r3
    jz exit
    larl %r4, want
5:
    llgc %r0, 0(%r4)
    llgc %r1, 0(%r3)
    cgr %r0, %r1
    jne 6f
    ltgr %r0, %r0
    jz found
    aghi %r4, 1
    aghi %r3, 1
    j 5b
6:
    aghi %r9, 8
    j 4b
found:
    lghi %r2, 1
    larl %r3, envok
    lghi %r4, 7
    svc 4
exit:
    lgr %r2, %r6                /* exit_group(argc) */
    svc 248
