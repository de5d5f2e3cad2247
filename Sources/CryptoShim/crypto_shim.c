/* libcrypto through dlopen. See include/crypto_shim.h. */
#define _GNU_SOURCE
#include "crypto_shim.h"
#include "dynamic_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The few OpenSSL declarations used (<openssl/evp.h>, <openssl/err.h>),
 * written here so the build needs no OpenSSL headers: libcrypto is a run-time
 * dependency only, like libcurl. The struct tags are OpenSSL's own. Every
 * function here is in OpenSSL 1.1.1 and 3 alike, but for EVP_MD_fetch (3). */
typedef struct evp_pkey_st EVP_PKEY;
typedef struct evp_md_st EVP_MD;
typedef struct evp_md_ctx_st EVP_MD_CTX;
typedef struct evp_pkey_ctx_st EVP_PKEY_CTX;
typedef struct engine_st ENGINE;
typedef struct ossl_lib_ctx_st OSSL_LIB_CTX;
enum { VGC_EVP_PKEY_ED25519 = 1087 };   /* NID_ED25519, <openssl/obj_mac.h> */

static struct {
    EVP_PKEY *(*new_raw_public_key)(int type, ENGINE *e, const unsigned char *key, size_t keylen);
    void (*pkey_free)(EVP_PKEY *key);
    EVP_MD_CTX *(*md_ctx_new)(void);
    void (*md_ctx_free)(EVP_MD_CTX *ctx);
    int (*digest_verify_init)(EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *key);
    int (*digest_verify)(EVP_MD_CTX *ctx, const unsigned char *sig, size_t siglen,
                         const unsigned char *tbs, size_t tbslen);
    int (*digest)(const void *data, size_t count, unsigned char *md, unsigned int *size,
                  const EVP_MD *type, ENGINE *impl);
    int (*digest_init)(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
    int (*digest_update)(EVP_MD_CTX *ctx, const void *data, size_t count);
    int (*digest_final)(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *size);
    void (*err_clear_error)(void);
} api;

/* OpenSSL 3 first, then 1.1.1 (Debian 11, Ubuntu 20.04: no libcrypto.so.3).
 * The first that loads is used; one that lacks a function is an error. */
static const char *const candidates[] = { "libcrypto.so.3", "libcrypto.so.1.1" };

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];
static const EVP_MD *blake2b512;   /* fetched once, kept for the process */

/* OpenSSL 3 fetches an implementation once (EVP_MD_fetch); 1.1.1 has only
 * the built-in table (EVP_blake2b512), which 3 would fetch on every use. */
static const EVP_MD *find_blake2b512(void *library)
{
    EVP_MD *(*md_fetch)(OSSL_LIB_CTX *, const char *, const char *);
    const EVP_MD *(*legacy)(void);
    void *found = dlsym(library, "EVP_MD_fetch");
    if (found) {
        memcpy(&md_fetch, &found, sizeof found);
        return md_fetch(NULL, "BLAKE2B-512", NULL);
    }
    found = dlsym(library, "EVP_blake2b512");
    if (!found) return NULL;
    memcpy(&legacy, &found, sizeof found);
    return legacy();
}

static void load_crypto(void)
{
    void *library = NULL;
    const char *soname = NULL;
    size_t used = 0;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && !library; i++) {
        soname = candidates[i];
        library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!library && used < sizeof load_error) {
            int n = snprintf(load_error + used, sizeof load_error - used, "%scannot load libcrypto: %s",
                             used ? "; " : "", dlerror());
            if (n > 0) used += (size_t)n;
        }
    }
    if (!library) return;
    const vgh_symbol symbols[] = {
        {"EVP_PKEY_new_raw_public_key", &api.new_raw_public_key}, {"EVP_PKEY_free", &api.pkey_free},
        {"EVP_MD_CTX_new", &api.md_ctx_new},                      {"EVP_MD_CTX_free", &api.md_ctx_free},
        {"EVP_DigestVerifyInit", &api.digest_verify_init},        {"EVP_DigestVerify", &api.digest_verify},
        {"EVP_Digest", &api.digest},                              {"ERR_clear_error", &api.err_clear_error},
        {"EVP_DigestInit_ex", &api.digest_init},                  {"EVP_DigestUpdate", &api.digest_update},
        {"EVP_DigestFinal_ex", &api.digest_final},
    };
    const char *missing = vgh_resolve_all(library, symbols, sizeof symbols / sizeof symbols[0]);
    if (missing) {
        snprintf(load_error, sizeof load_error, "%s lacks %s (OpenSSL 1.1.1 or 3 is needed)", soname, missing);
        return;
    }
    blake2b512 = find_blake2b512(library);
    if (!blake2b512) {
        api.err_clear_error();
        snprintf(load_error, sizeof load_error, "%s has no BLAKE2B-512 digest", soname);
        return;
    }
    loaded = 1;
}

int vgc_crypto_load(char *error, size_t size)
{
    pthread_once(&load_once, load_crypto);
    if (!loaded) snprintf(error, size, "%s", load_error);
    return loaded;
}

int vgc_blake2b512(const unsigned char *data, size_t length, unsigned char out[64])
{
    char ignored[8];
    if (!vgc_crypto_load(ignored, sizeof ignored)) return 0;
    unsigned int written = 0;
    int ok = api.digest(data, length, out, &written, blake2b512, NULL) == 1 && written == 64;
    /* Leave nothing in OpenSSL's per-thread error queue for a host that also uses it. */
    if (!ok) api.err_clear_error();
    return ok;
}

void *vgc_blake2b512_begin(void)
{
    char ignored[8];
    if (!vgc_crypto_load(ignored, sizeof ignored)) return NULL;
    EVP_MD_CTX *ctx = api.md_ctx_new();
    if (ctx && api.digest_init(ctx, blake2b512, NULL) == 1) return ctx;
    if (ctx) api.md_ctx_free(ctx);
    api.err_clear_error();
    return NULL;
}

int vgc_blake2b512_update(void *ctx, const unsigned char *data, size_t length)
{
    if (api.digest_update(ctx, data, length) == 1) return 1;
    api.err_clear_error();
    return 0;
}

int vgc_blake2b512_finish(void *ctx, unsigned char out[64])
{
    unsigned int written = 0;
    int ok = out && api.digest_final(ctx, out, &written) == 1 && written == 64;
    if (!ok) api.err_clear_error();
    api.md_ctx_free(ctx);
    return ok;
}

int vgc_ed25519_verify(const unsigned char key[32], const unsigned char *message, size_t length,
                       const unsigned char signature[64])
{
    char ignored[8];
    if (!vgc_crypto_load(ignored, sizeof ignored)) return -1;
    int result = -1;
    EVP_PKEY *pkey = api.new_raw_public_key(VGC_EVP_PKEY_ED25519, NULL, key, 32);
    EVP_MD_CTX *ctx = api.md_ctx_new();
    /* Ed25519 takes no separate digest: the type is NULL (one-shot verify). */
    if (pkey && ctx && api.digest_verify_init(ctx, NULL, NULL, NULL, pkey) == 1) {
        /* Anything but 1 is a refusal: OpenSSL reports some malformed
         * signatures (s out of range) as errors rather than as 0. */
        result = api.digest_verify(ctx, signature, 64, message, length) == 1;
    }
    if (ctx) api.md_ctx_free(ctx);
    if (pkey) api.pkey_free(pkey);
    api.err_clear_error();
    return result;
}
