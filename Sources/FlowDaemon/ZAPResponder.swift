internal import Logging
import ZeroMQ

/// Answers libzmq's ZAP requests on the I/O thread with ``ZAPHandler``, logging admissions and refusals.
struct ZAPResponder {
    let socket: ZMQSocket
    let logger: Logger
    /// Refusals per key: a refused client retries every ~100 ms, so only the 1st, 10th, 100th… are warned about.
    private var refusals: [String: Int] = [:]

    init(socket: ZMQSocket, logger: Logger) {
        self.socket = socket
        self.logger = logger
    }

    /// Answers every request waiting, judged by `policy` (the core's current allow-list); counts refusals in `core`.
    mutating func answerPending(policy: AccessPolicy, core: inout DaemonCore) throws {
        while let request = try socket.tryReceive() {
            guard let (reply, decision) = ZAPHandler.answer(request.frames, policy: policy) else { continue }
            _ = try socket.trySend(ZMQMessage(reply))
            let metadata: Logger.Metadata = [
                "domain": "\(decision.domain)", "address": "\(decision.address)",
                "key": "\(decision.publicKey ?? "-")", "client": "\(decision.client ?? "-")",
                "reason": "\(decision.reason)",
            ]
            if decision.allowed {
                logger.debug("connection admitted", metadata: metadata)
                continue
            }
            core.countAuthenticationDenied()
            if refusals.count >= 10_000 { refusals.removeAll() }  // bounded, whatever keys are tried
            let count = refusals[decision.publicKey ?? "-", default: 0] + 1
            refusals[decision.publicKey ?? "-"] = count
            if RepeatedWarning.isLogged(count) {
                logger.warning("connection refused by ZAP", metadata: metadata.merging(["refusals": "\(count)"]) { $1 })
            }
        }
    }
}
