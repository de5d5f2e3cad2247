/*
 * versiongate — the command line over libversiongate (docs/design.md, "The command").
 *
 * A thin program: every decision (versions, the gate, sessions, skip and
 * remind, store URLs, opening them) is the library's, reached through the
 * public header only. What lives here is what a command needs on top:
 * arguments, where to show a prompt, and exec.
 *
 *   verb_table.c the verbs, declared once: name, handler, options, help
 *   args.c    the command line: a verb's options in any order, --set, --
 *   client.c  a vg_client made from the options; one-line warnings
 *   verbs.c   check, compare, store-url
 *   refresh.c refresh: the cache brought up to date (vg_client_refresh)
 *   watch.c   watch: the decision, then each change (vg_client_watch)
 *   explain.c explain
 *   exec.c    exec: the check, the prompt, then execv COMMAND (or exit 20)
 *   update.c  Update inside a Flatpak: in place, with progress, then restart
 *   events.c  --events FILE: the client's events appended as JSON lines
 *   prompt.c  where the prompt goes (--dialog auto) and the terminal prompt
 *   dialog.c  zenity, kdialog and notify-send argument vectors
 *   spawn.c   finding programs on PATH, posix_spawn with a clean fd set
 *   help.c    --help: the overview, a verb's text
 */
#ifndef VERSIONGATE_CLI_H
#define VERSIONGATE_CLI_H

#include <stddef.h>
#include <sys/types.h>
#include <versiongate.h>

/* Exit codes (docs/design.md, "The command"). */
enum {
    VGCLI_EXIT_OK = 0,          /* up to date, and every error of a check */
    VGCLI_EXIT_INVALID = 1,     /* compare: an invalid version */
    VGCLI_EXIT_USAGE = 2,       /* usage error; message on stderr */
    VGCLI_EXIT_OPTIONAL = 10,
    VGCLI_EXIT_MANDATORY = 20,
    VGCLI_EXIT_NOEXEC = 126,    /* exec: COMMAND found but could not run */
    VGCLI_EXIT_NOTFOUND = 127   /* exec: COMMAND not found */
};

/* ---- args.c ---- */

typedef struct vgcli_setting {
    const char *key;   /* option key for vg_client_set */
    char *value;       /* owned copy */
} vgcli_setting;

typedef struct vgcli_args {
    const char *verb;
    int help;
    int json;
    int check;                  /* policy --check */
    int verbose;                /* --verbose (-v) given this many times */
    const char *version;        /* --version V (the app's) */
    const char *dialog;         /* --dialog */
    const char *versions;       /* simulate --versions FILE */
    const char *events;         /* check, exec, explain --events FILE: appended to */
    const char *funnel;         /* simulate --events FILE: read */
    vgcli_setting *settings;    /* --source, --platform, --store, --app-id, --version-from, --set, in order */
    size_t setting_count;
    int has_source, has_store;
    int has_version_from;       /* --version-from (or --set installed_version_from=): the library reads it */
    const char *positional[2];  /* compare A B */
    size_t positional_count;
    char **command;             /* exec: after --, argv as given (not copied) */
    int command_count;
    char error[512];            /* the usage error, when parsing fails */
} vgcli_args;

/* Parses argv[1...] (argv[1] is the verb). 0 on success, -1 with
 * args->error set. */
int vgcli_parse(vgcli_args *args, int argc, char **argv);
void vgcli_args_free(vgcli_args *args);
/* "versiongate VERB: MESSAGE" on stderr plus a hint; returns VGCLI_EXIT_USAGE. */
int vgcli_usage_error(const char *verb, const char *message);

/* ---- client.c ---- */

/* A client with every setting applied in order. NULL and a message in
 * `error` when the library refuses one (the key and why). */
vg_client *vgcli_client(const vgcli_args *args, char *error, size_t error_size);
/* One line on stderr: "versiongate: warning: ..." with control characters
 * (e.g. newlines of a message) shown as spaces. */
void vgcli_warn(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* The fail-open warning for a result with an error; for a VG_OK one
 * decided from the cache or defaults after a failed fetch, that failure. */
void vgcli_warn_result(const vg_result *result);

/* ---- events.c ---- */
/* --events PATH (NULL: nothing): the client's events appended to PATH, one
 * JSON line each; a file that cannot be used warns and is left alone. */
void vgcli_events_attach(vg_client *client, const char *path);

/* ---- verbs ---- */
int vgcli_check(const vgcli_args *args);
int vgcli_compare(const vgcli_args *args);
int vgcli_store_url(const vgcli_args *args);
int vgcli_explain(const vgcli_args *args);
int vgcli_exec(const vgcli_args *args);
int vgcli_lint(const vgcli_args *args);
int vgcli_simulate(const vgcli_args *args);
int vgcli_refresh(const vgcli_args *args);
int vgcli_watch(const vgcli_args *args);
int vgcli_policy(const vgcli_args *args);
/* A warning on stderr for each administrator's policy file that does not count. */
void vgcli_policy_warn(void);
/* execv COMMAND (found on PATH when it has no slash); returns only on failure, with 126 or 127. */
int vgcli_exec_command(char **command);

/* ---- verb_table.c ---- */

/* Which options a verb takes (its row in the table). */
enum {
    VGCLI_OPT_SOURCE = 1 << 0, VGCLI_OPT_VERSION = 1 << 1, VGCLI_OPT_PLATFORM = 1 << 2, VGCLI_OPT_SET = 1 << 3,
    VGCLI_OPT_JSON = 1 << 4, VGCLI_OPT_DIALOG = 1 << 5, VGCLI_OPT_STORE = 1 << 6, VGCLI_OPT_APP_ID = 1 << 7,
    VGCLI_OPT_COMMAND = 1 << 8, VGCLI_OPT_POSITIONAL = 1 << 9, VGCLI_OPT_VERBOSE = 1 << 10, VGCLI_OPT_VERSIONS = 1 << 11,
    VGCLI_OPT_MAYBE_VERSION = 1 << 12, /* --version allowed, not required */
    VGCLI_OPT_EVENTS = 1 << 13, VGCLI_OPT_CHECK = 1 << 14
};

/* One verb, declared once: the table is all the verbs there are. */
typedef struct vgcli_verb {
    const char *name;
    int (*run)(const vgcli_args *args);
    unsigned options;           /* VGCLI_OPT_* */
    size_t positionals;         /* with VGCLI_OPT_POSITIONAL: how many */
    const char *summary;        /* its line in the overview */
    const char *help;           /* versiongate VERB --help */
} vgcli_verb;

extern const vgcli_verb vgcli_verbs[];
extern const size_t vgcli_verb_count;
/* The verb called `name`, or NULL. */
const vgcli_verb *vgcli_verb_named(const char *name);

/* ---- help.c ---- */
/* Prints the help of `verb` (NULL: the overview) to stdout; 0 when known. */
int vgcli_help(const char *verb);
void vgcli_print_version(void);

/* ---- prompt.c / dialog.c ---- */

typedef enum vgcli_answer {
    VGCLI_UPDATE,     /* the user chose Update */
    VGCLI_LATER,      /* Later, closed, or a notification (OPTIONAL) */
    VGCLI_SKIP,       /* Skip this version (OPTIONAL) */
    VGCLI_DISMISSED,  /* MANDATORY shown and closed without Update */
    VGCLI_NOT_SHOWN   /* nothing could be shown */
} vgcli_answer;

typedef struct vgcli_prompt {
    int mandatory;
    const char *title, *message, *url;
    const char *notes;          /* release notes (OPTIONAL only), shown under the message */
    const char *update_label, *later_label, *skip_label;
} vgcli_prompt;

/* The message, then a blank line and the release notes when there are any;
 * NULL when out of memory. Free it. */
char *vgcli_message_and_notes(const vgcli_prompt *prompt);

typedef enum vgcli_place {
    VGCLI_PLACE_TERMINAL,
    VGCLI_PLACE_ZENITY,
    VGCLI_PLACE_KDIALOG,
    VGCLI_PLACE_NOTIFY,
    VGCLI_PLACE_STDERR,
    VGCLI_PLACE_NONE
} vgcli_place;

/* Where a prompt goes for --dialog `mode` (auto, terminal, zenity,
 * kdialog, none); -1 for an unknown mode. */
int vgcli_place_for(const char *mode, int mandatory);
const char *vgcli_place_name(vgcli_place place);
/* Shows the prompt there and returns the answer. */
vgcli_answer vgcli_show(vgcli_place place, const vgcli_prompt *prompt);
vgcli_answer vgcli_terminal_prompt(const vgcli_prompt *prompt);
vgcli_answer vgcli_zenity(const vgcli_prompt *prompt);
vgcli_answer vgcli_kdialog(const vgcli_prompt *prompt);
/* notify-send; 0 when a notification was sent. */
int vgcli_notify(const vgcli_prompt *prompt);
/* The prompt as text on stderr. */
void vgcli_stderr_prompt(const vgcli_prompt *prompt);

/* ---- spawn.c ---- */

/* The full path of `name` (no slash) in an absolute $PATH entry, as a
 * malloc'd string, or NULL. A name with a slash is returned as a copy. */
char *vgcli_find_program(const char *name);
/* Runs argv[0] (a full path) with stdin and stderr on /dev/null, stdout
 * into `out` (up to out_size - 1 bytes, NUL-terminated; NULL: /dev/null),
 * no other descriptor, default signal handling; waits for it. Returns its
 * exit status (0-255), or -1 when it could not be run or was killed. */
int vgcli_run(char *const argv[], char *out, size_t out_size);
/* Starts argv[0] (a full path) as vgcli_run does, but with stdin on a pipe
 * whose write end goes to *in_fd, and returns at once: 0, or -1 when it
 * could not be started. The caller closes *in_fd, then vgcli_reap(*pid). */
int vgcli_start_fed(char *const argv[], int *in_fd, pid_t *pid);
void vgcli_reap(pid_t pid);

/* ---- update.c ---- */

/* Update, chosen in exec's prompt shown at `place`: inside a Flatpak, the
 * app is updated in place with the progress shown there, then `command`
 * runs as the new version, in this process's place (its exit status into
 * *status: 1 is returned). When that is not possible or fails, the reason is said in one
 * line (not outside a Flatpak, where the store is simply the way) and 0 is
 * returned: the caller opens the store. -1: installed, but the new version
 * could not be started (said). 2: the app's remote has nothing newer
 * (VG_UPDATE_NOTHING_NEW); the client now knows it (in memory), and a
 * check again on it says whether this version may run. 3: the update
 * installs once the app has exited (VG_UPDATE_AFTER_EXIT, inside a strict
 * snap; said): the caller opens the store and does not start the app. */
int vgcli_update_in_place(vg_client *client, const vg_result *result, vgcli_place place, char **command,
                          int *status);

#endif
