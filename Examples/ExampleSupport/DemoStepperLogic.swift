public import FlowClient
import FlowCore
public import FlowWire
public import Logging
public import MovieServices

/// The login service's logic (``MovieServices/LoginStepperLogic``, which speaks the demo's own attachment types) as
/// FlowClient's ``FlowClient/StepperLogic``: token expiry is checked every second. Synchronous, so FlowdTesting runs it
/// in-process as the process runs it.
public struct LoginServiceLogic: SynchronousStepperLogic {
    public var logic: LoginStepperLogic

    public init(_ logic: LoginStepperLogic) { self.logic = logic }

    public var kinds: [String] { LoginStepperLogic.kinds }
    public var tickInterval: Duration? { .seconds(1) }

    public mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) -> [StepEmission] {
        do throws(ServiceError) {
            switch input {
            case .event(.attached(let attachment)):
                return try logic.attach(attachment.serviceAttachment, now: now).map(\.stepEmission)
            case .event(.detached(let attachment, _)):
                logic.detach(attachment.serviceKey)
            case .event(.action(let action, let attachment)):
                return try logic.handle(action: action, on: attachment.serviceKey, now: now).map(\.stepEmission)
            case .tick:
                return logic.tick(now: now).map(\.stepEmission)
            }
        } catch {
            error.log(to: logger)
        }
        return []
    }
}

/// The movie service's logic (``MovieServices/MovieStepperLogic``) as FlowClient's ``FlowClient/StepperLogic``;
/// synchronous, as the login service's.
public struct MovieServiceLogic: SynchronousStepperLogic {
    public var logic: MovieStepperLogic

    public init(_ logic: MovieStepperLogic = MovieStepperLogic()) { self.logic = logic }

    public var kinds: [String] { MovieStepperLogic.kinds }

    /// The wishlist's About, refused every other time (``MovieStepperLogic/adapt(_:flow:coordinator:request:session:)``).
    public mutating func adapt(_ question: AdaptMessage, now: ContinuousClock.Instant, logger: Logger) -> AdaptAnswer {
        let adapted = logic.adapt(
            question.step, flow: question.flow, coordinator: question.coordinator, request: question.request,
            session: question.session
        )
        return AdaptAnswer(adapted, asked: question.step)
    }

    public mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) -> [StepEmission] {
        do throws(ServiceError) {
            switch input {
            case .event(.attached(let attachment)):
                try logic.attach(attachment.serviceAttachment)
            case .event(.detached(let attachment, _)):
                logic.detach(attachment.serviceKey)
            case .event(.action(let action, let attachment)):
                return try logic.handle(action: action, on: attachment.serviceKey).map(\.stepEmission)
            case .tick:
                break
            }
        } catch {
            error.log(to: logger)
        }
        return []
    }
}

extension RemoteAttachment {
    /// The attachment as the services' logic names it.
    var serviceKey: AttachmentKey {
        AttachmentKey(session: session, attachment: attachment.rawValue)
    }

    /// The attachment as the services' logic takes it.
    var serviceAttachment: ServiceAttachment {
        ServiceAttachment(
            key: serviceKey, kind: kind, presentable: presentable.rawValue, context: context, resumed: resumed)
    }
}

extension ServiceEmission {
    /// The emission as FlowClient sends it.
    var stepEmission: StepEmission {
        let id = RemoteAttachment.ID(session: attachment.session, attachment: AttachmentID(attachment.attachment))
        return StepEmission(step, for: id)
    }
}

extension ServiceError {
    /// Logs what a service's logic refused: an action meant for another stepper on the same screen at debug level
    /// (every stepper on a screen gets its actions), anything else as a notice.
    func log(to logger: Logger) {
        if case .unknownAction(let kind, let action) = self {
            logger.debug("action not for this kind", metadata: ["kind": "\(kind)", "action": "\(action)"])
        } else {
            logger.notice("action refused", metadata: ["error": "\(self)"])
        }
    }
}
