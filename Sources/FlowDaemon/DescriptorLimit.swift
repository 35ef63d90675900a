internal import LibC
internal import Logging

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), which bounds the daemon's connections: each one
/// holds a descriptor, and at the limit a client connecting over `ipc://` would make libzmq abort the process (its IPC
/// listener takes `EMFILE` from `accept` as fatal; ``AcceptGuard`` closes the connection instead). docs/LIMITS.md.
struct DescriptorLimit: Equatable, Sendable {
    var soft: UInt64
    var hard: UInt64

    /// The limit flowd asks for at start: the soft limit raised to the hard one. Shells and systemd leave the soft
    /// limit at 1024, for `select(2)`'s sake (libzmq polls with epoll), under a hard limit of 524288 or more.
    var raised: DescriptorLimit { DescriptorLimit(soft: max(soft, hard), hard: hard) }

    /// The process's limit, or nil when it cannot be read.
    static func current() -> DescriptorLimit? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return DescriptorLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// Raises the process's soft limit to its hard one, logging what it did (info) or why not (notice).
    ///
    /// - Returns: the limit in force afterwards, or nil when it cannot be read.
    @discardableResult
    static func raiseSoftLimit(logger: Logger) -> DescriptorLimit? {
        guard let before = current() else { return nil }
        let wanted = before.raised
        guard wanted != before else { return before }
        var limit = rlimit(rlim_cur: rlim_t(wanted.soft), rlim_max: rlim_t(wanted.hard))
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            // Linux refuses a soft limit above fs.nr_open even under a higher hard one.
            logger.notice(
                "the file descriptor limit could not be raised: it bounds the connections flowd can hold",
                metadata: ["soft": "\(before.soft)", "hard": "\(before.hard)", "errno": "\(errno)"])
            return before
        }
        logger.info(
            "file descriptor limit raised to the hard limit",
            metadata: ["from": "\(before.soft)", "to": "\(wanted.soft)"])
        return wanted
    }
}
