/* What the portal's update and restart and PackageKit's update share: GIO,
 * a bus connection, and the portal's names. */
#ifndef VG_PORTAL_BUS_H
#define VG_PORTAL_BUS_H

#include "gio_api.h"

#define VGP_PORTAL "org.freedesktop.portal.Flatpak"
#define VGP_PORTAL_PATH "/org/freedesktop/portal/Flatpak"
#define VGP_MONITOR_INTERFACE VGP_PORTAL ".UpdateMonitor"

/* GIO and the bus of `type` (VGP_G_BUS_TYPE_*); NULL with `why` filled. The
 * connection is the process's shared one, kept for its life (the helper is
 * short-lived). */
GDBusConnection *vgp_bus(int type, const struct vgp_gio **gio, char *why, size_t why_size);

/* `error`'s D-Bus name (into `name`, "" when it has none) and its message
 * without GDBus's "GDBus.Error:NAME: " prefix (into `message`); frees it. */
void vgp_take_error(const struct vgp_gio *g, GError *error, char *name, size_t name_size, char *message,
                    size_t message_size);

/* 1 when `name` has no owner (the portal or PackageKit crashed or quit),
 * asked of the bus (NameHasOwner: a sandbox's bus proxy answers it for the
 * portal, where it would not pass the NameOwnerChanged signal); 0
 * otherwise, or when the bus does not answer. A wait for a service's
 * signals asks it each second, so it ends instead of lasting forever. */
int vgp_name_gone(const struct vgp_gio *g, GDBusConnection *bus, const char *name);

/* A source that wakes the main loop each second (for vgp_name_gone). */
unsigned vgp_tick_each_second(const struct vgp_gio *g);

/* An empty a{sv}. */
GVariant *vgp_empty_options(const struct vgp_gio *g);

#endif
