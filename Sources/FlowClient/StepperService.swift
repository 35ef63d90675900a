public import FlowCore
public import FlowWire
public import Logging
public import ServiceLifecycle
import UnixSignals

/// A step a stepper service's logic decided to emit: `step` for the attachment `attachment`.
public struct StepEmission: Sendable, Hashable, CustomStringConvertible {
    /// The attachment the step is for.
    public var attachment: RemoteAttachment.ID
    /// The step.
    public var step: Step

    /// `step` for `attachment`.
    public init(_ step: Step, for attachment: RemoteAttachment.ID) {
        self.step = step
        self.attachment = attachment
    }

    /// `default/att#12 userIsLoggedIn`.
    public var description: String { "\(attachment) \(step)" }
}

/// What a stepper service's logic is given, one at a time and in order.
public enum StepperInput: Sendable, Hashable {
    /// What the daemon said about one of the service's attachments.
    case event(StepperEvent)
    /// Time passed: one every ``StepperLogic/tickInterval``.
    case tick
}

/// A stepper service's decisions as a value, without I/O: ``StepperService`` hands it the client's events and the
/// passing of time one at a time, and emits the steps it returns, in order.
///
/// `Sendable`: it is handed to the service's task once; only that task changes it.
public protocol StepperLogic: Sendable {
    /// The stepper kinds the service serves (`serves` in its `HELLO`).
    var kinds: [String] { get }
    /// How often the logic gets ``StepperInput/tick``; `nil` (the default): never.
    var tickInterval: Duration? { get }
    /// The steps to emit for `input`, in order. An error it throws is logged (`input refused`) and nothing is emitted.
    mutating func handle(_ input: StepperInput, now: ContinuousClock.Instant, logger: Logger) async throws
        -> [StepEmission]
    /// The answer to an `ADAPT`: a flow's `adapt` asked of one of the kinds (`docs/PROTOCOL.md` §5.6), in the same
    /// order as the inputs. ``AdaptAnswer/allow`` by default; an error it throws is logged and answered with
    /// ``AdaptAnswer/refuse``.
    mutating func adapt(_ question: AdaptMessage, now: ContinuousClock.Instant, logger: Logger) async throws
        -> AdaptAnswer
}

extension StepperLogic {
    public var tickInterval: Duration? { nil }

    public func adapt(_ question: AdaptMessage, now: ContinuousClock.Instant, logger: Logger) -> AdaptAnswer {
        .allow
    }
}

/// A stepper process as a `Service`: a ``StepperClient`` serving the logic's kinds, whose events (and ticks) go to
/// the logic one at a time; the steps it returns are emitted in order and their outcomes logged (`emitted`, or `step
/// not emitted` with the error). Each event is logged at info (`attached`, `detached`, `action`), and so is an `ATTACH`
/// the daemon sends again for a known attachment after a reconnect or its restart, which makes no event (`attached
/// again`): an operator sees the attachment come back. The client answers
/// `ADAPT`: each question goes to ``StepperLogic/adapt(_:now:logger:)`` in turn with the inputs, and its answer is
/// sent at once (logged `adapted`).
///
/// It runs until cancelled or a graceful shutdown (then the client says `BYE`); ``serve(_:name:options:label:)`` is a
/// whole process's `run()`.
///
/// `Sendable`: the client is, and the logic is a `Sendable` value copied into ``run()``.
public struct StepperService<Logic: StepperLogic>: Service {
    /// The client, to emit steps of the process's own (``StepperClient/emit(_:for:)``) or read its attachments.
    public let client: StepperClient
    private let logic: Logic
    private let logger: Logger

    /// A service named `name` (the process's stable name) running `logic`; it logs to `configuration.logger`.
    public init(name: String, logic: Logic, configuration: FlowClientConfiguration = FlowClientConfiguration()) {
        client = StepperClient(
            name: name, serves: logic.kinds, adapts: true, configuration: configuration, knownAttachLevel: .info)
        self.logic = logic
        logger = configuration.logger
    }

    /// Connects and serves until cancelled or a graceful shutdown.
    ///
    /// - Throws: what ``StepperClient/run()`` throws (the daemon refused the `HELLO`, an invalid name or kind).
    public func run() async throws {
        let (inputs, feed) = AsyncStream.makeStream(of: Work.self)
        var logic = logic
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [client] in
                defer { feed.finish() }
                try await client.run()
            }
            group.addTask { [client] in
                for await event in client.events { feed.yield(.input(.event(event))) }
            }
            group.addTask { [client] in
                for await question in client.adaptRequests { feed.yield(.adapt(question)) }
            }
            if let interval = logic.tickInterval {
                group.addTask {
                    while true {
                        do { try await Task.sleep(for: interval) } catch { return }
                        feed.yield(.input(.tick))
                    }
                }
            }
            for await work in inputs {
                let input: StepperInput
                switch work {
                case .input(let next):
                    input = next
                case .adapt(let question):
                    await answer(question, with: &logic)
                    continue
                }
                log(input)
                var emissions: [StepEmission] = []
                do {
                    emissions = try await logic.handle(input, now: .now, logger: logger)
                } catch {
                    logger.notice("input refused", metadata: ["input": "\(input)", "error": "\(error)"])
                }
                for emission in emissions { await emit(emission) }
            }
            group.cancelAll()
            try await group.waitForAll()
        }
    }

    /// What the service's loop takes in turn: the logic's inputs and the `ADAPT` questions.
    private enum Work: Sendable {
        case input(StepperInput)
        case adapt(AdaptMessage)
    }

    private func answer(_ question: AdaptMessage, with logic: inout Logic) async {
        var answer = AdaptAnswer.refuse
        do {
            answer = try await logic.adapt(question, now: .now, logger: logger)
        } catch {
            logger.warning("adapt failed; refused", metadata: ["step": "\(question.step)", "error": "\(error)"])
        }
        logger.info(
            "adapted",
            metadata: [
                "session": "\(question.session)", "flow": "\(question.flow)", "step": "\(question.step)",
                "answer": "\(answer)",
            ])
        client.answer(question, with: answer)
    }

    private func log(_ input: StepperInput) {
        switch input {
        case .event(.attached(let attachment)):
            logger.info("attached", metadata: ["attachment": "\(attachment)"])
        case .event(.detached(let attachment, let reason)):
            logger.info("detached", metadata: ["attachment": "\(attachment)", "reason": "\(reason)"])
        case .event(.action(let action, let attachment)):
            logger.info("action", metadata: ["action": "\(action)", "attachment": "\(attachment)"])
        case .tick:
            break
        }
    }

    private func emit(_ emission: StepEmission) async {
        do {
            let outcome = try await client.emit(
                emission.step, session: emission.attachment.session, attachment: emission.attachment.attachment
            )
            logger.info("emitted", metadata: ["emission": "\(emission)", "outcome": "\(outcome)"])
        } catch {
            logger.warning("step not emitted", metadata: ["emission": "\(emission)", "error": "\(error)"])
        }
    }
}

extension StepperService {
    /// A stepper process's whole `run()`: logs to standard error at `--log-level`, connects as `options` say and
    /// serves `logic` until SIGTERM or SIGINT.
    ///
    /// - Parameters:
    ///   - name: the process's stable name.
    ///   - label: the logger's label (`myapp.login-service`).
    /// - Throws: ``FlowClientError`` for unusable CURVE settings; what ``run()`` throws.
    public static func serve(_ logic: Logic, name: String, options: FlowClientOptions, label: String) async throws {
        options.bootstrapStandardErrorLogging()
        let logger = Logger(label: label)
        let service = StepperService(
            name: name, logic: logic, configuration: try options.clientConfiguration(logger: logger)
        )
        logger.info(
            "stepper service starting",
            metadata: [
                "name": "\(name)", "control": "\(options.endpoints.control)",
                "kinds": "\(logic.kinds.joined(separator: ","))",
            ]
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
            )
        )
        try await group.run()
        logger.info("stepper service stopped")
    }
}
