/// What a deep link's URI stands for: the chain of steps an application maps it to (a flow file's `deepLinks`).
///
/// The daemon applies the steps in order, each one as a `DEEPLINK` of that step once the flows that handle it are
/// ready, skipping the leading steps whose screens are already shown (docs/SEMANTICS.md, "Deep link chains").
///
/// `Sendable`: a value.
public struct DeepLinkChain: Sendable, Hashable {
    /// The URI as given.
    public var uri: String
    /// The pattern it matched, as written (`movies://wishlist/movie/{id:int}`).
    public var pattern: String
    /// The steps, their payloads taken from the URI.
    public var steps: [Step]

    public init(uri: String, pattern: String, steps: [Step]) {
        self.uri = uri
        self.pattern = pattern
        self.steps = steps
    }
}

/// Why a URI is no deep link of the application.
///
/// `Sendable`: a value.
public struct DeepLinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What it says, for a person: which URI, and what would match.
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// A flow that can say, for a deep link's chain, whether it handles a step and which screens the step shows there.
///
/// The daemon waits for such flows to be ready before it applies a step of a chain, and skips a step whose screens
/// are all shown already; a chain's step that no such flow handles is never applied. A flow file's flows
/// (`FileFlow`) are such flows; a Swift flow that navigates a deep link's steps conforms.
public protocol DeepLinkTargetFlow: Flow {
    /// The screens `step` shows when this flow navigates to it (the handler's screens with the step's payload), empty
    /// when it shows none; `nil` when the flow does not handle `step`.
    func screens(showing step: Step) -> [PresentableID]?
}
