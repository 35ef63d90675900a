#ifndef FLOWD_BENCH_CZMQ_RELAY_H
#define FLOWD_BENCH_CZMQ_RELAY_H

#include <stddef.h>

/// The parameters of the C relay: the same frames and sizes as flowd-bench's Swift raw relay.
typedef struct {
    /// Where the ROUTER binds (`ipc://…` or `tcp://127.0.0.1:*`).
    const char *endpoint;
    /// Frame 1 of the message to the presenter, of the answer to the stepper and of the answer to a HELLO.
    const char *command_type;
    const char *ok_type;
    const char *welcome_type;
    /// The body answered to every stepper message (flowd's `OK` size).
    const unsigned char *ok_body;
    size_t ok_body_length;
    /// JSON whitespace appended to a stepper body to make it the size of flowd's `COMMAND`.
    size_t command_extra;
    /// Fault injection for the smoke check: the n-th stepper message (1-based) is not forwarded; 0: none.
    long lose_step;
} czmq_relay_options;

/// Runs the relay until the process is signalled: prints `READY <endpoint>` on standard output once bound, then
/// forwards. Returns non-zero (with a message on standard error) when libzmq fails.
int czmq_relay_run(const czmq_relay_options *options);

#endif
