/// The type of a message: frame 1 (`docs/PROTOCOL.md`).
public enum MessageType: String, Sendable, Hashable, Codable, CaseIterable {
    // Handshake and liveness (§3)
    case hello = "HELLO"
    case welcome = "WELCOME"
    case heartbeat = "HEARTBEAT"
    case bye = "BYE"
    case ok = "OK"
    case error = "ERROR"
    // Steppers (§5)
    case attach = "ATTACH"
    case detach = "DETACH"
    case step = "STEP"
    case action = "ACTION"
    case adapt = "ADAPT"
    case adapted = "ADAPTED"
    // Presenters (§6)
    case sync = "SYNC"
    case snapshot = "SNAPSHOT"
    case command = "COMMAND"
    case ack = "ACK"
    case report = "REPORT"
    case userAction = "USER_ACTION"
    // Operators (§7)
    case sessions = "SESSIONS"
    case tree = "TREE"
    case deepLink = "DEEPLINK"
    case createSession = "CREATE_SESSION"
    case endSession = "END_SESSION"
    case health = "HEALTH"
    case describe = "DESCRIBE"
    // Events (§9)
    case event = "EVENT"
}

extension MessageType {
    /// The type's frame on the wire (its name in UTF-8), made once per type rather than once per message.
    var frame: [UInt8] { Self.frames[self] ?? Array(rawValue.utf8) }

    private static let frames = Dictionary(uniqueKeysWithValues: allCases.map { ($0, Array($0.rawValue.utf8)) })

    /// The type frame 1 names, `nil` for none. A step's round trip (`STEP`, `ACK`) is recognised on its bytes: a
    /// String made and matched against every name cost about 490 instructions a message.
    init?(frame: [UInt8]) {
        if frame.holds("STEP") {
            self = .step
        } else if frame.holds("ACK") {
            self = .ack
        } else if let type = MessageType(rawValue: String(decoding: frame, as: UTF8.self)) {
            self = type
        } else {
            return nil
        }
    }
    /// Whether a body of this type carries a `req` that its reply or `ERROR` carries back (§3, "OK and ERROR").
    /// `HEARTBEAT`, `BYE`, `ACK` and `ADAPTED` are not requests: a `req` in them is an unknown field, and an `ERROR`
    /// refusing one carries `req` `null` (a foreign client in Go found the codec echoing it).
    public var isRequest: Bool {
        switch self {
        case .heartbeat, .bye, .ack, .adapted: false
        default: true
        }
    }

    /// The daemon's replies of a step's round trip, without the dictionary lookup of ``frame``.
    static let commandFrame = Array(MessageType.command.rawValue.utf8)
    static let okFrame = Array(MessageType.ok.rawValue.utf8)
}
