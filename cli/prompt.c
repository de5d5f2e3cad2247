/* Where the prompt goes (docs/design.md, "The command", --dialog auto):
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

/* Right-to-left text on a terminal (issue 16). Each line of the title and
 * message is printed whole (the terminal wraps it; nothing is cut, so no
 * UTF-8 sequence or combining mark is split). A line, or a button label,
 * holding Hebrew or Arabic-script letters is isolated in FSI…PDI (U+2068,
 * U+2069): a terminal that implements bidi (VTE, Konsole, mlterm) then lays
 * it out right to left without reordering the brackets around it, and one
 * that does not draws nothing for them (zero width). Latin, CJK and other
 * text is printed byte for byte as before. The library removes isolates from
 * remote text, so ours are balanced. */
static int has_rtl(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i + 1 < n; i++) {
        /* U+0590-U+08FF: D6 90 to E0 A3; U+FB1D-U+FDFF: EF AC 9D to EF B7; U+FE70-U+FEFF: EF B9-BB */
        if ((u[i] == 0xD6 && u[i + 1] >= 0x90) || (u[i] >= 0xD7 && u[i] <= 0xDF)) return 1; /* not Armenian */
        if (u[i] == 0xE0 && u[i + 1] >= 0xA0 && u[i + 1] <= 0xA3) return 1;
        if (u[i] == 0xEF && ((u[i + 1] == 0xAC && i + 2 < n && u[i + 2] >= 0x9D) || (u[i + 1] >= 0xAD && u[i + 1] <= 0xB7) ||
                             (u[i + 1] >= 0xB9 && u[i + 1] <= 0xBB)))
            return 1;
    }
    return 0;
}

static void print_isolated(const char *s, size_t n) {
    if (has_rtl(s, n))
        printf("\xE2\x81\xA8%.*s\xE2\x81\xA9", (int)n, s); /* FSI, PDI */
    else
        printf("%.*s", (int)n, s);
}

/* Each line of text, isolated when right to left, then a newline. */
static void print_lines(const char *text) {
    for (;;) {
        size_t n = strcspn(text, "\n");
        print_isolated(text, n);
        putchar('\n');
        if (text[n] == '\0') return;
        text += n + 1;
    }
}

static void print_label(const char *label) { print_isolated(or_empty(label), strlen(or_empty(label))); }

/* One answer line from stdin; 0 at EOF. */
static int read_answer(char *line, size_t size) {
    fflush(stdout);
    if (!fgets(line, (int)size, stdin)) return 0;
    line[strcspn(line, "\r\n")] = '\0';
    return 1;
}

vgcli_answer vgcli_terminal_prompt(const vgcli_prompt *prompt) {
    putchar('\n');
    print_lines(or_empty(prompt->title));
    putchar('\n');
    print_lines(or_empty(prompt->message));
    if (prompt->notes) {
        putchar('\n');
        print_lines(prompt->notes);
    }
    /* The link, unless the message already says it (a managed machine's help page). */
    if (prompt->url && !(prompt->message && strstr(prompt->message, prompt->url))) printf("\n%s\n", prompt->url);
    char line[64];
    if (prompt->mandatory) {
        printf("\n[Enter] ");
        print_label(prompt->update_label);
        printf("   [Ctrl-D] quit: ");
        if (!read_answer(line, sizeof line)) {
            printf("\n");
            return VGCLI_DISMISSED;
        }
        return VGCLI_UPDATE;
    }
    printf("\n[u] ");
    print_label(prompt->update_label);
    printf("   [l] ");
    print_label(prompt->later_label);
    printf(" (default)   [s] ");
    print_label(prompt->skip_label);
    printf(": ");
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
