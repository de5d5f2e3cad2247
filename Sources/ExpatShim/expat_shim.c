/* Parsing with libexpat, loaded on first use. See expat_shim.h.
 * The prototypes are libexpat's stable C API (unchanged since 1.95), declared
 * here so the build needs no expat.h. */
#include "expat_shim.h"
#include "dynamic_shim.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct XML_ParserStruct *XML_Parser;
typedef void (*start_handler)(void *, const char *, const char **);
typedef void (*end_handler)(void *, const char *);
typedef void (*entity_decl_handler)(void *, const char *, int, const char *, int, const char *, const char *,
                                    const char *, const char *);

static struct {
    XML_Parser (*parser_create)(const char *encoding);
    void (*parser_free)(XML_Parser);
    void (*set_user_data)(XML_Parser, void *);
    void (*set_element_handler)(XML_Parser, start_handler, end_handler);
    void (*set_entity_decl_handler)(XML_Parser, entity_decl_handler);
    int (*parse)(XML_Parser, const char *, int, int);
    int (*stop_parser)(XML_Parser, unsigned char resumable);
    int (*get_error_code)(XML_Parser);
    const char *(*error_string)(int);
    unsigned long (*current_line)(XML_Parser);
} expat;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[256];

static void load_expat(void)
{
    void *library = dlopen("libexpat.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "cannot load libexpat: %s", dlerror());
        return;
    }
    const vgh_symbol symbols[] = {
        {"XML_ParserCreate", &expat.parser_create},        {"XML_ParserFree", &expat.parser_free},
        {"XML_SetUserData", &expat.set_user_data},         {"XML_SetElementHandler", &expat.set_element_handler},
        {"XML_SetEntityDeclHandler", &expat.set_entity_decl_handler},
        {"XML_Parse", &expat.parse},                       {"XML_StopParser", &expat.stop_parser},
        {"XML_GetErrorCode", &expat.get_error_code},       {"XML_ErrorString", &expat.error_string},
        {"XML_GetCurrentLineNumber", &expat.current_line},
    };
    const char *missing = vgh_resolve_all(library, symbols, sizeof symbols / sizeof symbols[0]);
    if (missing) {
        snprintf(load_error, sizeof load_error, "libexpat lacks a needed function (%s)", missing);
        return;
    }
    loaded = 1;
}

/* What the handlers see: the caller's callbacks and the parser to stop. */
typedef struct parse_state {
    const vgh_xml_callbacks *callbacks;
    XML_Parser parser;
    int refused;
} parse_state;

static void on_start(void *data, const char *name, const char **attributes)
{
    parse_state *state = data;
    if (state->callbacks->start) state->callbacks->start(state->callbacks->context, name, attributes);
}

static void on_end(void *data, const char *name)
{
    parse_state *state = data;
    if (state->callbacks->end) state->callbacks->end(state->callbacks->context, name);
}

static void on_entity_decl(void *data, const char *name, int parameter, const char *value, int length,
                           const char *base, const char *system_id, const char *public_id, const char *notation)
{
    (void)name, (void)parameter, (void)value, (void)length, (void)base, (void)system_id, (void)public_id,
        (void)notation;
    parse_state *state = data;
    state->refused = 1;
    expat.stop_parser(state->parser, 0);
}

vgh_xml_outcome vgh_xml_parse(const char *bytes, size_t length, const vgh_xml_callbacks *callbacks,
                              char *error, size_t error_size)
{
    if (error_size) error[0] = 0;
    pthread_once(&load_once, load_expat);
    if (!loaded) {
        snprintf(error, error_size, "%s", load_error);
        return VGH_XML_UNAVAILABLE;
    }
    if (length > INT_MAX) {
        snprintf(error, error_size, "too large to parse");
        return VGH_XML_MALFORMED;
    }
    XML_Parser parser = expat.parser_create(NULL);
    if (!parser) {
        snprintf(error, error_size, "out of memory");
        return VGH_XML_INTERNAL;
    }
    parse_state state = {callbacks, parser, 0};
    expat.set_user_data(parser, &state);
    expat.set_element_handler(parser, on_start, on_end);
    expat.set_entity_decl_handler(parser, on_entity_decl);
    int ok = expat.parse(parser, bytes, (int)length, 1);
    vgh_xml_outcome outcome = VGH_XML_OK;
    if (state.refused) {
        snprintf(error, error_size, "line %lu: declares an entity; refused", expat.current_line(parser));
        outcome = VGH_XML_REFUSED;
    } else if (!ok) {
        const char *why = expat.error_string(expat.get_error_code(parser));
        snprintf(error, error_size, "line %lu: %s", expat.current_line(parser), why ? why : "not well-formed");
        outcome = VGH_XML_MALFORMED;
    }
    expat.parser_free(parser);
    return outcome;
}
