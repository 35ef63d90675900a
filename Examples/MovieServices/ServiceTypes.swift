public import FlowCore

/// One attachment a stepper process serves, as `ATTACH` names it: a session and the daemon's attachment number.
public struct AttachmentKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The flowd session.
    public var session: String
    /// The attachment number within the daemon.
    public var attachment: Int

    /// The attachment `attachment` of `session`.
    public init(session: String, attachment: Int) {
        self.session = session
        self.attachment = attachment
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.session, lhs.attachment) < (rhs.session, rhs.attachment)
    }

    /// `default#12`.
    public var description: String { "\(session)#\(attachment)" }
}

/// What a service knows about an attachment it serves (from `ATTACH`).
public struct ServiceAttachment: Hashable, Sendable {
    /// Which attachment.
    public var key: AttachmentKey
    /// The stepper kind (`movies.detail`).
    public var kind: String
    /// The screen the attachment is about (`wishlist.movie.23452`).
    public var presentable: String
    /// What the stepper is about (`{"movie": 23452}`), `null` when nothing.
    public var context: JSONValue
    /// Whether a step of this attachment's was carried out before (`ATTACH.resumed`: this service restarted, or
    /// another took over): what it would emit on attaching was emitted already.
    public var resumed: Bool

    /// An attachment of `kind` on `presentable`.
    public init(
        key: AttachmentKey, kind: String, presentable: String, context: JSONValue = .null, resumed: Bool = false
    ) {
        self.key = key
        self.kind = kind
        self.presentable = presentable
        self.context = context
        self.resumed = resumed
    }
}

/// A step a service emits for one of its attachments (`STEP` on the wire).
public struct ServiceEmission: Hashable, Sendable, CustomStringConvertible {
    /// The attachment the step is for.
    public var attachment: AttachmentKey
    /// The step.
    public var step: Step

    /// `step` for `attachment`.
    public init(_ attachment: AttachmentKey, _ step: Step) {
        self.attachment = attachment
        self.step = step
    }

    /// `default#12 userIsLoggedIn`.
    public var description: String { "\(attachment) \(step)" }
}

/// Why a service refused an action; the service logs it and emits nothing.
public enum ServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The service does not serve this stepper kind.
    case unknownKind(String)
    /// The kind has no action with this name.
    case unknownAction(kind: String, action: String)
    /// The action's payload does not have the expected shape.
    case badPayload(action: String, expected: String)
    /// The attachment is not one the service was given (no `ATTACH` for it, or it was detached).
    case unknownAttachment(AttachmentKey)
    /// Wrong user name or password.
    case invalidCredentials(user: String)
    /// The session has no valid token (never logged in, logged out, or the token expired).
    case notLoggedIn(session: String)
    /// An empty API key.
    case invalidApiKey
    /// No movie with this id in the catalogue.
    case unknownMovie(Int)
    /// No cast with this id in the catalogue.
    case unknownCast(Int)
    /// The movie exists but the screen does not list it.
    case movieNotListed(Int, kind: String)
    /// The cast exists but the movie's casting does not have it.
    case castNotInMovie(cast: Int, movie: Int)

    public var description: String {
        switch self {
        case .unknownKind(let kind): return "unknown stepper kind '\(kind)'"
        case .unknownAction(let kind, let action): return "\(kind) has no action '\(action)'"
        case .badPayload(let action, let expected): return "action '\(action)' expects \(expected)"
        case .unknownAttachment(let key): return "unknown attachment \(key)"
        case .invalidCredentials(let user): return "wrong user name or password for '\(user)'"
        case .notLoggedIn(let session): return "session '\(session)' is not logged in"
        case .invalidApiKey: return "the API key is empty"
        case .unknownMovie(let id): return "no movie \(id)"
        case .unknownCast(let id): return "no cast \(id)"
        case .movieNotListed(let id, let kind): return "movie \(id) is not listed by \(kind)"
        case .castNotInMovie(let cast, let movie): return "cast \(cast) does not play in movie \(movie)"
        }
    }
}

extension JSONValue {
    /// The member `key` of an object payload.
    subscript(member key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// An id given as an integer, or as an object's `id` (or `key`) member.
    func id(orMember key: String) -> Int? {
        intValue ?? self[member: "id"]?.intValue ?? self[member: key]?.intValue
    }
}
