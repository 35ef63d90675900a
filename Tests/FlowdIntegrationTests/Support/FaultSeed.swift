import Foundation
import TestFlows

/// The random choices of a fault-injection run (which fault, when, after how long) from one seed, so a failing run
/// names the seed that replays its choices. Only the choices are replayed: the timing of the processes is not.
typealias FaultRandom = SplitMix64

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
