/* The guest of emulator/tests/gdb.rs's interrupt test: it spins until stopped from outside. */
volatile int stop_now;
volatile unsigned long spins;
int main(void) {
    while (!stop_now)
        spins++;
    return 9;
}
