/* The guest of emulator/tests/gdb.rs's signal test: a store to address BAD (given by the test
 * with -DBAD) raises SIGSEGV, which GDB sees first, with its siginfo, and then passes on. */
#ifndef BAD
#define BAD 0x10
#endif

int main(void) {
    volatile int *p = (volatile int *)BAD;
    *p = 1;
    return 0;
}
