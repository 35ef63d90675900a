internal import FlowCore
internal import FlowWire

/// What each peer holds across the sessions: the sessions a presenter hosts, the attachments a stepper process is
/// assigned, and the attachments waiting for a process of their kind. So a heartbeat, a stepper's `HELLO` and a lost
/// peer cost what that peer holds, not the number of sessions (docs/LIMITS.md, *One session's size*).
///
/// Kept by ``Session`` as its host and attachments change (each session refers to its daemon's one index).
///
/// Not `Sendable`: shared by ``DaemonCore`` and its sessions on the daemon's I/O thread.
final class PeerHoldings {
    /// One remote attachment of one session.
    struct AttachmentKey: Hashable, Comparable {
        let session: String
        let attachment: AttachmentID

        static func < (lhs: AttachmentKey, rhs: AttachmentKey) -> Bool {
            lhs.session != rhs.session ? lhs.session < rhs.session : lhs.attachment < rhs.attachment
        }
    }

    private var hosted: [PeerAddress: Set<String>] = [:]
    private var assigned: [PeerAddress: Set<AttachmentKey>] = [:]
    /// Unassigned remote attachments by stepper kind.
    private var waiting: [String: Set<AttachmentKey>] = [:]

    /// The sessions `peer` hosts, sorted.
    func sessions(hostedBy peer: PeerAddress) -> [String] { hosted[peer].map { $0.sorted() } ?? [] }

    /// The attachments assigned to `peer`, sorted by session and attachment.
    func attachments(assignedTo peer: PeerAddress) -> [AttachmentKey] { assigned[peer].map { $0.sorted() } ?? [] }

    /// How many attachments `peer` holds (of every kind, hibernated sessions' too): its load, kept as they change.
    func assignedCount(to peer: PeerAddress) -> Int { assigned[peer]?.count ?? 0 }

    /// The unassigned attachments of the given kinds, sorted by session and attachment.
    func waitingAttachments(ofKinds kinds: some Sequence<String>) -> [AttachmentKey] {
        Set(kinds).reduce(into: [AttachmentKey]()) { keys, kind in keys += waiting[kind] ?? [] }.sorted()
    }

    func hostChanged(session: String, from old: PeerAddress?, to new: PeerAddress?) {
        guard old != new else { return }
        if let old { remove(session, from: &hosted, at: old) }
        if let new { hosted[new, default: []].insert(session) }
    }

    /// A new attachment of `kind`, waiting for a stepper process: not in the index yet, so nothing to take out first.
    func attachmentAdded(_ key: AttachmentKey, kind: String) { waiting[kind, default: []].insert(key) }

    /// An attachment of `kind` was assigned (from waiting, `from` `nil`), moved, or ended (`ended`).
    func attachmentChanged(
        _ key: AttachmentKey, kind: String, from old: PeerAddress?, to new: PeerAddress?, ended: Bool = false
    ) {
        if let old { remove(key, from: &assigned, at: old) } else { remove(key, from: &waiting, at: kind) }
        guard !ended else { return }
        if let new { assigned[new, default: []].insert(key) } else { waiting[kind, default: []].insert(key) }
    }

    private func remove<Key: Hashable, Element: Hashable>(
        _ element: Element, from index: inout [Key: Set<Element>], at key: Key
    ) {
        guard index[key]?.remove(element) != nil, index[key]?.isEmpty == true else { return }
        index[key] = nil
    }

    /// The index as lists, for checking it against the sessions themselves.
    var contents: (hosted: [PeerAddress: Set<String>], assigned: [PeerAddress: Set<AttachmentKey>],
        waiting: [String: Set<AttachmentKey>])
    {
        (hosted, assigned, waiting)
    }
}

extension DaemonCore {
    /// Where the index of what peers hold differs from the sessions themselves (empty when it is right): the check
    /// behind the tests that hold it to every session's host and attachments.
    package var holdingsMismatches: [String] {
        var hosted: [PeerAddress: Set<String>] = [:]
        var assigned: [PeerAddress: Set<PeerHoldings.AttachmentKey>] = [:]
        var waiting: [String: Set<PeerHoldings.AttachmentKey>] = [:]
        func add(session: String, attachment: AttachmentID, kind: String, assignedTo peer: PeerAddress?) {
            let key = PeerHoldings.AttachmentKey(session: session, attachment: attachment)
            if let peer { assigned[peer, default: []].insert(key) } else { waiting[kind, default: []].insert(key) }
        }
        for session in sessions.made {
            if let host = session.host { hosted[host, default: []].insert(session.id) }
            for (id, attachment) in session.remoteAttachments {
                add(session: session.id, attachment: id, kind: attachment.kind, assignedTo: attachment.assignedTo)
            }
        }
        for pending in sessions.hibernated {
            for attachment in pending.hibernation?.attachments ?? [] {
                add(
                    session: pending.id, attachment: attachment.id, kind: attachment.kind,
                    assignedTo: attachment.assignedTo)
            }
        }
        let index = holdings.contents
        var mismatches: [String] = []
        if index.hosted != hosted { mismatches.append("hosted: index \(index.hosted), sessions \(hosted)") }
        if index.assigned != assigned { mismatches.append("assigned: index \(index.assigned), sessions \(assigned)") }
        if index.waiting != waiting { mismatches.append("waiting: index \(index.waiting), sessions \(waiting)") }
        return mismatches
    }
}
