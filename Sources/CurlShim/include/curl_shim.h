/*
 * curl_shim.h — one HTTP exchange through libcurl, for VersionGate's
 * transport. libcurl is loaded with dlopen on first use, so a check answered
 * from a local document never loads network libraries, and curl's variadic
 * setopt stays on the C side. Redirects are NOT followed here: the Swift
 * caller checks every target against its URL policy first.
 *
 * A request may instead stream its response (a long-held answer such as
 * Firebase Remote Config's realtime channel): see `on_chunk` below.
 */
#ifndef VERSIONGATE_CURL_SHIM_H
#define VERSIONGATE_CURL_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vgh_outcome {
    VGH_OK = 0,          /* a complete HTTP response (any status), or a stream its
                            on_chunk stopped (vgh_response.stopped says which) */
    VGH_UNAVAILABLE,     /* libcurl could not be loaded */
    VGH_TIMEOUT,         /* the deadline passed */
    VGH_TOO_LARGE,       /* the decoded body or the headers went over the cap */
    VGH_TLS,             /* TLS handshake or certificate verification failed */
    VGH_RESOLVE,         /* the host name did not resolve */
    VGH_CONNECT,         /* the connection was refused or could not be made */
    VGH_PROTOCOL,        /* not a valid HTTP/1.x or HTTP/2 response */
    VGH_NETWORK,         /* the peer reset or closed early, or another I/O error */
    VGH_INTERNAL         /* out of memory or a libcurl misuse */
} vgh_outcome;

/* A streaming request's receiver: `length` (> 0) body bytes as they arrive,
 * decoded, with the response's HTTP status (any: the caller decides what a
 * non-2xx body means). Returns nonzero to go on, 0 to stop the exchange: it
 * then ends as VGH_OK with vgh_response.stopped set. Runs on the thread
 * that called vgh_perform. */
typedef int (*vgh_chunk_sink)(void *context, long status, const unsigned char *bytes, size_t length);

typedef struct vgh_request {
    const char *url;
    int post;                      /* 0 = GET, 1 = POST with body */
    const char *const *headers;    /* "Name: value" lines */
    size_t header_count;
    const void *body;
    size_t body_length;
    long timeout_ms;               /* covers DNS, connect, TLS and the whole body;
                                      a stream's: DNS, connect and TLS only */
    size_t max_body_bytes;         /* decoded bytes; a stream's in all (over it: VGH_TOO_LARGE),
                                      so a server cannot feed it forever */
    size_t max_header_bytes;
    const char *ca_file;           /* NULL = the system trust store */
    const char *proxy;             /* the proxy to use, "" = none (direct); never NULL: the
                                      caller chose (docs/design.md, "The desktop's proxy") */
    const char *unix_socket;       /* NULL, or the unix socket to talk HTTP over (snapd's) */
    /* Streaming: all zero (NULL) = an ordinary exchange, body buffered. */
    vgh_chunk_sink on_chunk;       /* non-NULL: the body goes here, never into vgh_response.body */
    void *chunk_context;           /* on_chunk's first argument */
    long max_stream_ms;            /* with on_chunk: bounds the whole exchange; must be > 0
                                      (a stream is always bounded: <= 0 is VGH_TIMEOUT) */
} vgh_request;

typedef struct vgh_response {
    long status;
    unsigned char *body;           /* malloc'd; body_length bytes */
    size_t body_length;
    char *headers;                 /* the final response's header lines, "\r\n"-separated */
    size_t headers_length;
    char *redirect_url;            /* absolute Location of a 3xx, or NULL */
    char message[384];             /* what went wrong, when the outcome is not VGH_OK */
    int stopped;                   /* 1: a stream's on_chunk returned 0 and the exchange
                                      ended there (outcome VGH_OK); else 0 */
} vgh_response;

/* Performs one exchange. Always fills `response` (release it with
 * vgh_response_release). Thread-safe. Only the fetch helper calls it: a
 * peer closing mid-write raises SIGPIPE, which the helper ignores. */
__attribute__((visibility("hidden"))) vgh_outcome vgh_perform(const vgh_request *request, vgh_response *response);

__attribute__((visibility("hidden"))) void vgh_response_release(vgh_response *response);

/* The version of the libcurl loaded ("7.74.0"), or NULL before one is. */
__attribute__((visibility("hidden"))) const char *vgh_curl_loaded_version(void);

#ifdef __cplusplus
}
#endif

#endif
