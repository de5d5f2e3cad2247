/* Updating this Flatpak app in place through the portal's update monitor
 * (docs/design.md, "Updating in place"). The monitor belongs to the
 * connection that created it, so the whole update runs on one connection,
 * and ends (the portal cancels it) when this process does. */
#include "portal_shim.h"
#include "portal_bus.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Progress's status values. */
enum { RUNNING = 0, EMPTY = 1, DONE = 2, FAILED = 3 };

struct watch {
    const struct vgp_gio *g;
    const char *monitor;
    vgp_progress_fn progress;
    void *context;
    int ended, timed_out;
    unsigned status, n_ops;
    char error_name[128], error_message[384];
};

static int set(vgp_outcome *out, int kind, const char *message) {
    out->kind = kind;
    snprintf(out->message, sizeof out->message, "%s", message);
    return kind;
}

/* A u member of an a{sv}; `fallback` when it is absent or not a u. */
static unsigned member_u(const struct vgp_gio *g, GVariant *dictionary, const char *key, unsigned fallback) {
    GVariant *value = g->variant_lookup_value(dictionary, key, "u");
    if (!value) return fallback;
    unsigned number = g->variant_get_uint32(value);
    g->variant_unref(value);
    return number;
}

static void member_s(const struct vgp_gio *g, GVariant *dictionary, const char *key, char *into, size_t size) {
    GVariant *value = g->variant_lookup_value(dictionary, key, "s");
    snprintf(into, size, "%s", value ? g->variant_get_string(value, NULL) : "");
    if (value) g->variant_unref(value);
}

static void on_signal(GDBusConnection *connection, const char *sender, const char *path, const char *interface,
                      const char *signal, GVariant *parameters, void *data) {
    (void)connection, (void)sender, (void)interface;
    struct watch *watch = data;
    const struct vgp_gio *g = watch->g;
    if (watch->ended || strcmp(path, watch->monitor) != 0 || strcmp(signal, "Progress") != 0) return;
    if (strcmp(g->variant_get_type_string(parameters), "(a{sv})") != 0) return;
    GVariant *info = g->variant_get_child_value(parameters, 0);
    unsigned status = member_u(g, info, "status", RUNNING);
    unsigned op = member_u(g, info, "op", 0), n_ops = member_u(g, info, "n_ops", 0);
    unsigned percent = member_u(g, info, "progress", 0);
    if (status == RUNNING) {
        if (watch->progress) watch->progress(op, n_ops, percent > 100 ? 100 : percent, watch->context);
    } else {
        watch->ended = 1;
        watch->status = status;
        watch->n_ops = n_ops;
        member_s(g, info, "error", watch->error_name, sizeof watch->error_name);
        member_s(g, info, "error_message", watch->error_message, sizeof watch->error_message);
    }
    g->variant_unref(info);
}

static int on_timeout(void *data) {
    struct watch *watch = data;
    watch->timed_out = 1;
    return 0;   /* G_SOURCE_REMOVE */
}

/* The portal's interface version; 0 when it cannot be read. */
static unsigned portal_version(const struct vgp_gio *g, GDBusConnection *bus, char *name, size_t name_size,
                               char *why, size_t why_size) {
    GError *error = NULL;
    GVariant *reply = g->connection_call_sync(
        bus, VGP_PORTAL, VGP_PORTAL_PATH, "org.freedesktop.DBus.Properties", "Get",
        g->variant_new_tuple((GVariant *[]){g->variant_new_string(VGP_PORTAL), g->variant_new_string("version")}, 2),
        "(v)", VGP_G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
    if (!reply) {
        vgp_take_error(g, error, name, name_size, why, why_size);
        return 0;
    }
    GVariant *boxed = g->variant_get_child_value(reply, 0);
    GVariant *value = g->variant_get_variant(boxed);
    unsigned version = strcmp(g->variant_get_type_string(value), "u") == 0 ? g->variant_get_uint32(value) : 0;
    g->variant_unref(value);
    g->variant_unref(boxed);
    g->variant_unref(reply);
    if (!version) snprintf(why, why_size, "the portal's version property is not a number");
    return version;
}

/* Creates the monitor; its object path into `path`, or 0 with `out` set. */
static int create_monitor(const struct vgp_gio *g, GDBusConnection *bus, char *path, size_t size, vgp_outcome *out) {
    GError *error = NULL;
    GVariant *reply = g->connection_call_sync(bus, VGP_PORTAL, VGP_PORTAL_PATH, VGP_PORTAL, "CreateUpdateMonitor",
                                              g->variant_new_tuple((GVariant *[]){vgp_empty_options(g)}, 1), "(o)",
                                              VGP_G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
    if (!reply) {
        char message[384];
        vgp_take_error(g, error, out->error_name, sizeof out->error_name, message, sizeof message);
        snprintf(out->message, sizeof out->message, "the portal made no update monitor: %s", message);
        out->kind = VGP_UNAVAILABLE;
        return 0;
    }
    GVariant *object = g->variant_get_child_value(reply, 0);
    snprintf(path, size, "%s", g->variant_get_string(object, NULL));
    g->variant_unref(object);
    g->variant_unref(reply);
    return 1;
}

static void call_monitor(const struct vgp_gio *g, GDBusConnection *bus, const char *monitor, const char *method,
                         GVariant *parameters, GError **error) {
    GVariant *reply = g->connection_call_sync(bus, VGP_PORTAL, monitor, VGP_MONITOR_INTERFACE, method, parameters,
                                              NULL, VGP_G_DBUS_CALL_FLAGS_NONE, 30000, NULL, error);
    if (reply) g->variant_unref(reply);
}

/* The outcome of a Progress that ended the update. */
static void ended(const struct watch *watch, vgp_outcome *out) {
    snprintf(out->error_name, sizeof out->error_name, "%s", watch->error_name);
    if (watch->status == DONE) {
        set(out, VGP_INSTALLED, "");
    } else if (watch->status == EMPTY) {
        set(out, VGP_NOTHING_NEW, "the app's Flatpak remote has nothing newer than what is installed");
    } else if (strcmp(watch->error_name, "org.freedesktop.DBus.Error.AccessDenied") == 0) {
        snprintf(out->message, sizeof out->message, "the update was refused: %s", watch->error_message);
        out->kind = VGP_REFUSED;
    } else if (strcmp(watch->error_name, "org.freedesktop.DBus.Error.NotSupported") == 0 && watch->n_ops > 0) {
        /* Refused once the transaction's operations are known: the new
         * version's permissions (n_ops is 0 for the portal's other NotSupported). */
        snprintf(out->message, sizeof out->message, "the new version needs new permissions: %s",
                 watch->error_message);
        out->kind = VGP_NEEDS_PERMISSIONS;
    } else {
        snprintf(out->message, sizeof out->message, "the update failed: %s%s%s%s", watch->error_message,
                 *watch->error_name ? " (" : "", watch->error_name, *watch->error_name ? ")" : "");
        out->kind = VGP_FAILED;
    }
}

void vgp_update(vgp_outcome *out, unsigned max_seconds, vgp_progress_fn progress, void *context) {
    memset(out, 0, sizeof *out);
    /* A host that cancels stops reading and leaves this process to see the
     * update through (the portal crashes when its client leaves mid-way):
     * the progress written after that must fail quietly, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    char why[384];
    const struct vgp_gio *g;
    GDBusConnection *bus = vgp_bus(VGP_G_BUS_TYPE_SESSION, &g, why, sizeof why);
    if (!bus) {
        set(out, VGP_UNAVAILABLE, why);
        return;
    }
    unsigned version = portal_version(g, bus, out->error_name, sizeof out->error_name, why, sizeof why);
    if (version < 2) {
        char message[512];
        if (version == 0) snprintf(message, sizeof message, "no Flatpak portal (%s) on the session bus: %s", VGP_PORTAL, why);
        else snprintf(message, sizeof message, "the Flatpak portal is version %u; updating needs 2 (flatpak 1.5)", version);
        set(out, VGP_UNAVAILABLE, message);
        return;
    }
    char monitor[256];
    struct watch watch = {.g = g, .monitor = monitor, .progress = progress, .context = context};
    /* Subscribed before the monitor exists, so no Progress can come first. */
    unsigned subscription = g->connection_signal_subscribe(bus, NULL, VGP_MONITOR_INTERFACE, NULL, NULL, NULL,
                                                           VGP_G_DBUS_SIGNAL_FLAGS_NONE, on_signal, &watch, NULL);
    if (!create_monitor(g, bus, monitor, sizeof monitor, out)) {
        g->connection_signal_unsubscribe(bus, subscription);
        return;
    }
    GError *error = NULL;
    call_monitor(g, bus, monitor, "Update",
                 g->variant_new_tuple((GVariant *[]){g->variant_new_string(""), vgp_empty_options(g)}, 2), &error);
    if (error) {
        char message[384];
        vgp_take_error(g, error, out->error_name, sizeof out->error_name, message, sizeof message);
        snprintf(out->message, sizeof out->message, "the portal refused to start the update: %s", message);
        out->kind = VGP_FAILED;
    } else {
        int vanished = 0;
        unsigned tick = vgp_tick_each_second(g);
        unsigned timer = g->timeout_add(max_seconds * 1000U, on_timeout, &watch);
        while (!watch.ended && !watch.timed_out && !vanished) {
            g->main_context_iteration(NULL, 1);
            if (!watch.ended) vanished = vgp_name_gone(g, bus, VGP_PORTAL);
        }
        if (!watch.timed_out) g->source_remove(timer);
        g->source_remove(tick);
        if (watch.ended) {
            ended(&watch, out);
        } else if (vanished) {
            set(out, VGP_FAILED, "the Flatpak portal went away during the update (did it crash?)");
        } else {
            snprintf(out->message, sizeof out->message, "the update did not finish within %u s", max_seconds);
            out->kind = VGP_FAILED;
        }
    }
    g->connection_signal_unsubscribe(bus, subscription);
    error = NULL;
    call_monitor(g, bus, monitor, "Close", g->variant_new_tuple(NULL, 0), &error);
    if (error) g->error_free(error);
}
