/* --events FILE: every event of the client appended to FILE as one JSON
 * line (docs/design.md, "Events"). The file follows the state files' rules:
 * created 0600, never through a symlink, a regular file of this user that
 * no one else may write. A file that cannot be used warns once and the
 * command goes on: an event log never stops an app. */
#include "cli.h"
#include "file_trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int events_fd = -1;
static const char *events_path;

static void append_event(const char *event, void *unused) {
    (void)unused;
    if (events_fd < 0) return;
    size_t length = strlen(event);
    char *line = malloc(length + 1);
    if (!line) return;
    memcpy(line, event, length);
    line[length] = '\n';
    /* One write per line: with O_APPEND, lines of concurrent writers never interleave. */
    ssize_t written;
    do written = write(events_fd, line, length + 1); while (written < 0 && errno == EINTR);
    free(line);
    if (written != (ssize_t)(length + 1)) {
        vgcli_warn("--events %s: cannot write: %s; no more events are written",
                   events_path, written < 0 ? strerror(errno) : "short write");
        close(events_fd);
        events_fd = -1;
    }
}

/* Why `fd` (open on `path`) is not a file events may go to, or NULL. */
static const char *refusal(int fd) {
    struct stat s;
    if (fstat(fd, &s) != 0) return strerror(errno);
    if (!S_ISREG(s.st_mode)) return "not a regular file";
    int problems = vg_system_trust(&s, -1, NULL, 0, 0);   /* the library's rule (Sources/SystemShim/file_trust.c) */
    if (problems & VG_TRUST_OWNER) return "owned by another user";
    return problems ? "writable by group or others" : NULL;
}

void vgcli_events_attach(vg_client *client, const char *path) {
    if (!path) return;
    events_path = path;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
    if (fd < 0) {
        vgcli_warn("--events %s: %s; events are not written", path,
                   errno == ELOOP ? "a symlink, refused" : strerror(errno));
        return;
    }
    const char *why = refusal(fd);
    if (why) {
        vgcli_warn("--events %s: %s, refused; events are not written", path, why);
        close(fd);
        return;
    }
    events_fd = fd;
    vg_client_set_event_callback(client, append_event, NULL);
}
