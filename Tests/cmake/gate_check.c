/* Decides with the installed library: prints the status and the library's
 * version (Tests/cmake/CMakeLists.txt). */
#include <stdio.h>
#include <versiongate.h>

int main(int argc, char **argv) {
    vg_result *result = NULL;
    if (argc != 3) {
        fprintf(stderr, "usage: gate_check GATE.json VERSION\n");
        return 2;
    }
    vg_check(&result, argv[1], argv[2]);
    printf("%d %s\n", vg_result_status(result), vg_library_version());
    vg_result_free(result);
    return 0;
}
