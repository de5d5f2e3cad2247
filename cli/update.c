/* Update, chosen in exec's prompt (docs/design.md, "Updating in place").
 * The library does the update (vg_client_update) and the restart
 * (vg_client_restart); this shows the progress where the prompt was: a
 * line on the terminal, zenity's progress dialog (fed on its stdin),
 * kdialog's (driven over D-Bus with dbus-send, as kdialog documents), or
 * lines on stderr. */
#define _GNU_SOURCE
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct progress_view {
    vgcli_place place;
    int dialog_in;         /* zenity --progress's stdin, or -1 */
    pid_t dialog;
    char *dbus_send;       /* kdialog's dialog, driven by dbus-send: its */
    char *kdialog_dest;    /* "--dest=SERVICE" and */
    char *kdialog_object;  /* object path from kdialog --progressbar; NULL when not shown */
    int last;              /* the last percentage shown, or -1 */
    const vg_result *result;
    int opened;            /* open_dialog has run */
} progress_view;

/* A method call on kdialog's progress dialog: `call` is the method and its
 * arguments, NULL-terminated (at most 6). */
static void kdialog_send(const progress_view *view, char *const call[]) {
    char *argv[12] = {view->dbus_send, "--session", "--type=method_call", view->kdialog_dest, view->kdialog_object};
    size_t n = 5;
    for (size_t i = 0; call[i] && n + 1 < sizeof argv / sizeof *argv; i++) argv[n++] = call[i];
    argv[n] = NULL;
    vgcli_run(argv, NULL, 0);
}

static void kdialog_show(const progress_view *view, int overall, const char *label) {
    char value[32], *text = NULL;
    snprintf(value, sizeof value, "variant:int32:%d", overall);
    kdialog_send(view, (char *[]){"org.freedesktop.DBus.Properties.Set", "string:org.kde.kdialog.ProgressDialog",
                                  "string:value", value, NULL});
    if (asprintf(&text, "string:%s", label) < 0) return;
    kdialog_send(view, (char *[]){"org.kde.kdialog.ProgressDialog.setLabelText", text, NULL});
    free(text);
}

/* The whole update's percentage: each operation an equal share. */
static int overall_percent(int op, int n_ops, int percent) {
    if (n_ops <= 0) return percent;
    if (op >= n_ops) op = n_ops - 1;
    return (op * 100 + percent) / n_ops;
}

static void open_dialog(progress_view *view);

static int show_progress(int op, int n_ops, int percent, void *userdata) {
    progress_view *view = userdata;
    /* Opened at the first progress, not before: an update refused before
     * it starts (outside a Flatpak, no portal) shows no dialog at all. */
    if (!view->opened) open_dialog(view);
    int overall = overall_percent(op, n_ops, percent);
    if (overall == view->last) return 0;
    view->last = overall;
    char label[64];
    snprintf(label, sizeof label, "Step %d of %d: %d%%", op + 1, n_ops > 0 ? n_ops : 1, percent);
    if (view->dialog_in >= 0) {
        /* zenity reads a percentage, and "# text" for its label; a dialog
         * closed early is EPIPE here (SIGPIPE is ignored meanwhile). */
        dprintf(view->dialog_in, "%d\n# %s\n", overall, label);
    } else if (view->kdialog_object) {
        kdialog_show(view, overall, label);
    } else if (view->place == VGCLI_PLACE_TERMINAL) {
        printf("\rUpdating: %3d%% (step %d of %d)", overall, op + 1, n_ops > 0 ? n_ops : 1);
        fflush(stdout);
    } else {
        fprintf(stderr, "versiongate: updating: %d%%\n", overall);
    }
    return 0;
}

static void open_zenity(progress_view *view, char *title) {
    char *program = vgcli_find_program("zenity");
    if (!program) return;
    char *argv[] = {program, "--progress", "--auto-close", "--no-cancel", "--width=420", title, "--text=Updating", NULL};
    if (vgcli_start_fed(argv, &view->dialog_in, &view->dialog) != 0) view->dialog_in = -1;
    free(program);
}

/* kdialog --progressbar starts the dialog in a process of its own and
 * prints its D-Bus reference, "SERVICE OBJECT". */
static void open_kdialog(progress_view *view, char *title) {
    char *program = vgcli_find_program("kdialog");
    view->dbus_send = vgcli_find_program("dbus-send");
    char out[256];
    char *argv[] = {program, title, "--progressbar=Updating", "100", NULL};
    if (program && view->dbus_send && vgcli_run(argv, out, sizeof out) == 0) {
        out[strcspn(out, "\n")] = '\0';
        char *object = strchr(out, ' ');
        if (object && object != out && object[1] == '/') {
            *object++ = '\0';
            if (asprintf(&view->kdialog_dest, "--dest=%s", out) < 0) view->kdialog_dest = NULL;
            view->kdialog_object = view->kdialog_dest ? strdup(object) : NULL;
        }
    }
    free(program);
    if (!view->kdialog_object) {
        free(view->kdialog_dest);
        free(view->dbus_send);
        view->kdialog_dest = view->dbus_send = NULL;
    }
}

static void open_dialog(progress_view *view) {
    view->opened = 1;
    if (view->place != VGCLI_PLACE_ZENITY && view->place != VGCLI_PLACE_KDIALOG) return;
    const char *shown = vg_result_title(view->result);
    char *title = NULL;
    if (asprintf(&title, "--title=%s", shown ? shown : "Update") < 0) return;
    if (view->place == VGCLI_PLACE_ZENITY) open_zenity(view, title);
    else open_kdialog(view, title);
    free(title);
}

static void close_dialog(progress_view *view) {
    if (view->dialog_in >= 0) {
        close(view->dialog_in);   /* EOF: zenity closes (--auto-close at 100, else at EOF) */
        vgcli_reap(view->dialog);
        view->dialog_in = -1;
    }
    if (view->kdialog_object) {
        kdialog_send(view, (char *[]){"org.kde.kdialog.ProgressDialog.close", NULL});
        free(view->kdialog_dest);
        free(view->kdialog_object);
        free(view->dbus_send);
        view->kdialog_dest = view->kdialog_object = view->dbus_send = NULL;
    }
}

/* The app is COMMAND, not this program: its package or snap is the one an
 * update may find (option program), unless --set program= named another.
 * Asked only once Update is chosen, not on every launch. An absolute path
 * is given as found: /snap/bin/NAME names its snap only before its link to
 * /usr/bin/snap is followed (the library resolves links itself). */
static void name_the_program(vg_client *client, const char *command) {
    char *set = NULL;
    if (vg_client_get(client, "program", &set) == VG_OK && set) {
        vg_free(set);
        return;
    }
    char *found = vgcli_find_program(command);
    char *path = !found ? NULL : found[0] == '/' ? strdup(found) : realpath(found, NULL);
    if (path) vg_client_set(client, "program", path);
    free(path);
    free(found);
}

int vgcli_update_in_place(vg_client *client, const vg_result *result, vgcli_place place, char **command,
                          int *status) {
    name_the_program(client, command[0]);
    progress_view view = {.place = place, .dialog_in = -1, .last = -1, .result = result};
    struct sigaction ignore = {.sa_handler = SIG_IGN}, saved;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &saved);
    vg_update_outcome outcome;
    int code = vg_client_update(&outcome, client, result, show_progress, &view);
    if (code == VG_OK && view.opened) show_progress(0, 1, 100, &view);
    close_dialog(&view);
    sigaction(SIGPIPE, &saved, NULL);
    if (place == VGCLI_PLACE_TERMINAL && view.last >= 0) printf("\n");
    fflush(stdout);
    if (code != VG_OK && outcome == VG_UPDATE_AFTER_EXIT) {
        /* Inside a strict snap: snapd refreshes it once it has exited. */
        const char *why = vg_client_last_error(client);
        fprintf(stderr, "versiongate: %s; opening the store, and the app does not start\n", why ? why : vg_strerror(code));
        return 3;
    }
    if (code != VG_OK && outcome == VG_UPDATE_NOTHING_NEW) {
        /* Why, in one line, before the check that follows decides anything. */
        const char *why = vg_client_last_error(client);
        vgcli_warn("nothing to install: %s", why ? why : vg_strerror(code));
        return 2;
    }
    if (code != VG_OK) {
        const char *why = vg_client_last_error(client);
        vgcli_warn("cannot update in place: %s; opening the store instead", why ? why : vg_strerror(code));
        return 0;
    }
    fprintf(stderr, "versiongate: updated; starting the new version\n");
    if (vg_client_restart(client, (const char *const *)command, NULL, status) == VG_OK) return 1;
    const char *why = vg_client_last_error(client);
    vgcli_warn("the update is installed, but the new version could not be started: %s; start the app again",
               why ? why : "unknown error");
    return -1;
}
