public import FlowCore

/// An application run from a flow file: each session's root flow is the file's root (a ``FileFlow``), coordinated
/// with the root's stepper (or the flow's own); its step names and vocabulary are the file's.
///
/// `Sendable`: the file is a value; every session gets its own flows.
public struct FileApplication: FlowApplication {
    public let file: AppFile

    /// The application `file` declares (a checked file: ``FlowFile/load(path:)``).
    public init(_ file: AppFile) {
        self.file = file
    }

    public func makeRoot(session: String) -> FlowRoot {
        let declaration = file.flow(file.root.flow.value) ?? file.flows[0]
        let flow = FileFlow(declaration, of: file)
        let stepper = (try? (file.root.stepper ?? declaration.stepper)?.stepper(in: [:])) ?? DefaultStepper()
        return FlowRoot(flow: flow, stepper: stepper, allowStepWhenDismissed: file.root.allowStepWhenDismissed)
    }

    /// The file's flows are data: a snapshot saves which flow each is, and restores it from this file.
    public func restoration(session: String) -> FlowRestoration? {
        var restoration = FlowRestoration()
        restoration.register(FileFlow.self) { [file] state in
            guard let declaration = file.flow(state.flow) else {
                throw RestorationError(.unknownType, "the flow file declares no flow '\(state.flow)' any more")
            }
            return FileFlow(declaration, of: file)
        }
        return restoration
    }

    public var stepNames: Set<String>? { file.stepNames }

    public var vocabulary: ApplicationVocabulary { file.vocabulary }
}
