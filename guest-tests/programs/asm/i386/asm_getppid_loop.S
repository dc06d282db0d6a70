/* Freestanding i386: N raw getppid syscalls (N = decimal argv[1], default 1000), every
 * result equal to the first. Used to time syscall dispatch. Expected: "ok\n", status 0;
 * a mismatch prints "mismatch\n" and exits 1. */
    .section .rodata
ok:     .ascii "ok\n"
bad:    .ascii "mismatch\n"

    .text
    .globl _start
_start:
    mov $1000, %esi             /* N */
    cmpl $2, (%esp)             /* argc */
    jb  have_n
    mov 8(%esp), %ecx           /* argv[1] */
    xor %esi, %esi
parse:
    movzbl (%ecx), %eax
    sub $'0', %eax
    cmp $9, %eax
    ja  have_n
    imul $10, %esi, %esi
    add %eax, %esi
    inc %ecx
    jmp parse
have_n:
    mov $64, %eax               /* getppid */
    int $0x80
    mov %eax, %edi              /* the first answer */
loop:
    test %esi, %esi
    jz  done
    mov $64, %eax
    int $0x80
    cmp %eax, %edi
    jne mismatch
    dec %esi
    jmp loop
done:
    mov $4, %eax
    mov $1, %ebx
    mov $ok, %ecx
    mov $3, %edx
    int $0x80
    mov $252, %eax
    xor %ebx, %ebx
    int $0x80
mismatch:
    mov $4, %eax
    mov $1, %ebx
    mov $bad, %ecx
    mov $9, %edx
    int $0x80
    mov $252, %eax
    mov $1, %ebx
    int $0x80
