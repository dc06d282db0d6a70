/* argc/argv as the manifest passes them (spaces, empty and unicode arguments included). */
#include "common.h"

int main(int argc, char **argv)
{
    printf("argc=%d\n", argc);
    printf("argv0 basename=%s\n", base_name(argv[0]));
    for (int i = 1; i < argc; i++)
        printf("argv[%d]=<%s> len=%zu\n", i, argv[i], strlen(argv[i]));
    CHECK(argv[argc] == NULL);
    return 0;
}
