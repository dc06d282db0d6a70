/* Freestanding aarch64: N raw getppid syscalls (N = decimal argv[1], default 1000), every
 * result equal to the first. Used to time syscall dispatch. Expected: "ok\n", status 0;
 * a mismatch prints "mismatch\n" and exits 1. */
    .section .rodata
ok:     .ascii "ok\n"
bad:    .ascii "mismatch\n"

    .text
    .globl _start
_start:
    mov x19, #1000              /* N */
    ldr x0, [sp]                /* argc */
    cmp x0, #2
    b.lo have_n
    ldr x1, [sp, #16]           /* argv[1] */
    mov x19, #0
    mov x3, #10
parse:
    ldrb w2, [x1], #1
    sub w2, w2, #'0'
    cmp w2, #9
    b.hi have_n
    madd x19, x19, x3, x2
    b parse
have_n:
    mov x8, #173                /* getppid */
    svc #0
    mov x20, x0                 /* the first answer */
loop:
    cbz x19, done
    mov x8, #173
    svc #0
    cmp x0, x20
    b.ne mismatch
    sub x19, x19, #1
    b loop
done:
    mov x8, #64
    mov x0, #1
    adr x1, ok
    mov x2, #3
    svc #0
    mov x8, #94
    mov x0, #0
    svc #0
mismatch:
    mov x8, #64
    mov x0, #1
    adr x1, bad
    mov x2, #9
    svc #0
    mov x8, #94
    mov x0, #1
    svc #0
