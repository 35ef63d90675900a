import FlowCore
import Synchronization

extension Array where Element == CoordinatorAction {
    /// The actions as readable lines (their `description`), in order: what tests compare with `==`.
    var log: [String] { map(\.description) }
}

extension CoordinatorAction {
    /// Whether this is a will/did-navigate event.
    var isNavigationEvent: Bool {
        switch self {
        case .willNavigate, .didNavigate: return true
        default: return false
        }
    }
}

/// A thread-safe, append-only list: to record from closures that must be `@Sendable` (relay listeners, coordinator
/// observers, asynchronous adaptations).
///
/// `Sendable`: the list is behind a `Mutex`.
final class LockedLog<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    init() {}

    /// Appends `element`.
    func append(_ element: Element) { storage.withLock { $0.append(element) } }

    /// Everything appended so far, in order.
    var elements: [Element] { storage.withLock { $0 } }

    /// Removes and returns everything appended so far.
    func takeAll() -> [Element] {
        storage.withLock { elements in
            defer { elements = [] }
            return elements
        }
    }
}

/// Records a ``FlowCoordinator``'s actions as lines (their `description`), from its observer callback.
typealias ActionLogRecorder = LockedLog<String>

extension LockedLog where Element == String {
    /// Records `action`'s description.
    func record(_ action: CoordinatorAction) { append(action.description) }
}
