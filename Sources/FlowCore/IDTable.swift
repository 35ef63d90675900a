/// Values by an ID that a tree hands out in increasing order (coordinators, attachments), kept densely in ID order.
///
/// A dictionary keeps a quarter to half of its buckets empty, and in a small tree those empty buckets of wide values
/// cost more than the values (docs/PERFORMANCE.md, issue 11: an idle session). Here a lookup is a binary search,
/// adding the newest ID appends, and the order is the one the machine reports and saves in. Removing leaves a hole
/// that is closed once holes outnumber the values, so a removal costs O(1) amortized whatever the table's size.
struct IDTable<ID: Comparable, Value> {
    private var entries: [(id: ID, value: Value?)] = []
    /// How many IDs have a value.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The IDs with a value, in order.
    var ids: [ID] { entries.compactMap { $0.value == nil ? nil : $0.id } }

    /// The values, in ID order.
    var values: [Value] { entries.compactMap(\.value) }

    /// Where `id` is, or would go.
    private func position(of id: ID) -> (index: Int, found: Bool) {
        if let last = entries.last, last.id < id { return (entries.count, false) }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return (low, low < entries.count && entries[low].id == id)
    }

    subscript(id: ID) -> Value? {
        get {
            let (index, found) = position(of: id)
            return found ? entries[index].value : nil
        }
        set {
            let (index, found) = position(of: id)
            store(newValue, for: id, at: index, found: found, had: found && entries[index].value != nil)
        }
        _modify {
            let (index, found) = position(of: id)
            var value: Value? = nil
            if found {
                // Moved out, so that the value is uniquely referenced while it changes.
                value = entries[index].value
                entries[index].value = nil
            }
            let had = value != nil
            defer { store(value, for: id, at: index, found: found, had: had) }
            yield &value
        }
    }

    /// What `read` takes from the value of `id`, if it has one, without copying the rest of the value (which
    /// `self[id]?.field` does, retaining every reference the value holds).
    func read<Field>(_ id: ID, _ read: (Value) -> Field) -> Field? {
        let (index, found) = position(of: id)
        return found ? entries[index].value.map(read) : nil
    }

    private mutating func store(_ value: Value?, for id: ID, at index: Int, found: Bool, had: Bool) {
        let has = value != nil
        if found {
            entries[index].value = value
        } else if has {
            entries.insert((id: id, value: value), at: index)
        }
        if had != has { count += has ? 1 : -1 }
        if had, !has { closeHolesIfMany() }
    }

    /// Removes the value of `id`; returns it if there was one.
    @discardableResult
    mutating func removeValue(forKey id: ID) -> Value? {
        let old = self[id]
        if old != nil { self[id] = nil }
        return old
    }

    /// Gives back the room a burst of insertions left unused (after a tree is made).
    mutating func trim() {
        closeHoles()
        guard entries.capacity > entries.count else { return }
        var trimmed: [(id: ID, value: Value?)] = []
        trimmed.reserveCapacity(entries.count)
        trimmed.append(contentsOf: entries)
        entries = trimmed
    }

    private mutating func closeHolesIfMany() {
        if entries.count - count > max(8, count) { closeHoles() }
    }

    private mutating func closeHoles() {
        guard entries.count > count else { return }
        entries.removeAll { $0.value == nil }
    }
}
