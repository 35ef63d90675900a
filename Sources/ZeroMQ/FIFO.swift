/// A first-in first-out queue with O(1) amortised append and removal at the front.
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes every element matching `predicate`, keeping the others in order.
    mutating func removeAll(where predicate: (Element) -> Bool) {
        storage.removeFirst(head)
        head = 0
        storage.removeAll(where: predicate)
    }

    /// Removes and returns every element.
    mutating func removeAll() -> [Element] {
        let elements = Array(storage[head...])
        storage.removeAll()
        head = 0
        return elements
    }

    /// Visits the elements in order.
    func forEach(_ body: (Element) -> Void) {
        for index in head..<storage.count { body(storage[index]) }
    }
}

extension FIFO: Sendable where Element: Sendable {}
