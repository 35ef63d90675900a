public import FlowCore
import MovieVocabulary

/// Everything the movie service process does, without I/O: it serves `movies.wishlist`, `movies.watched`,
/// `movies.trending`, `movies.detail` and `movies.castList` over a ``MovieCatalogService``.
///
/// The process feeds it what the daemon says (`ATTACH`, `DETACH`, `ACTION`) and sends the ``ServiceEmission``s it
/// returns as `STEP`s. Its steppers emit nothing on their own: only in answer to actions. It also answers the
/// wishlist flow's `ADAPT`s (``adapt(_:flow:coordinator:request:session:)``).
///
/// `Sendable`: a value.
public struct MovieStepperLogic: Sendable {
    /// The kinds served.
    public static let kinds = DemoStepperKind.movies

    /// The catalogue.
    public let service: MovieCatalogService
    /// The attachments served, by key.
    public private(set) var attachments: [AttachmentKey: ServiceAttachment] = [:]
    /// Each wishlist flow's About requests (``adapt(_:flow:coordinator:request:session:)``).
    private var aboutRequests: [AdaptKey: AboutCounter] = [:]

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

    /// `ADAPT` of `step` by the flow `flow` (its coordinator `coordinator` in `session`), request `request`: the step
    /// the flow navigates to, as WishlistFlow's own `adapt` decides it. The 1st, 3rd, 5th… `aboutIsRequired` of one
    /// wishlist flow become `unauthorized`; anything else goes through. A request asked again (the daemon restarted
    /// before it journaled the answer) gets the same answer.
    public mutating func adapt(
        _ step: Step, flow: String, coordinator: Int, request: Int, session: String
    ) -> Step {
        guard flow == "wishlist", DemoStep(step: step) == .aboutIsRequired else { return step }
        let key = AdaptKey(session: session, coordinator: coordinator)
        var counter = aboutRequests[key] ?? AboutCounter()
        if counter.lastRequest != request {
            counter.count += 1
            counter.lastRequest = request
            aboutRequests[key] = counter
        }
        return counter.count % 2 == 1 ? DemoStep.unauthorized.step : step
    }

    /// Which wishlist flow asks: its session and coordinator.
    struct AdaptKey: Hashable {
        var session: String
        var coordinator: Int
    }

    /// The About requests a wishlist flow asked so far, and the last one's number.
    struct AboutCounter {
        var count = 0
        var lastRequest: Int?
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
