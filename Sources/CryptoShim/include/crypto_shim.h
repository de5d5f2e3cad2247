/*
 * crypto_shim.h — Ed25519 verification and BLAKE2b-512 from the system's
 * libcrypto (OpenSSL 3, else 1.1.1) through EVP, for signed gate documents. libcrypto
 * is loaded with dlopen on first use, so a client without trusted keys
 * never loads it. Hidden symbols: nothing here is exported.
 */
#ifndef VERSIONGATE_CRYPTO_SHIM_H
#define VERSIONGATE_CRYPTO_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when libcrypto is loaded and has every function needed; 0 with the
 * reason in `error`. Thread-safe; loads at most once per process. */
__attribute__((visibility("hidden"))) int vgc_crypto_load(char *error, size_t size);

/* BLAKE2b-512 of `data` into `out`. 1 on success, 0 on a libcrypto failure. */
__attribute__((visibility("hidden"))) int vgc_blake2b512(const unsigned char *data, size_t length,
                                                        unsigned char out[64]);

/* BLAKE2b-512 a piece at a time (a file too large to hold): begin gives a
 * context (NULL when libcrypto is not there or failed), update adds bytes
 * (1, or 0 on a failure), finish writes the digest into `out` (NULL: none,
 * to give up) and frees the context (1 on success). */
__attribute__((visibility("hidden"))) void *vgc_blake2b512_begin(void);
__attribute__((visibility("hidden"))) int vgc_blake2b512_update(void *ctx, const unsigned char *data, size_t length);
__attribute__((visibility("hidden"))) int vgc_blake2b512_finish(void *ctx, unsigned char out[64]);

/* 1 when `signature` is `key`'s Ed25519 signature of `message`, 0 when it
 * is not, -1 when libcrypto failed (not loaded, out of memory). */
__attribute__((visibility("hidden"))) int vgc_ed25519_verify(const unsigned char key[32],
                                                            const unsigned char *message, size_t length,
                                                            const unsigned char signature[64]);

#ifdef __cplusplus
}
#endif

#endif
