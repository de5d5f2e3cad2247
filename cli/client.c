/* A client made from the command line's settings, and one-line warnings. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --verbose: the library's log lines on stderr, one per line. */
static void log_to_stderr(int level, const char *message, void *unused) {
    (void)unused;
    static const char *const names[] = {"", "error", "warning", "info", "debug"};
    fprintf(stderr, "versiongate: %s: %s\n", level >= 1 && level <= 4 ? names[level] : "log", message);
}

vg_client *vgcli_client(const vgcli_args *args, char *error, size_t error_size) {
    vg_client *client = NULL;
    int code = vg_client_new(&client);
    if (code != VG_OK) {
        snprintf(error, error_size, "cannot create a client: %s", vg_strerror(code));
        return NULL;
    }
    for (size_t i = 0; i < args->setting_count; i++) {
        const vgcli_setting *setting = &args->settings[i];
        if (vg_client_set(client, setting->key, setting->value) != VG_OK) {
            const char *why = vg_client_last_error(client);
            snprintf(error, error_size, "%s", why ? why : "option refused");
            vg_client_free(client);
            return NULL;
        }
    }
    if (args->verbose > 0) {
        vg_client_set(client, "log_level", args->verbose > 1 ? "debug" : "info");
        vg_client_set_log_callback(client, log_to_stderr, NULL);
    } else {
        vgcli_policy_warn();   /* with --verbose, the library's log says it */
    }
    vgcli_events_attach(client, args->events);
    return client;
}

void vgcli_warn(const char *format, ...) {
    char line[2048];
    va_list list;
    va_start(list, format);
    vsnprintf(line, sizeof line, format, list);
    va_end(list);
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' ';
    fprintf(stderr, "versiongate: warning: %s\n", line);
}

void vgcli_warn_result(const vg_result *result) {
    int code = vg_result_error(result);
    if (code == VG_OK) {
        /* Decided from the cache or the defaults although the fetch failed. */
        const char *fetch = vg_result_get(result, "fetch_error_message");
        if (fetch) vgcli_warn("%s; decided from origin %s", fetch, vg_result_get(result, "origin"));
        return;
    }
    const char *message = vg_result_error_message(result);
    vgcli_warn("%s (%s); treated as up to date", message ? message : vg_strerror(code), vg_strerror(code));
}
