/* versiongate VERB ...: dispatch through the verb table (cli/verb_table.c). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

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
        vgcli_help(argc > 2 && strcmp(argv[1], "help") == 0 ? argv[2] : NULL);
        return VGCLI_EXIT_OK;
    }

    const vgcli_verb *verb = vgcli_verb_named(argv[1]);
    if (!verb) {
        char message[256];
        snprintf(message, sizeof message, "unknown verb \"%.100s\"", argv[1]);
        return vgcli_usage_error(NULL, message);
    }

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
