/* The buses for the D-Bus shim; see portal_bus.h. */
#include "portal_bus.h"

#include <stdio.h>

GDBusConnection *vgp_bus(int type, const struct vgp_gio **gio, char *why, size_t why_size) {
    const struct vgp_gio *g = vgp_gio_load(why, why_size);
    *gio = g;
    if (!g) return NULL;
    GError *error = NULL;
    GDBusConnection *bus = g->bus_get_sync(type, NULL, &error);
    if (!bus) {
        char name[128], message[384];
        vgp_take_error(g, error, name, sizeof name, message, sizeof message);
        snprintf(why, why_size, "no %s bus: %s", type == VGP_G_BUS_TYPE_SYSTEM ? "system" : "session", message);
        return NULL;
    }
    /* GDBus raises SIGTERM when the bus goes away; the helper reports it instead. */
    g->connection_set_exit_on_close(bus, 0);
    return bus;
}

void vgp_take_error(const struct vgp_gio *g, GError *error, char *name, size_t name_size, char *message,
                    size_t message_size) {
    if (!error) {
        snprintf(name, name_size, "%s", "");
        snprintf(message, message_size, "%s", "unknown error");
        return;
    }
    char *remote = g->error_get_remote_error(error);
    snprintf(name, name_size, "%s", remote ? remote : "");
    g->free(remote);
    g->error_strip_remote_error(error);
    snprintf(message, message_size, "%s", error->message ? error->message : "unknown error");
    g->error_free(error);
}

GVariant *vgp_empty_options(const struct vgp_gio *g) {
    return g->variant_new_array("{sv}", NULL, 0);
}

int vgp_name_gone(const struct vgp_gio *g, GDBusConnection *bus, const char *name) {
    GError *error = NULL;
    GVariant *reply = g->connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                              "org.freedesktop.DBus", "NameHasOwner",
                                              g->variant_new_tuple((GVariant *[]){g->variant_new_string(name)}, 1),
                                              "(b)", VGP_G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
    if (!reply) {
        g->error_free(error);
        return 0;
    }
    GVariant *owned = g->variant_get_child_value(reply, 0);
    int gone = !g->variant_get_boolean(owned);
    g->variant_unref(owned);
    g->variant_unref(reply);
    return gone;
}

static int keep_ticking(void *data) {
    (void)data;
    return 1;   /* G_SOURCE_CONTINUE */
}

unsigned vgp_tick_each_second(const struct vgp_gio *g) {
    return g->timeout_add(1000, keep_ticking, NULL);
}
