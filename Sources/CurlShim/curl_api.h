/*
 * Inside the shim only: the loaded libcurl. It is loaded in the fetch helper
 * alone (docs/design.md, "The fetch helper"), never in a host's process.
 */
#ifndef VERSIONGATE_CURL_API_H
#define VERSIONGATE_CURL_API_H

#include "curl_shim.h"
#include <curl/curl.h>

#define VGH_HIDDEN __attribute__((visibility("hidden")))

/* The few libcurl entry points we use, resolved with dlsym, and what
 * curl_version_info said about the library. */
typedef struct vgh_curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    const char *(*easy_strerror)(CURLcode);
    curl_version_info_data *(*version_info)(CURLversion);

    unsigned int version_num;      /* 0xXXYYZZ, e.g. 0x074400 for 7.68.0 */
    char version[32];              /* "7.68.0", for messages */
    int quick_exit;                /* CURLOPT_QUICK_EXIT exists and was accepted */
} vgh_curl_api;

VGH_HIDDEN extern vgh_curl_api vgh_curl;

/* Loads libcurl once (thread-safe). Returns 1 when usable, else 0 with
 * the reason in `error`. */
VGH_HIDDEN int vgh_curl_load(char *error, size_t size);

#endif
