public import FlowCore

/// A message that breaks the protocol, with the stable code `docs/PROTOCOL.md` §3 lists.
///
/// Equality looks at the code only.
public struct WireError: CodedError, Sendable {
    /// The stable error code sent in `ERROR` replies.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let malformedFrame = Code(rawValue: "malformedFrame")
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        public static let unknownType = Code(rawValue: "unknownType")
        public static let malformedBody = Code(rawValue: "malformedBody")
        public static let messageTooLarge = Code(rawValue: "messageTooLarge")
        public static let notWelcome = Code(rawValue: "notWelcome")
        public static let forbidden = Code(rawValue: "forbidden")
        public static let unknownSession = Code(rawValue: "unknownSession")
        public static let unknownStep = Code(rawValue: "unknownStep")
        public static let unknownAttachment = Code(rawValue: "unknownAttachment")
        public static let unknownPresentable = Code(rawValue: "unknownPresentable")
        public static let notHost = Code(rawValue: "notHost")
        public static let sessionHosted = Code(rawValue: "sessionHosted")
        public static let sessionLimit = Code(rawValue: "sessionLimit")
        public static let invalidName = Code(rawValue: "invalidName")
        public static let replaced = Code(rawValue: "replaced")
        /// The daemon cannot write its journal (a full or failing disk): a request that would change state is
        /// refused until it can; reads are served.
        public static let journalUnavailable = Code(rawValue: "journalUnavailable")
        public static let sessionEnded = Code(rawValue: "sessionEnded")
        public static let sessionFull = Code(rawValue: "sessionFull")
        /// A `DEEPLINK` URI no deep link of the application matches.
        public static let unknownDeepLink = Code(rawValue: "unknownDeepLink")
        /// A `DEEPLINK` step the application does not let an operator inject (not `deepLink: true` in a flow file).
        public static let notDeepLinkable = Code(rawValue: "notDeepLinkable")
        /// A `DEEPLINK` URI's chain stopped at a step whose flows were not ready within the wait.
        public static let deepLinkIncomplete = Code(rawValue: "deepLinkIncomplete")
        public static let `internal` = Code(rawValue: "internal")

        public var description: String { rawValue }
    }

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
}
