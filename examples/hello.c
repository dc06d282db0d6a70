/* The example guest kept in the repository (examples/hello-aarch64 is this file built with
 * `aarch64-linux-gnu-gcc -static -Os -s hello.c -o hello-aarch64`, see examples/build.sh). */
#include <stdio.h>
#include <sys/utsname.h>

int main(int argc, char **argv) {
    struct utsname u;
    uname(&u);
    printf("Hello from endgate: this guest runs as %s.\n", u.machine);
    for (int i = 1; i < argc; i++)
        printf("argv[%d] = %s\n", i, argv[i]);
    return 0;
}
