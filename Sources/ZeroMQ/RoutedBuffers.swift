/// The byte arrays a ROUTER's messages are received into, one after another: each frame is written over the array
/// the same frame of the last message used when nothing else holds that array any more (else the write makes a new
/// one, as any array's copy-on-write does), so receiving allocates nothing per message once the arrays have grown.
struct RoutedBuffers {
    /// The first frame: the sender's routing id.
    private(set) var routingID: [UInt8] = []
    /// The frames after it.
    private(set) var frames: [[UInt8]] = []

    /// An array larger than this is not kept for the next message: one large message does not hold its size.
    static let keptCapacity = 65_536

    /// Takes frame `index` of a message (0: the routing id).
    mutating func receive(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) {
        if index == 0 {
            Self.write(bytes, over: &routingID)
        } else if index <= frames.count {
            Self.write(bytes, over: &frames[index - 1])
        } else {
            frames.append(Array(bytes))
        }
    }

    /// The message had `count` frames: the arrays past them are let go.
    mutating func end(at count: Int) {
        let kept = max(0, count - 1)
        if frames.count > kept { frames.removeLast(frames.count - kept) }
    }

    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, over array: inout [UInt8]) {
        if array.count == bytes.count {
            // A short frame with the same bytes (a peer's routing id, the signature, a type) is left as it is, shared
            // or not; a frame of the same length is written over in place.
            if bytes.count <= 32, array.withUnsafeBufferPointer({ same($0, bytes) }) { return }
            array.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: bytes) }
            return
        }
        if array.capacity > keptCapacity || bytes.count > keptCapacity {
            array = Array(bytes)
            return
        }
        array.removeAll(keepingCapacity: true)
        array.append(contentsOf: bytes)
    }

    private static func same(_ old: UnsafeBufferPointer<UInt8>, _ new: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < old.count {
            if old[index] != new[index] { return false }
            index += 1
        }
        return true
    }
}
