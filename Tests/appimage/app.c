/* The program the AppImage update tests (Tests/python/test_appimage_update.py)
 * build twice, as v1 and v2, with a payload section of a few MiB and the
 * update information section of an AppImage (.upd_info): it says which
 * version it is and the arguments it was given. */
#include <stdio.h>

int main(int argc, char **argv) {
    printf("APP VERSION=%s args=", APP_VERSION);
    for (int i = 1; i < argc; i++) printf("%s%s", i > 1 ? " " : "", argv[i]);
    printf("\n");
    return 0;
}
