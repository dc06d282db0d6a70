/* record_locks.c with a 64-bit off_t (`struct flock64` and F_GETLK64/F_SETLK64 on the 32-bit
 * arches). */
#define _FILE_OFFSET_BITS 64
#include "record_locks.c"
