/* --help: the overview (its verb list from cli/verb_table.c) and each
 * verb's text, which the table holds. */
#include "cli.h"

#include <stdio.h>

int vgcli_help(const char *verb) {
    if (verb) {
        const vgcli_verb *known = vgcli_verb_named(verb);
        if (!known) return -1;
        fputs(known->help, stdout);
        return 0;
    }
    fputs("Usage: versiongate VERB [OPTION]...\n"
          "A version gate for app launchers: may this installed version run?\n"
          "\n"
          "Verbs:\n", stdout);
    for (size_t i = 0; i < vgcli_verb_count; i++) printf("  %-10s %s\n", vgcli_verbs[i].name, vgcli_verbs[i].summary);
    fputs("\n"
          "Each verb takes --help. 'versiongate --version' prints the version.\n"
          "Exit codes: 0 up to date (and every error), 10 optional, 20 mandatory, 2 usage error.\n", stdout);
    return 0;
}

void vgcli_print_version(void) {
    const char *library = vg_library_version();
    printf("versiongate %s (libversiongate %s)\n", VG_VERSION_STRING, library);
}
