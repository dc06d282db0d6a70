#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    printf("hello from %d args, last '%s'\n", argc, argc > 1 ? argv[argc - 1] : "");
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f %lld %x", 3.14159, 1LL << 40, 0xbeef);
    printf("%s len %zu\n", buf, strlen(buf));
    return 0;
}
