/* Updating a distribution package through PackageKit on the system bus
 * (docs/design.md, "Updating a distribution package"). Each step is a
 * transaction (CreateTransaction, then one method); its signals are
 * watched on this connection until Finished. PackageKit asks polkit, and
 * polkit the user through their desktop's agent, as for GNOME Software. */
#include "portal_shim.h"
#include "portal_bus.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define PK_NAME "org.freedesktop.PackageKit"
#define PK_PATH "/org/freedesktop/PackageKit"
#define PK_TRANSACTION PK_NAME ".Transaction"

/* PackageKit's enums (lib/packagekit-glib2/pk-enum.h); filters and flags
 * travel as bitfields, 1 << the enum's value. */
enum {
    FILTER_NONE = 1 << 1,
    FILTER_INSTALLED = 1 << 2,
    FLAG_ONLY_TRUSTED = 1 << 1,
    EXIT_SUCCESS_ = 1,
    EXIT_CANCELLED = 3,
    EXIT_NEED_UNTRUSTED = 8,
    ERROR_TRANSACTION_CANCELLED = 17,
    ERROR_BAD_GPG_SIGNATURE = 30,
    ERROR_MISSING_GPG_SIGNATURE = 31,
    ERROR_NOT_AUTHORIZED = 48,
    ERROR_CANNOT_UPDATE_REPO_UNSIGNED = 51,
    PERCENT_UNKNOWN = 101,
    /* PkStatusEnum values before the work: a Percentage told in them is
     * the setup's (PackageKit 1.3.1 says 100 while loading its cache). */
    STATUS_WAIT = 1,
    STATUS_SETUP = 2,
    STATUS_QUERY = 4,
    STATUS_LOADING_CACHE = 27,
    STATUS_WAITING_FOR_AUTH = 31,
};

enum { MAX_IDS = 16 };

/* One transaction, as its signals tell it. */
struct transaction {
    const struct vgp_gio *g;
    GDBusConnection *bus;
    char path[256];
    const char *name;          /* the package whose Package signals are kept */
    vgp_progress_fn progress;  /* NULL: no progress (a query) */
    void *context;
    int finished, timed_out, cancel_sent;
    unsigned exit_code, error_code, last_percent, status;
    char error_details[384];
    char ids[MAX_IDS][256];
    unsigned n_ids;
};

static int set(vgp_outcome *out, int kind, const char *message) {
    out->kind = kind;
    snprintf(out->message, sizeof out->message, "%s", message);
    return kind;
}

static void call_transaction(struct transaction *t, const char *method, GVariant *parameters, GError **error) {
    const struct vgp_gio *g = t->g;
    GVariant *reply = g->connection_call_sync(t->bus, PK_NAME, t->path, PK_TRANSACTION, method, parameters, NULL,
                                              VGP_G_DBUS_CALL_FLAGS_NONE, 30000, NULL, error);
    if (reply) g->variant_unref(reply);
}

/* "name;version;arch;data": the package id's name. */
static int id_names(const char *id, const char *name) {
    size_t length = strlen(name);
    return strncmp(id, name, length) == 0 && id[length] == ';';
}

static void on_transaction(GDBusConnection *connection, const char *sender, const char *path, const char *interface,
                           const char *signal, GVariant *parameters, void *data) {
    (void)connection, (void)sender, (void)interface;
    struct transaction *t = data;
    const struct vgp_gio *g = t->g;
    if (t->finished || strcmp(path, t->path) != 0) return;
    const char *type = g->variant_get_type_string(parameters);
    if (strcmp(signal, "Package") == 0 && strcmp(type, "(uss)") == 0) {
        GVariant *id = g->variant_get_child_value(parameters, 1);
        const char *text = g->variant_get_string(id, NULL);
        if (t->name && id_names(text, t->name) && t->n_ids < MAX_IDS && strlen(text) < sizeof t->ids[0])
            snprintf(t->ids[t->n_ids++], sizeof t->ids[0], "%s", text);
        g->variant_unref(id);
    } else if (strcmp(signal, "ErrorCode") == 0 && strcmp(type, "(us)") == 0) {
        GVariant *code = g->variant_get_child_value(parameters, 0), *details = g->variant_get_child_value(parameters, 1);
        t->error_code = g->variant_get_uint32(code);
        snprintf(t->error_details, sizeof t->error_details, "%s", g->variant_get_string(details, NULL));
        g->variant_unref(code);
        g->variant_unref(details);
    } else if (strcmp(signal, "Finished") == 0 && strcmp(type, "(uu)") == 0) {
        GVariant *code = g->variant_get_child_value(parameters, 0);
        t->exit_code = g->variant_get_uint32(code);
        t->finished = 1;
        g->variant_unref(code);
    }
}

static int is_setup(unsigned status) {
    return status == STATUS_WAIT || status == STATUS_SETUP || status == STATUS_QUERY ||
           status == STATUS_LOADING_CACHE || status == STATUS_WAITING_FOR_AUTH;
}

/* The transaction's Percentage, as PropertiesChanged tells it (101: not
 * known yet), from its work only, and below 100 until it has finished:
 * a setup's 100 would close zenity's --auto-close dialog before the
 * download starts. */
static void on_properties(GDBusConnection *connection, const char *sender, const char *path, const char *interface,
                          const char *signal, GVariant *parameters, void *data) {
    (void)connection, (void)sender, (void)interface, (void)signal;
    struct transaction *t = data;
    const struct vgp_gio *g = t->g;
    if (t->finished || !t->progress || strcmp(path, t->path) != 0) return;
    if (strcmp(g->variant_get_type_string(parameters), "(sa{sv}as)") != 0) return;
    GVariant *changed = g->variant_get_child_value(parameters, 1);
    GVariant *status = g->variant_lookup_value(changed, "Status", "u");
    if (status) {
        t->status = g->variant_get_uint32(status);
        g->variant_unref(status);
    }
    GVariant *percentage = g->variant_lookup_value(changed, "Percentage", "u");
    if (percentage) {
        unsigned percent = g->variant_get_uint32(percentage);
        if (percent > 99 && percent != PERCENT_UNKNOWN) percent = 99;
        if (percent != PERCENT_UNKNOWN && percent != t->last_percent && !is_setup(t->status)) {
            t->last_percent = percent;
            /* Nonzero: the host stopped listening (it cancelled). */
            if (t->progress(0, 1, percent, t->context) != 0 && !t->cancel_sent) {
                GError *error = NULL;
                t->cancel_sent = 1;
                call_transaction(t, "Cancel", g->variant_new_tuple(NULL, 0), &error);
                if (error) g->error_free(error);
            }
        }
        g->variant_unref(percentage);
    }
    g->variant_unref(changed);
}

static int on_timeout(void *data) {
    ((struct transaction *)data)->timed_out = 1;
    return 0;   /* G_SOURCE_REMOVE */
}

/* Runs `method` with `parameters` in a new transaction until Finished, or
 * until `deadline` (CLOCK_MONOTONIC seconds) or PackageKit quits. 1 when it
 * finished (then exit_code and error_code tell how); 0 with `out` set. */
static int run(struct transaction *t, const char *method, GVariant *parameters, time_t deadline, vgp_outcome *out) {
    const struct vgp_gio *g = t->g;
    GError *error = NULL;
    GVariant *reply = g->connection_call_sync(t->bus, PK_NAME, PK_PATH, PK_NAME, "CreateTransaction",
                                              g->variant_new_tuple(NULL, 0), "(o)", VGP_G_DBUS_CALL_FLAGS_NONE, 30000,
                                              NULL, &error);
    char message[384];
    if (!reply) {
        vgp_take_error(g, error, out->error_name, sizeof out->error_name, message, sizeof message);
        snprintf(out->message, sizeof out->message, "no PackageKit (%s) on the system bus: %s", PK_NAME, message);
        out->kind = VGP_UNAVAILABLE;
        g->variant_unref(parameters);
        return 0;
    }
    GVariant *object = g->variant_get_child_value(reply, 0);
    snprintf(t->path, sizeof t->path, "%s", g->variant_get_string(object, NULL));
    g->variant_unref(object);
    g->variant_unref(reply);
    /* Subscribed before the method runs, so no signal comes first. */
    unsigned signals = g->connection_signal_subscribe(t->bus, NULL, PK_TRANSACTION, NULL, t->path, NULL,
                                                      VGP_G_DBUS_SIGNAL_FLAGS_NONE, on_transaction, t, NULL);
    unsigned properties = g->connection_signal_subscribe(t->bus, NULL, "org.freedesktop.DBus.Properties",
                                                         "PropertiesChanged", t->path, NULL,
                                                         VGP_G_DBUS_SIGNAL_FLAGS_NONE, on_properties, t, NULL);
    /* interactive: polkit may ask the user (its agent's dialog). */
    GVariant *hint = g->variant_new_string("interactive=true");
    call_transaction(t, "SetHints", g->variant_new_tuple((GVariant *[]){g->variant_new_array("s", &hint, 1)}, 1),
                     &error);
    if (error) {
        g->error_free(error);
        error = NULL;
    }
    call_transaction(t, method, parameters, &error);
    int done = 0;
    if (error) {
        vgp_take_error(g, error, out->error_name, sizeof out->error_name, message, sizeof message);
        snprintf(out->message, sizeof out->message, "PackageKit refused %s: %s", method, message);
        out->kind = VGP_FAILED;
    } else {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        time_t left = deadline > now.tv_sec ? deadline - now.tv_sec : 1;
        int vanished = 0;
        unsigned tick = vgp_tick_each_second(g);
        unsigned timer = g->timeout_add((unsigned)(left > 86400 ? 86400 : left) * 1000U, on_timeout, t);
        while (!t->finished && !t->timed_out && !vanished) {
            g->main_context_iteration(NULL, 1);
            if (!t->finished) vanished = vgp_name_gone(g, t->bus, PK_NAME);
        }
        if (!t->timed_out) g->source_remove(timer);
        g->source_remove(tick);
        if (t->finished) {
            done = 1;
        } else if (vanished) {
            set(out, VGP_FAILED, "PackageKit went away during the update (did it crash?)");
        } else {
            error = NULL;
            call_transaction(t, "Cancel", g->variant_new_tuple(NULL, 0), &error);
            if (error) g->error_free(error);
            snprintf(out->message, sizeof out->message, "PackageKit's %s did not finish in time", method);
            out->kind = VGP_FAILED;
        }
    }
    g->connection_signal_unsubscribe(t->bus, signals);
    g->connection_signal_unsubscribe(t->bus, properties);
    return done;
}

static GVariant *names(const struct vgp_gio *g, const char *const *items, size_t count) {
    GVariant *words[MAX_IDS];
    for (size_t i = 0; i < count && i < MAX_IDS; i++) words[i] = g->variant_new_string(items[i]);
    return g->variant_new_array("s", words, count < MAX_IDS ? count : MAX_IDS);
}

/* A query transaction (no progress) collecting `name`'s package ids. */
static int query(struct transaction *t, const char *method, GVariant *parameters, time_t deadline, vgp_outcome *out) {
    if (!run(t, method, parameters, deadline, out)) return 0;
    if (t->exit_code == EXIT_SUCCESS_) return 1;
    snprintf(out->message, sizeof out->message, "PackageKit's %s failed: %s (error %u)", method,
             *t->error_details ? t->error_details : "no details", t->error_code);
    out->kind = t->error_code == ERROR_NOT_AUTHORIZED ? VGP_REFUSED : VGP_FAILED;
    return 0;
}

/* The package's version: "name;VERSION;arch;data". */
static void id_version(const char *id, char *into, size_t size) {
    const char *start = strchr(id, ';');
    const char *end = start ? strchr(start + 1, ';') : NULL;
    snprintf(into, size, "%.*s", start && end ? (int)(end - start - 1) : 0, start ? start + 1 : "");
}

/* The ids of `name`'s updates; 0 when none (out not set), -1 with `out` set. */
static int updates(struct transaction *t, time_t deadline, vgp_outcome *out) {
    const struct vgp_gio *g = t->g;
    if (!query(t, "GetUpdates", g->variant_new_tuple((GVariant *[]){g->variant_new_uint64(FILTER_NONE)}, 1),
               deadline, out))
        return -1;
    return t->n_ids > 0;
}

/* The update's outcome from its Finished and ErrorCode. */
static void finished(const struct transaction *t, const char *name, vgp_outcome *out) {
    const char *details = *t->error_details ? t->error_details : "no details";
    if (t->exit_code == EXIT_SUCCESS_) {
        set(out, VGP_INSTALLED, "");
    } else if (t->error_code == ERROR_NOT_AUTHORIZED) {
        snprintf(out->message, sizeof out->message, "PackageKit was not authorized to update %s: %s", name, details);
        out->kind = VGP_REFUSED;
    } else if (t->exit_code == EXIT_CANCELLED || t->error_code == ERROR_TRANSACTION_CANCELLED) {
        snprintf(out->message, sizeof out->message, "the update of %s was cancelled: %s", name, details);
        out->kind = VGP_CANCELLED;
    } else if (t->exit_code == EXIT_NEED_UNTRUSTED || t->error_code == ERROR_BAD_GPG_SIGNATURE ||
               t->error_code == ERROR_MISSING_GPG_SIGNATURE || t->error_code == ERROR_CANNOT_UPDATE_REPO_UNSIGNED) {
        snprintf(out->message, sizeof out->message, "the update of %s is not from a trusted repository: %s", name,
                 details);
        out->kind = VGP_VERIFY_FAILED;
    } else {
        snprintf(out->message, sizeof out->message, "PackageKit failed to update %s: %s (error %u)", name, details,
                 t->error_code);
        out->kind = VGP_FAILED;
    }
}

void vgp_package_update(vgp_outcome *out, const char *name, unsigned max_seconds, vgp_progress_fn progress,
                        void *context) {
    memset(out, 0, sizeof *out);
    /* A host that cancels stops reading: the progress then written must
     * fail quietly (and send Cancel), not kill us. */
    signal(SIGPIPE, SIG_IGN);
    char why[384];
    const struct vgp_gio *g;
    GDBusConnection *bus = vgp_bus(VGP_G_BUS_TYPE_SYSTEM, &g, why, sizeof why);
    if (!bus) {
        set(out, VGP_UNAVAILABLE, why);
        return;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    time_t deadline = now.tv_sec + max_seconds;
    const char *packages[] = {name};
    struct transaction installed = {.g = g, .bus = bus, .name = name};
    if (!query(&installed, "Resolve",
               g->variant_new_tuple((GVariant *[]){g->variant_new_uint64(FILTER_INSTALLED), names(g, packages, 1)}, 2),
               deadline, out))
        return;
    if (installed.n_ids == 0) {
        snprintf(out->message, sizeof out->message, "PackageKit knows no installed package %s", name);
        out->kind = VGP_UNAVAILABLE;
        return;
    }
    struct transaction offered = {.g = g, .bus = bus, .name = name};
    int found = updates(&offered, deadline, out);
    if (found == 0) {
        /* The lists may be older than the release: refresh them once, as
         * GNOME Software does before it looks. */
        struct transaction refresh = {.g = g, .bus = bus};
        if (!query(&refresh, "RefreshCache", g->variant_new_tuple((GVariant *[]){g->variant_new_boolean(0)}, 1),
                   deadline, out))
            return;
        struct transaction again = {.g = g, .bus = bus, .name = name};
        found = updates(&again, deadline, out);
        offered = again;
    }
    if (found < 0) return;
    if (found == 0) {
        char version[128];
        id_version(installed.ids[0], version, sizeof version);
        snprintf(out->message, sizeof out->message,
                 "PackageKit offers nothing newer than %s %s (its package lists are refreshed)", name, version);
        out->kind = VGP_NOTHING_NEW;
        return;
    }
    const char *ids[MAX_IDS];
    for (unsigned i = 0; i < offered.n_ids; i++) ids[i] = offered.ids[i];
    struct transaction update = {.g = g, .bus = bus, .progress = progress, .context = context,
                                 .last_percent = PERCENT_UNKNOWN, .status = STATUS_WAIT};
    GVariant *parameters = g->variant_new_tuple((GVariant *[]){g->variant_new_uint64(FLAG_ONLY_TRUSTED),
                                                               names(g, ids, offered.n_ids)}, 2);
    if (run(&update, "UpdatePackages", parameters, deadline, out)) finished(&update, name, out);
}
