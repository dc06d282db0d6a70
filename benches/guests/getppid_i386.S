/*
 * getppid_i386.S - freestanding i386 Linux guest for endgate-bench.
 *
 * Calls getppid(2) N times, then exits with status 0.  N is argv[1] in decimal
 * (default 1000000; "0" gives a start-up/exit-only run used as the baseline).
 * Exit status 2 means the last getppid returned a non-positive value.
 * System calls: int $0x80 with the number in eax (i386: getppid 64, exit 1).
 *
 * Build: i686-linux-gnu-gcc -nostdlib -static -o getppid_i386 getppid_i386.S
 */
        .globl  _start
        .text
_start:
        mov     (%esp), %eax            /* argc */
        mov     $1000000, %esi          /* default iteration count */
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
        test    %esi, %esi
        jz      .Lok
.Lloop:
        mov     $64, %eax               /* __NR_getppid */
        int     $0x80
        dec     %esi
        jnz     .Lloop
        test    %eax, %eax
        jle     .Lbad
.Lok:
        xor     %ebx, %ebx
        jmp     .Lexit
.Lbad:
        mov     $2, %ebx
.Lexit:
        mov     $1, %eax                /* __NR_exit */
        int     $0x80
        hlt

        .section .note.GNU-stack,"",@progbits
