/* What the update and the restart share: GIO and a session bus connection,
 * and the portal's names. */
#ifndef VG_PORTAL_BUS_H
#define VG_PORTAL_BUS_H

#include "gio_api.h"

#define VGP_PORTAL "org.freedesktop.portal.Flatpak"
#define VGP_PORTAL_PATH "/org/freedesktop/portal/Flatpak"
#define VGP_MONITOR_INTERFACE VGP_PORTAL ".UpdateMonitor"

/* GIO and the session bus; NULL with `why` filled. The connection is the
 * process's shared one, kept for its life (the helper is short-lived). */
GDBusConnection *vgp_session_bus(const struct vgp_gio **gio, char *why, size_t why_size);

/* `error`'s D-Bus name (into `name`, "" when it has none) and its message
 * without GDBus's "GDBus.Error:NAME: " prefix (into `message`); frees it. */
void vgp_take_error(const struct vgp_gio *g, GError *error, char *name, size_t name_size, char *message,
                    size_t message_size);

/* 1 when the portal's name has no owner (it crashed or quit), asked of
 * the bus (NameHasOwner: a sandbox's bus proxy answers it for the portal,
 * where it would not pass the NameOwnerChanged signal); 0 otherwise, or
 * when the bus does not answer. A wait for the portal's signals asks it
 * each second, so it ends instead of lasting forever. */
int vgp_portal_gone(const struct vgp_gio *g, GDBusConnection *bus);

/* A source that wakes the main loop each second (for vgp_portal_gone). */
unsigned vgp_tick_each_second(const struct vgp_gio *g);

/* An empty a{sv}. */
GVariant *vgp_empty_options(const struct vgp_gio *g);

#endif
