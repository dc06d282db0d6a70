/* Freestanding riscv64: reads the initial stack (argc, argv[], NULL, envp[]) and prints
 * each argv[i] for i >= 1 on its own line, then "env ok\n" if envp holds TEST=1, and exits
 * with argc as the status. */
    .section .rodata
nl:     .ascii "\n"
envok:  .ascii "env ok\n"
want:   .asciz "TEST=1"

    .text
    .globl _start
_start:
    ld s1, 0(sp)                /* argc */
    addi s2, sp, 8              /* argv */
    li s3, 1
1:
    bgeu s3, s1, 3f
    slli t0, s3, 3
    add t0, s2, t0
    ld a1, 0(t0)
    li a2, 0
2:
    add t1, a1, a2
    lbu t2, 0(t1)
    beqz t2, 2f
    addi a2, a2, 1
    j 2b
2:
    li a7, 64
    li a0, 1
    ecall
    li a7, 64
    li a0, 1
    la a1, nl
    li a2, 1
    ecall
    addi s3, s3, 1
    j 1b
3:
    slli s4, s1, 3
    add s4, s2, s4
    addi s4, s4, 8              /* envp: past argv's NULL */
4:
    ld a1, 0(s4)
    beqz a1, exit
    la a4, want
5:
    lbu a5, 0(a4)
    lbu a6, 0(a1)
    bne a5, a6, 6f
    beqz a5, found
    addi a4, a4, 1
    addi a1, a1, 1
    j 5b
6:
    addi s4, s4, 8
    j 4b
found:
    li a7, 64
    li a0, 1
    la a1, envok
    li a2, 7
    ecall
exit:
    li a7, 94
    mv a0, s1
    ecall
