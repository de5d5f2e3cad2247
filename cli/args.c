/* The command line: a verb, then its options in any order. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(vgcli_args *args, const char *format, ...) __attribute__((format(printf, 2, 3)));
static int fail(vgcli_args *args, const char *format, ...) {
    va_list list;
    va_start(list, format);
    vsnprintf(args->error, sizeof args->error, format, list);
    va_end(list);
    return -1;
}

static int add_setting(vgcli_args *args, const char *key, size_t key_length, const char *value) {
    vgcli_setting *grown = realloc(args->settings, (args->setting_count + 1) * sizeof *grown);
    if (!grown) return fail(args, "out of memory");
    args->settings = grown;
    /* key and value live in one allocation: "key\0value\0". */
    size_t value_length = strlen(value);
    char *copy = malloc(key_length + value_length + 2);
    if (!copy) return fail(args, "out of memory");
    memcpy(copy, key, key_length);
    copy[key_length] = '\0';
    memcpy(copy + key_length + 1, value, value_length + 1);
    grown[args->setting_count].key = copy;
    grown[args->setting_count].value = copy + key_length + 1;
    args->setting_count++;
    return 0;
}

/* "--name VALUE" or "--name=VALUE": the value, advancing *i; NULL if missing. */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
    const char *arg = argv[*i];
    size_t length = strlen(name);
    if (arg[length] == '=') return arg + length + 1;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

/* Whether argv[i] is option `name`, alone or as name=value. */
static int is_option(const char *arg, const char *name) {
    size_t length = strlen(name);
    return strncmp(arg, name, length) == 0 && (arg[length] == '\0' || arg[length] == '=');
}

int vgcli_parse(vgcli_args *args, int argc, char **argv) {
    memset(args, 0, sizeof *args);
    if (argc < 2) return fail(args, "no verb given");
    args->verb = argv[1];
    const vgcli_verb *verb = vgcli_verb_named(args->verb);
    if (!verb) return fail(args, "unknown verb \"%s\"", args->verb);
    unsigned allowed = verb->options;
    size_t positionals = verb->positionals;

    /* --help anywhere before "--" wins over every other problem. */
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            args->help = 1;
            return 0;
        }

    int options_done = 0;
    int status = 0;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (allowed & VGCLI_OPT_POSITIONAL) {
                if (args->positional_count == positionals) {
                    status = fail(args, "too many arguments: \"%s\"", arg);
                    break;
                }
                args->positional[args->positional_count++] = arg;
                continue;
            }
            status = fail(args, "unexpected argument \"%s\"%s", arg,
                          (allowed & VGCLI_OPT_COMMAND) ? " (COMMAND goes after --)" : "");
            break;
        }
        if (strcmp(arg, "--") == 0) {
            if (allowed & VGCLI_OPT_COMMAND) {
                args->command = argv + i + 1;
                args->command_count = argc - i - 1;
                break;
            }
            options_done = 1;
            continue;
        }

        static const struct { const char *name; unsigned flag; const char *key; } valued[] = {
            {"--source", VGCLI_OPT_SOURCE, "source"}, {"--platform", VGCLI_OPT_PLATFORM, "platform"},
            {"--store", VGCLI_OPT_STORE, "store"}, {"--app-id", VGCLI_OPT_APP_ID, "app_id"},
            {"--version", VGCLI_OPT_VERSION, NULL}, {"--dialog", VGCLI_OPT_DIALOG, NULL}, {"--set", VGCLI_OPT_SET, NULL},
            {"--versions", VGCLI_OPT_VERSIONS, NULL}, {"--version-from", VGCLI_OPT_VERSION, "installed_version_from"},
            {"--events", VGCLI_OPT_EVENTS, NULL},
        };
        int matched = 0;
        for (size_t o = 0; o < sizeof valued / sizeof valued[0] && !matched && status == 0; o++) {
            if (!is_option(arg, valued[o].name)) continue;
            matched = 1;
            unsigned permitted = allowed | ((allowed & VGCLI_OPT_MAYBE_VERSION) ? VGCLI_OPT_VERSION : 0);
            if (!(permitted & valued[o].flag)) {
                status = fail(args, "%s is not an option of %s", valued[o].name, args->verb);
                break;
            }
            const char *value = option_value(argc, argv, &i, valued[o].name);
            if (!value) { status = fail(args, "%s needs a value", valued[o].name); break; }
            if (valued[o].key) {
                status = add_setting(args, valued[o].key, strlen(valued[o].key), value);
                if (valued[o].flag == VGCLI_OPT_SOURCE) args->has_source = 1;
                if (valued[o].flag == VGCLI_OPT_STORE) args->has_store = 1;
                if (valued[o].flag == VGCLI_OPT_VERSION) args->has_version_from = 1;
            } else if (valued[o].flag == VGCLI_OPT_VERSION) {
                args->version = value;
            } else if (valued[o].flag == VGCLI_OPT_DIALOG) {
                args->dialog = value;
            } else if (valued[o].flag == VGCLI_OPT_VERSIONS) {
                args->versions = value;
            } else if (valued[o].flag == VGCLI_OPT_EVENTS) {
                /* simulate reads events files; the other verbs append to one. */
                if (allowed & VGCLI_OPT_VERSIONS) args->funnel = value; else args->events = value;
            } else {
                const char *equals = strchr(value, '=');
                if (!equals || equals == value) {
                    status = fail(args, "--set needs KEY=VALUE, got \"%s\"", value);
                    break;
                }
                size_t key_length = (size_t)(equals - value);
                status = add_setting(args, value, key_length, equals + 1);
                if (key_length == 6 && strncmp(value, "source", 6) == 0) args->has_source = 1;
                if (key_length == 5 && strncmp(value, "store", 5) == 0) args->has_store = 1;
                if (key_length == 22 && strncmp(value, "installed_version_from", 22) == 0) args->has_version_from = 1;
            }
        }
        if (status) break;
        if (!matched) {
            if (strcmp(arg, "--json") == 0 && (allowed & VGCLI_OPT_JSON)) { args->json = 1; continue; }
            if (strcmp(arg, "--check") == 0 && (allowed & VGCLI_OPT_CHECK)) { args->check = 1; continue; }
            if ((strcmp(arg, "--verbose") == 0 || strcmp(arg, "-v") == 0) && (allowed & VGCLI_OPT_VERBOSE)) {
                args->verbose++;
                continue;
            }
            status = fail(args, "unknown option \"%s\"", arg);
            break;
        }
    }
    /* exec: a COMMAND after a bad option is still found (exec fails open). */
    if (status != 0 && (allowed & VGCLI_OPT_COMMAND) && !args->command) {
        for (int i = 2; i < argc; i++)
            if (strcmp(argv[i], "--") == 0) {
                args->command = argv + i + 1;
                args->command_count = argc - i - 1;
                break;
            }
    }
    if (status != 0) return status;

    /* simulate --events reads events files only: no source, no installed base. */
    int funnel_only = args->funnel && !args->versions;
    if ((allowed & VGCLI_OPT_SOURCE) && !args->has_source && !funnel_only) return fail(args, "--source is required");
    if ((allowed & VGCLI_OPT_VERSION) && !args->version && !args->has_version_from)
        return fail(args, "--version or --version-from is required");
    if (args->version && args->has_version_from)
        return fail(args, "--version and --version-from are exclusive: one says which version runs");
    if ((allowed & VGCLI_OPT_STORE) && !args->has_store) return fail(args, "--store is required");
    if ((allowed & VGCLI_OPT_VERSIONS) && !args->versions && !args->funnel)
        return fail(args, "--versions FILE or --events FILE is required");
    if ((allowed & VGCLI_OPT_POSITIONAL) && args->positional_count != positionals)
        return fail(args, positionals == 2 ? "needs two versions: A B" : "needs one FILE");
    if ((allowed & VGCLI_OPT_COMMAND) && args->command_count == 0) return fail(args, "needs -- COMMAND [ARG...]");
    return 0;
}

void vgcli_args_free(vgcli_args *args) {
    for (size_t i = 0; i < args->setting_count; i++) free((char *)args->settings[i].key);
    free(args->settings);
    args->settings = NULL;
    args->setting_count = 0;
}

int vgcli_usage_error(const char *verb, const char *message) {
    if (verb)
        fprintf(stderr, "versiongate %s: %s\nTry 'versiongate %s --help'.\n", verb, message, verb);
    else
        fprintf(stderr, "versiongate: %s\nTry 'versiongate --help'.\n", message);
    return VGCLI_EXIT_USAGE;
}
