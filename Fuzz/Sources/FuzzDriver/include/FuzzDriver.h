#ifndef VG_FUZZ_DRIVER_H
#define VG_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, libclang_rt.fuzzer), linked in by
/// -sanitize=fuzzer: parses libFuzzer's flags from argv and runs `callback`
/// on every input. We call it from our own main because SwiftPM gives every
/// executable target a Swift main, so libFuzzer's main is never linked.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
