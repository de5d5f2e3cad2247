/*
 * A stand-in libcurl.so.4 for Tests/python/test_old_curl.py: every entry
 * point the shim resolves is forwarded to a real libcurl ($VG_REAL_CURL, an
 * absolute path), so the exchange is real. With VG_CURL_AS=7.68 it plays an
 * older libcurl: curl_version_info reports 7.68.0 and curl_easy_setopt
 * refuses the options added since (QUICK_EXIT, PROTOCOLS_STR,
 * REDIR_PROTOCOLS_STR) as such a libcurl does. Each setopt is appended to
 * $VG_CURL_LOG as "option value result" (value only for long options), so
 * the test sees what the shim asked for. $VG_CURL_REFUSE (option numbers,
 * comma-separated) refuses more, as a build without them would.
 */
#define _GNU_SOURCE
#define CURL_DISABLE_TYPECHECK     /* its macros would rename our definitions */
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *real;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void open_real(void)
{
    const char *path = getenv("VG_REAL_CURL");
    real = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!real) {
        fprintf(stderr, "libcurl_wrapper: cannot open VG_REAL_CURL=%s: %s\n", path ? path : "(unset)", dlerror());
        abort();
    }
}

static void *real_symbol(const char *name)
{
    pthread_once(&once, open_real);
    void *symbol = dlsym(real, name);
    if (!symbol) { fprintf(stderr, "libcurl_wrapper: real libcurl lacks %s\n", name); abort(); }
    return symbol;
}

static int plays_old(void)
{
    const char *as = getenv("VG_CURL_AS");
    return as && strcmp(as, "7.68") == 0;
}

#define FORWARD(type, name) static type (*f)(); if (!f) *(void **)&f = real_symbol(#name)

CURLcode curl_global_init(long flags) { FORWARD(CURLcode, curl_global_init); return f(flags); }
CURL *curl_easy_init(void) { FORWARD(CURL *, curl_easy_init); return f(); }
CURLcode curl_easy_perform(CURL *easy) { FORWARD(CURLcode, curl_easy_perform); return f(easy); }
void curl_easy_cleanup(CURL *easy) { FORWARD(void, curl_easy_cleanup); f(easy); }
const char *curl_easy_strerror(CURLcode code) { FORWARD(const char *, curl_easy_strerror); return f(code); }
void curl_slist_free_all(struct curl_slist *list) { FORWARD(void, curl_slist_free_all); f(list); }
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text)
{
    FORWARD(struct curl_slist *, curl_slist_append);
    return f(list, text);
}

CURLcode curl_easy_getinfo(CURL *easy, CURLINFO info, ...)
{
    FORWARD(CURLcode, curl_easy_getinfo);
    va_list args;
    va_start(args, info);
    void *out = va_arg(args, void *);      /* every CURLINFO takes one pointer */
    va_end(args);
    return f(easy, info, out);
}

curl_version_info_data *curl_version_info(CURLversion age)
{
    FORWARD(curl_version_info_data *, curl_version_info);
    curl_version_info_data *data = f(age);
    if (!plays_old() || !data) return data;
    static curl_version_info_data old;
    old = *data;
    old.version = "7.68.0";
    old.version_num = 0x074400;
    return &old;
}

static int refused(CURLoption option)
{
    if (plays_old() && (option == CURLOPT_QUICK_EXIT || option == CURLOPT_PROTOCOLS_STR
                        || option == CURLOPT_REDIR_PROTOCOLS_STR))
        return 1;
    const char *list = getenv("VG_CURL_REFUSE");
    for (char *end; list && *list; list = *end ? end + 1 : end)
        if (strtol(list, &end, 10) == (long)option) return 1;
    return 0;
}

static void record(int option, const long *value, CURLcode result)
{
    const char *path = getenv("VG_CURL_LOG");
    FILE *log = path ? fopen(path, "a") : NULL;
    if (!log) return;
    if (value) fprintf(log, "%d %ld %d\n", option, *value, (int)result);
    else fprintf(log, "%d - %d\n", option, (int)result);
    fclose(log);
}

CURLcode curl_easy_setopt(CURL *easy, CURLoption option, ...)
{
    FORWARD(CURLcode, curl_easy_setopt);
    va_list args;
    va_start(args, option);
    CURLcode result;
    long number = 0;
    int is_long = option < CURLOPTTYPE_OBJECTPOINT;
    if (refused(option)) {
        if (is_long) number = va_arg(args, long);
        result = CURLE_UNKNOWN_OPTION;
    } else if (is_long) {
        number = va_arg(args, long);
        result = f(easy, option, number);
    } else if (option >= CURLOPTTYPE_OFF_T) {
        result = f(easy, option, va_arg(args, curl_off_t));
    } else if (option >= CURLOPTTYPE_FUNCTIONPOINT) {
        result = f(easy, option, va_arg(args, void (*)(void)));
    } else {
        result = f(easy, option, va_arg(args, void *));
    }
    va_end(args);
    record(option, is_long ? &number : NULL, result);
    return result;
}
