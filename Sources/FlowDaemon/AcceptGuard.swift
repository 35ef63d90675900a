internal import CAcceptGuard

/// The last line of the descriptor reserve (``ConnectionBudget``): with the guard installed, a connection that comes
/// when flowd has no descriptor left is taken with a spare one and closed at once, where libzmq 4.3's IPC listener
/// would have aborted the process on `accept`'s `EMFILE`. Its client sees the connection closed and dials again.
///
/// Process-wide (the guard replaces `accept`/`accept4` for the whole executable, passing every call through until a
/// descriptor is missing), hence an enum of static functions.
enum AcceptGuard {
    /// Turns the guard on; false when its spare descriptor cannot be opened (then `EMFILE` aborts as before).
    static func install() -> Bool { flowd_accept_guard_install() == 0 }

    /// Connections closed at the limit since the process started.
    static var closedAtLimit: Int { Int(clamping: flowd_accept_guard_dropped()) }
}
