// flowd-bench's C relay on libzmq: a ROUTER that forwards each stepper message to the presenter with the frames
// and sizes of flowd's COMMAND, answers the stepper with a message of the size of flowd's OK, and reads and drops
// what the presenter sends. The same shape as the Swift raw relay (Roles.swift), without the Swift wrapper: the
// floor the other systems are compared with.
#include "CZMQRelay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

enum { max_frames = 4, batch = 256 };

typedef struct {
    unsigned char bytes[256];
    size_t length;
} peer_id;

static int same_id(const peer_id *id, zmq_msg_t *frame) {
    return id->length > 0 && id->length == zmq_msg_size(frame) && memcmp(id->bytes, zmq_msg_data(frame), id->length) == 0;
}

static void remember(peer_id *id, zmq_msg_t *frame) {
    size_t length = zmq_msg_size(frame);
    if (length > sizeof id->bytes) length = sizeof id->bytes;
    memcpy(id->bytes, zmq_msg_data(frame), length);
    id->length = length;
}

static int contains(zmq_msg_t *frame, const char *needle) {
    size_t size = zmq_msg_size(frame), length = strlen(needle);
    const char *data = zmq_msg_data(frame);
    for (size_t index = 0; index + length <= size; index++) {
        if (memcmp(data + index, needle, length) == 0) return 1;
    }
    return 0;
}

/// Sends one frame; `more`: others follow. Returns -1 when the peer is gone or its queue is full (dropped).
static int send_bytes(void *socket, const void *bytes, size_t length, int more) {
    return zmq_send(socket, bytes, length, ZMQ_DONTWAIT | (more ? ZMQ_SNDMORE : 0)) < 0 ? -1 : 0;
}

static int set_int(void *socket, int option, int value) { return zmq_setsockopt(socket, option, &value, sizeof value); }

int czmq_relay_run(const czmq_relay_options *options) {
    void *context = zmq_ctx_new();
    void *router = zmq_socket(context, ZMQ_ROUTER);
    int64_t max_size = 1 << 20;
    // The options of the project's ZMQSocketOptions defaults, as the Swift relay and flowd have them.
    if (!router || set_int(router, ZMQ_LINGER, 100) || zmq_setsockopt(router, ZMQ_MAXMSGSIZE, &max_size, sizeof max_size)
        || set_int(router, ZMQ_HEARTBEAT_IVL, 1000) || set_int(router, ZMQ_HEARTBEAT_TIMEOUT, 3000)
        || set_int(router, ZMQ_HEARTBEAT_TTL, 3000) || set_int(router, ZMQ_ROUTER_MANDATORY, 1)
        || zmq_bind(router, options->endpoint)) {
        fprintf(stderr, "c relay: %s\n", zmq_strerror(zmq_errno()));
        return 1;
    }
    char bound[256];
    size_t bound_length = sizeof bound;
    zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, bound, &bound_length);
    printf("READY %s\n", bound);
    fflush(stdout);

    size_t command_type_length = strlen(options->command_type), ok_type_length = strlen(options->ok_type);
    unsigned char *body = malloc(65536 + options->command_extra);
    peer_id stepper = {.length = 0}, presenter = {.length = 0};
    long stepper_messages = 0, dropped = 0;
    zmq_msg_t frames[max_frames + 1];
    for (int index = 0; index <= max_frames; index++) zmq_msg_init(&frames[index]);
    zmq_pollitem_t item = {.socket = router, .events = ZMQ_POLLIN};
    for (;;) {
        if (zmq_poll(&item, 1, 1000) < 0) {
            if (zmq_errno() == EINTR) continue;
            fprintf(stderr, "c relay: poll: %s\n", zmq_strerror(zmq_errno()));
            return 1;
        }
        for (int message = 0; message < batch; message++) {
            int count = 0, more = 1;
            while (more) {
                zmq_msg_t *frame = &frames[count < max_frames ? count : max_frames];
                if (zmq_msg_recv(frame, router, count == 0 ? ZMQ_DONTWAIT : 0) < 0) {
                    more = 0;
                    count = -1;
                    break;
                }
                more = zmq_msg_more(frame);
                count++;
            }
            if (count < 0) break;
            if (count != max_frames) continue;
            zmq_msg_t *id = &frames[0], *signature = &frames[1], *payload = &frames[3];
            if (same_id(&stepper, id)) {
                stepper_messages++;
                if (presenter.length > 0 && stepper_messages != options->lose_step) {
                    size_t length = zmq_msg_size(payload);
                    if (length > 65536) length = 65536;
                    memcpy(body, zmq_msg_data(payload), length);
                    memset(body + length, ' ', options->command_extra);
                    if (send_bytes(router, presenter.bytes, presenter.length, 1)
                        || send_bytes(router, zmq_msg_data(signature), zmq_msg_size(signature), 1)
                        || send_bytes(router, options->command_type, command_type_length, 1)
                        || send_bytes(router, body, length + options->command_extra, 0)) {
                        dropped++;
                    }
                }
                send_bytes(router, stepper.bytes, stepper.length, 1);
                send_bytes(router, zmq_msg_data(signature), zmq_msg_size(signature), 1);
                send_bytes(router, options->ok_type, ok_type_length, 1);
                send_bytes(router, options->ok_body, options->ok_body_length, 0);
            } else if (same_id(&presenter, id)) {
                continue;
            } else {
                // A HELLO: the only message the relay looks into.
                if (contains(payload, "\"presenter\"")) remember(&presenter, id); else remember(&stepper, id);
                send_bytes(router, zmq_msg_data(id), zmq_msg_size(id), 1);
                send_bytes(router, zmq_msg_data(signature), zmq_msg_size(signature), 1);
                send_bytes(router, options->welcome_type, strlen(options->welcome_type), 1);
                send_bytes(router, "{}", 2, 0);
            }
        }
        if (dropped > 0) {
            fprintf(stderr, "c relay: %ld messages dropped at the presenter's high-water mark\n", dropped);
            dropped = 0;
        }
    }
}
