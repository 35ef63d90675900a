public import FlowCore
import MovieVocabulary

/// Everything the movie service process does, without I/O: it serves `movies.wishlist`, `movies.watched`,
/// `movies.trending`, `movies.detail` and `movies.castList` over a ``MovieCatalogService``.
///
/// The process feeds it what the daemon says (`ATTACH`, `DETACH`, `ACTION`) and sends the ``ServiceEmission``s it
/// returns as `STEP`s. Its steppers emit nothing on their own: only in answer to actions.
///
/// `Sendable`: a value.
public struct MovieStepperLogic: Sendable {
    /// The kinds served.
    public static let kinds = DemoStepperKind.movies

    /// The catalogue.
    public let service: MovieCatalogService
    /// The attachments served, by key.
    public private(set) var attachments: [AttachmentKey: ServiceAttachment] = [:]

    /// The logic over `service`.
    public init(service: MovieCatalogService = MovieCatalogService()) {
        self.service = service
    }

    /// `ATTACH`: remembers the attachment (a known one is a no-op). Nothing is emitted.
    ///
    /// - Throws: ``ServiceError/unknownKind(_:)`` for a kind the service does not serve.
    public mutating func attach(_ attachment: ServiceAttachment) throws(ServiceError) {
        guard Self.kinds.contains(attachment.kind) else { throw .unknownKind(attachment.kind) }
        if attachments[attachment.key] == nil { attachments[attachment.key] = attachment }
    }

    /// `DETACH`: forgets the attachment.
    public mutating func detach(_ key: AttachmentKey) {
        attachments[key] = nil
    }

    /// `ACTION`: the step for the acting attachment.
    ///
    /// - Throws: a ``ServiceError`` when the action is refused.
    public func handle(action: Step, on key: AttachmentKey) throws(ServiceError) -> [ServiceEmission] {
        guard let attachment = attachments[key] else { throw .unknownAttachment(key) }
        let step = try service.step(for: attachment.kind, action: action, context: attachment.context)
        return [ServiceEmission(key, step)]
    }
}
