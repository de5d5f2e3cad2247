/* The desktop dialogs. Remote text is always literal: zenity gets
 * --no-markup; kdialog shows rich text when the text looks like it, so the
 * text is escaped and wrapped in <qt>; a notification body is escaped (the
 * notification spec's body markup). Every value is passed as --opt=value,
 * so a title or label starting with "-" is never read as an option. */
#define _GNU_SOURCE
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *joined(const char *a, const char *b) {
    char *text = NULL;
    return asprintf(&text, "%s%s", a, b ? b : "") < 0 ? NULL : text;
}

/* &, < and > as entities; for Qt rich text (`rich`) also " and ', and
 * newlines as <br>. */
static char *escaped_markup(const char *text, int rich) {
    int breaks = rich;
    size_t length = 0;
    for (const char *c = text; *c; c++) length += 6;
    char *out = malloc(length + 1);
    if (!out) return NULL;
    char *o = out;
    for (const char *c = text; *c; c++) {
        const char *entity = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;"
            : (*c == '"' && rich) ? "&quot;" : (*c == '\'' && rich) ? "&#39;" : (*c == '\n' && breaks) ? "<br>" : NULL;
        if (entity) {
            size_t n = strlen(entity);
            memcpy(o, entity, n);
            o += n;
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    return out;
}

static void free_all(char **strings, size_t count) {
    for (size_t i = 0; i < count; i++) free(strings[i]);
}

static const char *or_empty(const char *text) { return text ? text : ""; }

char *vgcli_message_and_notes(const vgcli_prompt *prompt) {
    char *text = NULL;
    return asprintf(&text, "%s%s%s", or_empty(prompt->message), prompt->notes ? "\n\n" : "",
                    or_empty(prompt->notes)) < 0 ? NULL : text;
}

vgcli_answer vgcli_zenity(const vgcli_prompt *prompt) {
    char *program = vgcli_find_program("zenity");
    if (!program) return VGCLI_NOT_SHOWN;
    char *owned[6] = {0};
    size_t n = 0;
    char *argv[16];
    size_t a = 0;
    char *text = vgcli_message_and_notes(prompt);
    argv[a++] = program;
    argv[a++] = prompt->mandatory ? "--warning" : "--question";
    argv[a++] = "--no-markup";
    argv[a++] = "--width=420";
    argv[a++] = owned[n++] = joined("--title=", or_empty(prompt->title));
    argv[a++] = owned[n++] = text ? joined("--text=", text) : NULL;
    free(text);
    argv[a++] = owned[n++] = joined("--ok-label=", prompt->update_label);
    if (!prompt->mandatory) {
        argv[a++] = owned[n++] = joined("--cancel-label=", prompt->later_label);
        argv[a++] = owned[n++] = joined("--extra-button=", prompt->skip_label);
    }
    argv[a] = NULL;
    int complete = 1;
    for (size_t i = 0; i < n; i++) complete &= owned[i] != NULL;

    char out[512];
    int status = complete ? vgcli_run(argv, out, sizeof out) : -1;
    free_all(owned, n);
    free(program);
    /* 0: the OK button (Update); 1: Cancel, closed, or the extra button
     * (its label on stdout); anything else: it could not be shown. */
    if (status == 0) return VGCLI_UPDATE;
    if (status == 1 && prompt->mandatory) return VGCLI_DISMISSED;
    if (status == 1) {
        out[strcspn(out, "\n")] = '\0';
        return strcmp(out, or_empty(prompt->skip_label)) == 0 ? VGCLI_SKIP : VGCLI_LATER;
    }
    return VGCLI_NOT_SHOWN;
}

vgcli_answer vgcli_kdialog(const vgcli_prompt *prompt) {
    char *program = vgcli_find_program("kdialog");
    if (!program) return VGCLI_NOT_SHOWN;
    char *plain = vgcli_message_and_notes(prompt);
    char *body = plain ? escaped_markup(plain, 1) : NULL;
    free(plain);
    char *owned[6] = {0};
    size_t n = 0;
    char *argv[16];
    size_t a = 0;
    argv[a++] = program;
    argv[a++] = owned[n++] = joined("--title=", or_empty(prompt->title));
    if (prompt->mandatory) {
        argv[a++] = owned[n++] = joined("--ok-label=", prompt->update_label);
        char *text = body ? joined("<qt>", body) : NULL;
        argv[a++] = owned[n++] = text ? joined("--sorry=", text) : NULL;
        free(text);
    } else {
        /* Closing the window answers Cancel: Cancel is Later, never Skip. */
        argv[a++] = owned[n++] = joined("--yes-label=", prompt->update_label);
        argv[a++] = owned[n++] = joined("--no-label=", prompt->skip_label);
        argv[a++] = owned[n++] = joined("--cancel-label=", prompt->later_label);
        char *text = body ? joined("<qt>", body) : NULL;
        argv[a++] = owned[n++] = text ? joined("--yesnocancel=", text) : NULL;
        free(text);
    }
    argv[a] = NULL;
    int complete = body != NULL;
    for (size_t i = 0; i < n; i++) complete &= owned[i] != NULL;
    int status = complete ? vgcli_run(argv, NULL, 0) : -1;
    free_all(owned, n);
    free(body);
    free(program);
    if (prompt->mandatory) return status == 0 ? VGCLI_UPDATE : status > 0 ? VGCLI_DISMISSED : VGCLI_NOT_SHOWN;
    switch (status) {
    case 0: return VGCLI_UPDATE;
    case 1: return VGCLI_SKIP;
    case 2: return VGCLI_LATER;
    default: return VGCLI_NOT_SHOWN;
    }
}

int vgcli_notify(const vgcli_prompt *prompt) {
    char *program = vgcli_find_program("notify-send");
    if (!program) return -1;
    char *message = NULL;
    if (asprintf(&message, "%s%s%s", or_empty(prompt->message), prompt->url ? "\n" : "", or_empty(prompt->url)) < 0)
        message = NULL;
    char *body = message ? escaped_markup(message, 0) : NULL;
    char *argv[] = {program, "--app-name=versiongate", prompt->mandatory ? "--urgency=critical" : "--urgency=normal",
                    "--", (char *)or_empty(prompt->title), body, NULL};
    int status = body ? vgcli_run(argv, NULL, 0) : -1;
    free(body);
    free(message);
    free(program);
    return status == 0 ? 0 : -1;
}
