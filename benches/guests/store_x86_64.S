/*
 * store_x86_64.S - freestanding x86_64 Linux guest for endgate-bench.
 *
 * A counted loop doing one 8-byte store to a stack slot per iteration
 * (store, decrement, branch), N iterations, then exit(0).  N is argv[1] in
 * decimal (default 100000000; "0" gives the start-up/exit-only baseline).
 * Exit status 3 means the slot does not hold the last stored value (1).
 *
 * Build: gcc -nostdlib -static -o store_x86_64 store_x86_64.S
 */
        .globl  _start
        .text
_start:
        mov     (%rsp), %rdi            /* argc */
        mov     $100000000, %r12        /* default iteration count */
        cmp     $2, %rdi
        jl      .Lrun
        mov     16(%rsp), %rsi          /* argv[1] */
        xor     %r12d, %r12d
.Lparse:
        movzbl  (%rsi), %eax
        sub     $'0', %eax
        cmp     $9, %eax
        ja      .Lrun                   /* stop at the first non-digit */
        imul    $10, %r12, %r12
        add     %rax, %r12
        inc     %rsi
        jmp     .Lparse
.Lrun:
        sub     $64, %rsp
        test    %r12, %r12
        jz      .Lok
.Lloop:
        mov     %r12, 8(%rsp)           /* the store being measured */
        dec     %r12
        jnz     .Lloop
        cmpq    $1, 8(%rsp)
        jne     .Lbad
.Lok:
        xor     %edi, %edi
        jmp     .Lexit
.Lbad:
        mov     $3, %edi
.Lexit:
        mov     $60, %eax               /* __NR_exit */
        syscall
        hlt

        .section .note.GNU-stack,"",@progbits
