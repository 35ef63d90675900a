import Foundation

/// The random choices of a fault-injection run (which fault, when, after how long) from one seed, so a failing run
/// names the seed that replays its choices. Only the choices are replayed: the timing of the processes is not.
///
/// SplitMix64 (Steele, Lea and Flood), as in the fuzz tests: tiny and the same on every platform.
struct FaultRandom: RandomNumberGenerator {
    private(set) var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0; the modulo bias is irrelevant here).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True with the given probability, in per mille.
    mutating func perMille(_ chance: Int) -> Bool { below(1000) < chance }

    /// One of `items` (not empty).
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// The seed of a fault-injection run: a new one every run (printed in the summary and in every failure), or
/// `FLOWD_FAULT_SEED` (decimal or `0x` hex) to replay one.
enum FaultSeed {
    static func value() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["FLOWD_FAULT_SEED"] {
            let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            if let parsed { return parsed }
        }
        return UInt64.random(in: 1...UInt64.max)
    }

    static func hex(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16, uppercase: true) }
}
