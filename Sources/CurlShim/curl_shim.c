/* One HTTP exchange through a dlopen'ed libcurl. See curl_shim.h. */
#define _GNU_SOURCE
#include "curl_shim.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The few libcurl entry points we use, resolved at first use. */
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    const char *(*easy_strerror)(CURLcode);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;                 /* 1 once libcurl is usable */
static char load_error[256];
static volatile sig_atomic_t is_fork_child;

static void mark_fork_child(void) { is_fork_child = 1; }

/* dlsym returns an object pointer; copy it into a function pointer. */
static int resolve(void *library, const char *name, void *slot)
{
    void *symbol = dlsym(library, name);
    if (!symbol) return 0;
    memcpy(slot, &symbol, sizeof symbol);
    return 1;
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
    if (!resolve(library, "curl_global_init", &api.global_init) ||
        !resolve(library, "curl_easy_init", &api.easy_init) ||
        !resolve(library, "curl_easy_setopt", &api.easy_setopt) ||
        !resolve(library, "curl_easy_perform", &api.easy_perform) ||
        !resolve(library, "curl_easy_getinfo", &api.easy_getinfo) ||
        !resolve(library, "curl_easy_cleanup", &api.easy_cleanup) ||
        !resolve(library, "curl_slist_append", &api.slist_append) ||
        !resolve(library, "curl_slist_free_all", &api.slist_free_all) ||
        !resolve(library, "curl_easy_strerror", &api.easy_strerror)) {
        snprintf(load_error, sizeof load_error, "libcurl lacks a needed function");
        return;
    }
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed");
        return;
    }
    /* A fork child shares the parent's network state (sockets, TLS and
     * resolver threads that do not exist in the child): it must not use it. */
    pthread_atfork(NULL, NULL, mark_fork_child);
    loaded = 1;
}

/* A growing buffer with a hard cap; `over` records that the cap was hit. */
typedef struct sink {
    unsigned char *data;
    size_t length, capacity, max;
    int over;
} sink;

static int sink_append(sink *s, const char *bytes, size_t n)
{
    if (n > s->max - s->length) { s->over = 1; return 0; }
    if (s->length + n + 1 > s->capacity) {
        size_t capacity = s->capacity ? s->capacity : 4096;
        while (capacity < s->length + n + 1) capacity *= 2;
        if (capacity > s->max + 1) capacity = s->max + 1;
        unsigned char *grown = realloc(s->data, capacity);
        if (!grown) return 0;
        s->data = grown;
        s->capacity = capacity;
    }
    memcpy(s->data + s->length, bytes, n);
    s->length += n;
    s->data[s->length] = 0;
    return 1;
}

static size_t on_body(char *bytes, size_t size, size_t count, void *user)
{
    return sink_append(user, bytes, size * count) ? size * count : 0;
}

static size_t on_header(char *bytes, size_t size, size_t count, void *user)
{
    sink *s = user;
    size_t n = size * count;
    /* A new status line starts a new response (1xx, or a proxy's): keep only the last. */
    if (n >= 5 && memcmp(bytes, "HTTP/", 5) == 0) s->length = 0;
    return sink_append(s, bytes, n) ? n : 0;
}

static vgh_outcome classify(CURLcode code, const sink *body, const sink *headers)
{
    switch (code) {
    case CURLE_OK: return VGH_OK;
    case CURLE_OPERATION_TIMEDOUT: return VGH_TIMEOUT;
    case CURLE_FILESIZE_EXCEEDED: return VGH_TOO_LARGE;
    case CURLE_WRITE_ERROR: return body->over || headers->over ? VGH_TOO_LARGE : VGH_INTERNAL;
    case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_RESOLVE_PROXY: return VGH_RESOLVE;
    case CURLE_COULDNT_CONNECT: return VGH_CONNECT;
    case CURLE_SSL_CONNECT_ERROR: case CURLE_PEER_FAILED_VERIFICATION: case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER: case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_INVALIDCERTSTATUS: case CURLE_SSL_PINNEDPUBKEYNOTMATCH: case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND: case CURLE_SSL_ENGINE_SETFAILED: case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED: return VGH_TLS;
    case CURLE_WEIRD_SERVER_REPLY: case CURLE_UNSUPPORTED_PROTOCOL: case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP2: case CURLE_HTTP2_STREAM: case CURLE_URL_MALFORMAT: case CURLE_HTTP3:
        return VGH_PROTOCOL;
    case CURLE_OUT_OF_MEMORY:
        /* 7.88 reports a header line over its own 100 KB limit as this. */
        return headers->length > 0 || body->length == 0 ? VGH_PROTOCOL : VGH_INTERNAL;
    default: return VGH_NETWORK;
    }
}

/* Every socket close-on-exec from its birth (SOCK_CLOEXEC: no window in
 * which a host thread's fork + exec could inherit it), so a program the
 * host runs meanwhile never holds our connections. */
static curl_socket_t open_socket(void *unused, curlsocktype purpose, struct curl_sockaddr *address)
{
    (void)unused;
    (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

/* CURLOPT_NOPROXY replaces the environment's list instead of adding to it:
 * so the list is the host's no_proxy (or NO_PROXY) plus loopback, which no
 * proxy must ever see. "*" (no proxy at all) stays "*". Fits `out` or
 * falls back to loopback alone. */
static const char *no_proxy_list(char *out, size_t size)
{
    static const char loopback[] = "127.0.0.1,::1,localhost";
    const char *host = getenv("no_proxy");
    if (!host || !*host) host = getenv("NO_PROXY");
    if (!host || !*host) return loopback;
    if (strcmp(host, "*") == 0) return "*";
    int n = snprintf(out, size, "%s,%s", host, loopback);
    return n > 0 && (size_t)n < size ? out : loopback;
}

#define SET(option, value) (api.easy_setopt(easy, option, value) == CURLE_OK)

static int configure(CURL *easy, const vgh_request *rq, struct curl_slist *headers, sink *body,
                     sink *head, char *error_buffer)
{
    char no_proxy_buffer[4096];                    /* curl copies string options */
    const char *no_proxy = no_proxy_list(no_proxy_buffer, sizeof no_proxy_buffer);
    return SET(CURLOPT_URL, rq->url)
        && SET(CURLOPT_NOSIGNAL, 1L)               /* no SIGALRM: we are in someone's process */
        && SET(CURLOPT_QUICK_EXIT, 1L)             /* never wait for a stuck resolver thread */
        && SET(CURLOPT_TIMEOUT_MS, rq->timeout_ms)
        && SET(CURLOPT_CONNECTTIMEOUT_MS, rq->timeout_ms)
        && SET(CURLOPT_FOLLOWLOCATION, 0L)         /* the caller vets every hop */
        && SET(CURLOPT_PROTOCOLS_STR, "http,https")
        && SET(CURLOPT_SSL_VERIFYPEER, 1L)
        && SET(CURLOPT_SSL_VERIFYHOST, 2L)
        && (rq->ca_file == NULL || SET(CURLOPT_CAINFO, rq->ca_file))
        && SET(CURLOPT_NOPROXY, no_proxy)
        && SET(CURLOPT_ACCEPT_ENCODING, "")        /* decoded bytes are what the cap counts */
        && SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)rq->max_body_bytes)
        && SET(CURLOPT_USERAGENT, "VersionGate/0.1")
        && SET(CURLOPT_HTTPHEADER, headers)
        && SET(CURLOPT_WRITEFUNCTION, on_body)
        && SET(CURLOPT_WRITEDATA, body)
        && SET(CURLOPT_HEADERFUNCTION, on_header)
        && SET(CURLOPT_HEADERDATA, head)
        && SET(CURLOPT_ERRORBUFFER, error_buffer)
        && SET(CURLOPT_OPENSOCKETFUNCTION, open_socket)
        && (!rq->post || (SET(CURLOPT_POST, 1L)
                          && SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_length)
                          && SET(CURLOPT_POSTFIELDS, rq->body ? rq->body : "")));
}

static vgh_outcome exchange(const vgh_request *rq, vgh_response *rs)
{
    sink body = { .max = rq->max_body_bytes }, head = { .max = rq->max_header_bytes };
    char error_buffer[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = api.slist_append(NULL, "Expect:");
    for (size_t i = 0; headers && i < rq->header_count; i++) {
        struct curl_slist *more = api.slist_append(headers, rq->headers[i]);
        if (!more) { api.slist_free_all(headers); headers = NULL; }
        headers = more;
    }
    CURL *easy = headers ? api.easy_init() : NULL;
    if (!easy) {
        api.slist_free_all(headers);
        snprintf(rs->message, sizeof rs->message, "out of memory");
        return VGH_INTERNAL;
    }

    vgh_outcome outcome;
    CURLcode code = CURLE_FAILED_INIT;
    if (!configure(easy, rq, headers, &body, &head, error_buffer)) {
        outcome = VGH_INTERNAL;
        snprintf(rs->message, sizeof rs->message, "libcurl refused an option");
    } else {
        code = api.easy_perform(easy);
        outcome = classify(code, &body, &head);
    }
    if (outcome == VGH_OK) {
        char *location = NULL;
        api.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &rs->status);
        if (api.easy_getinfo(easy, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location)
            rs->redirect_url = strdup(location);
        rs->body = body.data;
        rs->body_length = body.length;
        rs->headers = (char *)head.data;
        rs->headers_length = head.length;
        body.data = NULL;
        head.data = NULL;
    } else if (code != CURLE_FAILED_INIT) {
        /* curl's buffer says more (host, port, elapsed); its code's text is the fallback. */
        snprintf(rs->message, sizeof rs->message, "%s", error_buffer[0] ? error_buffer : api.easy_strerror(code));
    }
    free(body.data);
    free(head.data);
    api.easy_cleanup(easy);
    api.slist_free_all(headers);
    return outcome;
}

vgh_outcome vgh_perform(const vgh_request *request, vgh_response *response)
{
    memset(response, 0, sizeof *response);
    if (is_fork_child) {
        snprintf(response->message, sizeof response->message,
                 "refused in a fork() child: the parent's network state is not usable here");
        return VGH_FORKED;
    }
    pthread_once(&load_once, load_curl);
    if (!loaded) {
        snprintf(response->message, sizeof response->message, "%s", load_error);
        return VGH_UNAVAILABLE;
    }
    if (request->timeout_ms <= 0) {
        snprintf(response->message, sizeof response->message, "deadline already passed");
        return VGH_TIMEOUT;
    }

    /* A peer closing mid-write raises SIGPIPE, whose default kills the host:
     * block it on this thread and swallow any we caused. */
    sigset_t pipe_only, saved, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &saved);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);

    vgh_outcome outcome = exchange(request, response);

    if (!was_pending) {
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe_only, NULL, &zero) > 0) {}
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    return outcome;
}

void vgh_response_release(vgh_response *response)
{
    if (!response) return;
    free(response->body);
    free(response->headers);
    free(response->redirect_url);
    response->body = NULL;
    response->headers = NULL;
    response->redirect_url = NULL;
}
