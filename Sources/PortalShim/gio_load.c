/* Loading GIO for the portal shim; see gio_api.h. */
#define _GNU_SOURCE
#include "gio_api.h"
#include "dynamic_shim.h"

#include <dlfcn.h>
#include <stdio.h>

static struct vgp_gio api;

#define SLOT(name, field) {name, &api.field}
static const vgh_symbol symbols[] = {
    SLOT("g_bus_get_sync", bus_get_sync),
    SLOT("g_dbus_connection_set_exit_on_close", connection_set_exit_on_close),
    SLOT("g_dbus_connection_is_closed", connection_is_closed),
    SLOT("g_dbus_connection_call_sync", connection_call_sync),
    SLOT("g_dbus_connection_call_with_unix_fd_list_sync", connection_call_with_unix_fd_list_sync),
    SLOT("g_dbus_connection_signal_subscribe", connection_signal_subscribe),
    SLOT("g_dbus_connection_signal_unsubscribe", connection_signal_unsubscribe),
    SLOT("g_dbus_error_get_remote_error", error_get_remote_error),
    SLOT("g_dbus_error_strip_remote_error", error_strip_remote_error),
    SLOT("g_unix_fd_list_new", unix_fd_list_new),
    SLOT("g_unix_fd_list_append", unix_fd_list_append),
    SLOT("g_object_unref", object_unref),
    SLOT("g_main_context_iteration", main_context_iteration),
    SLOT("g_timeout_add", timeout_add),
    SLOT("g_source_remove", source_remove),
    SLOT("g_error_free", error_free),
    SLOT("g_free", free),
    SLOT("g_variant_new_array", variant_new_array),
    SLOT("g_variant_new_tuple", variant_new_tuple),
    SLOT("g_variant_new_string", variant_new_string),
    SLOT("g_variant_new_bytestring", variant_new_bytestring),
    SLOT("g_variant_new_uint32", variant_new_uint32),
    SLOT("g_variant_new_uint64", variant_new_uint64),
    SLOT("g_variant_new_boolean", variant_new_boolean),
    SLOT("g_variant_new_handle", variant_new_handle),
    SLOT("g_variant_new_dict_entry", variant_new_dict_entry),
    SLOT("g_variant_get_child_value", variant_get_child_value),
    SLOT("g_variant_get_variant", variant_get_variant),
    SLOT("g_variant_lookup_value", variant_lookup_value),
    SLOT("g_variant_get_uint32", variant_get_uint32),
    SLOT("g_variant_get_boolean", variant_get_boolean),
    SLOT("g_variant_get_string", variant_get_string),
    SLOT("g_variant_get_type_string", variant_get_type_string),
    SLOT("g_variant_unref", variant_unref),
    SLOT("g_proxy_resolver_get_default", proxy_resolver_get_default),
    SLOT("g_proxy_resolver_lookup", proxy_resolver_lookup),
    SLOT("g_strfreev", strfreev),
};
#undef SLOT

const struct vgp_gio *vgp_gio_load(char *why, size_t why_size) {
    /* The helper is single-threaded and loads it once: no once-guard needed,
     * but a second call must not resolve again. */
    static int state;   /* 0 not tried, 1 loaded, -1 failed */
    static char failure[256];
    if (state == 0) {
        /* GIO pulls in GLib and GObject, whose symbols it uses (all in the same ABI since 2.x). */
        void *library = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
        const char *missing = NULL;
        if (!library)
            snprintf(failure, sizeof failure, "GIO (libgio-2.0.so.0) cannot be loaded: %s", dlerror());
        else if ((missing = vgh_resolve_all(library, symbols, sizeof symbols / sizeof symbols[0])))
            snprintf(failure, sizeof failure, "GIO lacks %s (GLib 2.56 or later is needed)", missing);
        state = library && !missing ? 1 : -1;
    }
    if (state < 0) snprintf(why, why_size, "%s", failure);
    return state > 0 ? &api : NULL;
}
