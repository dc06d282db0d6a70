/* Reads all of stdin (given by the manifest) and prints each line reversed, then counts. */
#include "common.h"

int main(void)
{
    char line[256];
    int lines = 0;
    size_t bytes = 0;
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strlen(line);
        bytes += n;
        if (n && line[n - 1] == '\n')
            line[--n] = 0;
        for (size_t i = 0; i < n / 2; i++) {
            char c = line[i];
            line[i] = line[n - 1 - i];
            line[n - 1 - i] = c;
        }
        printf("%s\n", line);
        lines++;
    }
    CHECK(feof(stdin));
    printf("lines=%d bytes=%zu\n", lines, bytes);
    /* Reading again at EOF returns 0. */
    char c;
    CHECK(read(0, &c, 1) == 0);
    return 0;
}
