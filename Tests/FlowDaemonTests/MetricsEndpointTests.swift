#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlowDaemon
import Logging
import ServiceLifecycle
import Testing
import Foundation

private let quiet = Logger(label: "MetricsEndpointTests", factory: { _ in SwiftLogNoOpLogHandler() })
private let body = Array("# TYPE flowd_sessions gauge\nflowd_sessions 1.0\n".utf8)

// MARK: - A blocking client, run off the cooperative pool

/// A client socket connected to `127.0.0.1:port` (blocking; a 10 s receive timeout keeps a broken test from hanging).
private final class Client: @unchecked Sendable {
    let fd: Int32

    init(port: Int) throws {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // Closed here and thrown before `self.fd` is set: a class whose init throws once every property is set runs
        // its deinit, which would close the number a second time, maybe another test's socket by then.
        guard status == 0 else {
            let code = errno
            close(fd)
            throw POSIXErrorCode(rawValue: code).map { POSIXError($0) } ?? POSIXError(.EIO)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `bytes` (without SIGPIPE when the endpoint closed first: the test sees what it reads then).
    func sendAll(_ bytes: [UInt8]) {
        #if canImport(Darwin)
        let flags: Int32 = 0
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, flags) }
            if count <= 0 { return }
            offset += count
        }
    }

    /// Everything until the server closes (or the receive timeout).
    func readToEnd() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 { received += Array("<read failed: errno \(errno)>".utf8) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// Runs blocking client code on a thread of its own: never on Swift's cooperative pool, nor on Dispatch's global
/// queues (which that pool is built on, on Linux), so a client waiting for the endpoint cannot keep it from starting.
private func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Sends `request` on a new connection and returns the whole response.
private func exchange(_ port: Int, _ request: [UInt8]) async throws -> String {
    try await offPool {
        let client = try Client(port: port)
        client.sendAll(request)
        return client.readToEnd()
    }
}

private func exchange(_ port: Int, _ request: String) async throws -> String {
    try await exchange(port, Array(request.utf8))
}

/// Runs `endpoint` while `body` runs, then cancels it and waits until it stopped.
private func serving(
    _ endpoint: MetricsEndpoint, _ body: @Sendable (Int) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await endpoint.run() }
        try await body(endpoint.port)
        group.cancelAll()
        try await group.waitForAll()
    }
}

/// The limits of the tests: a deadline far enough that no test meets it by being slow (a loaded machine).
private func testLimits() -> MetricsEndpoint.Limits {
    var limits = MetricsEndpoint.Limits()
    limits.timeoutMs = 60_000
    return limits
}

private func makeEndpoint(limits: MetricsEndpoint.Limits = testLimits()) throws -> MetricsEndpoint {
    try MetricsEndpoint(address: "127.0.0.1:0", limits: limits, logger: quiet) { body }
}

/// The status line (`"\r\n"` is one `Character`, so the split is on bytes).
private func status(of response: String) -> String {
    String(decoding: response.utf8.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
}

struct MetricsEndpointTests {
    @Test func getMetricsAnswersThePrometheusText() async throws {
        let endpoint = try makeEndpoint()
        #expect(endpoint.port > 0)
        try await serving(endpoint) { port in
            let response = try await exchange(port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n")
            #expect(
                response
                    == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                    + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                    + String(decoding: body, as: UTF8.self)
            )
            // A query string and HTTP/1.0 too; HEAD gets the head only.
            #expect(status(of: try await exchange(port, "GET /metrics?name[]=x HTTP/1.0\r\n\r\n")) == "HTTP/1.1 200 OK")
            let head = try await exchange(port, "HEAD /metrics HTTP/1.1\r\n\r\n")
            #expect(head.hasPrefix("HTTP/1.1 200 OK") && head.hasSuffix("Connection: close\r\n\r\n"))
        }
    }

    @Test func anythingElseIsNotFound() async throws {
        try await serving(try makeEndpoint()) { port in
            for request in [
                "GET / HTTP/1.1", "GET /metricsx HTTP/1.1", "GET /metrics/ HTTP/1.1", "POST /metrics HTTP/1.1",
                "DELETE /metrics HTTP/1.1", "GET /health HTTP/1.1",
            ] {
                let response = try await exchange(port, request + "\r\n\r\n")
                #expect(status(of: response) == "HTTP/1.1 404 Not Found", "\(request)")
            }
        }
    }

    @Test func garbageIsRefusedAndTheNextClientIsServed() async throws {
        try await serving(try makeEndpoint()) { port in
            var generator = SystemRandomNumberGenerator()
            let noise = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for request in [
                Array("garbage\r\n\r\n".utf8), Array("GET /metrics\r\n\r\n".utf8),
                Array("GET  /metrics HTTP/1.1\n\n".utf8),
                Array("get /metrics HTTP/1.1\r\n\r\n".utf8), Array("GET /metrics SPDY/3\r\n\r\n".utf8),
                noise.map { $0 == 10 ? 11 : $0 } + Array("\r\n\r\n".utf8),
            ] {
                let response = try await exchange(port, request)
                #expect(status(of: response) == "HTTP/1.1 400 Bad Request", "\(request.prefix(30)) → \(response)")
            }
            // Bytes then an end before the head ends: no answer, and the endpoint goes on.
            let cut = try await offPool {
                let client = try Client(port: port)
                client.sendAll(Array("GET /met".utf8))
                shutdown(client.fd, Int32(SHUT_WR))
                return client.readToEnd()
            }
            #expect(cut == "")
            #expect(status(of: try await exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
        }
    }

    @Test func anOversizedRequestIsCutOff() async throws {
        var limits = testLimits()
        limits.maxRequestBytes = 1024
        try await serving(try makeEndpoint(limits: limits)) { port in
            let huge = "GET /metrics HTTP/1.1\r\n" + String(repeating: "X-Filler: aaaaaaaaaaaaaaaa\r\n", count: 2000)
            let response = try await exchange(port, huge)
            #expect(status(of: response) == "HTTP/1.1 431 Request Header Fields Too Large")
            #expect(status(of: try await exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
        }
    }

    /// A head of exactly `maxRequestBytes` is answered; one byte more, ending right after the limit, is `431`.
    @Test func aHeadOfTheLimitIsServedAndOneByteMoreIsTooLarge() async throws {
        var limits = testLimits()
        limits.maxRequestBytes = 1024
        try await serving(try makeEndpoint(limits: limits)) { port in
            func head(_ size: Int) -> String {
                let start = "GET /metrics HTTP/1.1\r\nX-Pad: "
                return start + String(repeating: "a", count: size - start.utf8.count - 4) + "\r\n\r\n"
            }
            let atTheLimit = try await exchange(port, head(1024))
            #expect(status(of: atTheLimit) == "HTTP/1.1 200 OK")
            let overTheLimit = try await exchange(port, head(1025))
            #expect(status(of: overTheLimit) == "HTTP/1.1 431 Request Header Fields Too Large")
        }
    }

    @Test func clientsThatSendNothingDoNotHoldUpTheOthers() async throws {
        try await serving(try makeEndpoint()) { port in
            // Two clients hold their connections open: one silent, one stuck halfway through its request line.
            let silent = try await offPool { try Client(port: port) }
            let halfway = try await offPool { try Client(port: port) }
            halfway.sendAll(Array("GET /met".utf8))
            for _ in 0..<3 {
                let response = try await exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")
                #expect(status(of: response) == "HTTP/1.1 200 OK", "\(response)")
            }
            // The stuck one can still finish its request.
            let response = try await offPool {
                halfway.sendAll(Array("rics HTTP/1.1\r\n\r\n".utf8))
                return halfway.readToEnd()
            }
            #expect(status(of: response) == "HTTP/1.1 200 OK")
            _ = silent
        }
    }

    @Test func aConnectionIsClosedAtItsDeadline() async throws {
        var limits = MetricsEndpoint.Limits()
        limits.timeoutMs = 50
        try await serving(try makeEndpoint(limits: limits)) { port in
            // A client that never finishes its request gets the connection closed, with no answer.
            let response = try await offPool {
                let client = try Client(port: port)
                client.sendAll(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n".utf8))
                return client.readToEnd()
            }
            #expect(response == "")
        }
    }

    @Test func beyondTheConnectionLimitTheOldestIsClosed() async throws {
        var limits = testLimits()
        limits.maxConnections = 2
        try await serving(try makeEndpoint(limits: limits)) { port in
            let oldest = try await offPool { try Client(port: port) }
            let second = try await offPool { try Client(port: port) }
            // The endpoint has both once the second one is answered after the first: a request on it proves it.
            #expect(status(of: try await exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
            // That third connection made room by closing the oldest, which reads an end with no answer.
            #expect(try await offPool { oldest.readToEnd() } == "")
            _ = second
        }
    }

    @Test func gracefulShutdownStopsItAndFreesThePort() async throws {
        let endpoint = try makeEndpoint()
        let port = endpoint.port
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: endpoint)], logger: quiet)
        )
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(status(of: try await exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        await #expect(throws: POSIXError.self) { try await offPool { try Client(port: port) } }
    }

    @Test func addressesAreHostColonPort() throws {
        #expect(MetricsEndpoint.parseAddress("127.0.0.1:9464")! == ("127.0.0.1", 9464))
        #expect(MetricsEndpoint.parseAddress("0.0.0.0:0")! == ("0.0.0.0", 0))
        #expect(MetricsEndpoint.parseAddress("[::1]:9464")! == ("::1", 9464))
        #expect(MetricsEndpoint.parseAddress("localhost:80")! == ("localhost", 80))
        let bad = ["9464", ":9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "::1:9464", "a b:1"]
        for bad in bad {
            #expect(MetricsEndpoint.parseAddress(bad) == nil, "\(bad)")
        }
        #expect(throws: MetricsEndpointError.self) { try MetricsEndpoint(address: "nowhere", logger: quiet) { [] } }
        // A port in use cannot be bound twice.
        let first = try makeEndpoint()
        #expect(throws: MetricsEndpointError.self) {
            try MetricsEndpoint(address: "127.0.0.1:\(first.port)", logger: quiet) { [] }
        }
    }

    @Test func theFlagAndTheConfigFileNameTheAddress() throws {
        let environment = ["FLOWD_RUNTIME_DIR": "/tmp/flowd-metrics-test"]
        #expect(try FlowdOptions.parse([]).settings(environment: environment).metricsAddress == nil)
        #expect(
            try FlowdOptions.parse(["--metrics", "127.0.0.1:9464"]).settings(environment: environment).metricsAddress
                == "127.0.0.1:9464"
        )
        #expect(throws: (any Error).self) { try FlowdOptions.parse(["--metrics", "9464"]) }

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flowd-metrics-\(getpid()).json").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(#"{"metrics": "0.0.0.0:9464"}"#.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            try FlowdOptions.parse(["--config", path]).settings(environment: environment).metricsAddress
                == "0.0.0.0:9464")
        // The flag wins; `off` turns the file's endpoint off.
        #expect(
            try FlowdOptions.parse(["--config", path, "--metrics", "127.0.0.1:1"]).settings(environment: environment)
                .metricsAddress == "127.0.0.1:1"
        )
        #expect(
            try FlowdOptions.parse(["--config", path, "--metrics", "off"]).settings(environment: environment)
                .metricsAddress == nil
        )
    }
}
