/* explain: every step of one check, for operators, as the library decided
 * it (its rule and reason, every operator key it used and the key's name,
 * through vg_result_get; the options' values through vg_client_get);
 * nothing is re-derived or restated here. It changes nothing: the check
 * runs with dry_run=1, so it says whether a launch now would prompt (login
 * session, skipped version, remind time) without claiming the session's
 * marker or recording a prompt time. */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static void line(const char *label, const char *value) {
    printf("  %-42s %s\n", label, value && *value ? value : "-");
}

/* A field of the result (vg_result_get) as a line; null prints "-". */
static void field(const vg_result *result, const char *label, const char *key) {
    line(label, vg_result_get(result, key));
}

/* A value the decision used, labelled with the operator key it came from
 * (the result's `key_field`), or with `what` when no config decided. */
static void operator_value(const vg_result *result, const char *key_field, const char *what, const char *value_field) {
    const char *key = vg_result_get(result, key_field);
    char label[160];
    snprintf(label, sizeof label, "%s:", key ? key : what);
    line(label, vg_result_get(result, value_field));
}

/* The client's option as the library has it: as set, else its default. */
static void option(const vg_client *client, const char *label, const char *key) {
    char *value = NULL;
    vg_client_get(client, key, &value);
    line(label, value);
    vg_free(value);
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

    vg_result *result = NULL;
    vg_client_check(&result, client, args->version);

    printf("1. Config\n");
    field(result, "source:", "source");
    field(result, "origin:", "origin");
    field(result, "age (s):", "config_age_s");
    field(result, "template version:", "template_version");
    field(result, "fetch error:", "fetch_error_message");
    field(result, "proxy of the last request:", "proxy");
    field(result, "where that proxy came from:", "proxy_from");
    field(result, "result error:", "error_name");
    if (vg_result_error(result) != VG_OK) line("", vg_result_error_message(result));

    char *platform = NULL;
    vg_client_get(client, "platform", &platform);
    printf("2. What the decision used (platform %s; absent, empty or invalid keys show -)\n",
           platform ? platform : "-");
    vg_free(platform);
    const char *current = vg_result_get(result, "current") ? vg_result_get(result, "current") : args->version;
    line("current version:", current ? current : "not known");
    operator_value(result, "blocked_versions_key", "blocked versions", "blocked_versions");
    operator_value(result, "min_required_key", "minimum", "min_required");
    operator_value(result, "min_required_effective_at_key", "minimum effective at", "min_required_effective_at");
    operator_value(result, "latest_key", "latest", "latest");
    operator_value(result, "rollout_percent_key", "rollout percent", "rollout_percent");
    field(result, "this installation's bucket:", "rollout_bucket");
    field(result, "the user's channel (asked before a block):", "channel");
    field(result, "what it serves this system:", "channel_version");

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
    field(result, "installed as (what Update does):", "install_kind");

    printf("6. Session\n");
    field(result, "a launch now would prompt:", "should_prompt");
    field(result, "why (skip, remind, session):", "note");
    option(client, "remind_after_s:", "remind_after_s");
    line("", "explain records nothing (dry_run=1): the next launch is not affected");

    printf("7. The administrator's policy (/etc/versiongate)\n");
    field(result, "managed:", "managed");
    char *effective = NULL, *problems = NULL;
    if (vg_policy_report(&effective, &problems) == VG_OK) {
        /* Which file set which key: "KEY = VALUE (FILE)" per line. */
        for (char *key = strtok(effective, "\n"); key; key = strtok(NULL, "\n")) line("", key);
        for (char *problem = strtok(problems, "\n"); problem; problem = strtok(NULL, "\n")) line("not counted:", problem);
    }
    vg_free(effective);
    vg_free(problems);

    vg_result_free(result);
    vg_client_free(client);
    return VGCLI_EXIT_OK;
}
