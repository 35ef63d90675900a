#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A flow whose own state is data: a daemon saves ``state`` with the session's tree and, after a restart, makes the
/// flow again from it through the application's ``FlowRestoration`` instead of replaying the session's history.
///
/// The state is what the flow decides with and that changes (a counter its `adapt` keeps, the ID of what it shows);
/// what it is made with and that never changes (a factory of steppers, a service) comes from the maker registered
/// with ``FlowRestoration/register(_:make:)``.
public protocol RestorableFlow: Flow, Restorable {}

/// A stepper that is data: saved with its attachment and made again after a restart. It is made again as attached:
/// its ``Stepper/initialStep`` and ``Stepper/readyToEmitSteps()`` are not used again (they were, when it was attached).
///
/// FlowCore's own steppers (``OneStepper``, ``DefaultStepper``, ``NoneStepper``, ``RemoteStepper``,
/// ``ActionStepper``) are restorable and known to every ``FlowRestoration``.
public protocol RestorableStepper: Stepper, Restorable {}

/// What a ``RestorableFlow`` and a ``RestorableStepper`` have alike: their own state as data, and the name they are
/// saved by.
public protocol Restorable {
    /// The object's own state as data.
    associatedtype State: Codable
    /// The state now; the maker given to ``FlowRestoration`` gets it back.
    var state: State { get }
    /// The name the saved object is known by, unique among an application's flows (or its steppers); the type's name
    /// by default.
    static var restorationName: String { get }
}

extension Restorable {
    public static var restorationName: String { String(describing: Self.self) }
}

/// A state with nothing in it, for flows and steppers that keep none.
public struct NoState: Codable, Hashable, Sendable {
    public init() {}
}

/// A saved flow or stepper: its restoration name and its state.
public struct SavedObject: Codable, Hashable, Sendable {
    /// The ``Restorable/restorationName`` of a flow or stepper.
    public var type: String
    /// The state, as JSON.
    public var state: JSONValue
}

/// Why a tree cannot be saved or made again.
///
/// Equality looks at the code only.
public struct RestorationError: CodedError, Sendable {
    public enum Code: String, Sendable, Hashable, CustomStringConvertible {
        /// A flow or stepper of the tree is not restorable, or its type is not registered.
        case notRestorable
        /// The tree waits for something that is code, not data: an asynchronous adaptation or a `.ready` block.
        case notAtRest
        /// A saved flow or stepper names a type the application does not register, or its state does not decode.
        case unknownType
        /// The saved tree contradicts itself (an attachment on a coordinator it does not have, ...).
        case inconsistent

        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// How an application's flows and steppers are made again from their saved state: a registry of makers by
/// restoration name. FlowCore's own steppers are registered already.
///
/// Not `Sendable`: the makers capture what the flows are made with (often non-`Sendable` factories); build one where
/// the flows live (the daemon asks ``FlowApplication/restoration(session:)`` on its I/O thread).
public struct FlowRestoration {
    private var flowMakers: [String: (JSONValue) throws -> any Flow] = [:]
    private var stepperMakers: [String: (JSONValue) throws -> any Stepper] = [:]

    /// A registry that knows FlowCore's own steppers.
    public init() {
        register(OneStepper.self) { OneStepper(withSingleStep: $0) }
        register(DefaultStepper.self) { _ in DefaultStepper() }
        register(NoneStepper.self) { _ in NoneStepper() }
        register(RemoteStepper.self) { RemoteStepper(kind: $0.kind, initialStep: $0.initialStep, context: $0.context) }
        register(ActionStepper.self) { ActionStepper($0.actions, initialStep: $0.initialStep) }
    }

    /// Registers how to make a flow of type `type` from its state.
    public mutating func register<F: RestorableFlow>(_ type: F.Type, make: @escaping (F.State) throws -> F) {
        flowMakers[F.restorationName] = { json in try make(try json.decoded(as: F.State.self)) }
    }

    /// Registers how to make a stepper of type `type` from its state.
    public mutating func register<S: RestorableStepper>(_ type: S.Type, make: @escaping (S.State) throws -> S) {
        stepperMakers[S.restorationName] = { json in try make(try json.decoded(as: S.State.self)) }
    }

    /// `flow` as data, when it is restorable and registered.
    public func save(_ flow: any Flow) throws(RestorationError) -> SavedObject {
        guard let restorable = flow as? any RestorableFlow else {
            throw RestorationError(.notRestorable, "the flow \(flow.flowName) is not a RestorableFlow")
        }
        return try Self.saved(type(of: restorable).restorationName, restorable.state, of: "flow", in: flowMakers)
    }

    /// `stepper` as data, when it is restorable and registered.
    public func save(_ stepper: any Stepper) throws(RestorationError) -> SavedObject {
        guard let restorable = stepper as? any RestorableStepper else {
            throw RestorationError(.notRestorable, "the stepper \(stepper.stepperDescription) is not a RestorableStepper")
        }
        return try Self.saved(type(of: restorable).restorationName, restorable.state, of: "stepper", in: stepperMakers)
    }

    /// Makes a saved flow again.
    public func makeFlow(_ saved: SavedObject) throws(RestorationError) -> any Flow {
        try Self.make(saved, of: "flow", with: flowMakers)
    }

    /// Makes a saved stepper again.
    public func makeStepper(_ saved: SavedObject) throws(RestorationError) -> any Stepper {
        try Self.make(saved, of: "stepper", with: stepperMakers)
    }

    private static func saved<Made>(
        _ name: String, _ state: some Encodable, of what: String, in makers: [String: (JSONValue) throws -> Made]
    ) throws(RestorationError) -> SavedObject {
        guard makers[name] != nil else {
            throw RestorationError(.notRestorable, "no maker registered for the \(what) type '\(name)'")
        }
        return SavedObject(type: name, state: try JSONValue.encoding(state, of: name))
    }

    private static func make<Made>(
        _ saved: SavedObject, of what: String, with makers: [String: (JSONValue) throws -> Made]
    ) throws(RestorationError) -> Made {
        guard let make = makers[saved.type] else {
            throw RestorationError(.unknownType, "no \(what) type '\(saved.type)' is registered")
        }
        do {
            return try make(saved.state)
        } catch {
            throw RestorationError(.unknownType, "the \(what) '\(saved.type)' could not be made from its state: \(error)")
        }
    }
}

@available(*, unavailable)
extension FlowRestoration: Sendable {}

extension JSONValue {
    /// A `Codable` value as JSON.
    static func encoding(_ value: some Encodable, of name: String) throws(RestorationError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        } catch {
            throw RestorationError(.notRestorable, "the state of '\(name)' does not encode: \(error)")
        }
    }

    /// The value as a `T`: typed directly where that reads as `JSONDecoder` would, else through JSON text.
    func decoded<T: Decodable>(as type: T.Type) throws -> T {
        if let typed = try? JSONValueDecoder.decode(T.self, from: self) { return typed }
        return try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }
}

// MARK: - FlowCore's steppers as data

extension OneStepper: RestorableStepper {
    public var state: Step { initialStep }
}

extension DefaultStepper: RestorableStepper {
    public var state: NoState { NoState() }
}

extension NoneStepper: RestorableStepper {
    public var state: NoState { NoState() }
}

extension RemoteStepper: RestorableStepper {
    /// What a remote stepper is made with.
    public struct State: Codable, Hashable, Sendable {
        public var kind: String
        public var initialStep: Step
        public var context: JSONValue?
    }

    public var state: State { State(kind: kind, initialStep: initialStep, context: context) }
}

extension ActionStepper: RestorableStepper {
    /// What an action stepper is made with.
    public struct State: Codable, Hashable, Sendable {
        public var actions: [String: Step]
        public var initialStep: Step
    }

    public var state: State { State(actions: actions, initialStep: initialStep) }
}
