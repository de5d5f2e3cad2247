/* A launcher as built on Debian 11 (against its glibc 2.31 headers and
 * libraries, Tests/python/test_old_userland.py builds it): for each
 * "SOURCE VERSION KEYS" triple of arguments (KEYS "-" for none) it prints
 * one line, the check's result JSON; then "libc <version>" and "loaded
 * <path>" for every object in the process, so the test can see which
 * glibc and libcrypto did the work; "log <line>" for each line of the
 * library's debug log (which libcurl the fetch helper used). */
#define _GNU_SOURCE
#include <gnu/libc-version.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <versiongate.h>

static int print_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    /* Files only: the vDSO has a name but no path. */
    if (info->dlpi_name && strchr(info->dlpi_name, '/')) printf("loaded %s\n", info->dlpi_name);
    return 0;
}

static void print_log(int level, const char *message, void *unused)
{
    (void)level;
    (void)unused;
    printf("log %s\n", message);
}

int main(int argc, char **argv)
{
    if (argc < 4 || (argc - 1) % 3 != 0) {
        fprintf(stderr, "usage: old_userland_host SOURCE VERSION KEYS...\n");
        return 2;
    }
    for (int i = 1; i + 2 < argc; i += 3) {
        vg_client *client = NULL;
        vg_result *result = NULL;
        if (vg_client_new(&client) != VG_OK) return 1;
        vg_client_set(client, "source", argv[i]);
        vg_client_set(client, "session_scope", "process");
        vg_client_set(client, "log_level", "debug");
        vg_client_set_log_callback(client, print_log, NULL);
        if (strcmp(argv[i + 2], "-") != 0) vg_client_set(client, "trusted_keys", argv[i + 2]);
        vg_client_check(&result, client, argv[i + 1]);
        printf("%s\n", vg_result_json(result));
        vg_result_free(result);
        vg_client_free(client);
    }
    printf("libc %s\n", gnu_get_libc_version());
    dl_iterate_phdr(print_object, NULL);
    return 0;
}
