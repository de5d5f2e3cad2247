/* The baseline for a cold check: a C program that only reads the gate
 * document, finds the two thresholds with strstr and compares dotted
 * numbers — no validation, no JSON parser. scripts/bench times it next to
 * cold_check (exec → dlopen → vg_check → exit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *value_of(const char *doc, const char *key)
{
    const char *at = strstr(doc, key);
    if (!at) return NULL;
    at = strchr(at + strlen(key), ':');
    return at ? strchr(at, '"') : NULL;
}

static int compare(const char *a, const char *b) /* both point at digits */
{
    while (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
        unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);
        if (x != y) return x < y ? -1 : 1;
        if (*a == '.') a++;
        if (*b == '.') b++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    char doc[65536];
    if (argc != 3) return 2;
    FILE *f = fopen(argv[1], "r");
    if (!f) return 1;
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = 0;
    const char *min = value_of(doc, "\"min_required_version_linux\"");
    const char *latest = value_of(doc, "\"latest_version_linux\"");
    int status = 0;
    if (min && compare(argv[2], min + 1) < 0) status = 2;
    else if (latest && compare(argv[2], latest + 1) < 0) status = 1;
    return status == 0 ? 0 : 3;
}
