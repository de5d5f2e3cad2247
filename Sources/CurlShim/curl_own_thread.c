/*
 * An exchange on a thread of its own, for a libcurl that could hold the
 * caller past its deadline: before 7.87 (no CURLOPT_QUICK_EXIT) a transfer
 * that times out while its threaded resolver is still in getaddrinfo waits
 * for that thread (curl issue #2975), and a synchronous resolver blocks the
 * transfer itself. The caller waits for the answer until the deadline plus
 * a little and then returns VGH_TIMEOUT; the thread finishes alone, holding
 * a copy of the request, and frees everything. The cost: a thread per
 * request, and a stuck lookup's thread lives until the lookup gives up.
 */
#define _GNU_SOURCE
#include "curl_api.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct job {
    pthread_mutex_t lock;
    pthread_cond_t answered;
    int done;                      /* the response is final */
    int holders;                   /* the caller and the thread; the last one frees */
    vgh_outcome outcome;
    vgh_response response;
    vgh_request request;           /* points into the copies below */
    char *url, *ca_file, **headers;
    void *body;
} job;

static void job_free(job *j)
{
    for (size_t i = 0; j->headers && i < j->request.header_count; i++) free(j->headers[i]);
    free(j->headers);
    free(j->url);
    free(j->ca_file);
    free(j->body);
    vgh_response_release(&j->response);
    pthread_cond_destroy(&j->answered);
    pthread_mutex_destroy(&j->lock);
    free(j);
}

static void job_release(job *j)
{
    pthread_mutex_lock(&j->lock);
    int last = --j->holders == 0;
    pthread_mutex_unlock(&j->lock);
    if (last) job_free(j);
}

static char *copy_string(const char *text, int *ok)
{
    if (!text) return NULL;
    char *copy = strdup(text);
    if (!copy) *ok = 0;
    return copy;
}

/* The thread may outlive the caller's buffers: it gets copies. */
static job *job_new(const vgh_request *rq)
{
    job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&j->answered, &monotonic);
    pthread_condattr_destroy(&monotonic);
    pthread_mutex_init(&j->lock, NULL);
    j->holders = 2;
    j->request = *rq;
    int ok = 1;
    j->url = copy_string(rq->url, &ok);
    j->ca_file = copy_string(rq->ca_file, &ok);
    j->headers = rq->header_count ? calloc(rq->header_count, sizeof *j->headers) : NULL;
    if (rq->header_count && !j->headers) ok = 0;
    for (size_t i = 0; ok && i < rq->header_count; i++) j->headers[i] = copy_string(rq->headers[i], &ok);
    if (rq->body && rq->body_length) {
        j->body = malloc(rq->body_length);
        if (j->body) memcpy(j->body, rq->body, rq->body_length);
        else ok = 0;
    }
    j->request.url = j->url;
    j->request.ca_file = j->ca_file;
    j->request.headers = (const char *const *)j->headers;
    j->request.body = j->body;
    if (!ok) { job_free(j); return NULL; }
    return j;
}

static void on_answer(void *context, vgh_outcome outcome)
{
    job *j = context;
    pthread_mutex_lock(&j->lock);
    j->outcome = outcome;
    j->done = 1;
    pthread_cond_signal(&j->answered);
    pthread_mutex_unlock(&j->lock);
}

static void *run(void *context)
{
    job *j = context;
    (void)vgh_exchange(&j->request, &j->response, on_answer, j);
    job_release(j);
    return NULL;
}

/* Curl's own timer normally answers first, with its message; this grace
 * (2 %, at most 20 ms, well within the 10 % of docs/design.md,
 * "Deadlines and limits") only lets it. */
static struct timespec wait_limit(long timeout_ms)
{
    long grace_ms = timeout_ms / 50 < 20 ? timeout_ms / 50 : 20;
    struct timespec limit;
    clock_gettime(CLOCK_MONOTONIC, &limit);
    long long ns = limit.tv_nsec + (long long)(timeout_ms + grace_ms) * 1000000LL;
    limit.tv_sec += (time_t)(ns / 1000000000LL);
    limit.tv_nsec = (long)(ns % 1000000000LL);
    return limit;
}

vgh_outcome vgh_exchange_on_own_thread(const vgh_request *request, vgh_response *response)
{
    struct timespec limit = wait_limit(request->timeout_ms);
    job *j = job_new(request);
    if (!j) {
        snprintf(response->message, sizeof response->message, "out of memory");
        return VGH_INTERNAL;
    }
    /* The thread takes no signal of the host's (SIGPIPE included: a peer
     * closing mid-write cannot kill the process). */
    sigset_t all, saved;
    sigfillset(&all);
    pthread_attr_t detached;
    pthread_attr_init(&detached);
    pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    pthread_t thread;
    int started = pthread_create(&thread, &detached, run, j);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    pthread_attr_destroy(&detached);
    if (started != 0) {
        job_free(j);
        snprintf(response->message, sizeof response->message, "cannot start a thread for the request: %s",
                 strerror(started));
        return VGH_INTERNAL;
    }

    pthread_mutex_lock(&j->lock);
    int waited = 0;
    while (!j->done && waited != ETIMEDOUT) waited = pthread_cond_timedwait(&j->answered, &j->lock, &limit);
    vgh_outcome outcome;
    if (j->done) {
        outcome = j->outcome;
        *response = j->response;                 /* moved: the job keeps nothing of it */
        memset(&j->response, 0, sizeof j->response);
    } else {
        outcome = VGH_TIMEOUT;
        snprintf(response->message, sizeof response->message,
                 "no answer within %ld ms (libcurl %s, still resolving or connecting)", request->timeout_ms,
                 vgh_curl.version);
    }
    pthread_mutex_unlock(&j->lock);
    job_release(j);
    return outcome;
}
