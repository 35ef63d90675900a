// flowd-bench's D-Bus baseline: the stepper → relay → presenter hop of the benchmark on D-Bus (sd-bus through a
// private dbus-daemon the orchestrator starts): the stepper makes no-reply method calls (`Step`, the STEP body as
// bytes), the relay emits each as a signal (`Command`, padded to the size of flowd's COMMAND body), the presenter
// receives it by a match rule. No logic. One program, three modes, speaking the orchestrator's line protocol
// (READY, PHASE, RESULT) and the same ZeroMQ side channel as the Swift clients (Roles.swift), so its results read
// like theirs. Built by flowd-bench with `cc` when libsystemd's headers are installed (DBusRelay.swift).
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <zmq.h>

#define BUS_NAME "org.flowd.Bench.Relay"
#define OBJECT_PATH "/org/flowd/Bench"
#define INTERFACE "org.flowd.Bench"

typedef struct {
    const char *control, *side;
    long warmup, samples, window, command_extra;
    double seconds;
} options;

static uint64_t now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

static void fail(const char *what, int error) {
    fprintf(stderr, "dbus-relay: %s: %s\n", what, strerror(error < 0 ? -error : error));
    exit(1);
}

static sd_bus *connect_bus(const char *address) {
    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r >= 0) r = sd_bus_set_address(bus, address);
    if (r >= 0) r = sd_bus_set_bus_client(bus, 1);
    if (r >= 0) r = sd_bus_start(bus);
    if (r < 0) fail("connect", r);
    return bus;
}

/// The integer after `key` (`"req":`) in `bytes`, or -1.
static long long integer_after(const char *key, const unsigned char *bytes, size_t size) {
    size_t length = strlen(key);
    for (size_t index = 0; index + length <= size; index++) {
        if (memcmp(bytes + index, key, length) != 0) continue;
        long long value = 0;
        size_t at = index + length, digits = 0;
        while (at < size && bytes[at] >= '0' && bytes[at] <= '9') value = value * 10 + (bytes[at++] - '0'), digits++;
        return digits > 0 ? value : -1;
    }
    return -1;
}

// MARK: - Relay

typedef struct {
    long command_extra;
    unsigned char body[65536];
} relay_state;

static int on_step(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    relay_state *state = userdata;
    const void *data;
    size_t size;
    int r = sd_bus_message_read_array(message, 'y', &data, &size);
    if (r < 0) return r;
    if (size + (size_t)state->command_extra > sizeof state->body) return -EMSGSIZE;
    memcpy(state->body, data, size);
    memset(state->body + size, ' ', (size_t)state->command_extra);
    sd_bus_message *signal = NULL;
    sd_bus *bus = sd_bus_message_get_bus(message);
    r = sd_bus_message_new_signal(bus, &signal, OBJECT_PATH, INTERFACE, "Command");
    if (r >= 0) r = sd_bus_message_append_array(signal, 'y', state->body, size + (size_t)state->command_extra);
    if (r >= 0) r = sd_bus_send(bus, signal, NULL);
    sd_bus_message_unref(signal);
    return r < 0 ? r : 1;
}

static const sd_bus_vtable relay_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Step", "ay", "", on_step, SD_BUS_VTABLE_UNPRIVILEGED | SD_BUS_VTABLE_METHOD_NO_REPLY),
    SD_BUS_SIGNAL("Command", "ay", 0),
    SD_BUS_VTABLE_END,
};

static int run_relay(const options *options) {
    static relay_state state;
    state.command_extra = options->command_extra;
    sd_bus *bus = connect_bus(options->control);
    int r = sd_bus_add_object_vtable(bus, NULL, OBJECT_PATH, INTERFACE, relay_vtable, &state);
    if (r < 0) fail("vtable", r);
    r = sd_bus_request_name(bus, BUS_NAME, 0);
    if (r < 0) fail("request name", r);
    printf("READY\n");
    fflush(stdout);
    for (;;) {
        r = sd_bus_process(bus, NULL);
        // The broker went away: the run is over.
        if (r == -ECONNRESET || r == -ENOTCONN) return 0;
        if (r < 0) fail("process", r);
        if (r > 0) continue;
        r = sd_bus_wait(bus, UINT64_MAX);
        if (r < 0 && r != -EINTR) fail("wait", r);
    }
    return 0;
}

// MARK: - Stepper

static long long next_req = 1;

/// The STEP body exactly as flowd-bench's hand-written stepper writes it (BenchWire.stepBody).
static void send_step(sd_bus *bus, uint64_t stamp) {
    char body[256];
    int length = snprintf(
        body, sizeof body,
        "{\"attachment\":1,\"req\":%lld,\"session\":\"default\",\"step\":{\"name\":\"tick\",\"payload\":%" PRIu64 "}}",
        ++next_req, stamp);
    sd_bus_message *call = NULL;
    int r = sd_bus_message_new_method_call(bus, &call, BUS_NAME, OBJECT_PATH, INTERFACE, "Step");
    if (r >= 0) r = sd_bus_message_set_expect_reply(call, 0);
    if (r >= 0) r = sd_bus_message_append_array(call, 'y', body, (size_t)length);
    if (r >= 0) r = sd_bus_send(bus, call, NULL);
    sd_bus_message_unref(call);
    if (r < 0) fail("send", r);
}

/// Reads every side message queued; returns how many were "g" and updates `presented` and `done`.
static int drain_side(void *side, long *presented, int *done) {
    int go = 0;
    char frame[64];
    int size;
    while ((size = zmq_recv(side, frame, sizeof frame - 1, ZMQ_DONTWAIT)) >= 0) {
        if (size == 1 && frame[0] == 'g') go++;
        else if (size == 1 && frame[0] == 'd') *done = 1;
        else if (size > 1 && frame[0] == 'p') {
            frame[size < (int)sizeof frame - 1 ? size : (int)sizeof frame - 1] = 0;
            long count = strtol(frame + 1, NULL, 10);
            if (count > *presented) *presented = count;
        }
    }
    return go;
}

static void wait_side(void *side, long milliseconds) {
    zmq_pollitem_t item = {.socket = side, .events = ZMQ_POLLIN};
    zmq_poll(&item, 1, milliseconds);
}

static int run_stepper(const options *options) {
    sd_bus *bus = connect_bus(options->control);
    void *context = zmq_ctx_new();
    void *side = zmq_socket(context, ZMQ_PULL);
    if (zmq_connect(side, options->side) != 0) fail("side channel", zmq_errno());
    printf("READY\n");
    fflush(stdout);
    long presented = 0, latency_steps = 0, sent = 0;
    int done = 0;
    for (long step = 0; step < options->warmup + options->samples; step++) {
        send_step(bus, now_ns());
        if (sd_bus_flush(bus) < 0) fail("flush", errno);
        while (drain_side(side, &presented, &done) == 0) wait_side(side, 200);
        while (sd_bus_process(bus, NULL) > 0) {}
        latency_steps++;
    }
    printf("PHASE throughput-start\n");
    fflush(stdout);
    uint64_t start = now_ns(), end = start + (uint64_t)(options->seconds * 1e9);
    while (now_ns() < end) {
        drain_side(side, &presented, &done);
        int batch = 0;
        while (batch < 32 && sent - presented < options->window) {
            send_step(bus, now_ns());
            sent++;
            batch++;
        }
        if (sd_bus_flush(bus) < 0) fail("flush", errno);
        while (sd_bus_process(bus, NULL) > 0) {}
        if (batch == 0) wait_side(side, 50);
    }
    double seconds = (double)(now_ns() - start) / 1e9;
    printf("PHASE throughput-end\n");
    fflush(stdout);
    send_step(bus, 0);  // the end marker
    if (sd_bus_flush(bus) < 0) fail("flush", errno);
    uint64_t deadline = now_ns() + 60000000000ull;
    while (!done) {
        if (now_ns() > deadline) {
            fprintf(stderr, "dbus-relay: the throughput phase did not drain\n");
            return 1;
        }
        wait_side(side, 200);
        drain_side(side, &presented, &done);
    }
    printf(
        "RESULT {\"accepted\":0,\"errors\":0,\"latency_steps\":%ld,\"rejected\":0,\"throughput_seconds\":%.6f,"
        "\"throughput_steps\":%ld}\n",
        latency_steps, seconds, sent);
    fflush(stdout);
    zmq_close(side);
    zmq_ctx_term(context);
    sd_bus_flush_close_unref(bus);
    return 0;
}

// MARK: - Presenter

typedef struct {
    const options *options;
    void *side;
    long received, count, gaps;
    long long last_req;
    int numbered, finished;
    uint64_t first, last;
    uint64_t *latencies, *loaded;
    long loaded_capacity;
} presenter_state;

static int on_command(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    uint64_t time = now_ns();
    presenter_state *state = userdata;
    const void *data;
    size_t size;
    if (sd_bus_message_read_array(message, 'y', &data, &size) < 0) return 0;
    long long req = integer_after("\"req\":", data, size), stamp = integer_after("\"payload\":", data, size);
    if (req < 0 || stamp < 0) {
        fprintf(stderr, "dbus-relay: a Command without its number or stamp\n");
        exit(1);
    }
    if (state->numbered && req != state->last_req + 1) state->gaps++;
    state->numbered = 1;
    state->last_req = req;
    const options *options = state->options;
    if (state->received < options->warmup + options->samples) {
        zmq_send(state->side, "g", 1, 0);
        if (state->received >= options->warmup) state->latencies[state->received - options->warmup] = time - (uint64_t)stamp;
        state->received++;
    } else if (stamp == 0) {
        state->finished = 1;
    } else {
        state->count++;
        if (state->count == 1) state->first = time;
        state->last = time;
        if (state->count > state->loaded_capacity) {
            state->loaded_capacity *= 2;
            state->loaded = realloc(state->loaded, (size_t)state->loaded_capacity * sizeof *state->loaded);
        }
        state->loaded[state->count - 1] = time - (uint64_t)stamp;
        // At most half the window between two reports, as flowd-bench's presenters (PhasePlan.progressEvery).
        long every = options->window / 2 < 16 ? (options->window / 2 > 1 ? options->window / 2 : 1) : 16;
        if (state->count % every == 0) {
            char frame[32];
            int length = snprintf(frame, sizeof frame, "p%ld", state->count);
            zmq_send(state->side, frame, (size_t)length, 0);
        }
    }
    return 1;
}

static int compare(const void *left, const void *right) {
    uint64_t a = *(const uint64_t *)left, b = *(const uint64_t *)right;
    return a < b ? -1 : a > b;
}

/// The LatencyStats JSON of `samples` (nearest-rank percentiles, as Support.swift computes them).
static void print_stats(const char *key, uint64_t *samples, long count) {
    qsort(samples, (size_t)count, sizeof *samples, compare);
    double sum = 0;
    for (long index = 0; index < count; index++) sum += (double)samples[index];
    double percentiles[4] = {50, 90, 99, 99.9}, values[4] = {0, 0, 0, 0};
    for (int index = 0; index < 4 && count > 0; index++) {
        double exact = percentiles[index] / 100 * (double)count;
        long rank = (long)exact;
        if ((double)rank < exact) rank++;
        if (rank < 1) rank = 1;
        if (rank > count) rank = count;
        values[index] = (double)samples[rank - 1];
    }
    printf(
        "\"%s\":{\"count\":%ld,\"max\":%.1f,\"mean\":%.3f,\"min\":%.1f,\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,"
        "\"p999\":%.1f}",
        key, count, count ? (double)samples[count - 1] : 0.0, count ? sum / (double)count : 0.0,
        count ? (double)samples[0] : 0.0, values[0], values[1], values[2], values[3]);
}

static int run_presenter(const options *options) {
    sd_bus *bus = connect_bus(options->control);
    static presenter_state state;
    state.options = options;
    state.latencies = calloc((size_t)(options->samples > 0 ? options->samples : 1), sizeof *state.latencies);
    state.loaded_capacity = 1 << 16;
    state.loaded = malloc((size_t)state.loaded_capacity * sizeof *state.loaded);
    int r = sd_bus_add_match(
        bus, NULL, "type='signal',sender='" BUS_NAME "',interface='" INTERFACE "',member='Command'", on_command, &state);
    if (r < 0) fail("match", r);
    void *context = zmq_ctx_new();
    state.side = zmq_socket(context, ZMQ_PUSH);
    int linger = 5000;
    zmq_setsockopt(state.side, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind(state.side, options->side) != 0) fail("side channel", zmq_errno());
    char bound[256];
    size_t bound_length = sizeof bound;
    zmq_getsockopt(state.side, ZMQ_LAST_ENDPOINT, bound, &bound_length);
    printf("READY %s\n", bound);
    fflush(stdout);
    while (!state.finished) {
        r = sd_bus_process(bus, NULL);
        if (r < 0) fail("process", r);
        if (r > 0) continue;
        r = sd_bus_wait(bus, 200000);
        if (r < 0 && r != -EINTR) fail("wait", r);
    }
    zmq_send(state.side, "d", 1, 0);
    double seconds = (double)(state.last - state.first) / 1e9;
    printf("RESULT {\"gaps\":%ld,", state.gaps);
    print_stats("latency", state.latencies, state.received - options->warmup);
    printf(",");
    print_stats("loaded_latency", state.loaded, state.count);
    printf(
        ",\"throughput_commands\":%ld,\"throughput_per_second\":%.3f,\"throughput_seconds\":%.6f}\n", state.count,
        state.count > 1 && seconds > 0 ? (double)(state.count - 1) / seconds : 0.0, seconds);
    fflush(stdout);
    zmq_close(state.side);
    zmq_ctx_term(context);
    sd_bus_flush_close_unref(bus);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: dbus-relay relay|stepper|presenter --control ADDRESS [options]\n");
        return 2;
    }
    options options = {.window = 256, .seconds = 5};
    for (int index = 2; index + 1 < argc; index += 2) {
        const char *key = argv[index], *value = argv[index + 1];
        if (!strcmp(key, "--control")) options.control = value;
        else if (!strcmp(key, "--side")) options.side = value;
        else if (!strcmp(key, "--warmup")) options.warmup = atol(value);
        else if (!strcmp(key, "--samples")) options.samples = atol(value);
        else if (!strcmp(key, "--window")) options.window = atol(value);
        else if (!strcmp(key, "--seconds")) options.seconds = atof(value);
        else if (!strcmp(key, "--command-extra")) options.command_extra = atol(value);
        // --system and --ok-bytes: the Swift clients' and relays' options, meaningless here.
    }
    if (!options.control) {
        fprintf(stderr, "dbus-relay: --control is required\n");
        return 2;
    }
    if (!strcmp(argv[1], "relay")) return run_relay(&options);
    if (!strcmp(argv[1], "stepper")) return run_stepper(&options);
    if (!strcmp(argv[1], "presenter")) return run_presenter(&options);
    fprintf(stderr, "dbus-relay: unknown mode %s\n", argv[1]);
    return 2;
}
