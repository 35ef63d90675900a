import Foundation

/// The seed of the fuzz runs: fixed, so that CI runs the same million cases every time; `FLOWD_FUZZ_SEED` (decimal or
/// `0x` hex) replays or explores another.
enum FuzzSeed {
    static let `default`: UInt64 = 0xF10D_5EED_2025_0001

    static var value: UInt64 {
        guard let text = ProcessInfo.processInfo.environment["FLOWD_FUZZ_SEED"] else { return `default` }
        if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) ?? `default` }
        return UInt64(text) ?? `default`
    }

    static func hex(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16, uppercase: true) }
}
