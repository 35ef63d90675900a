// LD_PRELOAD shim for flowd-bench's processes (bench-only, never linked into a product): records the CLOCK_MONOTONIC
// time of every zmq_send, zmq_msg_recv and socket send/recv (libzmq's I/O threads), with the bench's step stamps
// (runs of 13-19 digits) found in the bytes, into /tmp/zmq-stamps/<pid>.bin. A shared file mapping, so a process
// killed at the end of a run keeps what it wrote. Benchmarks/profile/step-stages.py reads the files.
//
//   cc -O2 -shared -fPIC -o zmq-stamps.so Benchmarks/profile/zmq-stamps.c -ldl
//   mkdir -p /tmp/zmq-stamps && LD_PRELOAD=$PWD/zmq-stamps.so flowd-bench --systems flowd ...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

enum { OP_ZMQ_SEND = 1, OP_ZMQ_RECV = 2, OP_SEND = 3, OP_RECV = 4, OP_SIGNAL = 5, OP_POLL_WOKEN = 6 };
enum { CAPACITY = 1 << 20, HEADER = 4096 };

struct event {
    uint64_t time;
    uint64_t stamps[2];
    uint32_t tid;
    uint32_t size;
    uint8_t op;
    uint8_t first;
    uint8_t count;
    uint8_t pad[5];
};

static struct event *events;
static _Atomic uint64_t *used;
static _Atomic int state; // 0 not opened, 1 opening, 2 open, 3 failed

static void open_log(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&state, &expected, 1)) {
        while (atomic_load(&state) == 1) {}
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/zmq-stamps/%d.bin", getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    size_t length = HEADER + (size_t)CAPACITY * sizeof(struct event);
    if (fd < 0 || ftruncate(fd, (off_t)length) != 0) { atomic_store(&state, 3); return; }
    char *base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) { atomic_store(&state, 3); return; }
    // Header: the event count, then the command line (NUL-separated).
    int cmd = open("/proc/self/cmdline", O_RDONLY);
    if (cmd >= 0) { ssize_t n = read(cmd, base + 8, HEADER - 9); (void)n; close(cmd); }
    used = (_Atomic uint64_t *)base;
    events = (struct event *)(base + HEADER);
    atomic_store(&state, 2);
}

static void record(uint8_t op, const void *data, size_t size) {
    if (atomic_load(&state) != 2) {
        open_log();
        if (atomic_load(&state) != 2) return;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t index = atomic_fetch_add(used, 1);
    if (index >= CAPACITY) return;
    struct event *event = &events[index];
    event->tid = (uint32_t)syscall(SYS_gettid);
    event->op = op;
    event->size = (uint32_t)size;
    const unsigned char *bytes = data;
    event->first = size > 0 ? bytes[0] : 0;
    uint8_t count = 0;
    for (size_t i = 0; i < size && count < 2;) {
        if (bytes[i] < '0' || bytes[i] > '9') { i++; continue; }
        size_t start = i;
        uint64_t value = 0;
        while (i < size && bytes[i] >= '0' && bytes[i] <= '9') { value = value * 10 + (bytes[i] - '0'); i++; }
        if (i - start >= 13 && i - start <= 19) event->stamps[count++] = value;
    }
    event->count = count;
    // Written last: a reader takes an event with a zero time as not written.
    atomic_store_explicit((_Atomic uint64_t *)&event->time,
                          (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec, memory_order_release);
}

int zmq_send(void *socket, const void *buf, size_t len, int flags) {
    static int (*real)(void *, const void *, size_t, int);
    if (!real) real = dlsym(RTLD_NEXT, "zmq_send");
    record(OP_ZMQ_SEND, buf, len);
    return real(socket, buf, len, flags);
}

int zmq_msg_recv(zmq_msg_t *msg, void *socket, int flags) {
    static int (*real)(zmq_msg_t *, void *, int);
    if (!real) real = dlsym(RTLD_NEXT, "zmq_msg_recv");
    int result = real(msg, socket, flags);
    if (result >= 0) record(OP_ZMQ_RECV, zmq_msg_data(msg), zmq_msg_size(msg));
    return result;
}

ssize_t send(int fd, const void *buf, size_t len, int flags) {
    static ssize_t (*real)(int, const void *, size_t, int);
    if (!real) real = dlsym(RTLD_NEXT, "send");
    record(OP_SEND, buf, len);
    return real(fd, buf, len, flags);
}

ssize_t recv(int fd, void *buf, size_t len, int flags) {
    static ssize_t (*real)(int, void *, size_t, int);
    if (!real) real = dlsym(RTLD_NEXT, "recv");
    ssize_t result = real(fd, buf, len, flags);
    if (result > 0) record(OP_RECV, buf, (size_t)result);
    return result;
}

// A thread woken (libzmq's signaler and ZMQEventLoop's wake-up are 8-byte eventfd writes): its write, and a poll
// that returns ready descriptors.
ssize_t write(int fd, const void *buf, size_t len) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = dlsym(RTLD_NEXT, "write");
    if (len == 8) record(OP_SIGNAL, NULL, 0);
    return real(fd, buf, len);
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout) {
    static int (*real)(struct pollfd *, nfds_t, int);
    if (!real) real = dlsym(RTLD_NEXT, "poll");
    int result = real(fds, nfds, timeout);
    if (result > 0) record(OP_POLL_WOKEN, NULL, 0);
    return result;
}
