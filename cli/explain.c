/* explain: every step of one check, for operators, as the library decided
 * it (its rule and reason, every operator key it used, through
 * vg_result_get); nothing is re-derived here. It changes nothing: the check
 * runs with dry_run=1, so it says whether a launch now would prompt (login
 * session, skipped version, remind time) without claiming the session's
 * marker or recording a prompt time. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void line(const char *label, const char *value) {
    printf("  %-42s %s\n", label, value && *value ? value : "-");
}

/* A field of the result (vg_result_get) as a line; null prints "-". */
static void field(const vg_result *result, const char *label, const char *key) {
    line(label, vg_result_get(result, key));
}

/* An operator key named for the platform, with the value the library used. */
static void operator_key(const vg_result *result, const char *key, const char *suffix, const char *platform,
                         const char *field_key) {
    char name[128];
    snprintf(name, sizeof name, "%s_%s%s:", key, platform, suffix);
    line(name, vg_result_get(result, field_key));
}

int vgcli_explain(const vgcli_args *args) {
    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("explain", error);
    if (vg_client_set(client, "dry_run", "1") != VG_OK) {
        fprintf(stderr, "versiongate explain: %s\n", vg_client_last_error(client));
        vg_client_free(client);
        return VGCLI_EXIT_USAGE;
    }
    const char *platform = "linux";
    const char *remind = "0";
    for (size_t i = 0; i < args->setting_count; i++) {
        if (strcmp(args->settings[i].key, "platform") == 0) platform = args->settings[i].value;
        if (strcmp(args->settings[i].key, "remind_after_s") == 0) remind = args->settings[i].value;
    }

    vg_result *result = NULL;
    vg_client_check(&result, client, args->version);

    printf("1. Config\n");
    field(result, "source:", "source");
    field(result, "origin:", "origin");
    field(result, "age (s):", "config_age_s");
    field(result, "template version:", "template_version");
    field(result, "fetch error:", "fetch_error_message");
    field(result, "result error:", "error_name");
    if (vg_result_error(result) != VG_OK) line("", vg_result_error_message(result));

    printf("2. What the decision used (platform %s; absent, empty or invalid keys show -)\n", platform);
    const char *current = vg_result_get(result, "current") ? vg_result_get(result, "current") : args->version;
    line("current version:", current ? current : "not known");
    operator_key(result, "blocked_versions", "", platform, "blocked_versions");
    operator_key(result, "min_required_version", "", platform, "min_required");
    operator_key(result, "min_required_version", "_effective_at", platform, "min_required_effective_at");
    operator_key(result, "latest_version", "", platform, "latest");
    operator_key(result, "latest_version", "_rollout_percent", platform, "rollout_percent");
    field(result, "this installation's bucket:", "rollout_bucket");

    printf("3. Decision\n");
    field(result, "status:", "status");
    line("rule:", vg_result_rule(result));
    field(result, "reason:", "reason");

    printf("4. Texts\n");
    field(result, "language:", "locale");
    line("title:", vg_result_title(result));
    line("message:", vg_result_message(result));
    line("buttons:", vg_result_action_label(result));
    if (vg_result_dismiss_label(result)) line("", vg_result_dismiss_label(result));

    printf("5. Store URL\n");
    line("url:", vg_result_store_url(result));
    field(result, "why:", "store_note");
    field(result, "web fallback:", "store_web_fallback");

    printf("6. Session\n");
    field(result, "a launch now would prompt:", "should_prompt");
    field(result, "why (skip, remind, session):", "note");
    line("remind_after_s:", remind);
    line("", "explain records nothing (dry_run=1): the next launch is not affected");

    vg_result_free(result);
    vg_client_free(client);
    return VGCLI_EXIT_OK;
}
