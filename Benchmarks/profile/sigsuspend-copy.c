/* Preloaded into flowd under valgrind 3.19 by callgrind-run.py. libdispatch's main thread parks in sigsuspend() with
 * a mask in read-only memory, and valgrind's wrapper of rt_sigsuspend writes into the mask it is given: valgrind
 * crashes with SIGSEGV. This sigsuspend() passes the kernel a writable copy. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8);
}
