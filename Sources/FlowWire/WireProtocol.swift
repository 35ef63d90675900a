/// Constants and validation rules of the Flowd wire protocol (`docs/PROTOCOL.md`).
public enum WireProtocol: Sendable {
    /// The major version this codec speaks.
    public static let version = 1
    /// Frame 0 of every message: `FLOWD` and the major version.
    public static let signature: [UInt8] = signatureText.withUTF8Buffer { Array($0) }
    /// ``signature`` as a literal, which a frame is compared with on every message.
    static let signatureText: StaticString = "FLOWD1"
    /// The prefix every version's signature starts with.
    public static let signaturePrefix: [UInt8] = Array("FLOWD".utf8)
    /// The default limit on a body's size.
    public static let defaultMaxBodyBytes = 256 * 1024
    /// The largest message a `FlowClient` client takes from the daemon by default: 128 MiB (its sockets'
    /// `ZMQ_MAXMSGSIZE`; libzmq drops the connection on a larger one). Twice the daemon's default
    /// `max_session_ui_bytes` (64 MiB): a session's `SNAPSHOT` at that bound is over 64 MiB (its JSON is larger than
    /// the bound's count), with room for the step that took it past the bound.
    public static let clientMaxMessageBytes = 128 << 20
    /// How deep objects and arrays may nest in a body, the body's own object being the first level: deeper is
    /// `malformedBody`. It keeps every accepted message cheap to decode and writable again (the daemon forwards
    /// payloads: `JSONEncoder` fails one level before `JSONDecoder`'s 512).
    public static let maxNestingDepth = 64
    /// The largest `req` (§2: integers are JSON numbers within ±2^53, what any JSON reader holds exactly).
    public static let maxRequestNumber: UInt64 = 1 << 53
    /// How long a `HELLO.instance` may be, in bytes (it is at least one).
    public static let maxInstanceBytes = 128
    /// The topic prefix of events: `nav/<session>`.
    public static let eventTopicPrefix = "nav/"

    /// The topic of a session's events.
    public static func eventTopic(session: String) -> [UInt8] { Array((eventTopicPrefix + session).utf8) }

    /// Whether `name` is a valid session or client name: `[A-Za-z0-9._-]{1,64}`.
    public static func isValidName(_ name: String) -> Bool {
        matches(name, maxLength: 64, colon: false)
    }

    /// Whether `name` is a valid stepper kind: `[A-Za-z0-9._:-]{1,128}`.
    public static func isValidKind(_ name: String) -> Bool {
        matches(name, maxLength: 128, colon: true)
    }

    /// Whether `name` is a valid step name: `[A-Za-z0-9._:-]{1,128}` (the empty name is `NoneStep`, not valid here).
    public static func isValidStepName(_ name: String) -> Bool {
        matches(name, maxLength: 128, colon: true)
    }

    /// Whether `id` is a valid presentable ID: 1 to 256 bytes.
    public static func isValidPresentableID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 256
    }

    /// Whether `text` is 1 to `maxLength` bytes of `[A-Za-z0-9._-]`, and `:` if `colon`.
    private static func matches(_ text: String, maxLength: Int, colon: Bool) -> Bool {
        guard !text.utf8.isEmpty, text.utf8.count <= maxLength else { return false }
        func allowed(_ byte: UInt8) -> Bool {
            let lowercased = byte | 0x20  // A-Z onto a-z; no other byte lands there
            return (lowercased >= 0x61 && lowercased <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E
                || byte == 0x5F || byte == 0x2D || (colon && byte == 0x3A)
        }
        // Checked on every message: no allocation, and the bytes read from their buffer (a native string's own, without
        // the copy `withUTF8` makes of its argument) rather than through `utf8`'s indices.
        return text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(allowed) } ?? text.utf8.allSatisfy(allowed)
    }
}
