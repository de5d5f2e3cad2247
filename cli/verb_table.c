/* The command's verbs, declared once: each one's name, handler, the options
 * it takes (args.c parses by them), its line in the overview and its
 * --help text (help.c prints both). */
#include "cli.h"

#include <string.h>

const vgcli_verb vgcli_verbs[] = {
    {"check", vgcli_check,
     VGCLI_OPT_SOURCE | VGCLI_OPT_VERSION | VGCLI_OPT_PLATFORM | VGCLI_OPT_SET | VGCLI_OPT_JSON |
     VGCLI_OPT_VERBOSE | VGCLI_OPT_EVENTS, 0,
     "print the decision; exit 0 up to date, 10 optional, 20 mandatory",
     "Usage: versiongate check --source S (--version V | --version-from FROM) [--platform P] [--set KEY=VALUE]... [--json] [--events FILE] [--verbose]\n"
     "Prints the decision (status, message, store URL), or with --json the result object.\n"
     "Exit 0 up to date, 10 optional, 20 mandatory, 2 usage error. A source that fails\n"
     "gives 0 (fail-open) and a one-line warning on stderr.\n"
     "--set sets any client option (vg_client_set), e.g. locale, timeout_ms, store, app_id.\n"
     "--version-from appstream[:ID] reads the installed version from the system's AppStream\n"
     "metainfo (ID defaults to the app_id option); file:PATH from a file's first line.\n"
     "--verbose (-v) prints the library's log on stderr: fetches, fallbacks; twice, every step.\n"
     "--events FILE appends the library's events (decided, update_confirmed) to FILE, one JSON\n"
     "line each; FILE is created 0600 and must be the user's own regular file (else a warning).\n"
     "\n"
     "Examples:\n"
     "  versiongate check --source /usr/share/myapp/gate.json --version 1.0.40\n"
     "  versiongate check --source /usr/share/myapp/gate.json --version-from appstream:org.example.App\n"
     "  versiongate check --version 2.1 --source https://example.com/gate.json --json\n"
     "  versiongate check --source gate.json --version 1.0 --set locale=de --set store=flathub --set app_id=org.example.App\n"},
    {"exec", vgcli_exec,
     VGCLI_OPT_SOURCE | VGCLI_OPT_VERSION | VGCLI_OPT_PLATFORM | VGCLI_OPT_SET | VGCLI_OPT_DIALOG |
     VGCLI_OPT_COMMAND | VGCLI_OPT_VERBOSE | VGCLI_OPT_EVENTS, 0,
     "check, prompt where the user is, then run COMMAND (never when mandatory)",
     "Usage: versiongate exec --source S (--version V | --version-from FROM)\n"
     "                        [--dialog auto|terminal|zenity|kdialog|none] [--platform P] [--set KEY=VALUE]... [--events FILE] [--verbose] -- COMMAND [ARG...]\n"
     "Checks, then replaces itself with COMMAND (same pid, arguments unchanged, its exit status).\n"
     "OPTIONAL: prompts once (Update, Later, Skip this version), then runs COMMAND.\n"
     "MANDATORY: a blocking prompt whose Update opens the store; COMMAND never starts; exit 20.\n"
     "Errors fail open: a failing source or a bad option warns on stderr and runs COMMAND.\n"
     "COMMAND without a slash is looked up in the absolute entries of PATH.\n"
     "--dialog auto (default): a terminal when stdin and stdout are ttys, else zenity or\n"
     "kdialog in a graphical session, else notify-send (OPTIONAL), else stderr.\n"
     "--events FILE appends every event as a JSON line: decided, the prompt's outcome (shown,\n"
     "update, later, skip, dismissed, store_opened), update_confirmed; a bad FILE only warns.\n"
     "\n"
     "Examples:\n"
     "  versiongate exec --source /usr/share/myapp/gate.json --version 1.0.40 -- /usr/bin/myapp\n"
     "  Exec=versiongate exec --source /usr/share/myapp/gate.json --version-from appstream:org.example.App -- /usr/bin/myapp %U\n"
     "  versiongate exec --dialog zenity --set remind_after_s=604800 --source gate.json --version 1.0 -- myapp \"$@\"\n"},
    {"explain", vgcli_explain,
     VGCLI_OPT_SOURCE | VGCLI_OPT_VERSION | VGCLI_OPT_PLATFORM | VGCLI_OPT_SET | VGCLI_OPT_VERBOSE |
     VGCLI_OPT_EVENTS, 0,
     "every step of a check, for operators (changes nothing)",
     "Usage: versiongate explain --source S (--version V | --version-from FROM) [--platform P] [--set KEY=VALUE]...\n"
     "                           [--events FILE] [--verbose]\n"
     "Every step of one check: where the config came from, the thresholds, the rule that\n"
     "decided, the message language, the store URL and why, the session state.\n"
     "Changes nothing: no prompt is consumed. Exit 0.\n"
     "\n"
     "Examples:\n"
     "  versiongate explain --source /usr/share/myapp/gate.json --version 1.0.40\n"
     "  versiongate explain --source firebase://my-project?api_key=K&app_id=A --version 1.0 --set locale=pt_BR\n"},
    {"policy", vgcli_policy,
     VGCLI_OPT_CHECK, 0,
     "the administrator's policy on this machine, and with --check its problems",
     "Usage: versiongate policy [--check]\n"
     "Prints the effective policy of /etc/versiongate/policy.json and policy.d/ (its .json\n"
     "files in name order), one line per key: KEY = VALUE (FILE); an app's own key as\n"
     "apps.APP_ID.KEY. Exit 0, also with no policy. A file that does not count is named on\n"
     "stderr. --check also prints each file it ignores (owner, mode, syntax, types), each key\n"
     "it drops and each key it does not know, and exits 1 when there is any.\n"
     "\n"
     "Examples:\n"
     "  versiongate policy\n"
     "  sudo versiongate policy --check\n"},
    {"compare", vgcli_compare,
     VGCLI_OPT_POSITIONAL, 2,
     "compare two versions: -1, 0 or 1",
     "Usage: versiongate compare A B\n"
     "Prints -1 (A < B), 0 (equal) or 1 (A > B) and exits 0; an invalid version exits 1.\n"
     "The library compares (semver pre-release order, build ignored; versiongate(1) has the grammar).\n"
     "\n"
     "Examples:\n"
     "  versiongate compare 1.10 1.9        # 1\n"
     "  versiongate compare 2.0.0-beta 2.0  # -1\n"
     "  versiongate compare -- v1.0 1.0.0   # 0\n"},
    {"store-url", vgcli_store_url,
     VGCLI_OPT_STORE | VGCLI_OPT_APP_ID | VGCLI_OPT_SET | VGCLI_OPT_VERBOSE, 0,
     "the store URL for an app",
     "Usage: versiongate store-url --store url|flathub|snap|appstore [--app-id ID] [--set KEY=VALUE]... [--verbose]\n"
     "Prints the store URL the library gives (vg_client_store_url); exit 1 when none passes\n"
     "the URL policy. Inside Flatpak or Snap the store's https page comes first.\n"
     "\n"
     "Examples:\n"
     "  versiongate store-url --store flathub --app-id org.example.App\n"
     "  versiongate store-url --store snap --app-id example --set allowed_url_schemes=https\n"},
    {"lint", vgcli_lint,
     VGCLI_OPT_POSITIONAL | VGCLI_OPT_PLATFORM, 1,
     "check a gate document or template export before publishing it",
     "Usage: versiongate lint FILE [--platform P]...\n"
     "Checks a gate document or a Remote Config template export before it is published:\n"
     "invalid JSON (line and column), thresholds that are not versions, a minimum above the\n"
     "latest version, bad blocked versions, an unparsable effective_at, a rollout percent\n"
     "outside 0-100, a message too long or with control characters, a refused update URL,\n"
     "an unknown key close to a known one. Exit 0 clean, 1 with one line per problem.\n"
     "\n"
     "Examples:\n"
     "  versiongate lint gate.json\n"
     "  versiongate lint remote_config_template.json --platform linux --platform ios\n"},
    {"simulate", vgcli_simulate,
     VGCLI_OPT_SOURCE | VGCLI_OPT_VERSIONS | VGCLI_OPT_PLATFORM | VGCLI_OPT_SET | VGCLI_OPT_VERBOSE |
     VGCLI_OPT_EVENTS, 0,
     "what share of an installed base each status would reach",
     "Usage: versiongate simulate --source S --versions FILE [--platform P] [--set KEY=VALUE]...\n"
     "       versiongate simulate --events FILE\n"
     "Reads lines of VERSION COUNT (the installed base; # starts a comment) and prints how\n"
     "many installations, and what share, would get each status:\n"
     "  mandatory N P%\n  optional N P%\n  up_to_date N P%\n"
     "A staged OPTIONAL counts its rollout percent of COUNT as optional. Records nothing.\n"
     "--events FILE (JSON lines of exec --events, e.g. collected from many machines) prints\n"
     "the funnel per version, what users did with the prompt and how many updates took:\n"
     "  version prompted later skip dismissed update confirmed\n"
     "\n"
     "Examples:\n"
     "  versiongate simulate --source gate.json --versions installed.txt\n"
     "  versiongate simulate --source https://config.example.com/gate.json --versions base.txt\n"
     "  versiongate simulate --events events.jsonl\n"},
    {"watch", vgcli_watch,
     VGCLI_OPT_SOURCE | VGCLI_OPT_VERSION | VGCLI_OPT_PLATFORM | VGCLI_OPT_SET | VGCLI_OPT_JSON | VGCLI_OPT_VERBOSE, 0,
     "print the decision, then each time it changes, while the app would run (since 1.5)",
     "Usage: versiongate watch --source S (--version V | --version-from FROM) [--platform P] [--set KEY=VALUE]... [--json] [--verbose]\n"
     "Prints the decision, then a line each time it changes, until SIGTERM or SIGINT, or until\n"
     "stdin closes; then exits 0 and the watch ends (vg_client_watch). A local document is\n"
     "watched by inotify (an atomic rename is seen within a second), a document at a URL by a\n"
     "conditional request every watch_interval_s (default 300), Firebase Remote Config through\n"
     "its realtime stream. Plain lines read STATUS (RULE) latest V: MESSAGE URL; --json prints\n"
     "the result object instead. Exit 1 when the source cannot be watched (after the decision).\n"
     "\n"
     "Examples:\n"
     "  versiongate watch --source /usr/share/myapp/gate.json --version 1.0.40\n"
     "  versiongate watch --source https://config.example.com/gate.json --version 2.1 --json\n"},
    {"refresh", vgcli_refresh,
     VGCLI_OPT_SOURCE | VGCLI_OPT_PLATFORM | VGCLI_OPT_SET | VGCLI_OPT_VERBOSE | VGCLI_OPT_MAYBE_VERSION, 0,
     "bring a remote source's cache up to date (what a check starts by itself)",
     "Usage: versiongate refresh --source S [--version V] [--platform P] [--set KEY=VALUE]... [--verbose]\n"
     "Fetches the remote source S into the cache unless the cache is fresh, under the same\n"
     "rules as a check (one fetch per login burst, backoff, trusted_keys, no rollback),\n"
     "within 30 s, in the library's fetch helper. A check on a cache older than cache_ttl_s\n"
     "but within stale_while_revalidate_s starts that refresh by itself and answers at once;\n"
     "run this only to warm a cache.\n"
     "--version: the app's, as a check would send it (Firebase conditions may use it).\n"
     "Exit 0 when the cache is current, 1 when the fetch failed (the cache is unchanged).\n"
     "\n"
     "Examples:\n"
     "  versiongate refresh --source https://config.example.com/gate.json\n"
     "  versiongate refresh --source https://config.example.com/gate.json --set trusted_keys=RWQ... -v\n"},
};

const size_t vgcli_verb_count = sizeof vgcli_verbs / sizeof vgcli_verbs[0];

const vgcli_verb *vgcli_verb_named(const char *name) {
    for (size_t i = 0; name && i < vgcli_verb_count; i++)
        if (strcmp(vgcli_verbs[i].name, name) == 0) return &vgcli_verbs[i];
    return NULL;
}
