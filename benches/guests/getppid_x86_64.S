/*
 * getppid_x86_64.S - freestanding x86_64 Linux guest for endgate-bench.
 *
 * Calls getppid(2) N times, then exits with status 0.  N is argv[1] in decimal
 * (default 1000000; "0" gives a start-up/exit-only run used as the baseline).
 * Exit status 2 means the last getppid returned a non-positive value.
 *
 * Build: gcc -nostdlib -static -o getppid_x86_64 getppid_x86_64.S
 */
        .globl  _start
        .text
_start:
        mov     (%rsp), %rdi            /* argc */
        mov     $1000000, %r12          /* default iteration count */
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
        test    %r12, %r12
        jz      .Lok
.Lloop:
        mov     $110, %eax              /* __NR_getppid */
        syscall                         /* clobbers rcx, r11 only */
        dec     %r12
        jnz     .Lloop
        test    %rax, %rax
        jle     .Lbad
.Lok:
        xor     %edi, %edi
        jmp     .Lexit
.Lbad:
        mov     $2, %edi
.Lexit:
        mov     $60, %eax               /* __NR_exit */
        syscall
        hlt

        .section .note.GNU-stack,"",@progbits
