internal import FlowWire

/// `stepper-names`' JSON, `{"kinds":{"login.app":["login-a","login-b"]}}` (kinds and names sorted), kept encoded and
/// changed a name at a time: a join encodes its own name once per kind, and a write copies each kind's bytes, so a
/// burst of joins costs no more than the bytes written (docs/RELIABILITY.md, `stepper-names`).
struct EncodedStepperNames {
    /// One kind's names, sorted, and their JSON strings, each followed by a comma (the last one's left out).
    private struct Names {
        var names: [String] = []
        var bytes: [UInt8] = []
        /// Where each name's string and comma end in ``bytes``.
        var ends: [Int] = []

        init() {}

        /// `sorted`, distinct names, encoded at once.
        init(sorted: [String], writer: inout FastJSONWriter) {
            names = sorted
            ends.reserveCapacity(sorted.count)
            for name in sorted {
                writer.reset()
                writer.string(name)
                writer.raw(",")
                writer.withBytes { bytes.append(contentsOf: $0) }
                ends.append(bytes.count)
            }
        }

        func start(of index: Int) -> Int { index == 0 ? 0 : ends[index - 1] }

        /// Where `name` is, or would be inserted.
        func position(of name: String) -> (index: Int, found: Bool) {
            var low = 0
            var high = names.count
            while low < high {
                let middle = (low + high) / 2
                if names[middle] < name { low = middle + 1 } else { high = middle }
            }
            return (low, low < names.count && names[low] == name)
        }

        mutating func insert(_ name: String, encoded: [UInt8]) {
            let (index, found) = position(of: name)
            guard !found else { return }
            let start = start(of: index)
            bytes.insert(contentsOf: encoded, at: start)
            names.insert(name, at: index)
            ends.insert(start + encoded.count, at: index)
            for later in (index + 1)..<ends.count { ends[later] += encoded.count }
        }

        mutating func remove(_ name: String) {
            let (index, found) = position(of: name)
            guard found else { return }
            let start = start(of: index)
            let length = ends[index] - start
            bytes.removeSubrange(start..<ends[index])
            names.remove(at: index)
            ends.remove(at: index)
            for later in index..<ends.count { ends[later] -= length }
        }
    }

    private var kinds: [String: Names] = [:]
    /// Where each name is encoded, reused name after name.
    private var writer = FastJSONWriter()

    init() {}

    /// Exactly `kinds` (names repeated in a kind count once).
    init(_ kinds: [String: [String]]) {
        for (kind, names) in kinds where !names.isEmpty {
            self.kinds[kind] = Names(sorted: Set(names).sorted(), writer: &writer)
        }
    }

    var isEmpty: Bool { kinds.isEmpty }

    mutating func insert(_ name: String, for kind: String) {
        writer.reset()
        writer.string(name)
        writer.raw(",")
        kinds[kind, default: Names()].insert(name, encoded: writer.bytes)
    }

    mutating func remove(_ name: String, from kind: String) {
        kinds[kind]?.remove(name)
        if kinds[kind]?.names.isEmpty == true { kinds[kind] = nil }
    }

    /// Applies what the core's ``KeptStepperNames`` changed: name by name, each costing a move of its kind's bytes,
    /// or, for a kind with more than ``rebuiltAbove`` changes (a start awaiting the last run's thousands), by sorting
    /// and encoding the kind again.
    mutating func apply(_ changes: [KeptStepperNames.Change]) {
        for (kind, changes) in Dictionary(grouping: changes, by: \.kind) {
            guard changes.count > Self.rebuiltAbove else {
                for change in changes {
                    if change.kept { insert(change.name, for: kind) } else { remove(change.name, from: kind) }
                }
                continue
            }
            var names = Set(kinds[kind]?.names ?? [])
            for change in changes {
                if change.kept { names.insert(change.name) } else { names.remove(change.name) }
            }
            kinds[kind] = names.isEmpty ? nil : Names(sorted: names.sorted(), writer: &writer)
        }
    }

    static let rebuiltAbove = 64

    /// The file's bytes.
    mutating func bytes() -> [UInt8] {
        var bytes = Array(#"{"kinds":{"#.utf8)
        bytes.reserveCapacity(kinds.values.reduce(16) { $0 + $1.bytes.count + 16 + 128 })  // 128: a kind's name
        for (index, kind) in kinds.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            writer.reset()
            writer.string(kind)
            writer.withBytes { bytes.append(contentsOf: $0) }
            bytes += #":["#.utf8
            let names = kinds[kind]!.bytes
            bytes += names[..<(names.count - 1)]  // without the last comma
            bytes.append(UInt8(ascii: "]"))
        }
        bytes += "}}".utf8
        return bytes
    }
}
