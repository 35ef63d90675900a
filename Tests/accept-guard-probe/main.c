// A process for AcceptGuardProcessTests: a libzmq ROUTER bound at argv[1] (an ipc:// endpoint) with every file
// descriptor taken, so that the next connection meets EMFILE in libzmq's accept. With --guard the accept guard is
// installed first. It prints "full" once the descriptors are taken, then, for each line read on its standard input,
// the number of connections the guard closed.
#include "CAcceptGuard.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: accept-guard-probe ENDPOINT [--guard]\n");
        return 64;
    }
    // The test's SIGTERM ends it: a test process may start it with signals blocked.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    void *context = zmq_ctx_new();
    void *router = zmq_socket(context, ZMQ_ROUTER);
    if (router == NULL || zmq_bind(router, argv[1]) != 0) {
        fprintf(stderr, "cannot bind %s: %s\n", argv[1], zmq_strerror(zmq_errno()));
        return 1;
    }
    if (argc > 2 && strcmp(argv[2], "--guard") == 0 && flowd_accept_guard_install() != 0) {
        perror("cannot install the accept guard");
        return 1;
    }
    while (open("/dev/null", O_RDONLY) >= 0) {
    }
    printf("full\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
        printf("%llu\n", (unsigned long long)flowd_accept_guard_dropped());
        fflush(stdout);
    }
    zmq_close(router);
    zmq_ctx_term(context);
    return 0;
}
