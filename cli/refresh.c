/* refresh: the library's vg_client_refresh, by hand: brings a remote
 * source's cache up to date (the library runs the fetch in its helper,
 * docs/design.md, "The fetch helper"). A check starts the same refresh by
 * itself behind a stale cache; this is for warming a cache. */
#include "cli.h"

#include <stdio.h>

int vgcli_refresh(const vgcli_args *args) {
    char error[600];
    vg_client *client = vgcli_client(args, error, sizeof error);
    if (!client) return vgcli_usage_error("refresh", error);
    int code = vg_client_refresh(client, args->version);
    if (code != VG_OK) vgcli_warn("refresh: %s; the cache stays as it was", vg_strerror(code));
    vg_client_free(client);
    return code == VG_OK ? VGCLI_EXIT_OK : VGCLI_EXIT_INVALID;
}
