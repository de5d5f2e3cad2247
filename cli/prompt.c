/* Where the prompt goes (SPEC §11, --dialog auto):
 *  1. a terminal, when stdin and stdout are ttys;
 *  2. a desktop dialog in a graphical session (WAYLAND_DISPLAY or DISPLAY)
 *     with zenity or kdialog on PATH, kdialog first under KDE;
 *  3. for OPTIONAL, a notification (notify-send);
 *  4. stderr. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int has_program(const char *name) {
    char *path = vgcli_find_program(name);
    free(path);
    return path != NULL;
}

static int is_set(const char *name) {
    const char *value = getenv(name);
    return value && *value;
}

int vgcli_place_for(const char *mode, int mandatory) {
    if (!mode || strcmp(mode, "auto") == 0) {
        if (isatty(0) && isatty(1)) return VGCLI_PLACE_TERMINAL;
        if (is_set("WAYLAND_DISPLAY") || is_set("DISPLAY")) {
            const char *desktop = getenv("XDG_CURRENT_DESKTOP");
            int kde = desktop && strstr(desktop, "KDE");
            if (kde && has_program("kdialog")) return VGCLI_PLACE_KDIALOG;
            if (has_program("zenity")) return VGCLI_PLACE_ZENITY;
            if (has_program("kdialog")) return VGCLI_PLACE_KDIALOG;
        }
        if (!mandatory && has_program("notify-send")) return VGCLI_PLACE_NOTIFY;
        return VGCLI_PLACE_STDERR;
    }
    if (strcmp(mode, "terminal") == 0) return VGCLI_PLACE_TERMINAL;
    if (strcmp(mode, "zenity") == 0) return VGCLI_PLACE_ZENITY;
    if (strcmp(mode, "kdialog") == 0) return VGCLI_PLACE_KDIALOG;
    if (strcmp(mode, "none") == 0) return VGCLI_PLACE_NONE;
    return -1;
}

const char *vgcli_place_name(vgcli_place place) {
    static const char *names[] = {"terminal", "zenity", "kdialog", "notification", "stderr", "none"};
    return names[place];
}

static const char *or_empty(const char *text) { return text ? text : ""; }

void vgcli_stderr_prompt(const vgcli_prompt *prompt) {
    fprintf(stderr, "versiongate: %s: %s\n", or_empty(prompt->title), or_empty(prompt->message));
    if (prompt->url) fprintf(stderr, "versiongate: update: %s\n", prompt->url);
}

/* One answer line from stdin; 0 at EOF. */
static int read_answer(char *line, size_t size) {
    fflush(stdout);
    if (!fgets(line, (int)size, stdin)) return 0;
    line[strcspn(line, "\r\n")] = '\0';
    return 1;
}

vgcli_answer vgcli_terminal_prompt(const vgcli_prompt *prompt) {
    printf("\n%s\n\n%s\n", or_empty(prompt->title), or_empty(prompt->message));
    if (prompt->url) printf("\n%s\n", prompt->url);
    char line[64];
    if (prompt->mandatory) {
        printf("\n[Enter] %s   [Ctrl-D] quit: ", or_empty(prompt->update_label));
        if (!read_answer(line, sizeof line)) {
            printf("\n");
            return VGCLI_DISMISSED;
        }
        return VGCLI_UPDATE;
    }
    printf("\n[u] %s   [l] %s (default)   [s] %s: ", or_empty(prompt->update_label),
           or_empty(prompt->later_label), or_empty(prompt->skip_label));
    if (!read_answer(line, sizeof line)) {
        printf("\n");
        return VGCLI_LATER;
    }
    if (line[0] == 'u' || line[0] == 'U') return VGCLI_UPDATE;
    if (line[0] == 's' || line[0] == 'S') return VGCLI_SKIP;
    return VGCLI_LATER;
}

vgcli_answer vgcli_show(vgcli_place place, const vgcli_prompt *prompt) {
    switch (place) {
    case VGCLI_PLACE_TERMINAL: return vgcli_terminal_prompt(prompt);
    case VGCLI_PLACE_ZENITY: return vgcli_zenity(prompt);
    case VGCLI_PLACE_KDIALOG: return vgcli_kdialog(prompt);
    case VGCLI_PLACE_NOTIFY:
        if (vgcli_notify(prompt) == 0) return VGCLI_LATER;
        vgcli_stderr_prompt(prompt);
        return VGCLI_LATER;
    case VGCLI_PLACE_STDERR:
        vgcli_stderr_prompt(prompt);
        return prompt->mandatory ? VGCLI_NOT_SHOWN : VGCLI_LATER;
    case VGCLI_PLACE_NONE: return VGCLI_NOT_SHOWN;
    }
    return VGCLI_NOT_SHOWN;
}
