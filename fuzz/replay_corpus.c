/* Runs a fuzz harness over every file of its corpus folders, once each,
 * without libFuzzer: what `make test` does with the corpora (and the inputs
 * that once crashed a harness), under the suite's own compiler and, in the
 * sanitizer build, AddressSanitizer and UndefinedBehaviorSanitizer.
 *   replay_corpus_NAME DIR...   (exit 0: every input ran) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    for (size_t got; data && (got = fread(data + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) data = realloc(data, cap *= 2);
    }
    fclose(f);
    if (!data) return -1;
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    size_t inputs = 0;
    for (int k = 1; k < argc; k++) {
        DIR *d = opendir(argv[k]);
        if (!d) {
            perror(argv[k]);
            return 1;
        }
        char *names[4096];
        size_t n = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL && n < sizeof names / sizeof names[0])
            if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
        closedir(d);
        qsort(names, n, sizeof names[0], compare_names);
        for (size_t j = 0; j < n; j++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[k], names[j]);
            if (run_file(path) != 0) return 1;
            free(names[j]);
            inputs++;
        }
    }
    if (inputs == 0) {
        fprintf(stderr, "replay_corpus: no inputs in the folders given\n");
        return 1;
    }
    printf("%zu inputs ran\n", inputs);
    return 0;
}
