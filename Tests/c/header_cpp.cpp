/*
 * The public header alone, compiled as strict C++11 (extern "C", no C-only constructs):
 *   g++ -std=c++11 -Wall -Wextra -pedantic -Werror -c header_cpp.cpp
 * It must be self-contained, and these declarations pin the ABI: a changed
 * signature, code or status value fails the compile.
 */
#include "versiongate.h"

/* C++11 has static_assert. */
#define VG_ASSERT(name, cond) static_assert(cond, #name)

#include "header_abi.inc"

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
