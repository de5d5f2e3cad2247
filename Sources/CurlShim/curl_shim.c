/* One HTTP exchange through a dlopen'ed libcurl. See curl_shim.h. */
#define _GNU_SOURCE
#include "curl_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A streaming request's receiver (vgh_request.on_chunk): every body byte
 * counts against max_body_bytes, in all; each block goes to on_chunk with
 * the status libcurl has parsed by then. `stopped` records that on_chunk
 * said stop, `over` that the cap was hit: both end the transfer with
 * CURLE_WRITE_ERROR, told apart afterwards. */
typedef struct stream {
    CURL *easy;
    const vgh_request *rq;
    size_t total;
    int over, stopped;
} stream;

static size_t on_stream(char *bytes, size_t size, size_t count, void *user)
{
    stream *s = user;
    size_t n = size * count;
    if (n == 0) return 0;
    if (n > s->rq->max_body_bytes - s->total) { s->over = 1; return 0; }
    s->total += n;
    long status = 0;
    vgh_curl.easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
    if (!s->rq->on_chunk(s->rq->chunk_context, status, (const unsigned char *)bytes, n)) {
        s->stopped = 1;
        return 0;
    }
    return n;
}

static size_t on_header(char *bytes, size_t size, size_t count, void *user)
{
    sink *s = user;
    size_t n = size * count;
    /* A new status line starts a new response (1xx, or a proxy's): keep only the last. */
    if (n >= 5 && memcmp(bytes, "HTTP/", 5) == 0) s->length = 0;
    return sink_append(s, bytes, n) ? n : 0;
}

/* CURLE_TOO_LARGE, curl 8.6's code for a header or field over libcurl's own
 * limit (Debian 13's 8.14 reports a 1 MB header as this); by number, so the
 * shim compiles against older curl.h too. */
enum { VG_CURLE_TOO_LARGE = 100 };

static vgh_outcome classify(CURLcode code, const sink *body, const sink *headers)
{
    if ((int)code == VG_CURLE_TOO_LARGE) return VGH_TOO_LARGE;
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

/* A required option libcurl refuses fails the request, naming it. */
#define SET(option, value) \
    (vgh_curl.easy_setopt(easy, option, value) == CURLE_OK || refused(why, #option))

static int refused(const char **why, const char *option)
{
    *why = option;
    return 0;
}

/* The bitmask forms, deprecated since 7.85 but all that 7.68-7.84 have.
 * curl.h marks them for GCC (clang passes as GCC 4 and is not told); the
 * warning is silenced here only: this is the one place they are meant. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int set_protocol_bits(CURL *easy)
{
    const long web = CURLPROTO_HTTP | CURLPROTO_HTTPS;
    return vgh_curl.easy_setopt(easy, CURLOPT_PROTOCOLS, web) == CURLE_OK
        && vgh_curl.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS, web) == CURLE_OK;
}
#pragma GCC diagnostic pop

static int set_protocol_names(CURL *easy)
{
    return vgh_curl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
        && vgh_curl.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") == CURLE_OK;
}

/* Only http and https, ever (required). The version picks the form to try
 * first (the names since 7.85); a refusal tries the other, for builds and
 * distribution patches that differ from their version number. Redirects
 * are ours to follow, but curl is told the same in case. */
static int restrict_protocols(CURL *easy, const char **why)
{
    int names_first = vgh_curl.version_num >= 0x075500;
    if (names_first ? set_protocol_names(easy) || set_protocol_bits(easy)
                    : set_protocol_bits(easy) || set_protocol_names(easy))
        return 1;
    *why = "CURLOPT_PROTOCOLS and CURLOPT_PROTOCOLS_STR";
    return 0;
}

/* `body` is a sink, or for a stream (rq->on_chunk) the stream. */
static int configure(CURL *easy, const vgh_request *rq, struct curl_slist *headers, void *body,
                     sink *head, char *error_buffer, const char **why)
{
    /* A stream: timeout_ms bounds the connection (DNS, connect, TLS, a
     * proxy's tunnel), max_stream_ms the whole exchange. */
    long total_ms = rq->on_chunk ? rq->max_stream_ms : rq->timeout_ms;
    char no_proxy_buffer[4096];                    /* curl copies string options */
    const char *no_proxy = no_proxy_list(no_proxy_buffer, sizeof no_proxy_buffer);
    /* Optional (see curl_load.c): a refusal here changes nothing. */
    if (vgh_curl.quick_exit) (void)vgh_curl.easy_setopt(easy, CURLOPT_QUICK_EXIT, 1L);
    return SET(CURLOPT_URL, rq->url)
        && SET(CURLOPT_NOSIGNAL, 1L)               /* no SIGALRM: the helper's alarm is its own bound */
        && SET(CURLOPT_TIMEOUT_MS, total_ms)
        && SET(CURLOPT_CONNECTTIMEOUT_MS, rq->timeout_ms)
        && SET(CURLOPT_FOLLOWLOCATION, 0L)         /* the caller vets every hop */
        && restrict_protocols(easy, why)
        && SET(CURLOPT_SSL_VERIFYPEER, 1L)
        && SET(CURLOPT_SSL_VERIFYHOST, 2L)
        && (rq->ca_file == NULL || SET(CURLOPT_CAINFO, rq->ca_file))
        && (rq->unix_socket == NULL || SET(CURLOPT_UNIX_SOCKET_PATH, rq->unix_socket))
        && SET(CURLOPT_PROXY, rq->proxy ? rq->proxy : "")
        && SET(CURLOPT_NOPROXY, no_proxy)
        && SET(CURLOPT_ACCEPT_ENCODING, "")        /* decoded bytes are what the cap counts */
        && SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)rq->max_body_bytes)
        && SET(CURLOPT_USERAGENT, "VersionGate/0.1")
        && SET(CURLOPT_HTTPHEADER, headers)
        && SET(CURLOPT_WRITEFUNCTION, rq->on_chunk ? on_stream : on_body)
        && SET(CURLOPT_WRITEDATA, body)
        && SET(CURLOPT_HEADERFUNCTION, on_header)
        && SET(CURLOPT_HEADERDATA, head)
        && SET(CURLOPT_ERRORBUFFER, error_buffer)
        && (!rq->post || (SET(CURLOPT_POST, 1L)
                          && SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->body_length)
                          && SET(CURLOPT_POSTFIELDS, rq->body ? rq->body : "")));
}

static vgh_outcome exchange(const vgh_request *rq, vgh_response *rs)
{
    sink body = { .max = rq->max_body_bytes }, head = { .max = rq->max_header_bytes };
    char error_buffer[CURL_ERROR_SIZE] = "";
    struct curl_slist *headers = vgh_curl.slist_append(NULL, "Expect:");
    for (size_t i = 0; headers && i < rq->header_count; i++) {
        struct curl_slist *more = vgh_curl.slist_append(headers, rq->headers[i]);
        if (!more) { vgh_curl.slist_free_all(headers); headers = NULL; }
        headers = more;
    }
    CURL *easy = headers ? vgh_curl.easy_init() : NULL;
    if (!easy) {
        vgh_curl.slist_free_all(headers);
        snprintf(rs->message, sizeof rs->message, "out of memory");
        return VGH_INTERNAL;
    }
    stream streamed = { .easy = easy, .rq = rq };

    vgh_outcome outcome;
    CURLcode code = CURLE_FAILED_INIT;
    const char *why = "?";
    if (!configure(easy, rq, headers, rq->on_chunk ? (void *)&streamed : (void *)&body, &head, error_buffer, &why)) {
        outcome = VGH_INTERNAL;
        snprintf(rs->message, sizeof rs->message, "libcurl %s refused %s", vgh_curl.version, why);
    } else {
        code = vgh_curl.easy_perform(easy);
        body.over |= streamed.over;            /* a stream over max_body_bytes */
        /* The caller's stop is a clean end, with what it received. */
        rs->stopped = streamed.stopped && code == CURLE_WRITE_ERROR;
        outcome = rs->stopped ? VGH_OK : classify(code, &body, &head);
    }
    if (outcome == VGH_OK) {
        char *location = NULL;
        vgh_curl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &rs->status);
        if (vgh_curl.easy_getinfo(easy, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location)
            rs->redirect_url = strdup(location);
        rs->body = body.data;
        rs->body_length = body.length;
        rs->headers = (char *)head.data;
        rs->headers_length = head.length;
        body.data = NULL;
        head.data = NULL;
    } else if (code != CURLE_FAILED_INIT) {
        /* curl's buffer says more (host, port, elapsed); its code's text is the fallback. */
        snprintf(rs->message, sizeof rs->message, "%s", error_buffer[0] ? error_buffer : vgh_curl.easy_strerror(code));
    }
    free(body.data);
    free(head.data);
    vgh_curl.easy_cleanup(easy);
    vgh_curl.slist_free_all(headers);
    return outcome;
}

vgh_outcome vgh_perform(const vgh_request *request, vgh_response *response)
{
    memset(response, 0, sizeof *response);
    if (!vgh_curl_load(response->message, sizeof response->message)) return VGH_UNAVAILABLE;
    if (request->timeout_ms <= 0) {
        snprintf(response->message, sizeof response->message, "deadline already passed");
        return VGH_TIMEOUT;
    }
    if (request->on_chunk && request->max_stream_ms <= 0) {
        snprintf(response->message, sizeof response->message, "no time to stream (max_stream_ms %ld)",
                 request->max_stream_ms);
        return VGH_TIMEOUT;
    }
    return exchange(request, response);
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
