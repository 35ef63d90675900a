internal import LibC
import FlowWire
package import ZeroMQ

extension FlowClientError {
    /// The error for connecting without CURVE to an `ipc://` endpoint whose folder belongs to another user than this
    /// process's and root (docs/SECURITY.md §3), or nil: that user could have put their own socket there, and without
    /// keys nothing tells the daemon from it. With CURVE the daemon's key does.
    package static func untrustedSocketFolder(_ endpoint: String, options: ZMQSocketOptions) -> FlowClientError? {
        guard options.curve == nil, case .foreignOwner(let owner)? = SocketFolderCheck(endpoint: endpoint) else {
            return nil
        }
        return FlowClientError(
            .invalidConfiguration,
            "the folder of '\(endpoint)' belongs to uid \(owner), not to this user (\(geteuid())) or root: whoever "
                + "owns it can put their own socket there; use a folder of this user's (FLOWD_RUNTIME_DIR, "
                + "--runtime-dir) or CURVE keys (docs/SECURITY.md §3)")
    }
}
