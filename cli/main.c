/* versiongate VERB ...: dispatch through the verb table (cli/verb_table.c). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* A verb the table does not name: one line, a pointer to --help, exit 2. */
static int unknown_verb(const char *name) {
    char message[256];
    snprintf(message, sizeof message, "unknown verb \"%.100s\"", name);
    return vgcli_usage_error(NULL, message);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        vgcli_help(NULL);
        return VGCLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0) {
        vgcli_print_version();
        return VGCLI_EXIT_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        const char *topic = argc > 2 && strcmp(argv[1], "help") == 0 ? argv[2] : NULL;
        if (vgcli_help(topic) != 0) return unknown_verb(topic);
        return VGCLI_EXIT_OK;
    }

    const vgcli_verb *verb = vgcli_verb_named(argv[1]);
    if (!verb) return unknown_verb(argv[1]);

    vgcli_args args;
    int parsed = vgcli_parse(&args, argc, argv);
    int code;
    if (parsed == 0 && args.help) {
        vgcli_help(args.verb);
        code = VGCLI_EXIT_OK;
    } else if (parsed != 0 && (verb->options & VGCLI_OPT_COMMAND) && args.command_count > 0) {
        /* exec fails open: its own mistake never keeps COMMAND from starting. */
        vgcli_warn("%s; %s starts unchecked", args.error, args.command[0]);
        vgcli_args_free(&args);
        return vgcli_exec_command(args.command);
    } else if (parsed != 0) {
        code = vgcli_usage_error(args.verb, args.error);
    } else {
        code = verb->run(&args);
    }
    vgcli_args_free(&args);
    return code;
}
