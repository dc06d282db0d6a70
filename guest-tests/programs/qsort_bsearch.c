/* qsort (large, with duplicates; strings) and bsearch on the result, with a fixed LCG input. */
#include "common.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void)
{
    enum { N = 100000 };
    static int v[N];
    unsigned s = 12345;
    long long sum = 0;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        v[i] = (int)((s >> 8) % 50000) - 25000;
        sum += v[i];
    }
    qsort(v, N, sizeof *v, cmp_int);
    long long sum2 = 0;
    for (int i = 0; i < N; i++) {
        sum2 += v[i];
        if (i)
            CHECK(v[i - 1] <= v[i]);
    }
    CHECK(sum == sum2);
    printf("sorted %d ints: min %d, median %d, max %d, sum %lld\n", N, v[0], v[N / 2], v[N - 1], sum);
    int found = 0;
    for (int k = -25000; k < 25000; k += 997)
        found += bsearch(&k, v, N, sizeof *v, cmp_int) != NULL;
    printf("bsearch hits for 51 probes: %d\n", found);
    int missing = 99999;
    printf("bsearch miss: %s\n", bsearch(&missing, v, N, sizeof *v, cmp_int) ? "found" : "NULL");

    const char *words[] = {"pear", "apple", "fig", "banana", "cherry", "date", "apple", "kiwi", "Zebra", "ant"};
    enum { W = sizeof words / sizeof *words };
    qsort(words, W, sizeof *words, cmp_str);
    for (int i = 0; i < W; i++)
        printf("%s%s", words[i], i + 1 < W ? " " : "\n");
    const char *key = "date";
    const char **hit = bsearch(&key, words, W, sizeof *words, cmp_str);
    printf("bsearch \"date\": index %d\n", hit ? (int)(hit - words) : -1);
    return 0;
}
