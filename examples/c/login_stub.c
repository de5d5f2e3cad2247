/*
 * login_stub.c — a login screen's start-up, as a terminal program.
 *
 *   login_stub [--source PATH] [--version V]
 *
 * Before logging in, ask VersionGate whether this version may run:
 *   MANDATORY   a blocking prompt whose only action is "update": open the
 *               store and exit with status 3 (the app does not start);
 *   OPTIONAL    a dismissible prompt, once per session: Update (exit 3) or
 *               Later (log in);
 *   UP_TO_DATE  log in. Every error also ends here (fail-open), with a
 *               one-line warning on stderr.
 *
 * Build (scripts/demo does this):
 *   cc -std=c99 -Iinclude -DAPP_VERSION='"1.0.41"' \
 *      -DVG_DEFAULT_SOURCE='"/abs/path/gate.json"' login_stub.c \
 *      -Lbuild/lib -lversiongate
 */
#define _POSIX_C_SOURCE 200809L /* isatty */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "versiongate.h"

#ifndef APP_VERSION
#define APP_VERSION "1.0.41" /* the version this build ships as */
#endif
#ifndef VG_DEFAULT_SOURCE
#define VG_DEFAULT_SOURCE "examples/gate.json" /* the embedded default */
#endif

#define EXIT_UPDATE 3 /* the user went to update: do not start the app */
#define BOX_WIDTH 60  /* text columns inside the prompt's box */

/* ---- drawing the prompt ------------------------------------------ */

static int is_continuation(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

static void box_rule(void) {
    putchar('+');
    for (int i = 0; i < BOX_WIDTH + 2; i++) putchar('-');
    puts("+");
}

/* One row: n bytes of s, padded to BOX_WIDTH columns (one per character). */
static void box_row(const char *s, size_t n) {
    int cols = 0;
    for (size_t i = 0; i < n; i++) cols += !is_continuation(s[i]);
    printf("| %.*s%*s |\n", (int)n, s, BOX_WIDTH - cols, "");
}

/* Text word-wrapped into rows; a '\n' starts a new row. */
static void box_text(const char *s) {
    for (;;) {
        size_t len = strcspn(s, "\n"), cut = 0, space = 0;
        /* Take whole characters while they fit; remember the last space. */
        for (int cols = 0; cut < len; cols++) {
            if (s[cut] == ' ') space = cut;
            if (cols == BOX_WIDTH) break;
            do cut++; while (cut < len && is_continuation(s[cut]));
        }
        if (cut < len && space > 0) cut = space; /* wrap between words */
        box_row(s, cut);
        s += cut;
        if (*s == '\0') return;
        if (*s == ' ' || *s == '\n') s++; /* the break is not drawn */
    }
}

static void show_prompt(const vg_result *r, const char *buttons) {
    putchar('\n');
    box_rule();
    box_text(vg_result_title(r));
    box_row("", 0);
    box_text(vg_result_message(r));
    box_row("", 0);
    box_text(buttons);
    box_rule();
}

/* ---- the gate ----------------------------------------------------- */

/* The user's answer, one line from a terminal. Not a terminal (a script,
 * a service): no answer, and the caller picks the safe default. */
static char ask(void) {
    char line[64];
    if (!isatty(STDIN_FILENO)) return '\0';
    printf("> ");
    fflush(stdout);
    if (fgets(line, sizeof line, stdin) == NULL) return '\0';
    return line[strspn(line, " \t")];
}

static void open_store(const vg_result *r) {
    const char *url = vg_result_store_url(r);
    if (url == NULL) {
        printf("No store URL is known: please update from your software centre.\n");
        return;
    }
    printf("Opening %s\n", url);
    /* xdg-open without a shell, the web page when no store app handles it. */
    int rc = vg_open_url(url);
    if (rc != VG_OK)
        printf("Could not open it (%s): please visit it yourself.\n", vg_strerror(rc));
}

/* Asks the gate; returns 1 when the user is sent to update (exit), 0 to log in. */
static int gate(const char *source, const char *version) {
    vg_client *client = NULL;
    vg_result *result = NULL;
    char buttons[256];
    int update = 0;

    int err = vg_client_new(&client);
    if (err == VG_OK) err = vg_client_set(client, "source", source);
    if (err != VG_OK) {
        const char *why = client ? vg_client_last_error(client) : NULL;
        fprintf(stderr, "login_stub: warning: update check skipped: %s%s%s\n",
                vg_strerror(err), why ? ": " : "", why ? why : "");
        vg_client_free(client);
        return 0;
    }

    err = vg_client_check(&result, client, version); /* always sets result */
    if (err != VG_OK) {
        const char *why = vg_result_error_message(result);
        fprintf(stderr, "login_stub: warning: update check failed, logging in anyway: %s%s%s\n",
                vg_strerror(err), why ? ": " : "", why ? why : "");
    }

    switch (vg_result_status(result)) {
    case VG_STATUS_MANDATORY: /* blocking: the only way out is the update */
        snprintf(buttons, sizeof buttons, "[U] %s", vg_result_action_label(result));
        show_prompt(result, buttons);
        (void)ask();
        update = 1;
        break;
    case VG_STATUS_OPTIONAL: /* dismissible, and only once per session */
        if (!vg_result_should_prompt(result)) break;
        snprintf(buttons, sizeof buttons, "[U] %s  [L] %s",
                 vg_result_action_label(result), vg_result_dismiss_label(result));
        show_prompt(result, buttons);
        update = toupper((unsigned char)ask()) == 'U'; /* no answer = Later */
        break;
    case VG_STATUS_UP_TO_DATE:
        break;
    }

    if (update) open_store(result);
    vg_result_free(result);
    vg_client_free(client);
    return update;
}

int main(int argc, char **argv) {
    const char *source = VG_DEFAULT_SOURCE, *version = APP_VERSION;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--source") == 0 && i + 1 < argc) {
            source = argv[++i];
        } else if (strcmp(argv[i], "--version") == 0 && i + 1 < argc) {
            version = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--source PATH] [--version V]\n", argv[0]);
            return 2;
        }
    }

    if (gate(source, version)) return EXIT_UPDATE;

    const char *user = getenv("USER");
    printf("Logging in as %s…\n", user ? user : "(unknown user)");
    return 0;
}
