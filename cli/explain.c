/* explain: every step of one check, for operators, from what the result
 * offers (its getters and vg_result_json). It changes nothing: the check
 * runs with dry_run=1, so it says whether a launch now would prompt (login
 * session, skipped version, remind time) without claiming the session's
 * marker or recording a prompt time. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void line(const char *label, const char *value) {
    printf("  %-22s %s\n", label, value && *value ? value : "-");
}

/* A member of the result JSON printed as a line; NULL members print "-". */
static void member(const char *json, const char *label, const char *key) {
    char *value = vgcli_json_get(json, key);
    line(label, value);
    free(value);
}

static const char *origin_text(const char *origin) {
    if (!origin) return "no config";
    if (strcmp(origin, "local_document") == 0) return "the local gate document (read or reused while unchanged)";
    if (strcmp(origin, "fresh_fetch") == 0) return "fetched just now";
    if (strcmp(origin, "cache_hit") == 0) return "the cache, fresh (no request)";
    if (strcmp(origin, "cache_after_error") == 0) return "the cache, because the fetch failed";
    if (strcmp(origin, "embedded_default") == 0) return "the embedded default (\"defaults\"), because no remote config could be had";
    if (strcmp(origin, "none") == 0) return "nowhere: the check failed open";
    return origin;
}

static void threshold(const char *key, const char *platform, const char *written, const char *current) {
    char name[96];
    snprintf(name, sizeof name, "%s_%s", key, platform);
    if (!written) {
        printf("  %-30s absent, empty or invalid (counts as absent)\n", name);
        return;
    }
    int order = 0;
    if (current && vg_version_compare(&order, current, written) == VG_OK)
        printf("  %-30s \"%s\": valid; current %s is %s it\n", name, written, current,
               order < 0 ? "older than" : order == 0 ? "equal to" : "newer than");
    else
        printf("  %-30s \"%s\": valid\n", name, written);
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
    const char *json = vg_result_json(result);
    char *origin = vgcli_json_get(json, "origin");
    char *status = vgcli_json_get(json, "status");
    char *current = vgcli_json_get(json, "current");
    char *error_name = vgcli_json_get(json, "error_name");

    printf("1. Config\n");
    member(json, "source:", "source");
    line("came from:", origin_text(origin));
    member(json, "age (s):", "config_age_s");
    member(json, "template version:", "template_version");
    member(json, "fetch error:", "fetch_error_message");
    line("result error:", vg_result_error(result) == VG_OK ? "none (VG_OK)" : error_name);
    if (vg_result_error(result) != VG_OK) line("", vg_result_error_message(result));

    printf("2. Thresholds (platform %s; as written, trimmed, and how the current version compares)\n", platform);
    line("current version:", current ? current : args->version);
    if (!current) line("", "not a valid version: UP_TO_DATE (VG_EVERSION)");
    threshold("min_required_version", platform, vg_result_min_required(result), current);
    threshold("latest_version", platform, vg_result_latest(result), current);

    printf("3. Decision\n");
    line("status:", status);
    const char *rule = vg_result_error(result) != VG_OK && !origin ? "every error fails open: UP_TO_DATE"
        : status && strcmp(status, "MANDATORY") == 0 ? "current < min_required_version: MANDATORY"
        : status && strcmp(status, "OPTIONAL") == 0 ? "current >= min_required_version (or none), current < latest_version: OPTIONAL"
        : current ? "current is not below either threshold: UP_TO_DATE"
        : "the current version is invalid: UP_TO_DATE";
    line("rule:", rule);

    printf("4. Texts\n");
    member(json, "language:", "locale");
    line("title:", vg_result_title(result));
    line("message:", vg_result_message(result));
    line("buttons:", vg_result_action_label(result));
    if (vg_result_dismiss_label(result)) line("", vg_result_dismiss_label(result));

    printf("5. Store URL\n");
    line("url:", vg_result_store_url(result));
    member(json, "why:", "store_note");
    member(json, "web fallback:", "store_web_fallback");

    printf("6. Session\n");
    char *prompt = vgcli_json_get(json, "should_prompt");
    line("a launch now would prompt:", prompt);
    member(json, "why (skip, remind, session):", "note");
    line("remind_after_s:", remind);
    line("", "explain records nothing (dry_run=1): the next launch is not affected");
    free(prompt);

    free(origin);
    free(status);
    free(current);
    free(error_name);
    vg_result_free(result);
    vg_client_free(client);
    return VGCLI_EXIT_OK;
}
