/* Freestanding riscv64: N raw getppid syscalls (N = decimal argv[1], default 1000), every
 * result equal to the first. Used to time syscall dispatch. Expected: "ok\n", status 0;
 * a mismatch prints "mismatch\n" and exits 1. */
    .section .rodata
ok:     .ascii "ok\n"
bad:    .ascii "mismatch\n"

    .text
    .globl _start
_start:
    li s1, 1000                 /* N */
    ld a0, 0(sp)                /* argc */
    li t0, 2
    bltu a0, t0, have_n
    ld a1, 16(sp)               /* argv[1] */
    li s1, 0
    li t3, 10
    li t4, 9
parse:
    lbu t2, 0(a1)
    addi a1, a1, 1
    addi t2, t2, -'0'
    bgtu t2, t4, have_n         /* not a digit (unsigned compare catches < '0' too) */
    mul s1, s1, t3
    add s1, s1, t2
    j parse
have_n:
    li a7, 173                  /* getppid */
    ecall
    mv s2, a0                   /* the first answer */
loop:
    beqz s1, done
    li a7, 173
    ecall
    bne a0, s2, mismatch
    addi s1, s1, -1
    j loop
done:
    li a7, 64
    li a0, 1
    la a1, ok
    li a2, 3
    ecall
    li a7, 94
    li a0, 0
    ecall
mismatch:
    li a7, 64
    li a0, 1
    la a1, bad
    li a2, 9
    ecall
    li a7, 94
    li a0, 1
    ecall
