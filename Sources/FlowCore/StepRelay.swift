import Synchronization

/// A hot stream of steps without replay: RxFlow's `PublishRelay<Step>`.
///
/// Steps emitted while nobody listens are gone. Listeners are called synchronously, in the order they subscribed, on
/// the thread that emits. One exception, RxFlow's trampoline: a step emitted on the relay of an attached stepper while
/// its coordinator runs a synchronous cascade on the same thread joins that cascade instead of reaching the listeners
/// (`docs/SEMANTICS.md` R1).
///
/// `Sendable`: its only state, the list of listeners, is behind a `Mutex`.
public final class StepRelay: Sendable {
    /// A listener's registration; ``cancel()`` stops the deliveries.
    public struct Subscription: Hashable, Sendable {
        fileprivate let id: Int
        fileprivate let relay: ObjectIdentifier
    }

    private struct State {
        var nextID = 0
        var listeners: [(id: Int, deliver: @Sendable (Step) -> Void)] = []
    }

    private let state = Mutex(State())

    /// Makes a relay with no listeners.
    public init() {}

    /// Emits a step to every current listener.
    public func accept(_ step: Step) {
        if SynchronousEmissions.capture(step, on: self) { return }
        let listeners = state.withLock { $0.listeners }
        for listener in listeners { listener.deliver(step) }
    }

    /// Emits a step made from an application's own step type.
    public func accept(_ step: some StepConvertible) {
        accept(step.step)
    }

    /// Registers a listener called for every later step.
    @discardableResult
    public func subscribe(_ deliver: @escaping @Sendable (Step) -> Void) -> Subscription {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.listeners.append((id, deliver))
            return Subscription(id: id, relay: ObjectIdentifier(self))
        }
    }

    /// Removes a listener; later steps no longer reach it.
    public func cancel(_ subscription: Subscription) {
        guard subscription.relay == ObjectIdentifier(self) else { return }
        state.withLock { state in state.listeners.removeAll { $0.id == subscription.id } }
    }

    /// The steps emitted from now on, as an async sequence (subscribed as this call returns).
    public func stream() -> AsyncStream<Step> {
        let (stream, continuation) = AsyncStream.makeStream(of: Step.self)
        let subscription = subscribe { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.cancel(subscription) }
        return stream
    }

    /// How many listeners are subscribed.
    public var listenerCount: Int { state.withLock { $0.listeners.count } }
}
