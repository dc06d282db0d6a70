/* i386, freestanding: every system call goes through AT_SYSINFO (__kernel_vsyscall) from one
   call site. Four rounds call set_thread_area for the TLS entry that %es selects (from the
   first round on), with base 0 twice and then base 0x1000 twice; Linux reloads %es on the way
   back, so each round's stosb to %es:buf+round lands at the base then in force. Prints
   "low=AB-- high=--CD": the bytes found at buf and at buf+0x1000. (An emulator that keeps the
   vsyscall's return linked to code translated for the old base prints "low=ABCD high=----".) */
    .data
vsys: .long 0
iter: .long 0
saved_es: .long 0
desc: .long -1         /* entry_number: allocate */
      .long 0          /* base_addr */
      .long 0xfffff    /* limit */
      .long 0x51       /* seg_32bit, limit_in_pages, useable */
out:  .ascii "low=???? high=????\n"
    .bss
    .align 4096
buf: .space 0x2000
    .text
    .globl _start
_start:
    mov (%esp), %eax
    lea 8(%esp,%eax,4), %esi
1:  mov (%esi), %eax
    add $4, %esi
    test %eax, %eax
    jnz 1b
2:  mov (%esi), %eax
    test %eax, %eax
    jz fail
    cmp $32, %eax
    je 3f
    add $8, %esi
    jmp 2b
3:  mov 4(%esi), %eax
    mov %eax, vsys
    mov %es, %eax
    mov %eax, saved_es
loop:
    cmpl $2, iter
    jb 4f
    movl $0x1000, desc+4
4:  mov $243, %eax
    lea desc, %ebx
    call sys
    lea buf, %edi
    add iter, %edi
    mov iter, %eax
    add $'A', %al
    stosb
    cmpl $0, iter
    jne 5f
    mov desc, %ebx
    shl $3, %ebx
    or $3, %ebx
    mov %bx, %es
5:  incl iter
    cmpl $4, iter
    jne loop
    /* report */
    mov saved_es, %ebx
    mov %bx, %es
    xor %ecx, %ecx
6:  movb buf(%ecx), %al
    test %al, %al
    jnz 7f
    mov $'-', %al
7:  movb %al, out+4(%ecx)
    movb buf+0x1000(%ecx), %al
    test %al, %al
    jnz 8f
    mov $'-', %al
8:  movb %al, out+14(%ecx)
    inc %ecx
    cmp $4, %ecx
    jne 6b
    mov $4, %eax
    mov $1, %ebx
    lea out, %ecx
    mov $19, %edx
    int $0x80
    mov $1, %eax
    xor %ebx, %ebx
    int $0x80
fail:
    mov $1, %eax
    mov $9, %ebx
    int $0x80
sys:
    call *vsys
    ret
