public import FlowCore

/// A message that breaks the protocol, with the stable code `docs/PROTOCOL.md` §3 lists.
///
/// Equality looks at the code only.
public struct WireError: CodedError, Sendable {
    /// The stable error code sent in `ERROR` replies.
    public typealias Code = ErrorCode<WireError>

    /// What kind of mistake.
    public let code: Code
    /// Details for a person.
    public let message: String
    /// The request number of the failing message, when it could be read.
    public var req: UInt64?
    /// The type of the failing message, when it could be read.
    public var type: MessageType?

    public init(_ code: Code, _ message: String, req: UInt64? = nil, type: MessageType? = nil) {
        self.code = code
        self.message = message
        self.req = req
        self.type = type
    }

    /// `text` as a refusal quotes it: at most `limit` characters, a longer one cut and ending with `…`, so that a
    /// name refused for its length does not read as a valid one (PROTOCOL.md §3).
    static func quoted(_ text: some StringProtocol, limit: Int = 80) -> String {
        text.count > limit ? text.prefix(limit - 1) + "…" : String(text)
    }
}

extension ErrorCode<WireError> {
    public static var malformedFrame: Self { Self("malformedFrame") }
    public static var unsupportedVersion: Self { Self("unsupportedVersion") }
    public static var unknownType: Self { Self("unknownType") }
    public static var malformedBody: Self { Self("malformedBody") }
    public static var messageTooLarge: Self { Self("messageTooLarge") }
    public static var notWelcome: Self { Self("notWelcome") }
    public static var forbidden: Self { Self("forbidden") }
    public static var unknownSession: Self { Self("unknownSession") }
    public static var unknownStep: Self { Self("unknownStep") }
    /// The application declares the step's payload type and this payload is not of it.
    public static var invalidPayload: Self { Self("invalidPayload") }
    public static var unknownAttachment: Self { Self("unknownAttachment") }
    public static var unknownPresentable: Self { Self("unknownPresentable") }
    /// The application declares the actions of the screen's type and this one is not among them.
    public static var unknownAction: Self { Self("unknownAction") }
    public static var notHost: Self { Self("notHost") }
    public static var sessionHosted: Self { Self("sessionHosted") }
    public static var sessionLimit: Self { Self("sessionLimit") }
    public static var invalidName: Self { Self("invalidName") }
    public static var replaced: Self { Self("replaced") }
    /// The daemon cannot write its journal (a full or failing disk): a request that would change state is
    /// refused until it can; reads are served.
    public static var journalUnavailable: Self { Self("journalUnavailable") }
    public static var sessionEnded: Self { Self("sessionEnded") }
    public static var sessionFull: Self { Self("sessionFull") }
    /// The session's saved state (its `state` record, read when the session is first used after a restart) does not
    /// read or restore: the session is kept until an operator ends it (`END_SESSION`).
    public static var sessionUnrestorable: Self { Self("sessionUnrestorable") }
    /// A `DEEPLINK` URI no deep link of the application matches.
    public static var unknownDeepLink: Self { Self("unknownDeepLink") }
    /// A `DEEPLINK` step the application does not let an operator inject (not `deepLink: true` in a flow file).
    public static var notDeepLinkable: Self { Self("notDeepLinkable") }
    /// A `DEEPLINK` URI's chain stopped at a step whose flows were not ready within the wait.
    public static var deepLinkIncomplete: Self { Self("deepLinkIncomplete") }
    public static var `internal`: Self { Self("internal") }
}
