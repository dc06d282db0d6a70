/* Freestanding s390x: write(1, msg, len) with svc 4 (the system call number in the svc
 * instruction), then exit_group(7) with svc 248. Expected: stdout "hello from asm\n",
 * status 7. */
    .section .rodata
    .balign 2
msg:
    .ascii "hello from asm\n"
    .set len, . - msg

    .text
    .globl _start
_start:
    lghi %r2, 1                 /* write */
    larl %r3, msg
    lghi %r4, len
    svc 4
    cghi %r2, len
    jne 1f
    lghi %r2, 7                 /* exit_group */
    svc 248
1:
    lghi %r2, 1
    svc 248
