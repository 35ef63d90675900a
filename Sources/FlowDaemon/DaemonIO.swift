package import FlowCore
package import FlowWire

/// A client connection as the control socket knows it: its ROUTER routing ID.
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    public let routingID: [UInt8]

    public init(_ routingID: [UInt8]) { self.routingID = routingID }

    /// The bytes in one go: an array's own hashing feeds the hasher byte by byte, and peers are looked up by address
    /// on every message.
    public func hash(into hasher: inout Hasher) {
        routingID.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The routing ID in hex, two digits a byte (libzmq's own IDs start with a zero byte).
    public var description: String {
        routingID.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

/// Ordered by routing ID: peers due at the same moment, or replaced by one `HELLO`, are taken in this order.
extension PeerAddress: Comparable {
    public static func < (lhs: PeerAddress, rhs: PeerAddress) -> Bool {
        lhs.routingID.lexicographicallyPrecedes(rhs.routingID)
    }
}

/// What happens to the daemon: the inputs of ``DaemonCore``.
package enum DaemonInput: Sendable {
    /// A message arrived on the control socket (frames after the routing ID).
    case message(from: PeerAddress, frames: [[UInt8]])
    /// A message arrived on a CURVE control socket from a connection the ZAP handler admitted as `userID` (its
    /// public key, Z85, as ``ZAPHandler`` returns it; `nil` when the connection had none).
    case authenticatedMessage(from: PeerAddress, userID: String?, frames: [[UInt8]])
    /// Time passed: send heartbeats that are due, notice dead peers.
    case tick
    /// A stepper inside the daemon (a flow's `OneStepper`, say) emitted a step.
    case localStep(session: String, attachment: AttachmentID, step: Step)
    /// An asynchronous adaptation finished.
    case adaptCompleted(session: String, request: AdaptRequestID, step: Step?)
    /// The control socket could not route a message to this peer: it is gone.
    case peerUnreachable(PeerAddress)
    /// The allow-list was replaced (SIGHUP): peers whose key's entry is gone or changed are forgotten.
    case accessPolicyChanged(AccessPolicy)
    /// The application's file was read again (SIGHUP) and checked: sessions created from now on get this version;
    /// the transport has kept its text in the state directory first.
    case appVersionRead(AppVersion)
    /// The application's file was read again (SIGHUP) and refused: the current version stays.
    case appReloadRefused(AppVersionError)
}

/// What ``DaemonCore`` asks its transport to do, in order.
package enum DaemonOutput: Sendable {
    /// Send a message on the control socket.
    case send(PeerAddress, DaemonMessage)
    /// Publish an event on the events socket.
    case publish(EventMessage)
    /// Listen to a stepper inside the daemon: subscribe to its steps (the tree called its `readyToEmitSteps()` as it
    /// attached it, and handled what it emitted there); feed what it emits back as
    /// ``DaemonInput/localStep(session:attachment:step:)``.
    case attachLocal(session: String, attachment: StepperAttachment)
    /// Listen again to a stepper inside the daemon that a recovered session holds: subscribe to its steps (the
    /// replay called its `readyToEmitSteps()` in the cascade that attached it, as the running daemon did). Feed what
    /// it emits as ``DaemonInput/localStep(session:attachment:step:)``.
    case resumeLocal(session: String, attachment: StepperAttachment)
    /// Stop listening to a stepper inside the daemon.
    case detachLocal(session: String, attachment: AttachmentID)
    /// Run an adaptation and feed its result back as ``DaemonInput/adaptCompleted(session:request:step:)``.
    case runAdapt(session: String, request: AdaptRequest)
}
