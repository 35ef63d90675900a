#ifndef FLOWD_ACCEPT_GUARD_H
#define FLOWD_ACCEPT_GUARD_H

#include <stdint.h>

/// Turns the guard on for the process: from then on an `accept`/`accept4` that fails with `EMFILE` takes the
/// pending connection with a spare descriptor, closes it at once, and fails with `ECONNABORTED` instead, which
/// libzmq's IPC listener survives (it aborts the process on `EMFILE`). Returns 0, or -1 with `errno` when the spare
/// descriptor cannot be opened. Calling it again is harmless.
int flowd_accept_guard_install(void);

/// Connections closed at the descriptor limit by the guard since the process started.
uint64_t flowd_accept_guard_dropped(void);

#endif
