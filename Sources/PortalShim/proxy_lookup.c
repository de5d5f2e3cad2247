/* The desktop's proxy for one URL: GIO's default GProxyResolver
 * (docs/design.md, "The desktop's proxy"), which follows GNOME's settings,
 * libproxy (KDE and others), PAC files through GLib's PAC runner and,
 * inside a Flatpak, the ProxyResolver portal. Only the helper calls it. */
#include "portal_shim.h"
#include "gio_api.h"

#include <stdio.h>
#include <string.h>

/* Whether `uri` starts with `scheme` followed by "://". */
static int has_scheme(const char *uri, const char *scheme) {
    size_t n = strlen(scheme);
    return strncmp(uri, scheme, n) == 0 && strncmp(uri + n, "://", 3) == 0;
}

int vgp_proxy_lookup(const char *url, char *proxy, size_t proxy_size, char *why, size_t why_size) {
    const struct vgp_gio *gio = vgp_gio_load(why, why_size);
    if (!gio) return -1;
    GProxyResolver *resolver = gio->proxy_resolver_get_default();
    if (!resolver) {
        snprintf(why, why_size, "GIO has no proxy resolver");
        return -1;
    }
    GError *error = NULL;
    char **answers = gio->proxy_resolver_lookup(resolver, url, NULL, &error);
    if (!answers) {
        snprintf(why, why_size, "the desktop's proxy resolver failed: %s", error && error->message ? error->message : "no answer");
        if (error) gio->error_free(error);
        return -1;
    }
    int found = 0;
    for (char **answer = answers; *answer && !found; answer++) {
        const char *uri = *answer;
        if (has_scheme(uri, "direct")) {
            snprintf(proxy, proxy_size, "direct://");
            found = 1;
        } else if (has_scheme(uri, "http") || has_scheme(uri, "https") || has_scheme(uri, "socks5h")) {
            found = snprintf(proxy, proxy_size, "%s", uri) < (int)proxy_size;
        } else if (has_scheme(uri, "socks5") || has_scheme(uri, "socks")) {
            /* The proxy resolves the name: the origin's name never goes to a local resolver. */
            found = snprintf(proxy, proxy_size, "socks5h%s", strstr(uri, "://")) < (int)proxy_size;
        }
    }
    if (!found) snprintf(why, why_size, "the desktop names no proxy this library can use (first: %.64s)",
                         answers[0] ? answers[0] : "none");
    gio->strfreev(answers);
    return found ? 0 : -1;
}
