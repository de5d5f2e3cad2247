/* Reading members of vg_result_json: one flat object of strings, numbers,
 * booleans and nulls (ResultJSON.swift writes it). Strict enough for that
 * writer; anything unexpected reads as "absent". */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static int hex4(const char *p, unsigned *out) {
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        unsigned digit = c >= '0' && c <= '9' ? (unsigned)(c - '0')
            : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
            : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
        if (digit == 16) return -1;
        value = value * 16 + digit;
    }
    *out = value;
    return 0;
}

static size_t put_utf8(char *out, unsigned cp) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xc0 | cp >> 6); out[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12); out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18); out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A string starting at the opening quote: decoded into *out (malloc'd when
 * out is not NULL); returns the position after the closing quote, or NULL. */
static const char *read_string(const char *p, char **out) {
    if (*p != '"') return NULL;
    p++;
    const char *start = p;
    size_t capacity = 0;
    while (start[capacity] && start[capacity] != '"')
        capacity += start[capacity] == '\\' && start[capacity + 1] ? 2 : 1;
    char *text = out ? malloc(capacity * 2 + 1) : NULL;
    if (out && !text) return NULL;
    size_t n = 0;
    while (*p != '"') {
        if (*p == '\0') { free(text); return NULL; }
        if (*p != '\\') {
            if (text) text[n++] = *p;
            p++;
            continue;
        }
        p++;
        char c = *p++;
        const char *simple = strchr("\"\\/bfnrt", c);
        if (c && simple) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            if (text) text[n++] = decoded[simple - "\"\\/bfnrt"];
        } else if (c == 'u') {
            unsigned cp;
            if (hex4(p, &cp) != 0) { free(text); return NULL; }
            p += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p[0] == '\\' && p[1] == 'u') {
                unsigned low;
                if (hex4(p + 2, &low) == 0 && low >= 0xdc00 && low < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
                    p += 6;
                }
            }
            if (text) n += put_utf8(text + n, cp);
        } else {
            free(text);
            return NULL;
        }
    }
    if (text) { text[n] = '\0'; *out = text; }
    return p + 1;
}

char *vgcli_json_get(const char *json, const char *key) {
    if (!json) return NULL;
    const char *p = skip_space(json);
    if (*p++ != '{') return NULL;
    for (;;) {
        p = skip_space(p);
        if (*p == '}') return NULL;
        char *name = NULL;
        p = read_string(p, &name);
        if (!p) return NULL;
        int wanted = strcmp(name, key) == 0;
        free(name);
        p = skip_space(p);
        if (*p++ != ':') return NULL;
        p = skip_space(p);
        char *value = NULL;
        if (*p == '"') {
            p = read_string(p, wanted ? &value : NULL);
            if (!p) return NULL;
        } else {
            const char *start = p;
            while (*p && *p != ',' && *p != '}' && *p != ' ' && *p != '\n') p++;
            size_t length = (size_t)(p - start);
            if (length == 0) return NULL;
            if (wanted && !(length == 4 && strncmp(start, "null", 4) == 0)) {
                value = malloc(length + 1);
                if (!value) return NULL;
                memcpy(value, start, length);
                value[length] = '\0';
            }
        }
        if (wanted) return value;
        p = skip_space(p);
        if (*p == ',') { p++; continue; }
        return NULL;
    }
}
