import Foundation
import Logging
import ZeroMQ

/// A logger that drops everything (tests never bootstrap the logging system).
let testLogger = Logger(label: "zeromq-tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// How long a blocking test receive may wait before the test fails instead of hanging.
let generousTimeoutMilliseconds: Int32 = 20_000

/// A unique `inproc://` endpoint.
func uniqueInprocEndpoint(_ name: String = #function) -> String {
    let cleaned = name.filter { $0.isLetter || $0.isNumber }
    return "inproc://zeromq-tests.\(cleaned).\(UUID().uuidString)"
}

/// Runs `body` with a fresh temporary directory (for `ipc://` endpoints), removed afterwards.
func withTemporaryDirectory<Result>(_ body: (String) async throws -> Result) async throws -> Result {
    // ipc paths are limited to ~107 bytes, so stay short: /tmp/zmq-XXXXXXXX.
    let path = "/tmp/zmq-" + UUID().uuidString.prefix(8)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// A synchronous socket whose blocking receives give up (failing the test) after a generous timeout.
func boundedSocket(
    _ type: ZMQSocketType,
    context: ZMQContext,
    options: ZMQSocketOptions = ZMQSocketOptions()
) throws -> ZMQSocket {
    let socket = try ZMQSocket(type, context: context, options: options)
    try socket.setOption(.receiveTimeout, to: generousTimeoutMilliseconds)
    try socket.setOption(.sendTimeout, to: generousTimeoutMilliseconds)
    return socket
}

/// Reads monitor events from `monitor` until one of `kinds` arrives.
///
/// - Returns: the events read, the matching one last.
func receiveMonitorEvents(from monitor: ZMQSocket, until kinds: ZMQMonitorEvent.Kind) throws -> [ZMQMonitorEvent] {
    var events: [ZMQMonitorEvent] = []
    while true {
        guard let event = ZMQMonitorEvent(try monitor.receive()) else { continue }
        events.append(event)
        if !event.kind.isDisjoint(with: kinds) { return events }
    }
}

/// Reads monitor events from a loop monitor socket until one of `kinds` arrives (or the monitor ends).
func awaitMonitorEvent(on monitor: ZMQSocketHandle, _ kinds: ZMQMonitorEvent.Kind) async -> [ZMQMonitorEvent] {
    var events: [ZMQMonitorEvent] = []
    for await message in monitor.messages {
        guard let event = ZMQMonitorEvent(message) else { continue }
        events.append(event)
        if !event.kind.isDisjoint(with: kinds) { break }
    }
    return events
}

extension ZMQMessage {
    /// A message of UTF-8 frames, for tests.
    static func text(_ strings: String...) -> ZMQMessage { ZMQMessage(strings: strings) }
}
