/// Paths cut into the parts the daemon and the clients need, in one place: an `ipc://` endpoint's socket file, and a
/// path's folder. Both take relative paths as they are (relative to the working directory, as libzmq takes them).
package enum PathParts {
    /// The socket file an `ipc://` endpoint names; `nil` for another transport, for Linux's abstract namespace
    /// (`ipc://@name`, no file), for libzmq's wildcard (`ipc://*`: libzmq makes the file, in a folder of its own that
    /// the bound endpoint names) and for an empty path.
    package static func socketFile(ofEndpoint endpoint: String) -> String? {
        guard endpoint.hasPrefix("ipc://") else { return nil }
        let path = String(endpoint.dropFirst("ipc://".count))
        guard !path.isEmpty, !path.hasPrefix("@"), path != "*" else { return nil }
        return path
    }

    /// The folder `path` is in: what comes before its last `/`; `/` for a name at the root, `.` for a bare name.
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
