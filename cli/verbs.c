/* check, compare and store-url: each one library call, printed. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "label" on its own line, then each line of `text` indented by two spaces. */
static void print_block(const char *label, const char *text) {
    printf("%s\n", label);
    for (;;) {
        size_t n = strcspn(text, "\n");
        printf("  %.*s\n", (int)n, text);
        if (text[n] == '\0') return;
        text += n + 1;
    }
}

int vgcli_check(const vgcli_args *args) {
    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("check", error);
    vg_result *result = NULL;
    vg_client_check(&result, client, args->version);
    vgcli_warn_result(result);
    vg_status status = vg_result_status(result);
    if (args->json) {
        printf("%s\n", vg_result_json(result));
    } else {
        printf("status: %s\n", vg_result_get(result, "status"));
        if (vg_result_title(result)) printf("title: %s\n", vg_result_title(result));
        if (vg_result_message(result)) printf("message: %s\n", vg_result_message(result));
        if (vg_result_release_notes(result)) print_block("release notes:", vg_result_release_notes(result));
        if (vg_result_store_url(result)) printf("url: %s\n", vg_result_store_url(result));
    }
    vg_result_free(result);
    vg_client_free(client);
    return status == VG_STATUS_MANDATORY ? VGCLI_EXIT_MANDATORY
        : status == VG_STATUS_OPTIONAL ? VGCLI_EXIT_OPTIONAL : VGCLI_EXIT_OK;
}

int vgcli_compare(const vgcli_args *args) {
    int order = 0;
    int code = vg_version_compare(&order, args->positional[0], args->positional[1]);
    if (code != VG_OK) {
        int a = 0;
        const char *bad = vg_version_compare(&a, args->positional[0], args->positional[0]) != VG_OK
            ? args->positional[0] : args->positional[1];
        fprintf(stderr, "versiongate compare: \"%s\": %s\n", bad, vg_strerror(code));
        return VGCLI_EXIT_INVALID;
    }
    printf("%d\n", order);
    return VGCLI_EXIT_OK;
}

int vgcli_store_url(const vgcli_args *args) {
    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("store-url", error);
    char *url = NULL;
    int code = vg_client_store_url(&url, client);
    vg_client_free(client);
    if (code != VG_OK) {
        fprintf(stderr, "versiongate store-url: %s\n", vg_strerror(code));
        return VGCLI_EXIT_USAGE;
    }
    if (!url) {
        fprintf(stderr, "versiongate store-url: no store URL passes the URL policy\n");
        return VGCLI_EXIT_INVALID;
    }
    printf("%s\n", url);
    vg_free(url);
    return VGCLI_EXIT_OK;
}
