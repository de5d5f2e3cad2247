/* The statically linked Swift runtime's crash backtracer (Backtrace.cpp,
 * CrashHandlerLinux.cpp, Paths.cpp) is left out of the shipped build: at
 * every load its initializer parses SWIFT_BACKTRACE and stats eight paths
 * beside the library for a `swift-backtrace` binary, and had it found one it
 * would install signal handlers for SIGSEGV and the rest in the host's
 * process and spawn that binary when the host crashed. A library has no
 * business doing either in a C host (docs/design.md, "Cold start").
 *
 * Two references pull that object in, and are answered here instead:
 *  - swiftrt.o keeps _swift_backtrace_isThunkFunction alive for the
 *    out-of-process backtracer (never started now): "not a thunk";
 *  - the runtime's fatal-error path (Errors.cpp) reads
 *    _swift_backtraceSettings.enabled to decide whether the backtracer
 *    will print the backtrace. All zeros is OnOffTty::Off, exactly what the
 *    runtime's own settings hold when no swift-backtrace binary is found,
 *    so fatal errors are reported as before. 0x58 bytes is the runtime's
 *    BacktraceSettings (nm -S libswiftCore.a's Backtrace.cpp.o); only the
 *    first 8 are read.
 * Only in the shipped build (scripts/build defines VG_STATIC_RUNTIME):
 * against the shared runtime (`swift test`) these would clash with its
 * own. Hidden, and local by scripts/exports.map: no host sees them. */
#ifdef VG_STATIC_RUNTIME

#include <stdbool.h>

__attribute__((visibility("hidden"))) bool _swift_backtrace_isThunkFunction(const char *mangledName)
{
    (void)mangledName;
    return false;
}

__attribute__((visibility("hidden"), aligned(8))) const unsigned char _swift_backtraceSettings[0x58];

#endif
