/* thread_counter built with -mno-outline-atomics (aarch64 only, see the manifest): gcc then
 * emits the __atomic builtins inline as LDXR/STXR (exclusive load/store) loops instead of calls
 * to libgcc's outline atomics, which take LSE's CAS and LDADD when AT_HWCAP has HWCAP_ATOMICS.
 * The same four threads x 1,000,000 increments, and every counter must end at 4,000,000. */
#include "thread_counter.c"
