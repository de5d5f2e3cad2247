/* Loading libcurl and reading what it can do. See curl_api.h. */
#define _GNU_SOURCE
#include "curl_api.h"
#include "dynamic_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

vgh_curl_api vgh_curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;                 /* 1 once libcurl is usable */
static char load_error[256];
static volatile sig_atomic_t is_fork_child;

static void mark_fork_child(void) { is_fork_child = 1; }

int vgh_curl_in_fork_child(void) { return is_fork_child; }

/* CURLOPT_QUICK_EXIT (7.87) lets a timed-out transfer forget its resolver
 * thread. The version says whether to try it; the return code is the last
 * word (a build may lack it, a distribution may have patched it in). */
static int accepts_quick_exit(void)
{
    if (vgh_curl.version_num < 0x075700) return 0;
    CURL *easy = vgh_curl.easy_init();
    if (!easy) return 0;
    int accepted = vgh_curl.easy_setopt(easy, CURLOPT_QUICK_EXIT, 1L) == CURLE_OK;
    vgh_curl.easy_cleanup(easy);
    return accepted;
}

static void load_curl(void)
{
    static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++)
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "cannot load libcurl: %s", dlerror());
        return;
    }
    const vgh_symbol symbols[] = {
        {"curl_global_init", &vgh_curl.global_init},       {"curl_easy_init", &vgh_curl.easy_init},
        {"curl_easy_setopt", &vgh_curl.easy_setopt},       {"curl_easy_perform", &vgh_curl.easy_perform},
        {"curl_easy_getinfo", &vgh_curl.easy_getinfo},     {"curl_easy_cleanup", &vgh_curl.easy_cleanup},
        {"curl_slist_append", &vgh_curl.slist_append},     {"curl_slist_free_all", &vgh_curl.slist_free_all},
        {"curl_easy_strerror", &vgh_curl.easy_strerror},   {"curl_version_info", &vgh_curl.version_info},
    };
    const char *missing = vgh_resolve_all(library, symbols, sizeof symbols / sizeof symbols[0]);
    if (missing) {
        snprintf(load_error, sizeof load_error, "libcurl lacks a needed function (%s)", missing);
        return;
    }
    if (vgh_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    /* After init (a forwarding libcurl may load the real one only then),
     * before the first transfer makes a descriptor. */
    (void)vgh_curl_make_descriptors_cloexec();
    const curl_version_info_data *info = vgh_curl.version_info(CURLVERSION_NOW);
    if (!info) {
        snprintf(load_error, sizeof load_error, "curl_version_info returned nothing");
        return;
    }
    vgh_curl.version_num = info->version_num;
    snprintf(vgh_curl.version, sizeof vgh_curl.version, "%s", info->version ? info->version : "?");
    vgh_curl.quick_exit = accepts_quick_exit();
    /* A synchronous resolver blocks the transfer itself; a threaded one
     * is joined when a transfer times out unless QUICK_EXIT says not to. */
    vgh_curl.caller_thread_safe = vgh_curl.quick_exit && (info->features & CURL_VERSION_ASYNCHDNS);
    /* A fork child shares the parent's network state (sockets, TLS and
     * resolver threads that do not exist in the child): it must not use it. */
    pthread_atfork(NULL, NULL, mark_fork_child);
    loaded = 1;
}

int vgh_curl_load(char *error, size_t size)
{
    pthread_once(&load_once, load_curl);
    if (!loaded) snprintf(error, size, "%s", load_error);
    return loaded;
}
