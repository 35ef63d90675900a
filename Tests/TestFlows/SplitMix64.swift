/// SplitMix64 (Steele, Lea and Flood): a tiny, fast, deterministic generator, so that a fuzz run is reproduced by its
/// seed alone, on every platform. Shared by the fuzzers, the fault injection and the model tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    /// The generator of `seed`.
    public init(seed: UInt64) { state = seed }

    /// The generator of one case of a run: case `index` of seed `seed` can be replayed on its own.
    public init(seed: UInt64, case index: Int) {
        var mixer = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (`bound` > 0; the modulo bias is irrelevant here).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A number in `range`.
    public mutating func inRange(_ range: ClosedRange<Int>) -> Int { range.lowerBound + below(range.count) }

    /// True with the given probability, in per mille.
    public mutating func perMille(_ chance: Int) -> Bool { below(1000) < chance }

    /// One of `items` (not empty).
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            var word = next()
            for _ in 0..<min(8, count - result.count) {
                result.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return result
    }

    /// A small length, skewed towards short (most bugs need few bytes; some need many).
    public mutating func length(max: Int) -> Int {
        switch below(10) {
        case 0..<6: return below(Swift.min(max, 16) + 1)
        case 6..<9: return below(Swift.min(max, 256) + 1)
        default: return below(max + 1)
        }
    }
}
