/*
 * Inside the shim only: the loaded libcurl, and the two ways an exchange
 * runs (curl_shim.c on the caller's thread, curl_own_thread.c on a thread
 * of its own when the caller's could be held past the deadline).
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
    int caller_thread_safe;        /* no lookup can hold the caller past its deadline */
} vgh_curl_api;

VGH_HIDDEN extern vgh_curl_api vgh_curl;

/* Loads libcurl once (thread-safe). Returns 1 when usable, else 0 with
 * the reason in `error`. */
VGH_HIDDEN int vgh_curl_load(char *error, size_t size);

/* Points libcurl's own socket and socketpair calls at versions that add
 * SOCK_CLOEXEC (curl_cloexec.c); returns how many slots it changed. */
VGH_HIDDEN int vgh_curl_make_descriptors_cloexec(void);

/* 1 in a fork() child of a process that loaded libcurl. */
VGH_HIDDEN int vgh_curl_in_fork_child(void);

/* One exchange on the calling thread. `answered` (may be NULL) is called
 * with `context` and the outcome once `response` is final, before the
 * handle is cleaned up (which may wait, see curl_own_thread.c). */
VGH_HIDDEN vgh_outcome vgh_exchange(const vgh_request *request, vgh_response *response,
                                    void (*answered)(void *, vgh_outcome), void *context);

/* vgh_exchange on a thread of its own, waited for until the request's
 * deadline (plus a little): past it, VGH_TIMEOUT, and the thread finishes
 * alone. */
VGH_HIDDEN vgh_outcome vgh_exchange_on_own_thread(const vgh_request *request, vgh_response *response);

#endif
