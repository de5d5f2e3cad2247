/* The Flatpak portal (org.freedesktop.portal.Flatpak) and PackageKit
 * through GIO's GDBus, loaded at run time (docs/design.md, "Updating in
 * place"). Only the helper calls these, in its own single-threaded process:
 * the host never loads GIO. Internal: no vg_ symbol is exported from here. */
#ifndef VG_PORTAL_SHIM_H
#define VG_PORTAL_SHIM_H

#include <stddef.h>

/* How an update ended; the same numbers as the header's vg_update_outcome
 * (the shim never says VGP_NOT_FLATPAK: the library knows that first). */
enum {
    /* BEGIN GENERATED update_outcomes (scripts/generate) */
    VGP_INSTALLED = 0,
    VGP_NOT_FLATPAK = 1,
    VGP_UNAVAILABLE = 2,
    VGP_REFUSED = 3,
    VGP_NEEDS_PERMISSIONS = 4,
    VGP_FAILED = 5,
    VGP_CANCELLED = 6,
    VGP_NOTHING_NEW = 7,
    VGP_VERIFY_FAILED = 8,
    VGP_AFTER_EXIT = 9
    /* END GENERATED update_outcomes */
};

typedef struct vgp_outcome {
    int kind;            /* VGP_* */
    char message[512];   /* why, for every kind but VGP_INSTALLED */
    char error_name[128];/* the service's D-Bus error name, when it gave one */
} vgp_outcome;

/* Called for each step while the update runs: operation `op` (from 0) of
 * `n_ops`, `percent` of it done. Nonzero: the host stopped listening
 * (PackageKit's transaction is then cancelled; the portal's goes on). */
typedef int (*vgp_progress_fn)(unsigned op, unsigned n_ops, unsigned percent, void *context);

/* Creates an update monitor on the session bus, calls Update and reports
 * each Progress until the portal says done, nothing to do or failed, or
 * `max_seconds` pass. The outcome is always written. */
void vgp_update(vgp_outcome *out, unsigned max_seconds, vgp_progress_fn progress, void *context);

/* Updates the installed package `name` through PackageKit on the system
 * bus: Resolve (it must be installed), GetUpdates (after one RefreshCache
 * when it offers none), then UpdatePackages with ONLY_TRUSTED for its
 * updates only, reporting the transaction's Percentage, within
 * `max_seconds`. The outcome is always written: VGP_REFUSED when polkit
 * did not authorize it, VGP_NOTHING_NEW when no update is offered. */
void vgp_package_update(vgp_outcome *out, const char *name, unsigned max_seconds, vgp_progress_fn progress,
                        void *context);

/* Starts the newest installed version of this app (Spawn, flag
 * LATEST_VERSION) with `argv` in `cwd`, the descriptors `fds` as its 0, 1
 * and 2. With `exit_status` non-NULL, waits for it to end (SpawnExited) and
 * gives its exit status (128 + the signal that ended it). 0, or -1 with
 * `message` saying why. */
int vgp_spawn_latest(const char *cwd, char *const argv[], const int fds[3], int *exit_status,
                     char *message, size_t message_size);

/* The desktop's proxy for `url` (GIO's default GProxyResolver): the first
 * answer libcurl can use, as a URI ("http://host:port", "https://...",
 * "socks5h://..."), or "direct://" for none. 0, or -1 with `why` saying why
 * (no GIO, the resolver failed, no usable answer). */
int vgp_proxy_lookup(const char *url, char *proxy, size_t proxy_size, char *why, size_t why_size);

#endif
