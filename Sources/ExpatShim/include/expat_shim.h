/*
 * expat_shim.h — an XML document's elements, parsed by libexpat, for
 * VersionGate's AppStream reader (docs/design.md, "The installed version").
 * libexpat is loaded with dlopen on first use: a host that never reads a
 * metainfo file never loads it. Only what the reader needs crosses: each
 * element's start (name and attributes) and end. Entity declarations are
 * refused (a metainfo file has none; they are how an XML bomb is made),
 * and no external entity is ever loaded.
 */
#ifndef VERSIONGATE_EXPAT_SHIM_H
#define VERSIONGATE_EXPAT_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vgh_xml_outcome {
    VGH_XML_OK = 0,
    VGH_XML_UNAVAILABLE, /* libexpat could not be loaded */
    VGH_XML_MALFORMED,   /* not well-formed XML (truncated, bad nesting, bad reference) */
    VGH_XML_REFUSED,     /* it declares an entity */
    VGH_XML_INTERNAL     /* out of memory */
} vgh_xml_outcome;

typedef struct vgh_xml_callbacks {
    void *context;
    /* `attributes`: name, value, name, value, ..., NULL; values decoded. */
    void (*start)(void *context, const char *name, const char **attributes);
    void (*end)(void *context, const char *name);
} vgh_xml_callbacks;

/* Parses `length` bytes as one complete document, calling back in document
 * order. On failure `error` (NUL-terminated, at most `error_size` bytes)
 * says why, with the line for a malformed document. */
vgh_xml_outcome vgh_xml_parse(const char *bytes, size_t length, const vgh_xml_callbacks *callbacks,
                              char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
