/* thread_jit through a second mapping of the same memory (a W^X JIT across threads: a memfd
 * mapped writable and, elsewhere, executable): the writer's stores never touch the executable
 * view's addresses, and the emulator must still drop the runner's stale translation. */
#define THREAD_JIT_ALIAS 1
#include "thread_jit.c"
