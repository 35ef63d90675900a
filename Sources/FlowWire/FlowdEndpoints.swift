internal import LibC
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where `flowd` listens when nothing says otherwise (`docs/PROTOCOL.md` §1): `ipc://` sockets in a runtime folder.
///
/// The folder is `$XDG_RUNTIME_DIR/flowd` when `XDG_RUNTIME_DIR` is set and not empty, else `/run/flowd` for root,
/// else `/tmp/flowd-<uid>`; `FLOWD_RUNTIME_DIR` (set and not empty) overrides all three. Daemon and clients use this
/// same rule, so they meet without configuration.
public struct FlowdEndpoints: Sendable, Hashable {
    /// The control ROUTER's endpoint.
    public var control: String
    /// The events PUB's endpoint.
    public var events: String

    public init(control: String, events: String) {
        self.control = control
        self.events = events
    }

    /// The endpoints in a runtime folder.
    public init(runtimeDirectory: String) {
        self.init(control: "ipc://\(runtimeDirectory)/control.sock", events: "ipc://\(runtimeDirectory)/events.sock")
    }

    /// The default endpoints, in ``defaultRuntimeDirectory(environment:)``.
    public static func `default`(environment: [String: String] = currentEnvironment()) -> FlowdEndpoints {
        FlowdEndpoints(runtimeDirectory: defaultRuntimeDirectory(environment: environment))
    }

    /// The default runtime folder (see the type's documentation).
    public static func defaultRuntimeDirectory(environment: [String: String] = currentEnvironment()) -> String {
        if let explicit = environment["FLOWD_RUNTIME_DIR"], !explicit.isEmpty { return explicit }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/flowd" }
        let uid = getuid()
        return uid == 0 ? "/run/flowd" : "/tmp/flowd-\(uid)"
    }

    /// The process environment.
    public static func currentEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment
    }
}
