/* Loading libcurl and reading what it can do. See curl_api.h. */
#define _GNU_SOURCE
#include "curl_api.h"
#include "dynamic_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

vgh_curl_api vgh_curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;                 /* 1 once libcurl is usable */
static char load_error[256];

/* CURLOPT_QUICK_EXIT (7.87) lets a timed-out transfer forget its resolver
 * thread, so the helper answers at its deadline. The version says whether
 * to try it; the return code is the last word (a build may lack it, a
 * distribution may have patched it in). Without it the host's kill at its
 * deadline ends a helper held by a resolver. */
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
    const curl_version_info_data *info = vgh_curl.version_info(CURLVERSION_NOW);
    if (!info) {
        snprintf(load_error, sizeof load_error, "curl_version_info returned nothing");
        return;
    }
    vgh_curl.version_num = info->version_num;
    snprintf(vgh_curl.version, sizeof vgh_curl.version, "%s", info->version ? info->version : "?");
    vgh_curl.quick_exit = accepts_quick_exit();
    __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

const char *vgh_curl_loaded_version(void)
{
    return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) ? vgh_curl.version : NULL;
}

int vgh_curl_load(char *error, size_t size)
{
    pthread_once(&load_once, load_curl);
    if (!loaded) snprintf(error, size, "%s", load_error);
    return loaded;
}
