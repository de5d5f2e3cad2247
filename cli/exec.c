/* exec: check, prompt where the user is, then become COMMAND (same pid,
 * argv byte for byte, its own exit status) — unless MANDATORY, which never
 * starts it. exec fails open: a mistake in its own options or a failing
 * source warns on stderr and runs COMMAND; only a missing COMMAND is a
 * usage error. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


int vgcli_exec_command(char **command) {
    fflush(NULL);
    char *path = vgcli_find_program(command[0]);
    if (!path) {
        fprintf(stderr, "versiongate exec: %s: command not found\n", command[0]);
        return VGCLI_EXIT_NOTFOUND;
    }
    execv(path, command);
    int error = errno;
    fprintf(stderr, "versiongate exec: %s: %s\n", path, strerror(error));
    free(path);
    return error == ENOENT ? VGCLI_EXIT_NOTFOUND : VGCLI_EXIT_NOEXEC;
}

/* What the user did, told to the library: the "outcome" event for
 * --events, and what update_confirmed needs later. */
static void report(vg_client *client, const vg_result *result, const char *outcome) {
    if (vg_client_report(client, result, outcome) != VG_OK) {
        const char *why = vg_client_last_error(client);
        if (strcmp(outcome, "skip") == 0) vgcli_warn("cannot skip this version: %s", why ? why : "refused");
        else vgcli_warn("cannot record \"%s\": %s", outcome, why ? why : "refused");
    }
}

static void open_store(vg_client *client, const vg_result *result, const char *url) {
    if (!url) {
        vgcli_warn("no store URL is known; nothing to open");
        return;
    }
    int code = vg_client_open_url(client, url);
    if (code != VG_OK) vgcli_warn("cannot open %s: %s", url, vg_client_last_error(client));
    report(client, result, code == VG_OK ? "store_opened" : "store_open_failed");
}

/* The prompt's answer as an outcome; NULL when nothing was shown. */
static const char *outcome_of(vgcli_answer answer) {
    switch (answer) {
    case VGCLI_UPDATE: return "update";
    case VGCLI_LATER: return "later";
    case VGCLI_SKIP: return "skip";
    case VGCLI_DISMISSED: return "dismissed";
    case VGCLI_NOT_SHOWN: return NULL;
    }
    return NULL;
}

/* What follows the prompt. */
typedef enum after_prompt {
    CARRY_ON,     /* COMMAND starts, unless MANDATORY */
    RESTARTED,    /* the updated app ran in our place: exit with its status */
    UPDATED,      /* installed, but not started: MANDATORY still blocks the old COMMAND */
    NOTHING_NEW,  /* nothing newer to install: the client knows; check again */
    QUIT          /* the update installs once the app has exited: the store opened, the app not started */
} after_prompt;

/* "shown", then what the user chose, then the update: in place inside a
 * Flatpak, else (or when that fails) the store. */
static after_prompt answered(vg_client *client, const vg_result *result, const vgcli_prompt *prompt,
                             vgcli_answer answer, vgcli_place place, char **command, int *status) {
    const char *outcome = outcome_of(answer);
    if (!outcome) return CARRY_ON;
    report(client, result, "shown");
    report(client, result, outcome);
    if (answer != VGCLI_UPDATE) return CARRY_ON;
    int updated = vgcli_update_in_place(client, result, place, command, status);
    if (updated == 2) return NOTHING_NEW;
    if (updated == 3) {
        open_store(client, result, prompt->url);
        return QUIT;
    }
    if (updated > 0) return RESTARTED;
    if (updated < 0) return UPDATED;
    open_store(client, result, prompt->url);
    return CARRY_ON;
}

/* After Update found nothing newer (the app's Flatpak remote, PackageKit):
 * the same client's check again, which the library decides from what that
 * update told the client. 1 when it no longer blocks (its message said on
 * stderr): COMMAND starts. */
static int let_through(vg_client *client, const char *version) {
    vg_result *again = NULL;
    vg_client_check(&again, client, version);
    int through = vg_result_status(again) != VG_STATUS_MANDATORY;
    if (through)
        fprintf(stderr, "versiongate: %s (%s)\n", vg_result_message(again) ? vg_result_message(again) : "",
                vg_result_get(again, "reason"));
    vg_result_free(again);
    return through;
}

/* MANDATORY: the blocking prompt; COMMAND never starts, unless the app's
 * own remote has nothing newer to install (then the library lets it). */
static int blocked(vg_client *client, const vg_result *result, const vgcli_prompt *prompt, vgcli_place place,
                   const vgcli_args *args) {
    vgcli_answer answer = vgcli_show(place, prompt);
    if (answer == VGCLI_NOT_SHOWN) {
        if (place != VGCLI_PLACE_STDERR) vgcli_stderr_prompt(prompt);
        fprintf(stderr, "versiongate: the update prompt could not be shown (%s)\n",
                place == VGCLI_PLACE_STDERR ? "no terminal, and no graphical session with zenity or kdialog"
                : place == VGCLI_PLACE_NONE ? "--dialog none" : vgcli_place_name(place));
        if (place != VGCLI_PLACE_NONE) vgcli_notify(prompt);
    }
    int status = 0;
    after_prompt after = answered(client, result, prompt, answer, place, args->command, &status);
    if (after == RESTARTED) return status;
    if (after == NOTHING_NEW && let_through(client, args->version)) return -1;
    if (after == NOTHING_NEW) open_store(client, result, prompt->url);
    fprintf(stderr, "versiongate: %s not started: %s (%s)\n", args->command[0], vg_result_get(result, "reason"),
            vg_result_rule(result));
    return VGCLI_EXIT_MANDATORY;
}

/* OPTIONAL, when the library says to prompt now: -1 to start COMMAND,
 * else the exit status of the updated app that ran in its place. */
static int offer(vg_client *client, const vg_result *result, const vgcli_prompt *prompt, vgcli_place place,
                 char **command) {
    vgcli_answer answer = vgcli_show(place, prompt);
    if (answer == VGCLI_NOT_SHOWN && place != VGCLI_PLACE_NONE && vgcli_notify(prompt) != 0)
        vgcli_stderr_prompt(prompt);
    int status = 0;
    after_prompt after = answered(client, result, prompt, answer, place, command, &status);
    if (after == QUIT) return 0;
    return after == RESTARTED ? status : -1;
}

int vgcli_exec(const vgcli_args *args) {
    const char *mode = args->dialog ? args->dialog : "auto";
    if (vgcli_place_for(mode, 0) < 0) {
        vgcli_warn("--dialog %s: not one of auto, terminal, zenity, kdialog, none; using auto", mode);
        mode = "auto";
    }
    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) {
        vgcli_warn("%s; %s starts unchecked", error, args->command[0]);
        return vgcli_exec_command(args->command);
    }
    vg_result *result = NULL;
    vg_client_check(&result, client, args->version);
    vgcli_warn_result(result);

    vg_status status = vg_result_status(result);
    vgcli_prompt prompt = {
        .mandatory = status == VG_STATUS_MANDATORY,
        .title = vg_result_title(result),
        .message = vg_result_message(result),
        .notes = vg_result_release_notes(result),
        .url = vg_result_store_url(result),
        .update_label = vg_result_action_label(result),
        .later_label = vg_result_dismiss_label(result),
        .skip_label = vg_result_skip_label(result),
    };
    int code = -1;
    if (status == VG_STATUS_MANDATORY)
        code = blocked(client, result, &prompt, (vgcli_place)vgcli_place_for(mode, 1), args);
    else if (status == VG_STATUS_OPTIONAL && vg_result_should_prompt(result))
        code = offer(client, result, &prompt, (vgcli_place)vgcli_place_for(mode, 0), args->command);
    vg_result_free(result);
    vg_client_free(client);
    return code >= 0 ? code : vgcli_exec_command(args->command);
}
