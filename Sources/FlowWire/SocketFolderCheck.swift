internal import LibC

/// What the folder of `ipc://` socket files says about who else may reach or replace them (docs/SECURITY.md §3):
/// one `stat` of the folder, judged against this process's user.
package enum SocketFolderCheck: Sendable, Hashable {
    /// Missing, or this user's with no way in for others.
    case fine
    /// Owned by another user than this process's and root: that user can rename or replace the sockets in it.
    case foreignOwner(uid: UInt32)
    /// Others may enter it (root's folder, or a mode that lets others in): why.
    case exposed(reason: String)

    /// The verdict on the folder at `path`.
    package init(folder path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = .fine
            return
        }
        let user = geteuid()
        if info.st_uid != user && info.st_uid != 0 {
            self = .foreignOwner(uid: info.st_uid)
        } else if info.st_uid != user {
            self = .exposed(reason: "owned by uid \(info.st_uid), not this user (\(user))")
        } else if info.st_mode & 0o007 != 0 {
            self = .exposed(reason: "mode \(String(info.st_mode & 0o777, radix: 8)) lets others in")
        } else {
            self = .fine
        }
    }

    /// The verdict on the folder of an `ipc://` endpoint's socket file; `nil` for an endpoint that names no file
    /// (``PathParts/socketFile(ofEndpoint:)``).
    package init?(endpoint: String) {
        guard let path = PathParts.socketFile(ofEndpoint: endpoint) else { return nil }
        self.init(folder: PathParts.folder(of: path))
    }
}
