/// The versions of the application a daemon holds: the current one, which new sessions get, and every one a live
/// session still uses, with how many use it. A version no session uses and that is not current is let go.
///
/// Not `Sendable`: part of ``DaemonCore``.
struct AppVersions {
    /// The version new sessions get; `nil` when the application is code (no file, no versions).
    private(set) var current: AppVersion?
    private var versions: [String: AppVersion] = [:]
    private var users: [String: Int] = [:]

    init(current: AppVersion?) {
        self.current = current
        if let current { versions[current.id] = current }
    }

    subscript(id: String) -> AppVersion? { versions[id] }

    /// The ids of the versions held: the current one and those live sessions use.
    var ids: Set<String> { Set(versions.keys) }

    /// How many live sessions use version `id`.
    func users(of id: String) -> Int { users[id] ?? 0 }

    /// New sessions get `version` from now on; the previous current one stays while a session uses it.
    mutating func makeCurrent(_ version: AppVersion) {
        let previous = current?.id
        current = version
        versions[version.id] = version
        if let previous, previous != version.id, users(of: previous) == 0 { versions[previous] = nil }
    }

    /// Holds `version` (one a recovered session names), unless it is held already.
    mutating func hold(_ version: AppVersion) {
        if versions[version.id] == nil { versions[version.id] = version }
    }

    /// A session uses version `id` (`nil`: none).
    mutating func retain(_ id: String?) {
        guard let id else { return }
        users[id, default: 0] += 1
    }

    /// A session that used version `id` ended.
    mutating func release(_ id: String?) {
        guard let id, let count = users[id] else { return }
        guard count == 1 else {
            users[id] = count - 1
            return
        }
        users[id] = nil
        if id != current?.id { versions[id] = nil }
    }
}

@available(*, unavailable)
extension AppVersions: Sendable {}
