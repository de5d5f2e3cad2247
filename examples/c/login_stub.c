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
#define _XOPEN_SOURCE 700 /* isatty, wcwidth */

#include <ctype.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

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

/* The texts come in every shipped language (issue 16), so a row is measured
 * in terminal columns, not bytes: wcwidth() gives 2 for CJK, 0 for combining
 * marks (Arabic harakat, Devanagari vowel signs), which stay with the letter
 * before them; a row is never cut inside a UTF-8 sequence. main() sets
 * LC_CTYPE from the environment (C.UTF-8 when that is not UTF-8) for wcwidth
 * only; the library itself needs no setlocale. */

/* The code point at s (at most n bytes; the library's texts are valid
 * UTF-8, a cut-off sequence counts as one byte), its length in *len. */
static unsigned decode(const char *s, size_t n, size_t *len) {
    const unsigned char *u = (const unsigned char *)s;
    size_t need = u[0] < 0x80 ? 1 : u[0] < 0xE0 ? 2 : u[0] < 0xF0 ? 3 : 4;
    unsigned cp = need == 1 ? u[0] : need == 2 ? u[0] & 0x1Fu : need == 3 ? u[0] & 0x0Fu : u[0] & 0x07u;
    for (size_t i = 1; i < need; i++) {
        if (i >= n || (u[i] & 0xC0) != 0x80) { *len = 1; return 0xFFFD; }
        cp = (cp << 6) | (u[i] & 0x3Fu);
    }
    *len = need;
    return cp;
}

static int columns(unsigned cp) {
    int w = wcwidth((wchar_t)cp);
    return w >= 0 ? w : 1; /* unknown to the C library: assume one column */
}

/* Hebrew, Arabic, Syriac, Thaana, N'Ko… and their presentation forms. */
static int is_rtl(unsigned cp) {
    return (cp >= 0x0590 && cp <= 0x08FF) || (cp >= 0xFB1D && cp <= 0xFDFF) || (cp >= 0xFE70 && cp <= 0xFEFF) ||
           (cp >= 0x10800 && cp <= 0x10FFF) || (cp >= 0x1E800 && cp <= 0x1EFFF);
}

static void box_rule(void) {
    putchar('+');
    for (int i = 0; i < BOX_WIDTH + 2; i++) putchar('-');
    puts("+");
}

/* One row: n bytes of s, padded to BOX_WIDTH columns. A row with
 * right-to-left text is right-aligned and isolated in FSI…PDI (U+2068,
 * U+2069: zero columns), so a terminal that applies the bidi algorithm
 * lays it out right to left and keeps the box's borders in place; the
 * library removes isolates from remote text, so these are balanced. */
static void box_row(const char *s, size_t n) {
    int cols = 0, rtl = 0;
    for (size_t i = 0, len; i < n; i += len) {
        unsigned cp = decode(s + i, n - i, &len);
        cols += columns(cp);
        rtl |= is_rtl(cp);
    }
    if (rtl)
        printf("| %*s\xE2\x81\xA8%.*s\xE2\x81\xA9 |\n", BOX_WIDTH - cols, "", (int)n, s); /* FSI, PDI */
    else
        printf("| %.*s%*s |\n", (int)n, s, BOX_WIDTH - cols, "");
}

/* Text word-wrapped into rows; a '\n' starts a new row. */
static void box_text(const char *s) {
    for (;;) {
        size_t len = strcspn(s, "\n"), cut = 0, space = 0, n;
        /* Take whole characters while they fit; remember the last space. */
        for (int cols = 0; cut < len;) {
            unsigned cp = decode(s + cut, len - cut, &n);
            if (cols + columns(cp) > BOX_WIDTH) break;
            if (cp == ' ') space = cut;
            cols += columns(cp);
            cut += n;
            /* combining marks and joiners stay with their letter */
            while (cut < len && columns(decode(s + cut, len - cut, &n)) == 0) cut += n;
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
    if (vg_result_release_notes(r)) { /* what is new (OPTIONAL only) */
        box_text(vg_result_release_notes(r));
        box_row("", 0);
    }
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
    /* for wcwidth() in the prompt's box only */
    if (!setlocale(LC_CTYPE, "") || MB_CUR_MAX == 1) setlocale(LC_CTYPE, "C.UTF-8");
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
