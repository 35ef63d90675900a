#ifndef FLOWD_CZEROMQ_SHIM_H
#define FLOWD_CZEROMQ_SHIM_H

// libzmq's stable C API (Debian: libzmq3-dev, /usr/include/zmq.h). Only the ZeroMQ module imports this.
#include <zmq.h>

#if defined(__linux__)
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

#endif
