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

/* --help anywhere before "--" wins over every other problem. */
static int asks_for_help(int argc, char **argv) {
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
    return 0;
}

/* A word that is not an option: one of the verb's positionals, or a mistake. */
static int take_positional(vgcli_args *args, const vgcli_verb *verb, const char *arg) {
    if (verb->options & VGCLI_OPT_POSITIONAL) {
        if (args->positional_count == verb->positionals) return fail(args, "too many arguments: \"%s\"", arg);
        args->positional[args->positional_count++] = arg;
        return 0;
    }
    return fail(args, "unexpected argument \"%s\"%s", arg,
                (verb->options & VGCLI_OPT_COMMAND) ? " (COMMAND goes after --)" : "");
}

/* --set KEY=VALUE: a client setting, and whether it names the source, the store or the version's origin. */
static int take_set(vgcli_args *args, const char *value) {
    const char *equals = strchr(value, '=');
    if (!equals || equals == value) return fail(args, "--set needs KEY=VALUE, got \"%s\"", value);
    size_t key_length = (size_t)(equals - value);
    int status = add_setting(args, value, key_length, equals + 1);
    if (key_length == 6 && strncmp(value, "source", 6) == 0) args->has_source = 1;
    if (key_length == 5 && strncmp(value, "store", 5) == 0) args->has_store = 1;
    if (key_length == 22 && strncmp(value, "installed_version_from", 22) == 0) args->has_version_from = 1;
    return status;
}

typedef struct { const char *name; unsigned flag; const char *key; } valued_option;

/* The options that take a value; those with a key become client settings. */
static const valued_option valued_options[] = {
    {"--source", VGCLI_OPT_SOURCE, "source"}, {"--platform", VGCLI_OPT_PLATFORM, "platform"},
    {"--store", VGCLI_OPT_STORE, "store"}, {"--app-id", VGCLI_OPT_APP_ID, "app_id"},
    {"--version", VGCLI_OPT_VERSION, NULL}, {"--dialog", VGCLI_OPT_DIALOG, NULL}, {"--set", VGCLI_OPT_SET, NULL},
    {"--versions", VGCLI_OPT_VERSIONS, NULL}, {"--version-from", VGCLI_OPT_VERSION, "installed_version_from"},
    {"--events", VGCLI_OPT_EVENTS, NULL},
};

/* Where a valued option's value goes. */
static int store_value(vgcli_args *args, const valued_option *option, const char *value, unsigned allowed) {
    if (option->key) {
        int status = add_setting(args, option->key, strlen(option->key), value);
        if (option->flag == VGCLI_OPT_SOURCE) args->has_source = 1;
        if (option->flag == VGCLI_OPT_STORE) args->has_store = 1;
        if (option->flag == VGCLI_OPT_VERSION) args->has_version_from = 1;
        return status;
    }
    if (option->flag == VGCLI_OPT_VERSION) args->version = value;
    else if (option->flag == VGCLI_OPT_DIALOG) args->dialog = value;
    else if (option->flag == VGCLI_OPT_VERSIONS) args->versions = value;
    else if (option->flag == VGCLI_OPT_EVENTS) {
        /* simulate reads events files; the other verbs append to one. */
        if (allowed & VGCLI_OPT_VERSIONS) args->funnel = value;
        else args->events = value;
    } else return take_set(args, value);
    return 0;
}

/* argv[*i] as a valued option: 1 taken (advancing *i past a separate value), 0 not one, -1 refused. */
static int take_valued_option(vgcli_args *args, int argc, char **argv, int *i, unsigned allowed) {
    const char *arg = argv[*i];
    for (size_t o = 0; o < sizeof valued_options / sizeof valued_options[0]; o++) {
        const valued_option *option = &valued_options[o];
        if (!is_option(arg, option->name)) continue;
        /* --version allowed, not required: permitted like a required one. */
        unsigned permitted = allowed | ((allowed & VGCLI_OPT_MAYBE_VERSION) ? VGCLI_OPT_VERSION : 0);
        if (!(permitted & option->flag)) return fail(args, "%s is not an option of %s", option->name, args->verb);
        const char *value = option_value(argc, argv, i, option->name);
        if (!value) return fail(args, "%s needs a value", option->name);
        return store_value(args, option, value, allowed) == 0 ? 1 : -1;
    }
    return 0;
}

/* An option without a value, or a refusal. */
static int take_flag(vgcli_args *args, const char *arg, unsigned allowed) {
    if (strcmp(arg, "--json") == 0 && (allowed & VGCLI_OPT_JSON)) { args->json = 1; return 0; }
    if (strcmp(arg, "--check") == 0 && (allowed & VGCLI_OPT_CHECK)) { args->check = 1; return 0; }
    if ((strcmp(arg, "--verbose") == 0 || strcmp(arg, "-v") == 0) && (allowed & VGCLI_OPT_VERBOSE)) {
        args->verbose++;
        return 0;
    }
    return fail(args, "unknown option \"%s\"", arg);
}

/* Everything after "--" is the command to run. */
static void take_command(vgcli_args *args, int argc, char **argv, int dashes) {
    args->command = argv + dashes + 1;
    args->command_count = argc - dashes - 1;
}

/* Each word after the verb, in order; stops at the first problem. */
static int take_words(vgcli_args *args, const vgcli_verb *verb, int argc, char **argv) {
    unsigned allowed = verb->options;
    int options_done = 0;
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (take_positional(args, verb, arg) != 0) return -1;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            if (allowed & VGCLI_OPT_COMMAND) {
                take_command(args, argc, argv, i);
                return 0;
            }
            options_done = 1;
            continue;
        }
        int taken = take_valued_option(args, argc, argv, &i, allowed);
        if (taken < 0) return -1;
        if (taken == 0 && take_flag(args, arg, allowed) != 0) return -1;
    }
    return 0;
}

/* What the verb cannot do without, once every word is taken. */
static int check_required(vgcli_args *args, const vgcli_verb *verb) {
    unsigned allowed = verb->options;
    size_t positionals = verb->positionals;
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

int vgcli_parse(vgcli_args *args, int argc, char **argv) {
    memset(args, 0, sizeof *args);
    if (argc < 2) return fail(args, "no verb given");
    args->verb = argv[1];
    const vgcli_verb *verb = vgcli_verb_named(args->verb);
    if (!verb) return fail(args, "unknown verb \"%s\"", args->verb);
    if (asks_for_help(argc, argv)) {
        args->help = 1;
        return 0;
    }
    if (take_words(args, verb, argc, argv) != 0) {
        /* exec: a COMMAND after a bad option is still found (exec fails open). */
        if ((verb->options & VGCLI_OPT_COMMAND) && !args->command)
            for (int i = 2; i < argc; i++)
                if (strcmp(argv[i], "--") == 0) {
                    take_command(args, argc, argv, i);
                    break;
                }
        return -1;
    }
    return check_required(args, verb);
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
