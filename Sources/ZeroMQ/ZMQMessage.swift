/// One ZeroMQ message: one or more frames, sent and received atomically.
///
/// A ROUTER prefixes each received message with the sender's routing id frame and routes an outgoing message by its
/// first frame; other socket types see only the frames that were sent.
package struct ZMQMessage: Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// The frames, in order.
    package var frames: [[UInt8]]

    /// A message made of `frames`.
    package init(_ frames: [[UInt8]]) {
        self.frames = frames
    }

    /// A message whose frames are the UTF-8 bytes of `strings`.
    package init(strings: [String]) {
        self.frames = strings.map { Array($0.utf8) }
    }

    package init(arrayLiteral frames: [UInt8]...) {
        self.frames = frames
    }

    /// The number of frames.
    package var count: Int { frames.count }

    /// Whether the message has no frames (such a message cannot be sent).
    package var isEmpty: Bool { frames.isEmpty }

    /// The frame at `index`.
    package subscript(index: Int) -> [UInt8] {
        get { frames[index] }
        set { frames[index] = newValue }
    }

    /// The frame at `index` decoded as UTF-8, or `nil` when out of range or not valid UTF-8.
    package func string(at index: Int) -> String? {
        guard frames.indices.contains(index) else { return nil }
        return String(validating: frames[index], as: UTF8.self)
    }

    /// Every frame decoded as UTF-8 (invalid bytes replaced), for logs and tests.
    package var strings: [String] { frames.map { String(decoding: $0, as: UTF8.self) } }

    /// The total payload size in bytes.
    package var byteCount: Int { frames.reduce(0) { $0 + $1.count } }

    /// The message with `frame` put in front, e.g. a routing id for a ROUTER.
    package func prepending(_ frame: [UInt8]) -> ZMQMessage {
        ZMQMessage([frame] + frames)
    }

    /// The message without its first frame, e.g. the payload of a message a ROUTER received.
    package func droppingFirst() -> ZMQMessage {
        ZMQMessage(Array(frames.dropFirst()))
    }

    package var description: String {
        "ZMQMessage(" + frames.map { frame in
            if let text = String(validating: frame, as: UTF8.self),
               text.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) {
                return "\"\(text.prefix(64))\""
            }
            return "\(frame.count) bytes"
        }.joined(separator: ", ") + ")"
    }
}
