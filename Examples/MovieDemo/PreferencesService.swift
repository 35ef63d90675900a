import Synchronization

/// The user's preferences: RxFlowDemo's `PreferencesService`, with the onboarding flag kept in memory instead of
/// `UserDefaults`.
///
/// ``observeOnboarded(_:)`` plays `rx.isOnboarded`: the observer gets the current value at once, then every change.
/// Setting the flag to the value it already has notifies nobody.
///
/// `Sendable`: its state is behind a `Mutex`; observers are called on the thread that changes the flag, outside the
/// lock.
public final class PreferencesService: Sendable {
    /// An observer's registration, to pass to ``cancel(_:)``.
    public struct Observation: Hashable, Sendable {
        fileprivate let id: Int
    }

    private struct State {
        var isOnboarded: Bool
        var nextID = 0
        var observers: [(id: Int, notify: @Sendable (Bool) -> Void)] = []
    }

    private let state: Mutex<State>

    /// Preferences of a user who has (`true`) or has not (`false`, a first run) gone through onboarding.
    public init(onboarded: Bool = false) {
        state = Mutex(State(isOnboarded: onboarded))
    }

    /// Whether the user went through onboarding.
    public var isOnboarded: Bool { state.withLock { $0.isOnboarded } }

    /// Marks the user as onboarded (the API key screen does it).
    public func setOnboarded() { set(true) }

    /// Marks the user as not onboarded (the Wishlist's Logout button does it).
    public func setNotOnboarded() { set(false) }

    /// Calls `observer` with the current value now, then with every change.
    @discardableResult
    public func observeOnboarded(_ observer: @escaping @Sendable (Bool) -> Void) -> Observation {
        let (observation, value) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.observers.append((id, observer))
            return (Observation(id: id), state.isOnboarded)
        }
        observer(value)
        return observation
    }

    /// Stops an observer.
    public func cancel(_ observation: Observation) {
        state.withLock { state in state.observers.removeAll { $0.id == observation.id } }
    }

    private func set(_ value: Bool) {
        let observers = state.withLock { state -> [@Sendable (Bool) -> Void] in
            guard state.isOnboarded != value else { return [] }
            state.isOnboarded = value
            return state.observers.map(\.notify)
        }
        for observer in observers { observer(value) }
    }
}
