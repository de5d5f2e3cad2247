/* Starting the newest installed version of this app: the portal's Spawn
 * with LATEST_VERSION (docs/design.md, "Updating in place"). */
#include "portal_shim.h"
#include "portal_bus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

enum { SPAWN_LATEST_VERSION = 2 };   /* FLATPAK_SPAWN_FLAGS_LATEST_VERSION */

struct exit_watch {
    const struct vgp_gio *g;
    unsigned pid;
    int ended;
    unsigned status;
};

static void on_exited(GDBusConnection *connection, const char *sender, const char *path, const char *interface,
                      const char *signal, GVariant *parameters, void *data) {
    (void)connection, (void)sender, (void)path, (void)interface, (void)signal;
    struct exit_watch *watch = data;
    const struct vgp_gio *g = watch->g;
    if (watch->pid == 0 || strcmp(g->variant_get_type_string(parameters), "(uu)") != 0) return;
    GVariant *pid = g->variant_get_child_value(parameters, 0), *status = g->variant_get_child_value(parameters, 1);
    if (g->variant_get_uint32(pid) == watch->pid) {
        watch->ended = 1;
        watch->status = g->variant_get_uint32(status);
    }
    g->variant_unref(pid);
    g->variant_unref(status);
}

/* Spawn's parameters; NULL with `why` filled. */
static GVariant *spawn_parameters(const struct vgp_gio *g, const char *cwd, char *const argv[], const int fds[3],
                                  GUnixFDList *list, char *why, size_t why_size) {
    size_t count = 0;
    while (argv[count]) count++;
    GVariant **words = calloc(count ? count : 1, sizeof *words);
    if (!words) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < count; i++) words[i] = g->variant_new_bytestring(argv[i]);
    GVariant *arguments = g->variant_new_array("ay", words, count);
    free(words);
    GVariant *handles[3];
    for (int i = 0; i < 3; i++) {
        GError *error = NULL;
        int index = g->unix_fd_list_append(list, fds[i], &error);
        if (index < 0) {
            char name[128], message[384];
            vgp_take_error(g, error, name, sizeof name, message, sizeof message);
            snprintf(why, why_size, "descriptor %d cannot be passed: %s", i, message);
            return NULL;   /* the floating values built so far go with the process: it ends soon */
        }
        handles[i] = g->variant_new_dict_entry(g->variant_new_uint32((uint32_t)i), g->variant_new_handle(index));
    }
    GVariant *fields[] = {
        g->variant_new_bytestring(cwd), arguments, g->variant_new_array("{uh}", handles, 3),
        g->variant_new_array("{ss}", NULL, 0), g->variant_new_uint32(SPAWN_LATEST_VERSION), vgp_empty_options(g),
    };
    return g->variant_new_tuple(fields, 6);
}

int vgp_spawn_latest(const char *cwd, char *const argv[], const int fds[3], int *exit_status, char *message,
                     size_t message_size) {
    const struct vgp_gio *g;
    GDBusConnection *bus = vgp_bus(VGP_G_BUS_TYPE_SESSION, &g, message, message_size);
    if (!bus) return -1;
    if (!argv[0]) {
        snprintf(message, message_size, "no command to start");
        return -1;
    }
    struct exit_watch watch = {.g = g};
    /* Subscribed before Spawn: the new version may end before its reply is read. */
    unsigned subscription = g->connection_signal_subscribe(bus, VGP_PORTAL, VGP_PORTAL, "SpawnExited", VGP_PORTAL_PATH,
                                                           NULL, VGP_G_DBUS_SIGNAL_FLAGS_NONE, on_exited, &watch, NULL);
    GUnixFDList *list = g->unix_fd_list_new();
    GVariant *parameters = spawn_parameters(g, cwd, argv, fds, list, message, message_size);
    GVariant *reply = NULL;
    if (parameters) {
        GError *error = NULL;
        reply = g->connection_call_with_unix_fd_list_sync(bus, VGP_PORTAL, VGP_PORTAL_PATH, VGP_PORTAL, "Spawn",
                                                          parameters, "(u)", VGP_G_DBUS_CALL_FLAGS_NONE, 30000, list,
                                                          NULL, NULL, &error);
        if (!reply) {
            char name[128], why[384];
            vgp_take_error(g, error, name, sizeof name, why, sizeof why);
            snprintf(message, message_size, "the portal did not start the new version: %s", why);
        }
    }
    g->object_unref(list);
    if (reply && exit_status) {
        GVariant *pid = g->variant_get_child_value(reply, 0);
        watch.pid = g->variant_get_uint32(pid);
        g->variant_unref(pid);
        /* Woken each second to notice a bus that went away (no SpawnExited then). */
        int vanished = 0;
        unsigned tick = vgp_tick_each_second(g);
        while (!watch.ended && !vanished && !g->connection_is_closed(bus)) {
            g->main_context_iteration(NULL, 1);
            if (!watch.ended) vanished = vgp_name_gone(g, bus, VGP_PORTAL);
        }
        g->source_remove(tick);
        if (watch.ended) {
            *exit_status = WIFSIGNALED(watch.status) ? 128 + WTERMSIG(watch.status) : WEXITSTATUS(watch.status);
        } else {
            snprintf(message, message_size, "the %s while the new version ran",
                     vanished ? "Flatpak portal went away" : "session bus closed");
            g->variant_unref(reply);
            reply = NULL;
        }
    }
    g->connection_signal_unsubscribe(bus, subscription);
    if (reply) g->variant_unref(reply);
    return reply ? 0 : -1;
}
