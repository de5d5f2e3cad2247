/* The test programs' one loopback listener: a TCP socket on 127.0.0.1 at a
 * port the kernel picks (close-on-exec, so no exec'd child keeps it). Its
 * descriptor goes to *listener; returns the port, or exits 2 saying why. */
#ifndef VG_TEST_LOOPBACK_H
#define VG_TEST_LOOPBACK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static int listen_on_loopback(int *listener, const char *program)
{
    *listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (*listener < 0 || bind(*listener, (struct sockaddr *)&address, sizeof address) != 0
        || listen(*listener, 16) != 0 || getsockname(*listener, (struct sockaddr *)&address, &length) != 0) {
        fprintf(stderr, "%s: loopback listener: ", program);
        perror(NULL);
        exit(2);
    }
    return ntohs(address.sin_port);
}

#endif
