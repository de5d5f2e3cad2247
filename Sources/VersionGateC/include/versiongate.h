/*
 * versiongate.h — may this version of the app run?
 *
 * VersionGate answers one question for a launcher at start-up or login:
 * MANDATORY (hard block, open the store), OPTIONAL (dismissible, once per
 * session) or UP_TO_DATE, with a message and a store URL. Thresholds come
 * from a local gate document, a self-hosted document over HTTPS, or
 * Firebase Remote Config, chosen by the "source" option; new sources and
 * options are added as option keys, never by changing this ABI.
 *
 * Conventions (libgit2's):
 *  - Functions return 0 (VG_OK) or a negative vg_error code.
 *  - Output parameters come first and are named `out`. An object returned
 *    through `T **out` belongs to the caller and is released with its
 *    matching vg_*_free; memory returned through `char **out` is released
 *    with vg_free. Never mix allocators.
 *  - Strings are NUL-terminated UTF-8. Strings returned as `const char *`
 *    are owned by the object they came from.
 *
 * Fork: in a fork() child of a process that loaded the library, the calls
 * on clients (vg_client_set, vg_client_check, vg_check, vg_client_store_url,
 * vg_client_refresh, vg_client_set_log_callback, vg_client_skip_version,
 * vg_client_set_event_callback, vg_client_report, vg_store_url,
 * vg_open_url, vg_client_update, vg_client_restart) return VG_EFORK at once, checks with a fail-open result,
 * without touching any lock or state inherited from the parent (another
 * thread may have held it); vg_client_last_error returns a static message.
 * The pure functions (vg_version_compare, vg_decide, vg_strerror,
 * vg_library_version, vg_lint), vg_client_new, the result getters and the
 * frees work there. A child that needs checks execs, or loads the library
 * after the fork.
 *
 * Deadlines: a call on a client returns within its "timeout_ms" plus 10 %.
 * One deadline is set when the call starts and shared by all it waits for:
 * another thread's fetch of the same source (a waiter then uses that
 * fetch's outcome, a failure too, instead of fetching again), the fetch and
 * every request in it, and the App Store lookup. vg_open_url waits at most
 * about 5 s for xdg-open.
 *
 * Fail-safe: every error yields VG_STATUS_UP_TO_DATE. vg_client_check and
 * vg_check always write a result to a non-NULL `out`, even when they return
 * an error, so a caller that ignores every return code is still safe (it
 * must still free the result).
 */
#ifndef VERSIONGATE_H
#define VERSIONGATE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this header. vg_library_version() returns the library's.
 * Every function carries the symbol version of the release that added it:
 * VERSIONGATE_1.0 unless its section or its comment says "symbol version
 * VERSIONGATE_1.N" (scripts/generate writes scripts/exports.map from that). */
#define VG_VERSION_MAJOR 1
#define VG_VERSION_MINOR 5
#define VG_VERSION_PATCH 0
#define VG_VERSION_STRING "1.5.0"
#define VG_VERSION_NUMBER \
    (VG_VERSION_MAJOR * 10000 + VG_VERSION_MINOR * 100 + VG_VERSION_PATCH)

/* The gate's answer. Append-only: values never change meaning. */
typedef enum vg_status {
    /* BEGIN GENERATED statuses (scripts/generate) */
    VG_STATUS_UP_TO_DATE = 0, /* nothing to show; also every error */
    VG_STATUS_OPTIONAL = 1,   /* newer version exists: dismissible prompt */
    VG_STATUS_MANDATORY = 2   /* below the minimum: blocking prompt */
    /* END GENERATED statuses */
} vg_status;

/* Error codes (declarations/errors.decl). 0 is success; the list is append-only. */
typedef enum vg_error {
    /* BEGIN GENERATED errors (scripts/generate) */
    VG_OK = 0,           /* success */
    VG_EINVAL = -1,      /* bad argument: NULL, unknown option key, bad value */
    VG_EVERSION = -2,    /* a version string is not valid (docs/design.md, "Versions") */
    VG_ECONFIG = -3,     /* gate document missing, unreadable, malformed or too large */
    VG_ENOMEM = -4,      /* out of memory */
    VG_EINTERNAL = -5,   /* a bug in VersionGate; please report it */
    VG_ENETWORK = -6,    /* no HTTP response: DNS, connect, reset, not HTTP, no libcurl */
    VG_ETIMEOUT = -7,    /* the request's deadline ("timeout_ms") passed */
    VG_ETOOLARGE = -8,   /* a response (decoded) over its byte cap */
    VG_ETLS = -9,        /* TLS handshake or certificate verification failed */
    VG_EPOLICY = -10,    /* a URL or redirect refused by the URL rules */
    VG_EFORK = -11,      /* refused in a fork() child (see "Fork" above) */
    VG_EHTTP = -12,      /* the server answered with an error (HTTP status or error body) */
    VG_EBACKOFF = -13,   /* no request made: backing off after the server throttled us */
    VG_EOPEN = -14,      /* no handler could open the URL (xdg-open failed) */
    VG_ESIGNATURE = -15, /* "trusted_keys" set: a document's minisign signature is missing,
                            malformed, by an untrusted key, not matching, or older (rollback) */
    VG_EINSTALLED = -16, /* the installed version could not be read ("installed_version_from"):
                            no metainfo, unreadable, not well-formed XML, or no stable release */
    VG_EUPDATE = -17     /* since 1.2: updating in place, or restarting into the update, failed
                            or is not possible here (vg_client_update, vg_client_restart) */
    /* END GENERATED errors */
} vg_error;

/* Opaque handles. */
typedef struct vg_client vg_client;
typedef struct vg_result vg_result;

/* ------------------------------------------------------------------ */
/* Library                                                              */
/* ------------------------------------------------------------------ */

/* The library's version as "MAJOR.MINOR.PATCH" (static, never NULL).
 * Compare with VG_VERSION_STRING to detect a header/library mismatch. */
const char *vg_library_version(void);

/* A static, never-NULL English description of a vg_error code
 * ("unknown error" for codes this library does not know). */
const char *vg_strerror(int error);

/* Release memory that the library returned through a `char **out`.
 * NULL is allowed. Thread-safe. */
void vg_free(void *ptr);

/* ------------------------------------------------------------------ */
/* Versions and the pure gate (no I/O, thread-safe)                    */
/* ------------------------------------------------------------------ */

/* Compare two version strings (docs/design.md, "Versions": [v]N(.N)*[-pre][+build]).
 *  out: receives -1 (a < b), 0 (equal) or 1 (a > b); not NULL.
 *  a, b: version strings; not NULL.
 * Returns VG_OK; VG_EVERSION if either string is invalid (*out untouched);
 * VG_EINVAL if any pointer is NULL. */
int vg_version_compare(int *out, const char *a, const char *b);

/* The gate (docs/design.md, "The gate rule") on explicit thresholds.
 *  current: the running version; invalid or NULL -> VG_STATUS_UP_TO_DATE.
 *  min_required, latest: thresholds; NULL, empty or invalid = absent.
 * Returns MANDATORY if current < min_required, else OPTIONAL if
 * current < latest, else UP_TO_DATE. */
vg_status vg_decide(const char *current, const char *min_required,
                    const char *latest);

/* ------------------------------------------------------------------ */
/* Client                                                               */
/* ------------------------------------------------------------------ */

/* Create a client with default options.
 *  out: receives the client (NULL on failure); not NULL.
 * Returns VG_OK, VG_EINVAL (out NULL) or VG_ENOMEM.
 * Free with vg_client_free. */
int vg_client_new(vg_client **out);

/* Free a client and everything it owns. NULL is allowed. Results obtained
 * from the client stay valid (free them separately). Like free(), only
 * once no other call on this client is running or can start: the caller
 * orders it after every thread is done with the client. */
void vg_client_free(vg_client *client);

/* Set an option. Keys and values are strings so any FFI can set them and
 * new keys never change the ABI. A NULL value restores the default.
 *
 * Options (declarations/options.decl):
 * BEGIN GENERATED options (scripts/generate)
 *   "source": path, file:// URL, https:// URL or firebase://PROJECT?api_key=K&app_id=A; default none.
 *       Where the gate document or remote config is.
 *   "platform": [a-z0-9_]{1,32}; default linux.
 *       Suffix of the config keys (ios and android work too).
 *   "locale": a locale name, e.g. pt_BR.UTF-8 or de; default none.
 *       Language of the texts; unset: LANGUAGE (ignored when the locale is C or POSIX), else LC_ALL, LC_MESSAGES, LANG at check time, as gettext.
 *   "session_scope": login or process; default login.
 *       OPTIONAL prompts once per login session (a marker under $XDG_RUNTIME_DIR) or per process.
 *   "log_level": error, warning, info or debug; default warning.
 *       What the log callback hears; each level includes those before it.
 *   "remind_after_s": 0-31536000; default 0.
 *       After an OPTIONAL prompt, no other for this many seconds, across login sessions (under $XDG_STATE_HOME); 0 = once per session only.
 *   "dry_run": 0 or 1; default 0.
 *       1: a check says whether it would prompt but records nothing (no session marker, no remind time).
 *   "installed_version_from": appstream, appstream:ID or file:ABSOLUTE_PATH; default none.
 *       Where vg_client_check with a NULL version reads the installed one: the greatest stable release in the AppStream metainfo of ID (default: app_id), or a file's first line.
 *   "firebase_project_id": [A-Za-z0-9-]{1,64}; default none.
 *       Firebase project, overriding the firebase:// URL's.
 *   "firebase_api_key": [A-Za-z0-9_-]{1,256}; default none.
 *       Firebase web API key, overriding the URL's api_key.
 *   "firebase_app_id": [A-Za-z0-9:._-]{1,256}; default none.
 *       Firebase app id, overriding the URL's app_id.
 *   "firebase_endpoint": https:// URL; default https://firebaseremoteconfig.googleapis.com.
 *       Remote Config service base URL.
 *   "firebase_realtime_endpoint": https:// URL; default https://firebaseremoteconfigrealtime.googleapis.com.
 *       Remote Config's realtime service base URL, which vg_client_watch's stream asks (since 1.5).
 *   "watch_interval_s": integer 5-86400; default 300.
 *       While vg_client_watch watches a gate document at a URL, the seconds between its conditional requests (±10 % jitter; a 304 costs the server almost nothing) (since 1.5).
 *   "firebase_installations_endpoint": https:// URL; default https://firebaseinstallations.googleapis.com.
 *       Firebase Installations service base URL.
 *   "package_name": [A-Za-z0-9._-]{1,256}; default none.
 *       Package name sent to Firebase (selects the project's config).
 *   "timeout_ms": 1-60000; default 3000.
 *       One deadline per call: a wait for another fetch, the fetch, the store lookup.
 *   "cache_ttl_s": 0-2592000; default 3600.
 *       How long a fetched config, and a channel's answer, decide without network (a server max-age wins for a config).
 *   "max_stale_s": 0-2592000; default 86400.
 *       How old a cached config or channel answer may be to decide when a fetch fails or is backing off (a server stale-if-error wins, up to 24 h); 0 = never.
 *   "stale_while_revalidate_s": 0-2592000; default 604800.
 *       After cache_ttl_s, how long a cached config or channel answer still decides at once while one refresh runs in the background (a server stale-while-revalidate wins, up to 24 h); 0 (or max_stale_s 0) = a check fetches first.
 *   "background_refresh": process or off; default process.
 *       How that refresh runs: in the fetch helper, a process that outlives the host, or off (a check fetches first).
 *   "proxy": auto, none, or a proxy URL (http://, https://, socks5:// or socks5h://HOST:PORT); default auto.
 *       Every request's proxy: auto is the environment's (https_proxy, ...), else the desktop's (GNOME, KDE, a PAC file, the Flatpak portal); none goes direct; no_proxy applies to either, and 127.0.0.1, ::1 and localhost never use one. A URL with a password here is visible to other users in ps: put it in the environment or the desktop's settings.
 *   "tls_ca_file": absolute path of a PEM file; default none.
 *       An extra trust anchor; verification is never turned off.
 *   "defaults": path or file:// URL; default none.
 *       Local gate document used when no remote config can be had.
 *   "trusted_keys": comma-separated minisign public keys (the base64 line of minisign.pub); default none.
 *       A document is trusted only with a valid <document>.minisig by one of these keys.
 *   "store": url, flathub, snap or appstore; default url.
 *       Where the app is published, for the store URL.
 *   "app_id": [A-Za-z0-9._-]{1,255}; default none.
 *       Flatpak/AppStream id, snap name or Apple bundle id.
 *   "country": two letters; default none.
 *       App Store storefront; unset: the locale's region, else us.
 *   "itunes_endpoint": https:// URL; default https://itunes.apple.com.
 *       Base URL of the iTunes Lookup API.
 *   "snap_store_endpoint": https:// URL; default https://api.snapcraft.io.
 *       Base URL of the Snap store's API, asked what a snap's channel serves before a MANDATORY blocks.
 *   "flathub_endpoint": https:// URL; default https://flathub.org.
 *       Base URL of Flathub, whose API is asked what it serves (store=flathub) before a MANDATORY blocks.
 *   "github_api_endpoint": https:// URL; default https://api.github.com.
 *       Base URL of the GitHub REST API, asked for the release an AppImage's gh-releases-zsync update information names.
 *   "distro_package": a Debian package name, [a-z0-9.+-]{1,128}; default none.
 *       The distribution package the app comes from: before a MANDATORY blocks, its candidate in apt's lists is asked, and Update updates it through PackageKit (not the Firebase package_name).
 *   "snap_name": a snap's store name, [a-z0-9-]{1,40} with a letter; default none.
 *       The snap the app comes from, when its program is not under /snap: Update asks snapd to refresh it (docs/design.md, "Updating a snap"); inside a snap, $SNAP_NAME.
 *   "snap_channel": a snap channel, e.g. latest/stable or 2/beta; default none.
 *       The channel Update asks snapd to refresh the snap from (unset: the channel it tracks).
 *   "program": absolute path of the app's program; default none.
 *       The app's program; with distro_package unset, Update updates the distribution package that owns it at the checked version (unset: this process's program; versiongate exec sets COMMAND's).
 *   "allowed_url_schemes": comma-separated subset of https, appstream, snap, itms-apps; default appstream,https,itms-apps,snap.
 *       Schemes a store URL may have.
 *   "allowed_url_hosts": comma-separated host names; default apps.apple.com,flathub.org,itunes.apple.com,snapcraft.io.
 *       Hosts an https or itms-apps store URL may name (exact match).
 *   "fallback_url": a URL the policy allows; default none.
 *       Store URL used when no other candidate passes the policy.
 * END GENERATED options
 *
 * Returns VG_OK, or VG_EINVAL for a NULL client/key, an unknown key or a
 * bad value; then vg_client_last_error() says why and the option keeps its
 * previous value.
 * Not thread-safe with other calls on the same client: configure first,
 * then check from any thread. */
int vg_client_set(vg_client *client, const char *key, const char *value);

/* Why the last vg_client_set or vg_client_skip_version on this client
 * failed, or NULL if it did not. Owned by the client; valid until the next
 * of those calls or vg_client_free, on any thread: read it on the thread
 * that configures the client, before it configures it again. NULL client
 * -> a static message. */
const char *vg_client_last_error(const vg_client *client);

/* "Skip this version": no OPTIONAL prompt again for this latest version
 * (or an older one) of the client's source and platform; a newer latest
 * prompts again. MANDATORY is never affected. Persisted under
 * $XDG_STATE_HOME/versiongate/ (default ~/.local/state), in the user's own
 * 0700 directory like every other state file.
 *  client: a client with a source; NULL -> VG_EINVAL.
 *  version: the latest version to skip, usually vg_result_latest(); not NULL.
 * Returns VG_OK; VG_EINVAL (NULL, or no usable source), VG_EVERSION
 * (invalid version) or VG_ECONFIG (the state could not be written); then
 * vg_client_last_error() says why. Not thread-safe with vg_client_set on
 * the same client; safe with checks. */
int vg_client_skip_version(vg_client *client, const char *version);

/* May `current_version` run?
 *  out: receives a result (always, when out is not NULL); free it with
 *       vg_result_free.
 *  client: a configured client; NULL -> VG_EINVAL.
 *  current_version: the running version; NULL: the version installed on
 *       this system, read where option "installed_version_from" says
 *       (VG_EINSTALLED when it cannot be read; VG_EINVAL when the option
 *       is not set).
 * Returns the same code as vg_result_error(*out): VG_OK when the decision
 * came from a good config, else why the result fails open (UP_TO_DATE).
 * Thread-safe: many threads may check on one client at once. */
int vg_client_check(vg_result **out, vg_client *client,
                    const char *current_version);

/* One-shot check on a process-wide client for `source` (created on first
 * use with default options, reused after). Same contract as
 * vg_client_check. Thread-safe. */
int vg_check(vg_result **out, const char *source, const char *current_version);

/* Brings the cache of the client's remote source up to date unless it is
 * fresh: one fetch with the client's options under the same rules as a
 * check's (login-burst lock, backoff, trusted_keys, no rollback), within a
 * deadline of its own (30 s, not "timeout_ms"). `current_version` is the
 * version a check would send (Firebase's appVersion), or NULL. What
 * `versiongate refresh` runs; a check whose cache is stale within
 * "stale_while_revalidate_s" starts one by itself, so a launcher never
 * needs to call this.
 * Returns VG_OK when the cache is current, else the error of the fetch
 * (the cache is left as it was); VG_EINVAL for a NULL client or a local
 * document. */
int vg_client_refresh(vg_client *client, const char *current_version);

/* ------------------------------------------------------------------ */
/* Logging, per client (libgit2's git_trace_set, but two components in  */
/* one process each keep their own)                                    */
/* ------------------------------------------------------------------ */

#define VG_LOG_ERROR   1  /* a fail-open caused by the operator's config or files */
#define VG_LOG_WARNING 2  /* a fail-open caused by the network or the machine; a fallback */
#define VG_LOG_INFO    3  /* a fetch and its outcome; a store URL refused or replaced */
#define VG_LOG_DEBUG   4  /* every step: cache hits, waits, the decision */

/* level: VG_LOG_*; message: one line of UTF-8, valid only during the call. */
typedef void (*vg_log_fn)(int level, const char *message, void *userdata);

/* Sets the client's log callback; fn NULL turns it off. vg_client_check
 * and vg_client_store_url report what happened, up to the client's
 * "log_level" (default "warning"): every fail-open reason, naming the file
 * or URL; each fetch and its outcome; a refused store URL; a refused local
 * file; a backoff. The lines are delivered on the calling thread just
 * before the call returns, with no library lock held, so the callback may
 * call the library (this client included). The library never prints
 * anything by itself. A call uses the callback set when it began.
 * Returns VG_OK, or VG_EINVAL for a NULL client. */
int vg_client_set_log_callback(vg_client *client, vg_log_fn fn, void *userdata);

/* ------------------------------------------------------------------ */
/* Events: what happened, for the host's own telemetry                 */
/* (docs/design.md, "Events"); the library never sends them anywhere  */
/* ------------------------------------------------------------------ */

/* Since 1.1 (VG_VERSION_NUMBER >= 10100; symbol version VERSIONGATE_1.1):
 * a program that uses them refuses to load against a 1.0 library. */

/* event_json: one JSON object (UTF-8, one line), valid only during the call. */
typedef void (*vg_event_fn)(const char *event_json, void *userdata);

/* Sets the client's event callback; fn NULL removes it. Events are
 * delivered on the calling thread just before vg_client_check or
 * vg_client_report returns, after the log lines, with no library lock
 * held, so the callback may call the library (this client included). A
 * call uses the callback set when it began. With no callback nothing
 * event-related is built, read or written by a check.
 * Returns VG_OK, VG_EINVAL for a NULL client, VG_EFORK in a fork() child.
 *
 * Every event has these members, first and in this order:
 *   event     text  the kind, below (new kinds may be added; ignore unknown ones)
 *   time      text  when, RFC 3339 in UTC, e.g. "2027-03-01T09:30:00Z"
 *   source    text  the source of the check, or null
 *   platform  text  the client's "platform"
 *   current   text  the checked version, trimmed; null when invalid
 * Kinds and their own members (append-only):
 * BEGIN GENERATED events (scripts/generate)
 *   decided           every vg_client_check: status, rule, reason,
 *                     min_required, latest, origin, should_prompt, channel,
 *                     channel_version, managed, policy_files (the result's
 *                     fields of those names, as its JSON writes them)
 *   outcome           vg_client_report: outcome ("shown", "update", "later",
 *                     "skip", "dismissed", "store_opened",
 *                     "store_open_failed"), status, latest, and for
 *                     store_opened / store_open_failed the url (the result's
 *                     store_url)
 *   update_confirmed  the first check, in any process and client, of a version
 *                     newer than one that was prompted for the same source and
 *                     platform: from (the prompted version), to (this one),
 *                     prompted_at (RFC 3339), status_then ("OPTIONAL" or
 *                     "MANDATORY"). Emitted once: the record is claimed
 *                     atomically and removed. Delivered just before that
 *                     check's "decided".
 *   update_started    vg_client_update, as it begins (not where nothing can be
 *                     updated in place): status and latest (the result's) and
 *                     kind ("flatpak", "appimage" or "package")
 *   update_installed  the update installed the new version: from (the checked
 *                     version), to (the result's latest), from_commit (the
 *                     running Flatpak commit, or null) and kind
 *   update_failed     it did not: outcome (vg_update_outcome's name in lower
 *                     case without VG_UPDATE_, e.g. "refused",
 *                     "needs_permissions"), reason (one line), latest and kind
 * END GENERATED events
 * What update_confirmed needs is one small file per source and platform
 * under $XDG_STATE_HOME/versiongate/ (the user's own 0700 directory, like
 * every state file), holding the first prompted version. It is written by
 * a check that says to prompt only while an event callback is set (a host
 * that listens to no events pays nothing), and by every vg_client_report.
 * Under "dry_run" it is neither written nor claimed. A client reads it at
 * most once per source and platform. */
int vg_client_set_event_callback(vg_client *client, vg_event_fn fn, void *userdata);

/* For a host that shows its own prompt: what the user did with the prompt
 * of `result` (a check's result, usually of this client). Emits the "outcome"
 * event to the client's event callback, if any, and records the prompt for
 * "update_confirmed" (with or without a callback). "skip" also does what
 * vg_client_skip_version(client, vg_result_latest(result)) does.
 *  outcome: "shown", "update", "later", "skip", "dismissed",
 *       "store_opened" or "store_open_failed" (after vg_open_url of the
 *       result's store URL).
 * Returns VG_OK; VG_EINVAL for a NULL client or result or an unknown
 * outcome (then nothing is emitted or recorded); VG_EFORK in a fork()
 * child; for "skip", vg_client_skip_version's errors (the event is still
 * emitted). On an error vg_client_last_error says why (and is cleared on
 * success), as after vg_client_set. Thread-safe with checks. */
int vg_client_report(vg_client *client, const vg_result *result, const char *outcome);

/* The funnel of an events file (JSON lines as `versiongate exec --events`
 * writes them), what `versiongate simulate --events` prints: a header
 * line, then per version, oldest first,
 *   VERSION PROMPTED LATER SKIP DISMISSED UPDATE CONFIRMED
 * counting "outcome" events by the version they were shown to (shown,
 * later, skip, dismissed, update) and "update_confirmed" by its "from";
 * then "# N lines not counted" when some were not events. *out receives
 * the text (free it with vg_free); on an error, why.
 * Returns VG_OK; VG_EINVAL (NULL out or path), VG_ECONFIG (the file cannot
 * be read, is neither root's nor the user's, is writable by others, or is
 * over 64 MiB). */
int vg_events_funnel(char **out, const char *path);

/* ------------------------------------------------------------------ */
/* Before publishing (versiongate lint)                                 */
/* ------------------------------------------------------------------ */

/* Checks the gate document or Remote Config template export at `path` for
 * `platforms` (comma-separated, e.g. "linux,ios"; NULL or "" = "linux"):
 * invalid JSON (with line and column), a threshold that is not a version,
 * a minimum above the latest version, a blocked version that is invalid or
 * is the latest, an unparsable effective_at, a rollout percent outside
 * 0-100, a message too long or with control characters, an update URL the
 * default URL policy refuses, an unknown key close to a known one, and a
 * file the library would not trust; and of `path`.minisig, when it exists,
 * a signature no launcher could read or one whose trusted comment has no
 * timestamp (it verifies, but replays of older documents cannot be refused).
 *  out: receives the problems, one per line ("" when none); free it with
 *       vg_free.
 * Returns VG_OK when there is none, VG_ECONFIG when there are, VG_EINVAL
 * for a NULL out or path, non-UTF-8 text or a bad platform name. */
int vg_lint(char **out, const char *path, const char *platforms);

/* ------------------------------------------------------------------ */
/* Where to update                                                     */
/* ------------------------------------------------------------------ */

/* The store URL for an app, with default options.
 *  out: receives a URL to free with vg_free, or NULL when no safe URL is
 *       known (still VG_OK); not NULL.
 *  store: "appstore" (iTunes lookup → itms-apps://itunes.apple.com/app/idN,
 *         falling back to the lookup URL), "flathub" (appstream:ID),
 *         "snap" (snap://NAME) or "url" (no URL without a config).
 *  app_id: bundle id, Flatpak/AppStream id or snap name; validated.
 * Returns VG_OK, or VG_EINVAL for NULL or an unknown store. Only URLs the
 * default policy allows are returned (https to the known store hosts,
 * appstream:, snap:, itms-apps:). May use the network ("appstore"). */
int vg_store_url(char **out, const char *store, const char *app_id);

/* The same with the client's options ("store", "app_id", "country",
 * "itunes_endpoint", "allowed_url_schemes", "allowed_url_hosts",
 * "fallback_url") and its config's update_url_<platform>, which wins when
 * the policy allows it. Thread-safe. */
int vg_client_store_url(char **out, vg_client *client);

/* Open a URL with xdg-open (no shell, argument vector), after checking it
 * against the default URL policy again. An appstream: or snap: URL that no
 * handler opens (xdg-open exit 3 or 4) is retried once with its web page
 * (flathub.org / snapcraft.io). Waits at most about 5 s for xdg-open.
 * Returns VG_OK, VG_EINVAL (NULL), VG_EPOLICY (refused; nothing run) or
 * VG_EOPEN (no handler, or xdg-open missing). */
int vg_open_url(const char *url);

/* vg_open_url under the client's URL policy ("allowed_url_schemes",
 * "allowed_url_hosts") instead of the default: the store URL its results
 * carry opens as they allow it. When it returns an error,
 * vg_client_last_error says why. Thread-safe. Since 1.3 (VG_VERSION_NUMBER
 * >= 10300; symbol version VERSIONGATE_1.3). */
int vg_client_open_url(vg_client *client, const char *url);

/* The administrator's policy on this machine (docs/administrators.md), as
 * root's files say it now: /etc/versiongate/policy.json, then the .json
 * files of /etc/versiongate/policy.d in name order.
 *  effective: receives one line per key that counts, "KEY = VALUE (FILE)"
 *             (an app's own key as "apps.APP_ID.KEY"), "" with no policy;
 *             free with vg_free.
 *  problems:  receives one line per file ignored ("FILE: ignored: WHY"),
 *             key dropped and key unknown, "" with none; free with vg_free.
 * Returns VG_OK, VG_EINVAL for a NULL argument (then nothing is written),
 * VG_ENOMEM. Reads the files at each call; thread-safe. Since 1.4
 * (VG_VERSION_NUMBER >= 10400; symbol version VERSIONGATE_1.4). */
int vg_policy_report(char **effective, char **problems);

/* Watches the client's source while the app runs (docs/design.md,
 * "Watching a source"): *fd receives a descriptor that becomes readable
 * when the decision may have changed. Drain it (read until EAGAIN: it is
 * nonblocking), then call vg_client_check again (a warm check). It fits
 * poll(2), GLib's g_unix_fd_add, Qt's QSocketNotifier and Python's
 * selectors. A local document is watched by inotify (an atomic rename
 * is seen within a second); a gate document at a URL by conditional
 * requests every "watch_interval_s"; Firebase Remote Config through its
 * realtime stream. The watching is done by one helper process per client:
 * the library starts no thread and opens no socket here, and at most one
 * helper per machine user and source asks the server (the others watch
 * its cache). The descriptor belongs to the client: do not close it; it
 * stays the same until vg_client_unwatch or vg_client_free, which close
 * it and end the helper (so does this process's exit). A running app is
 * never stopped: what to do with a new MANDATORY is the host's.
 * Returns VG_OK (*fd set), VG_EINVAL (a NULL argument; *fd is -1 when fd
 * is not NULL), VG_ENETWORK (no helper can be started, or the
 * administrator's policy allows no network), VG_EFORK. Thread-safe. Since
 * 1.5 (VG_VERSION_NUMBER >= 10500; symbol version VERSIONGATE_1.5). */
int vg_client_watch(vg_client *client, int *fd);

/* Stops watching (see vg_client_watch): its descriptor is closed and its
 * helper ends. VG_OK also when not watching; VG_EINVAL for NULL. Since 1.5
 * (VG_VERSION_NUMBER >= 10500; symbol version VERSIONGATE_1.5). */
int vg_client_unwatch(vg_client *client);

/* ------------------------------------------------------------------ */
/* Result (immutable; every getter accepts NULL and then returns the    */
/* UP_TO_DATE / NULL answer). Strings are owned by the result and valid */
/* until vg_result_free. Getters are thread-safe.                       */
/* ------------------------------------------------------------------ */

vg_status vg_result_status(const vg_result *result);

/* 1 when the launcher should show the prompt now: always for MANDATORY;
 * for OPTIONAL only the first time in the session (see "session_scope");
 * 0 otherwise. */
int vg_result_should_prompt(const vg_result *result);

/* Prompt title and message in the user's language; never NULL for
 * MANDATORY and OPTIONAL, NULL for UP_TO_DATE. The message is the config's
 * sanitized `update_message` when it has one. */
const char *vg_result_title(const vg_result *result);
const char *vg_result_message(const vg_result *result);

/* What is new in the latest version: the config's sanitized `release_notes`
 * (or `release_notes_<lang>` for the user's language), plain text with line
 * breaks, at most 4096 bytes and 40 lines. OPTIONAL only; NULL otherwise and
 * when the config has none. Show it under the message. */
const char *vg_result_release_notes(const vg_result *result);

/* Button labels: the update action (MANDATORY, OPTIONAL), the dismiss
 * action and "Skip this version" (OPTIONAL only: see
 * vg_client_skip_version); NULL where the prompt has no such button. On
 * a managed machine whose administrator gave a link (the result's
 * "managed_url"), a MANDATORY's action is "Open help page" in the
 * prompt's language, and its message ends with the link (since 1.5). */
const char *vg_result_action_label(const vg_result *result);
const char *vg_result_dismiss_label(const vg_result *result);
const char *vg_result_skip_label(const vg_result *result);

/* Where to update, or NULL when no safe URL is known. */
const char *vg_result_store_url(const vg_result *result);

/* VG_OK when the decision came from a good config; otherwise the error
 * that made the result fail open, and a message naming what went wrong. */
int vg_result_error(const vg_result *result);
const char *vg_result_error_message(const vg_result *result);

/* The thresholds the decision used as written in the config (trimmed),
 * or NULL when absent or invalid. */
const char *vg_result_min_required(const vg_result *result);
const char *vg_result_latest(const vg_result *result);

/* The rule that decided, as a stable lowercase name (never NULL; static
 * storage, valid forever; a NULL result gives "fail_open"). Append-only,
 * like the error codes (the release that added a rule after 1.0 in brackets):
 * BEGIN GENERATED rules (scripts/generate)
 *   "blocked"            the version is in blocked_versions_<platform>: MANDATORY
 *   "below_minimum"      below min_required_version_<platform> (in effect): MANDATORY
 *   "grace_period"       below the minimum before its _effective_at: OPTIONAL
 *   "below_latest"       below latest_version_<platform>: OPTIONAL
 *   "outside_rollout"    below latest, outside its staged rollout: UP_TO_DATE
 *   "up_to_date"         below neither threshold: UP_TO_DATE
 *   "fail_open"          no config decided, or the version is invalid: UP_TO_DATE
 *   "requirements_unmet" below latest, whose latest_version_<platform>_requires
 *                        this system does not meet: UP_TO_DATE
 *   "channel_behind"     below the minimum, which the user's own channel (the
 *                        "channel" field) does not serve this system yet: OPTIONAL (1.3)
 *   "policy"             below the minimum, which the administrator's policy accepts
 *                        ("mandatory": "warn"; the "policy_files" field): OPTIONAL (1.4)
 * END GENERATED rules
 * The result's "reason" field says the same for people, naming the numbers. */
const char *vg_result_rule(const vg_result *result);

/* The result's fields, by JSON key (vg_result_json's members, in order):
 * BEGIN GENERATED result_fields (scripts/generate)
 *   action_label               text    the update button's label, or null
 *   blocked_versions           text    the valid blocked_versions_<platform>, comma-separated, or null
 *   blocked_versions_key       text    the key blocked_versions came from, e.g. "blocked_versions_linux" (1.3), or null
 *   channel                    text    the user's channel a MANDATORY asked (1.3), or null when
 *                                      none was asked: "appstore", "snap", "flathub", "apt", "flatpak" or "package"
 *   channel_version            text    the newest version that channel serves this system (1.3),
 *                                      or null when it could not be asked
 *   config_age_s               number  seconds since a remote config was fetched, or null
 *   current                    text    the current version, trimmed; null when invalid
 *   dismiss_label              text    the dismiss button's label (OPTIONAL), or null
 *   error                      number  vg_result_error
 *   error_message              text    vg_result_error_message
 *   error_name                 text    the error code's name, e.g. "VG_OK"
 *   fetch_error                number  a failed fetch although a config decided (else 0)
 *   fetch_error_message        text    the failed fetch's message, or null
 *   install_kind               text    how the app was installed, which says what Update does (1.4): "flatpak",
 *                                      "snap", "appimage", "package" (distro_package set, or a program where
 *                                      packages install it), "nix", "ostree", "homebrew" or "unknown"; null
 *                                      when no config decided
 *   latest                     text    vg_result_latest
 *   latest_key                 text    the key latest came from, e.g. "latest_version_linux" (1.3), or null
 *   locale                     text    the language of the texts, e.g. "de"
 *   managed                    boolean whether an administrator's policy file counted (1.4)
 *   managed_message            text    the administrator's message for this app (1.4), or null
 *   managed_url                text    the administrator's https link for this app (1.4), or null
 *   message                    text    vg_result_message
 *   min_required               text    vg_result_min_required
 *   min_required_effective_at  text    when the minimum takes effect (RFC 3339), or null
 *   min_required_effective_at_key text    the key of the minimum's effective time (1.3), or null
 *   min_required_key           text    the key min_required came from, e.g. "min_required_version_linux" (1.3), or null
 *   note                       text    why a prompt is or is not shown now, or null
 *   origin                     text    "local_document", "fresh_fetch", "cache_hit",
 *                                      "stale_cache" (a refresh runs behind it),
 *                                      "cache_after_error", "embedded_default", "realtime" (a
 *                                      template Remote Config's realtime stream told of: 1.5) or "none"
 *   policy_files               list    the administrator's policy files that counted, in reading order (1.4)
 *   proxy                      text    the proxy of the check's last request, "scheme://host:port" (credentials
 *                                      shown as ***), or "direct" (1.4); null when it made no request
 *   proxy_from                 text    where that proxy came from: "option", "environment" or "desktop" (1.4), or null
 *   reason                     text    the decision for people, e.g. "1.0.40 is in blocked_versions_linux"
 *   release_notes              text    vg_result_release_notes
 *   rollout_bucket             number  this installation's bucket (0-99) when a staged rollout decided, or null
 *   rollout_percent            number  the staged rollout's percent when it decided, or null
 *   rollout_percent_key        text    the key of the latest's rollout percent (1.3), or null
 *   rule                       text    vg_result_rule
 *   should_prompt              boolean vg_result_should_prompt
 *   skip_label                 text    the skip button's label (OPTIONAL), or null
 *   source                     text    the source the check used
 *   status                     text    "UP_TO_DATE", "OPTIONAL" or "MANDATORY"
 *   store_note                 text    why a store URL was refused or a fallback used, or null
 *   store_url                  text    vg_result_store_url
 *   store_web_fallback         text    an https page for when no handler opens store_url, or null
 *   template_version           number  the Remote Config template's version, or null
 *   title                      text    vg_result_title
 * END GENERATED result_fields */

/* The field `key` as text: numbers in decimal, booleans "true"/"false", a
 * list (policy_files) one item per line with no final newline ("" for an
 * empty list, "a\nb" for two items); NULL for a null value, an unknown
 * key, or a NULL result or key. Owned by
 * the result, valid until vg_result_free. Thread-safe. */
const char *vg_result_get(const vg_result *result, const char *key);

/* Every field as one JSON object (never NULL for a non-NULL result). */
const char *vg_result_json(const vg_result *result);

/* Free a result. NULL is allowed. */
void vg_result_free(vg_result *result);

/* ------------------------------------------------------------------ */
/* Options, read back                                                  */
/* ------------------------------------------------------------------ */

/* Since 1.2 (VG_VERSION_NUMBER >= 10200; symbol version VERSIONGATE_1.2):
 * a program that uses it refuses to load against a 1.0 or 1.1 library. */

/* The option `key` as text: the value vg_client_set gave it, else its
 * default (the "default" of the list at vg_client_set, as a value the
 * option accepts: "linux" for "platform", "0" for "remind_after_s"). *out
 * is a copy to release with vg_free, or NULL when the option is unset and
 * has no default ("source" before it is set). What a tool shows as the
 * library's settings without restating its defaults (versiongate explain).
 * Returns VG_OK; VG_EINVAL for a NULL client, key or out, or an unknown
 * key (vg_client_last_error does not change); VG_EFORK in a fork() child;
 * VG_ENOMEM. Thread-safe with checks; not with vg_client_set on the same
 * client. */
int vg_client_get(const vg_client *client, const char *key, char **out);

/* ------------------------------------------------------------------ */
/* Updating in place: a Flatpak app updates itself (docs/design.md,    */
/* "Updating in place"). Since 1.2, as above.                          */
/* ------------------------------------------------------------------ */

/* How vg_client_update ended. Append-only. */
typedef enum vg_update_outcome {
    /* BEGIN GENERATED update_outcomes (scripts/generate) */
    VG_UPDATE_INSTALLED = 0,         /* the new version is installed: vg_client_restart starts it */
    VG_UPDATE_NOT_FLATPAK = 1,       /* neither inside a Flatpak (no /.flatpak-info) nor an
                                        AppImage ($APPIMAGE unset) nor a snap nor from a known
                                        distribution package, or an install nothing here may update
                                        (Nix, rpm-ostree, Homebrew: the message says what does):
                                        open the store */
    VG_UPDATE_UNAVAILABLE = 2,       /* no way to the portal: no helper, no GIO, no session bus,
                                        no org.freedesktop.portal.Flatpak, or one older than 2;
                                        an AppImage without update information, or in a
                                        directory this user cannot write; no system bus, no
                                        PackageKit, or the package is not installed; no snapd, or
                                        the snap is not installed */
    VG_UPDATE_REFUSED = 3,           /* the user or the permission store said no (AccessDenied);
                                        polkit did not authorize PackageKit (not-authorized) or
                                        snapd (login-required), or its password dialog was cancelled */
    VG_UPDATE_NEEDS_PERMISSIONS = 4, /* the new version asks for more sandbox permissions than
                                        this one has; the portal refuses those (NotSupported) */
    VG_UPDATE_FAILED = 5,            /* the portal or flatpak failed (its message says how) */
    VG_UPDATE_CANCELLED = 6,         /* the progress callback returned nonzero: the call returned
                                        at once; the portal may still finish installing */
    VG_UPDATE_NOTHING_NEW = 7,       /* the app's Flatpak remote, PackageKit after refreshing
                                        its lists, or snapd in the snap's channel has nothing newer
                                        installed or to install */
    VG_UPDATE_VERIFY_FAILED = 8,     /* since 1.3: the new file did not match its control file's
                                        checksums or its signature; nothing was replaced; or the
                                        package's update is not from a trusted repository */
    VG_UPDATE_AFTER_EXIT = 9         /* since 1.4: inside a strictly confined snap, which cannot
                                        refresh itself: snapd installs the update once the app has
                                        exited; open the store and quit without starting the app */
    /* END GENERATED update_outcomes */
} vg_update_outcome;

/* Called while an update runs: operation `op` (from 0) of `n_ops`, and
 * `percent` (0-100) of that operation done. Return 0 to go on, nonzero to
 * cancel. On the thread that called vg_client_update. */
typedef int (*vg_update_progress_fn)(int op, int n_ops, int percent, void *userdata);

/* Updates this app to its newest version, in place, for a MANDATORY or
 * OPTIONAL `result`, in the library's helper process, which reports each
 * step back. Inside a Flatpak: through the portal
 * org.freedesktop.portal.Flatpak (CreateUpdateMonitor, then Update); the
 * first time, the desktop asks the user whether the app may update itself
 * (the portal's Access dialog); a "no" is remembered as VG_UPDATE_REFUSED.
 * An AppImage ($APPIMAGE): rebuilt by zsync delta and renamed over itself.
 * A distribution package (option "distro_package", or the installed
 * package owning this program at the checked version): through PackageKit
 * on the system bus, polkit asking for authentication as for the software
 * centre (docs/design.md, "Updating a distribution package").
 * Takes as long as the download does (minutes; at most an hour), not
 * "timeout_ms"; no check waits on it. `progress` (may be NULL) is called
 * for each step, on this thread. The client's event callback gets
 * "update_started" before, then "update_installed" or "update_failed",
 * each with "kind" (not where nothing can be updated in place, where
 * nothing happens).
 *  out: receives the outcome, always (VG_UPDATE_FAILED for a bad argument).
 * Returns VG_OK when the new version is installed; VG_EUPDATE for every
 * other outcome, with vg_client_last_error saying why in one line;
 * VG_EINVAL for a NULL out, client or result, or an UP_TO_DATE result;
 * VG_EFORK in a fork() child. Thread-safe with checks; one update at a
 * time per app (the portal refuses a second: "Already installing"). */
int vg_client_update(vg_update_outcome *out, vg_client *client, const vg_result *result,
                     vg_update_progress_fn progress, void *userdata);

/* Starts the newest installed version of this Flatpak app (the portal's
 * Spawn with LATEST_VERSION) with `argv` (NULL-terminated; NULL: this
 * process's own command line, its program as /proc/self/exe names it) in
 * `cwd` (NULL: the current directory), and this process's descriptors 0-2
 * as its own. An AppImage starts its file again, and after a package's
 * update in this process argv[0] starts again (looked up in $PATH without
 * a slash): both in this process's directory. With `exit_status` NULL, returns once it started: the host
 * then exits. Otherwise waits until it ends and gives its exit status
 * (128 + N when signal N ended it), as `versiongate exec` does.
 * Returns VG_OK; VG_EUPDATE (none of those, no helper, the portal
 * refused; vg_client_last_error says why); VG_EINVAL for a NULL client, an
 * empty argv or text that is not UTF-8; VG_EFORK in a fork() child. */
int vg_client_restart(vg_client *client, const char *const *argv, const char *cwd, int *exit_status);

#ifdef __cplusplus
}
#endif

#endif /* VERSIONGATE_H */
