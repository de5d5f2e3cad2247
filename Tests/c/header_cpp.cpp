/*
 * The public header alone, compiled as strict C++11 (extern "C", no C-only constructs):
 *   g++ -std=c++11 -Wall -Wextra -pedantic -Werror -c header_cpp.cpp
 * It must be self-contained, and these declarations pin the ABI: a changed
 * signature, code or status value fails the compile.
 */
#include "versiongate.h"

/* C++11 has static_assert. */
#define VG_ASSERT(name, cond) static_assert(cond, #name)

VG_ASSERT(ok, VG_OK == 0);
VG_ASSERT(einval, VG_EINVAL == -1);
VG_ASSERT(eversion, VG_EVERSION == -2);
VG_ASSERT(econfig, VG_ECONFIG == -3);
VG_ASSERT(enomem, VG_ENOMEM == -4);
VG_ASSERT(einternal, VG_EINTERNAL == -5);
VG_ASSERT(up_to_date, VG_STATUS_UP_TO_DATE == 0);
VG_ASSERT(optional, VG_STATUS_OPTIONAL == 1);
VG_ASSERT(mandatory, VG_STATUS_MANDATORY == 2);
VG_ASSERT(status_is_int, sizeof(vg_status) == sizeof(int));
VG_ASSERT(error_is_int, sizeof(vg_error) == sizeof(int));
VG_ASSERT(version_number, VG_VERSION_NUMBER ==
          VG_VERSION_MAJOR * 10000 + VG_VERSION_MINOR * 100 + VG_VERSION_PATCH);
VG_ASSERT(version_string, sizeof(VG_VERSION_STRING) > 5);

/* Every function, with the exact type a caller relies on. */
const char *(*vg_sig_library_version)(void) = vg_library_version;
const char *(*vg_sig_strerror)(int) = vg_strerror;
void (*vg_sig_free)(void *) = vg_free;
int (*vg_sig_version_compare)(int *, const char *, const char *) = vg_version_compare;
vg_status (*vg_sig_decide)(const char *, const char *, const char *) = vg_decide;
int (*vg_sig_client_new)(vg_client **) = vg_client_new;
void (*vg_sig_client_free)(vg_client *) = vg_client_free;
int (*vg_sig_client_set)(vg_client *, const char *, const char *) = vg_client_set;
const char *(*vg_sig_client_last_error)(const vg_client *) = vg_client_last_error;
int (*vg_sig_client_check)(vg_result **, vg_client *, const char *) = vg_client_check;
int (*vg_sig_check)(vg_result **, const char *, const char *) = vg_check;
vg_status (*vg_sig_result_status)(const vg_result *) = vg_result_status;
int (*vg_sig_result_should_prompt)(const vg_result *) = vg_result_should_prompt;
const char *(*vg_sig_result_title)(const vg_result *) = vg_result_title;
const char *(*vg_sig_result_message)(const vg_result *) = vg_result_message;
const char *(*vg_sig_result_action_label)(const vg_result *) = vg_result_action_label;
const char *(*vg_sig_result_dismiss_label)(const vg_result *) = vg_result_dismiss_label;
const char *(*vg_sig_result_store_url)(const vg_result *) = vg_result_store_url;
int (*vg_sig_result_error)(const vg_result *) = vg_result_error;
const char *(*vg_sig_result_error_message)(const vg_result *) = vg_result_error_message;
const char *(*vg_sig_result_min_required)(const vg_result *) = vg_result_min_required;
const char *(*vg_sig_result_latest)(const vg_result *) = vg_result_latest;
const char *(*vg_sig_result_json)(const vg_result *) = vg_result_json;
void (*vg_sig_result_free)(vg_result *) = vg_result_free;

/* The header is usable from C++ code as C++ writes it. */
namespace {
struct result_deleter {
    void operator()(vg_result *r) const { vg_result_free(r); }
};
}
int vg_sig_cpp_uses(void);
int vg_sig_cpp_uses(void)
{
    result_deleter d;
    vg_result *r = nullptr;
    int rc = vg_check(&r, nullptr, "1.0");
    d(r);
    return rc == VG_OK ? 0 : 1;
}
