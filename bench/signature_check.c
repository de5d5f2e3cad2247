/* What a signed local document costs a launcher (issue #15). One process:
 * dlopen the library, make a client for DOCUMENT (with trusted_keys KEYS,
 * or none for "-"), then
 *   cold     one check, exit (bench/signature_runs.py times the process);
 *   warm N   N checks on that client, print the median ns per check;
 *   maps     one check, print whether libcrypto is mapped afterwards.
 * Exits 1 when a check fails (an untrusted document must not pass as timed). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*new_fn)(void **);
typedef int (*set_fn)(void *, const char *, const char *);
typedef int (*check_fn)(void **, void *, const char *);
typedef int (*error_fn)(const void *);
typedef void (*free_fn)(void *);

static new_fn client_new;
static set_fn client_set;
static check_fn client_check;
static error_fn result_error;
static free_fn result_free;

static int check_once(void *client)
{
    void *result = NULL;
    int rc = client_check(&result, client, "1.0.41");
    int error = result ? result_error(result) : -1;
    result_free(result);
    return rc == 0 && error == 0;
}

static int by_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int libcrypto_mapped(void)
{
    char line[512];
    int found = 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return -1;
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "libcrypto.so")) found = 1;
    fclose(maps);
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: signature_check LIBRARY DOCUMENT KEYS|- cold|warm N|maps\n");
        return 2;
    }
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    client_new = (new_fn)dlsym(library, "vg_client_new");
    client_set = (set_fn)dlsym(library, "vg_client_set");
    client_check = (check_fn)dlsym(library, "vg_client_check");
    result_error = (error_fn)dlsym(library, "vg_result_error");
    result_free = (free_fn)dlsym(library, "vg_result_free");
    if (!client_new || !client_set || !client_check || !result_error || !result_free) return 1;
    void *client = NULL;
    if (client_new(&client) != 0 || client_set(client, "source", argv[2]) != 0 ||
        client_set(client, "session_scope", "process") != 0 ||
        (strcmp(argv[3], "-") != 0 && client_set(client, "trusted_keys", argv[3]) != 0))
        return 1;

    if (strcmp(argv[4], "cold") == 0) return check_once(client) ? 0 : 1;
    if (strcmp(argv[4], "maps") == 0) {
        if (!check_once(client)) return 1;
        printf("%s\n", libcrypto_mapped() ? "libcrypto mapped" : "libcrypto not mapped");
        return 0;
    }
    if (strcmp(argv[4], "warm") == 0 && argc == 6) {
        int runs = atoi(argv[5]);
        if (runs < 1) return 2;
        long long *ns = malloc(sizeof *ns * (size_t)runs);
        if (!ns || !check_once(client)) return 1;   /* the first check fills the client's cache */
        for (int i = 0; i < runs; i++) {
            struct timespec a, b;
            clock_gettime(CLOCK_MONOTONIC, &a);
            int ok = check_once(client);
            clock_gettime(CLOCK_MONOTONIC, &b);
            if (!ok) return 1;
            ns[i] = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
        }
        qsort(ns, (size_t)runs, sizeof *ns, by_value);
        printf("%lld\n", ns[runs / 2]);
        return 0;
    }
    return 2;
}
