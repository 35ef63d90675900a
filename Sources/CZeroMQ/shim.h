#ifndef FLOWD_CZEROMQ_SHIM_H
#define FLOWD_CZEROMQ_SHIM_H

// libzmq's stable C API (Debian: libzmq3-dev, /usr/include/zmq.h). Only the ZeroMQ module imports this.
#include <zmq.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/eventfd.h>
#include <sys/prctl.h>
#endif

/// Names the calling thread (seen in `top -H`, gdb, /proc); Swift cannot call the variadic prctl itself.
static inline void czeromq_set_thread_name(const char *name) {
#if defined(__linux__)
    prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
#else
    (void)name;
#endif
}

/// Opens a wake-up descriptor: `fds[0]` is polled for reading, `fds[1]` written to (an eventfd, both the same, on
/// Linux; a pipe elsewhere), both non-blocking and close-on-exec. Returns 0, or -1 with errno set.
static inline int czeromq_wake_open(int fds[2]) {
#if defined(__linux__)
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return -1;
    fds[0] = fd;
    fds[1] = fd;
    return 0;
#else
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    return 0;
#endif
}

/// Makes the wake-up descriptor readable. A full pipe or counter means a wake-up is pending already.
static inline void czeromq_wake_signal(int fd) {
#if defined(__linux__)
    uint64_t one = 1;
    while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {}
#else
    char one = 1;
    while (write(fd, &one, 1) < 0 && errno == EINTR) {}
#endif
}

/// Reads every pending wake-up without blocking (one read resets an eventfd's counter).
static inline void czeromq_wake_drain(int fd) {
    uint64_t buffer[8];
#if defined(__linux__)
    while (read(fd, buffer, sizeof buffer) < 0 && errno == EINTR) {}
#else
    for (;;) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count > 0 || (count < 0 && errno == EINTR)) continue;
        break;
    }
#endif
}

/// Closes what `czeromq_wake_open` opened.
static inline void czeromq_wake_close(int read_fd, int write_fd) {
    close(read_fd);
    if (write_fd != read_fd) close(write_fd);
}

#endif
