/// A fault a run injects: SIGKILL to one process, then the same process started again.
enum Fault: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// flowd, restarted on the same endpoints and state folder.
    case flowd
    /// The presenter, restarted under the same name (it takes its session over).
    case presenter
    /// The movie service (stateless; the login service holds who is logged in and is left alone).
    case movieService = "movie-service"

    var description: String { rawValue }
}

/// Which faults a run injects, and how often: at each operation, with `duringPerMille` chance, a fault a random
/// 0…`maxDelayMs` ms after the operation was issued (so within it: before, while or after the daemon handles it);
/// after each operation is done, with `betweenPerMille` chance, another. At most `maxFaults` in a run.
struct FaultPlan: Sendable, CustomStringConvertible {
    var faults: [Fault]
    var seed: UInt64
    var duringPerMille = 450
    var betweenPerMille = 150
    var maxDelayMs = 300
    var maxFaults = 20

    var description: String {
        "faults \(faults.map(\.rawValue).joined(separator: "+")), seed \(FaultSeed.hex(seed))"
            + " (FLOWD_FAULT_SEED=\(FaultSeed.hex(seed)) replays its choices)"
    }
}
