/* versiongate-helper: the one process where VersionGate touches the network
 * (docs/design.md, "The fetch helper"). A library that needs a fetch starts
 * it as `versiongate-helper LIBRARY`, LIBRARY being the library's own file,
 * with the request on stdin and a pipe for the answer on stdout. It loads
 * exactly that file, so the request and the answer are read and written by
 * the same code in both processes, and runs its vg__helper_main. Starting
 * libcurl, its TLS libraries and its threads here instead of in the host
 * is the whole point: the host never maps them. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2 || argv[1][0] != '/') {
        fprintf(stderr, "usage: versiongate-helper /PATH/TO/libversiongate.so.1 < REQUEST\n"
                        "(started by libversiongate; not a command to run by hand)\n");
        return 2;
    }
    /* The host reads our answer; if it stopped (its deadline), say nothing, die quietly. */
    signal(SIGPIPE, SIG_IGN);
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "versiongate-helper: %s\n", dlerror());
        return 3;
    }
    int (*serve)(void) = (int (*)(void))dlsym(library, "vg__helper_main");
    if (!serve) {
        fprintf(stderr, "versiongate-helper: %s has no vg__helper_main\n", argv[1]);
        return 3;
    }
    return serve();
}
