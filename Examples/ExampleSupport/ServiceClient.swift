public import FlowClient
import FlowCore
public import Logging
public import MovieServices

extension RemoteAttachment {
    /// The attachment as the services' logic names it.
    public var serviceKey: AttachmentKey {
        AttachmentKey(session: session, attachment: attachment.rawValue)
    }

    /// The attachment as the services' logic takes it.
    public var serviceAttachment: ServiceAttachment {
        ServiceAttachment(
            key: serviceKey, kind: kind, presentable: presentable.rawValue, context: context, resumed: resumed)
    }
}

extension StepperClient {
    /// Emits what a service's logic decided and logs the outcome (`emitted`, or `step not emitted` with the error).
    public func emit(_ emission: ServiceEmission, logger: Logger) async {
        do {
            let outcome = try await emit(
                emission.step, session: emission.attachment.session,
                attachment: AttachmentID(emission.attachment.attachment)
            )
            logger.info("emitted", metadata: ["emission": "\(emission)", "outcome": "\(outcome)"])
        } catch {
            logger.warning("step not emitted", metadata: ["emission": "\(emission)", "error": "\(error)"])
        }
    }
}

extension ServiceError {
    /// Logs what a service's logic refused: an action meant for another stepper on the same screen at debug level
    /// (every stepper on a screen gets its actions), anything else as a notice.
    public func log(to logger: Logger) {
        if case .unknownAction(let kind, let action) = self {
            logger.debug("action not for this kind", metadata: ["kind": "\(kind)", "action": "\(action)"])
        } else {
            logger.notice("action refused", metadata: ["error": "\(self)"])
        }
    }
}
