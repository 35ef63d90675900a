internal import LibC

/// `sd_notify(3)` without libsystemd: a datagram to `$NOTIFY_SOCKET` (`READY=1`, `STOPPING=1`, `STATUS=…`).
///
/// Does nothing when `NOTIFY_SOCKET` is not set (not started by systemd with `Type=notify`). Abstract socket names
/// (`@…`) are supported.
package struct SystemdNotifier: Sendable {
    private let socketPath: String?

    /// A notifier for `NOTIFY_SOCKET` from `environment`.
    package init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"]
        self.socketPath = (path?.isEmpty ?? true) ? nil : path
    }

    /// Whether systemd asked for notifications.
    package var isEnabled: Bool { socketPath != nil }

    /// Sends `state` (lines of `KEY=value`); returns whether it was sent.
    @discardableResult
    package func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        #if canImport(Darwin)
        let fd = socket(AF_UNIX, SOCK_DGRAM, 0)
        #else
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { buffer in
                    sendto(fd, buffer.baseAddress, buffer.count, 0, socketAddress, length)
                }
            }
        }
        return sent == bytes.count
    }
}
