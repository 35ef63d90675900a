#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FlowDaemon
import Foundation
import Testing

/// sd_notify without libsystemd, against a fake `NOTIFY_SOCKET` (a datagram socket the test binds), and the start
/// timeout extended while a recovery makes progress.
struct SystemdNotifierTests {
    /// A bound unix datagram socket in a fresh directory, as systemd's notification socket.
    private final class FakeNotifySocket {
        let directory: String
        let path: String
        let fd: Int32

        init() throws {
            var template = Array("/tmp/flowd-notify-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
            directory = String(cString: made)
            path = directory + "/notify"
            #if canImport(Darwin)
            fd = socket(AF_UNIX, SOCK_DGRAM, 0)
            #else
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            #endif
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, bound == 0 else { throw POSIXError(.EIO) }
        }

        deinit {
            close(fd)
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// The next datagram, without waiting: what a send already delivered.
        func received() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
        }
    }

    @Test("EXTEND_TIMEOUT_USEC and STATUS reach the NOTIFY_SOCKET as one datagram")
    func notificationReachesTheSocket() throws {
        let socket = try FakeNotifySocket()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(notifier.isEnabled)
        var timeout = RecoveryTimeoutExtension()
        let notification = timeout.notification(for: RecoveryProgress(replayed: 4096, total: 10_000))
        let message = try #require(notification)
        #expect(notifier.notify(message))
        #expect(socket.received() == "EXTEND_TIMEOUT_USEC=10000000\nSTATUS=recovering the state: 4096 of 10000 journal records")
        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"), "not under systemd: nothing sent")
    }

    @Test("The timeout is extended only while the recovery makes progress")
    func extendedOnlyOnProgress() {
        var timeout = RecoveryTimeoutExtension()
        let looks = [
            nil, RecoveryProgress(replayed: 0, total: 9000), RecoveryProgress(replayed: 0, total: 9000),
            RecoveryProgress(replayed: 4096, total: 9000), RecoveryProgress(replayed: 4096, total: 9000),
        ].map { timeout.notification(for: $0) }
        #expect(looks[0] == nil, "no recovery running")
        #expect(looks[1]?.hasPrefix("EXTEND_TIMEOUT_USEC=") == true, "the recovery started")
        #expect(looks[2] == nil, "stuck: systemd's timeout runs")
        #expect(looks[3] != nil)
        #expect(looks[4] == nil)
        #expect(
            RecoveryTimeoutExtension.extensionMicroseconds > 2 * 1_000_000 * Int(RecoveryTimeoutExtension.interval.components.seconds),
            "a look asks for more than the time until the next look")
    }
}
