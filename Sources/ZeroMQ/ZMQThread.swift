internal import CZeroMQ
internal import LibC

/// Dedicated OS threads for code that owns libzmq sockets.
///
/// Such code blocks in `zmq_poll`, so it must not run on Swift's cooperative pool (which would lose a whole thread
/// per poller); and a socket must stay on one thread. ``ZMQEventLoop`` uses this; so can a component that runs its own
/// poll loop on a ``ZMQReactor``.
package enum ZMQThread: Sendable {
    /// Starts a detached OS thread (not a task) that runs `body` and ends when it returns.
    ///
    /// Starting the thread is the full memory barrier libzmq requires for handing sockets to it.
    ///
    /// - Parameters:
    ///   - name: the thread's name for debuggers and `top -H` (cut to 15 bytes on Linux).
    ///   - body: runs on the new thread.
    /// - Throws: ``ZMQError`` with `pthread_create`'s error code.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(ZMQError) {
        let box = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        let result = pthread_create(&thread, &attributes, { raw in
            ThreadStart.run(raw)
            return nil
        }, box)
        #else
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            ThreadStart.run(raw!)
            return nil
        }, box)
        #endif
        if result != 0 {
            Unmanaged<ThreadStart>.fromOpaque(box).release()
            throw ZMQError(ZMQError.Code(rawValue: result), call: "pthread_create(\(name))")
        }
    }
}

extension ZMQThread {
    /// The calling thread's identity (`pthread_self`), to tell a loop's own thread from the others.
    static var currentID: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}

/// What a new thread runs, passed through `pthread_create`'s context pointer.
private final class ThreadStart {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// The name cut to at most `maxBytes` UTF-8 bytes, on a character boundary.
    func shortName(maxBytes: Int) -> String {
        var short = ""
        for character in name {
            if short.utf8.count + character.utf8.count > maxBytes { break }
            short.append(character)
        }
        return short
    }

    static func run(_ raw: UnsafeMutableRawPointer) {
        let start = Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue()
        #if canImport(Darwin)
        pthread_setname_np(start.shortName(maxBytes: 63))
        #else
        czeromq_set_thread_name(start.shortName(maxBytes: 15))
        #endif
        start.body()
    }
}
