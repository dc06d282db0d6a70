@ An ARM-state entry point (e_entry bit 0 clear) that calls Thumb code and back, using the
@ raw EABI syscall convention in both states: number in r7, `svc #0`.
    .syntax unified
    .text
    .arm
    .global _start
_start:
    mov     r0, #1
    adr     r1, msg_arm
    mov     r2, #4
    mov     r7, #4              @ write
    svc     #0
    adr     r4, thumb_part + 1  @ bit 0 set: enter Thumb state
    blx     r4
    mov     r0, #1
    adr     r1, msg_back
    mov     r2, #5
    mov     r7, #4
    svc     #0
    mov     r0, #0
    mov     r7, #248            @ exit_group
    svc     #0
msg_arm:  .ascii "arm\n"
msg_back: .ascii "back\n"
    .balign 4
    .thumb
    .thumb_func
thumb_part:
    push    {r7, lr}
    movs    r0, #1
    adr     r1, msg_thumb
    movs    r2, #6
    movs    r7, #4
    svc     #0
    pop     {r7, pc}            @ back to ARM state (lr bit 0 clear)
    .balign 4
msg_thumb: .ascii "thumb\n"
