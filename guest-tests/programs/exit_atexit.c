/* exit() runs atexit handlers in reverse order and flushes stdio; _exit status is kept. */
#include "common.h"

static void first(void) { printf("atexit first-registered runs last\n"); }
static void second(void) { printf("atexit second-registered runs first\n"); }

int main(void)
{
    CHECK(atexit(first) == 0);
    CHECK(atexit(second) == 0);
    /* Left in the stdio buffer on purpose: exit() must flush it. */
    printf("buffered line");
    printf(" completed\n");
    exit(3);
}
