// Defines `accept` and `accept4` in the executable, so that libzmq's calls (and any other library's) reach these
// first; each passes straight to the system call and differs only when the guard is installed and the process is
// out of descriptors (include/CAcceptGuard.h). Linux only: the daemon is.
#define _GNU_SOURCE
#include "CAcceptGuard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int installed = 0;
// The descriptor given up to take one pending connection at the limit; -1 while another call holds it or it could
// not be opened again (then the next call at the limit fails without taking the connection).
static atomic_int spare = -1;
static _Atomic uint64_t dropped = 0;

static int open_spare(void) { return open("/dev/null", O_RDONLY | O_CLOEXEC); }

int flowd_accept_guard_install(void) {
    if (atomic_load(&installed)) return 0;
    int descriptor = open_spare();
    if (descriptor < 0) return -1;
    int expected = -1;
    if (!atomic_compare_exchange_strong(&spare, &expected, descriptor)) close(descriptor);
    atomic_store(&installed, 1);
    return 0;
}

uint64_t flowd_accept_guard_dropped(void) { return atomic_load(&dropped); }

static int guarded_accept(int listener, struct sockaddr *address, socklen_t *length, int flags) {
    int connection = (int)syscall(SYS_accept4, listener, address, length, flags);
    if (connection >= 0 || errno != EMFILE || !atomic_load(&installed)) return connection;
    int descriptor = atomic_exchange(&spare, -1);
    if (descriptor >= 0) {
        close(descriptor);
        // The connection is taken off the listener's queue so that the listener does not wake for it again and
        // again; its client sees it closed and dials again.
        int taken = (int)syscall(SYS_accept4, listener, NULL, NULL, SOCK_CLOEXEC);
        if (taken >= 0) {
            // Counted before the close: a client that saw its connection closed must find it counted.
            atomic_fetch_add(&dropped, 1);
            close(taken);
        }
        int reopened = open_spare();
        if (reopened >= 0) {
            int expected = -1;
            if (!atomic_compare_exchange_strong(&spare, &expected, reopened)) close(reopened);
        }
    }
    errno = ECONNABORTED;
    return -1;
}

int accept4(int listener, struct sockaddr *address, socklen_t *length, int flags) {
    return guarded_accept(listener, address, length, flags);
}

int accept(int listener, struct sockaddr *address, socklen_t *length) {
    return guarded_accept(listener, address, length, 0);
}
