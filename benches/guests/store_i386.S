/*
 * store_i386.S - freestanding i386 Linux guest for endgate-bench.
 *
 * A counted loop doing one 4-byte (word-sized) store to a stack slot per
 * iteration (store, decrement, branch), N iterations, then exit(0).  N is
 * argv[1] in decimal (default 100000000; "0" gives the start-up/exit-only
 * baseline).  Exit status 3 means the slot does not hold the last stored
 * value (1).
 *
 * Build: i686-linux-gnu-gcc -nostdlib -static -o store_i386 store_i386.S
 */
        .globl  _start
        .text
_start:
        mov     (%esp), %eax            /* argc */
        mov     $100000000, %esi        /* default iteration count */
        cmp     $2, %eax
        jl      .Lrun
        mov     8(%esp), %ecx           /* argv[1] */
        xor     %esi, %esi
.Lparse:
        movzbl  (%ecx), %eax
        sub     $'0', %eax
        cmp     $9, %eax
        ja      .Lrun                   /* stop at the first non-digit */
        imul    $10, %esi, %esi
        add     %eax, %esi
        inc     %ecx
        jmp     .Lparse
.Lrun:
        sub     $64, %esp
        test    %esi, %esi
        jz      .Lok
.Lloop:
        mov     %esi, 8(%esp)           /* the store being measured */
        dec     %esi
        jnz     .Lloop
        cmpl    $1, 8(%esp)
        jne     .Lbad
.Lok:
        xor     %ebx, %ebx
        jmp     .Lexit
.Lbad:
        mov     $3, %ebx
.Lexit:
        mov     $1, %eax                /* __NR_exit */
        int     $0x80
        hlt

        .section .note.GNU-stack,"",@progbits
