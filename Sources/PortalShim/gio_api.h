/* The part of GLib, GObject and GIO the portal shim uses, declared here so
 * the build needs no GLib headers: GIO is a run-time dependency only, like
 * libcurl. Every function is in GLib 2.56 and later. */
#ifndef VG_GIO_API_H
#define VG_GIO_API_H

#include <stddef.h>
#include <stdint.h>

typedef struct _GVariant GVariant;
typedef struct _GDBusConnection GDBusConnection;
typedef struct _GUnixFDList GUnixFDList;
typedef struct _GMainContext GMainContext;
typedef struct _GProxyResolver GProxyResolver;
/* A GVariantType is its type string (GLib's G_VARIANT_TYPE is a cast). */
typedef char GVariantType;
/* GLib's GError, whose layout is part of its ABI. */
typedef struct vgp_gerror {
    uint32_t domain;
    int code;
    char *message;
} GError;

typedef void (*GDBusSignalCallback)(GDBusConnection *connection, const char *sender, const char *path,
                                    const char *interface, const char *signal, GVariant *parameters, void *data);
typedef int (*GSourceFunc)(void *data);

enum { VGP_G_BUS_TYPE_SYSTEM = 1, VGP_G_BUS_TYPE_SESSION = 2, VGP_G_DBUS_CALL_FLAGS_NONE = 0, VGP_G_DBUS_SIGNAL_FLAGS_NONE = 0 };

struct vgp_gio {
    GDBusConnection *(*bus_get_sync)(int bus_type, void *cancellable, GError **error);
    void (*connection_set_exit_on_close)(GDBusConnection *connection, int exit_on_close);
    int (*connection_is_closed)(GDBusConnection *connection);
    GVariant *(*connection_call_sync)(GDBusConnection *connection, const char *bus_name, const char *path,
                                      const char *interface, const char *method, GVariant *parameters,
                                      const GVariantType *reply_type, int flags, int timeout_ms, void *cancellable,
                                      GError **error);
    GVariant *(*connection_call_with_unix_fd_list_sync)(GDBusConnection *connection, const char *bus_name,
                                                        const char *path, const char *interface, const char *method,
                                                        GVariant *parameters, const GVariantType *reply_type,
                                                        int flags, int timeout_ms, GUnixFDList *fd_list,
                                                        GUnixFDList **out_fd_list, void *cancellable, GError **error);
    unsigned (*connection_signal_subscribe)(GDBusConnection *connection, const char *sender, const char *interface,
                                            const char *member, const char *path, const char *arg0, int flags,
                                            GDBusSignalCallback callback, void *data, void (*free_data)(void *));
    void (*connection_signal_unsubscribe)(GDBusConnection *connection, unsigned id);
    char *(*error_get_remote_error)(const GError *error);
    int (*error_strip_remote_error)(GError *error);
    GUnixFDList *(*unix_fd_list_new)(void);
    int (*unix_fd_list_append)(GUnixFDList *list, int fd, GError **error);
    void (*object_unref)(void *object);
    int (*main_context_iteration)(GMainContext *context, int may_block);
    unsigned (*timeout_add)(unsigned interval_ms, GSourceFunc function, void *data);
    int (*source_remove)(unsigned id);
    void (*error_free)(GError *error);
    void (*free)(void *memory);
    GVariant *(*variant_new_array)(const GVariantType *child_type, GVariant *const *children, size_t count);
    GVariant *(*variant_new_tuple)(GVariant *const *children, size_t count);
    GVariant *(*variant_new_string)(const char *string);
    GVariant *(*variant_new_bytestring)(const char *string);
    GVariant *(*variant_new_uint32)(uint32_t value);
    GVariant *(*variant_new_uint64)(uint64_t value);
    GVariant *(*variant_new_boolean)(int value);
    GVariant *(*variant_new_handle)(int32_t value);
    GVariant *(*variant_new_dict_entry)(GVariant *key, GVariant *value);
    GVariant *(*variant_get_child_value)(GVariant *value, size_t index);
    GVariant *(*variant_get_variant)(GVariant *value);
    GVariant *(*variant_lookup_value)(GVariant *dictionary, const char *key, const GVariantType *type);
    uint32_t (*variant_get_uint32)(GVariant *value);
    int (*variant_get_boolean)(GVariant *value);
    const char *(*variant_get_string)(GVariant *value, size_t *length);
    const char *(*variant_get_type_string)(GVariant *value);
    void (*variant_unref)(GVariant *value);
    GProxyResolver *(*proxy_resolver_get_default)(void);
    char **(*proxy_resolver_lookup)(GProxyResolver *resolver, const char *uri, void *cancellable, GError **error);
    void (*strfreev)(char **strings);
};

/* GIO loaded and resolved (once per process); NULL with `why` filled when
 * it is not there. */
const struct vgp_gio *vgp_gio_load(char *why, size_t why_size);

#endif
