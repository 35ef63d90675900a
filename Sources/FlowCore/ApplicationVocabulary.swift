/// What an application declares it speaks: its steps, the stepper kinds its flows attach (with the steps each may
/// emit) and the screen types its flows show (with the user actions each accepts). The daemon answers `DESCRIBE`
/// with it (`docs/PROTOCOL.md` §7.2), so a client author need not find the names by trial.
///
/// A description, not a contract the daemon enforces (``stepNames``-style refusal is the application's
/// `stepNames`). Encoded with `snake_case` names.
///
/// `Sendable`: values.
public struct ApplicationVocabulary: Sendable, Hashable, Codable {
    /// A step the application's flows understand, or a user action a screen accepts (``ActionEntry``).
    public struct StepEntry: Sendable, Hashable, Codable {
        /// The step's name (`movieIsPicked`).
        public var name: String
        /// The payload's shape, as a person reads it (`<int: movie id>`); `nil`: no payload.
        public var payload: String?
        /// What the step asks for.
        public var summary: String

        public init(_ name: String, payload: String? = nil, summary: String) {
            self.name = name
            self.payload = payload
            self.summary = summary
        }
    }

    /// A stepper kind the flows attach as `RemoteStepper(kind:)`, served by a stepper process.
    public struct StepperKindEntry: Sendable, Hashable, Codable {
        /// The kind (`movies.detail`).
        public var kind: String
        /// The steps a process serving it may emit.
        public var steps: [String]
        /// What it stands for, and its `ATTACH` context when it has one.
        public var summary: String

        public init(_ kind: String, steps: [String], summary: String) {
            self.kind = kind
            self.steps = steps
            self.summary = summary
        }
    }

    /// A user action a screen accepts (`USER_ACTION`): a step a presenter sends, described as a step is (its name,
    /// e.g. `proceed`; its payload's shape; what it does).
    public typealias ActionEntry = StepEntry

    /// A screen type (a ``Screen``'s `type`) and what a person may do on it.
    public struct ScreenEntry: Sendable, Hashable, Codable {
        /// The type (`MovieDetail`).
        public var type: String
        /// The screen kind it is shown as (`view`, `stack`, `tabs`, `split`, `alert`).
        public var kind: String
        /// The shape of the screen's `data`, as a person reads it; `nil`: none.
        public var data: String?
        /// The actions it accepts.
        public var actions: [ActionEntry]

        public init(_ type: String, kind: String = "view", data: String? = nil, actions: [ActionEntry] = []) {
            self.type = type
            self.kind = kind
            self.data = data
            self.actions = actions
        }
    }

    public var steps: [StepEntry]
    public var stepperKinds: [StepperKindEntry]
    public var screenTypes: [ScreenEntry]
    /// The version of the application's file this is the vocabulary of (flowd's `DESCRIBE` sets it for a daemon
    /// that runs a flow file); `nil` for an application given as code.
    public var appVersion: String?

    /// A vocabulary; the default declares nothing.
    public init(steps: [StepEntry] = [], stepperKinds: [StepperKindEntry] = [], screenTypes: [ScreenEntry] = []) {
        self.steps = steps
        self.stepperKinds = stepperKinds
        self.screenTypes = screenTypes
    }

    /// `unknownAction` for an action that a screen type declared here does not list; `nil` for one it lists and for
    /// a type not declared here (this checks names only: payload shapes are descriptions).
    public func actionRefusal(for action: Step, onScreenOfType type: String) -> ActionRefusal? {
        guard let screen = screenTypes.first(where: { $0.type == type }),
            !screen.actions.contains(where: { $0.name == action.name })
        else { return nil }
        return .unknownAction(action.name, onScreenOfType: type, accepted: screen.actions.map(\.name))
    }

    enum CodingKeys: String, CodingKey {
        case steps
        case stepperKinds = "stepper_kinds"
        case screenTypes = "screen_types"
        case appVersion = "app_version"
    }
}
