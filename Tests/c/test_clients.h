/* What the C tests that drive many clients share: a client on a document
 * (one session per process, so prompts repeat), and one check whose result
 * is dropped. Include after scratch_home.h (it gives `fatal`). */
#ifndef VG_TEST_CLIENTS_H
#define VG_TEST_CLIENTS_H

#include "versiongate.h"

static vg_client *client_for(const char *source)
{
    vg_client *client = NULL;
    if (vg_client_new(&client) != VG_OK) fatal("vg_client_new");
    vg_client_set(client, "source", source);
    vg_client_set(client, "session_scope", "process");
    return client;
}

static void check_once(vg_client *client, const char *version)
{
    vg_result *result = NULL;
    vg_client_check(&result, client, version);
    vg_result_free(result);
}

#endif
