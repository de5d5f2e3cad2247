/* lint and simulate: what an operator runs before publishing thresholds. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The --platform values, comma-joined ("" when none: the library's linux). */
static void platforms(const vgcli_args *args, char *out, size_t size) {
    out[0] = '\0';
    for (size_t i = 0; i < args->setting_count; i++) {
        if (strcmp(args->settings[i].key, "platform") != 0) continue;
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s", used ? "," : "", args->settings[i].value);
    }
}

int vgcli_lint(const vgcli_args *args) {
    char names[1024];
    platforms(args, names, sizeof names);
    char *problems = NULL;
    int code = vg_lint(&problems, args->positional[0], names);
    if (code == VG_EINVAL || !problems) {
        vg_free(problems);
        return vgcli_usage_error("lint", "the library refused a --platform name, or FILE is not UTF-8");
    }
    fputs(problems, stdout);
    vg_free(problems);
    return code == VG_OK ? VGCLI_EXIT_OK : VGCLI_EXIT_INVALID;
}

typedef struct tally {
    double mandatory, optional, up_to_date;
} tally;

/* One VERSION COUNT line through the library (dry_run: nothing recorded).
 * A staged OPTIONAL splits COUNT by its rollout percent: the result is this
 * installation's answer, the percent says how many share it. */
static int count_line(vg_client *client, const char *version, double count, tally *t) {
    vg_result *result = NULL;
    vg_client_check(&result, client, version);
    if (vg_result_error(result) == VG_EVERSION)
        vgcli_warn("\"%s\" is not a valid version; counted as up to date (the library fails open)", version);
    const char *percent_text = vg_result_get(result, "rollout_percent");
    vg_status status = vg_result_status(result);
    if (percent_text) {
        double share = strtod(percent_text, NULL) / 100;
        t->optional += count * share;
        t->up_to_date += count * (1 - share);
    } else if (status == VG_STATUS_MANDATORY) {
        t->mandatory += count;
    } else if (status == VG_STATUS_OPTIONAL) {
        t->optional += count;
    } else {
        t->up_to_date += count;
    }
    vg_result_free(result);
    return 0;
}

/* --events FILE: the funnel the library counts from the events in it. */
static int funnel(const char *path) {
    char *text = NULL;
    int code = vg_events_funnel(&text, path);
    if (code != VG_OK) {
        fprintf(stderr, "versiongate simulate: --events %s: %s", path, text ? text : vg_strerror(code));
        if (!text) fputc('\n', stderr);
        vg_free(text);
        return VGCLI_EXIT_USAGE;
    }
    fputs(text, stdout);
    vg_free(text);
    return VGCLI_EXIT_OK;
}

int vgcli_simulate(const vgcli_args *args) {
    if (!args->versions) return funnel(args->funnel);
    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("simulate", error);
    vg_client_set(client, "dry_run", "1");
    vg_client_set(client, "session_scope", "process");
    FILE *file = fopen(args->versions, "r");
    if (!file) {
        snprintf(error, sizeof error, "cannot open %s: %s", args->versions, strerror(errno));
        vg_client_free(client);
        return vgcli_usage_error("simulate", error);
    }
    tally t = {0, 0, 0};
    char line[512];
    int number = 0, status = VGCLI_EXIT_OK;
    while (fgets(line, sizeof line, file)) {
        number++;
        char version[256], extra[2];
        long long count = -1;
        int fields = sscanf(line, "%255s %lld %1s", version, &count, extra);
        if (fields <= 0 || line[strspn(line, " \t\r\n")] == '#') continue;    /* blank or comment */
        if (fields != 2 || count < 0) {
            snprintf(error, sizeof error, "%s line %d: expected VERSION COUNT", args->versions, number);
            status = vgcli_usage_error("simulate", error);
            break;
        }
        count_line(client, version, (double)count, &t);
    }
    fclose(file);
    vg_client_free(client);
    if (status != VGCLI_EXIT_OK) return status;
    double total = t.mandatory + t.optional + t.up_to_date;
    const struct { const char *name; double n; } rows[] = {
        {"mandatory", t.mandatory}, {"optional", t.optional}, {"up_to_date", t.up_to_date},
    };
    for (size_t i = 0; i < 3; i++)
        printf("%s %.0f %.1f%%\n", rows[i].name, rows[i].n, total > 0 ? rows[i].n * 100 / total : 0.0);
    return args->funnel ? funnel(args->funnel) : VGCLI_EXIT_OK;
}
