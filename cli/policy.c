/* versiongate policy [--check]: prints what the library reads of the
 * administrator's policy (vg_policy_report; docs/administrators.md), and
 * the warning every verb gives for a policy file that does not count. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* The lines of `problems` that name a file or key that does not count
 * ("FILE: ignored: WHY", "FILE: KEY must be ...; ignored") as warnings on
 * stderr; an unknown key is only for --check. */
static void warn_ignored(char *problems) {
    for (char *line = strtok(problems, "\n"); line; line = strtok(NULL, "\n")) {
        char *ignored = strstr(line, ": ignored: ");
        if (ignored) vgcli_warn("policy: %.*s ignored: %s", (int)(ignored - line), line, ignored + strlen(": ignored: "));
        else if (!strstr(line, ": unknown key ")) vgcli_warn("policy: %s", line);
    }
}

void vgcli_policy_warn(void) {
    char *effective = NULL, *problems = NULL;
    if (vg_policy_report(&effective, &problems) == VG_OK) warn_ignored(problems);
    vg_free(effective);
    vg_free(problems);
}

int vgcli_policy(const vgcli_args *args) {
    char *effective = NULL, *problems = NULL;
    int error = vg_policy_report(&effective, &problems);
    if (error != VG_OK) {
        fprintf(stderr, "versiongate: policy: %s\n", vg_strerror(error));
        return VGCLI_EXIT_USAGE;
    }
    if (*effective) fputs(effective, stdout);
    else puts("no policy: /etc/versiongate/policy.json and /etc/versiongate/policy.d/*.json count none");
    int found = *problems != '\0';
    if (args->check) fputs(problems, stdout);
    else warn_ignored(problems);
    vg_free(effective);
    vg_free(problems);
    return args->check && found ? VGCLI_EXIT_INVALID : VGCLI_EXIT_OK;
}
