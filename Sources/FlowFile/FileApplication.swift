public import FlowCore

/// An application run from a flow file: each session's root flow is the file's root (a ``FileFlow``), coordinated
/// with the root's stepper (or the flow's own); its step names and vocabulary are the file's.
///
/// `Sendable`: the file is a value; every session gets its own flows.
public struct FileApplication: FlowApplication {
    public let file: AppFile

    /// The application `file` declares (a checked file: ``FlowFile/load(path:)``); `appVersion`: its bytes'
    /// version as flowd names it, which its flows' saved states name (`nil`: none).
    public init(_ file: AppFile, appVersion: String? = nil) {
        var file = file
        if let appVersion { file.appVersion = appVersion }
        self.file = file
    }

    public func makeRoot(session: String) -> FlowRoot {
        let declaration = file.flow(file.root.flow.value) ?? file.flows[0]
        let flow = FileFlow(declaration, of: file)
        let stepper = (try? (file.root.stepper ?? declaration.stepper)?.stepper(in: [:])) ?? DefaultStepper()
        return FlowRoot(flow: flow, stepper: stepper, allowStepWhenDismissed: file.root.allowStepWhenDismissed)
    }

    /// The file's flows are data: a snapshot saves which flow each is (and of which version of the file), and
    /// restores it from this file; a flow saved from another version is not restored from this one.
    public func restoration(session: String) -> FlowRestoration? {
        var restoration = FlowRestoration()
        restoration.register(FileFlow.self) { [file] state in
            if let saved = state.appVersion, let version = file.appVersion, saved != version {
                throw RestorationError(
                    .inconsistent,
                    "the flow '\(state.flow)' was saved from version \(saved) of the file, not \(version)")
            }
            guard let declaration = file.flow(state.flow) else {
                throw RestorationError(.unknownType, "the flow file declares no flow '\(state.flow)' any more")
            }
            return FileFlow(declaration, of: file)
        }
        return restoration
    }

    public var stepNames: Set<String>? { file.stepNames }

    /// A step whose payload is not of the type the file declares for it is refused (`invalidPayload`): its flows
    /// would not act on it.
    public func payloadRefusal(for step: Step) -> String? {
        guard !file.admitsPayload(of: step), let declared = file.step(step.name)?.payloadType else { return nil }
        return "the step '\(step.name)' takes a payload of type \(declared), not \(step.payload)"
    }

    /// On a screen of a type the file declares, an action it does not list is refused (`unknownAction`), and one
    /// whose payload is not of the action's declared type (`invalidPayload`): no stepper of the file would act on it.
    public func actionRefusal(for action: Step, onScreenOfType screenType: String) -> ActionRefusal? {
        guard let type = file.screenType(screenType) else { return nil }
        guard let declared = type.actions.first(where: { $0.name.value == action.name }) else {
            return .unknownAction(action.name, onScreenOfType: screenType, accepted: type.actions.map(\.name.value))
        }
        let payload = declared.payload?.type ?? .none
        guard !payload.admits(action.payload) else { return nil }
        return ActionRefusal(
            .invalidPayload, "the action '\(action.name)' takes a payload of type \(payload), not \(action.payload)"
        )
    }

    /// The steps marked `deepLink: true`: the only ones an operator's `DEEPLINK` may inject.
    public var deepLinkSteps: Set<String>? { file.deepLinkableSteps }

    /// The first deep link whose pattern matches `uri`, its steps' payloads taken from the URI.
    public func deepLinkChain(uri: String) throws(DeepLinkError) -> DeepLinkChain {
        for link in file.deepLinks {
            guard let values = link.pattern.match(uri) else { continue }
            var steps: [Step] = []
            for ref in link.steps {
                do {
                    steps.append(Step(ref.name.value, payload: try ref.payload?.evaluate(in: values) ?? .null))
                } catch {
                    throw DeepLinkError("the deep link '\(link.pattern)' cannot give the step '\(ref.name)': \(error)")
                }
            }
            return DeepLinkChain(uri: uri, pattern: link.pattern.source, steps: steps)
        }
        let patterns = file.deepLinks.map { "'\($0.pattern.source)'" }
        throw DeepLinkError(
            "no deep link matches '\(uri)'; "
                + (patterns.isEmpty
                    ? "the file declares none (add one under 'deepLinks:')"
                    : "the file's patterns: \(patterns.joined(separator: ", "))")
        )
    }

    public var vocabulary: ApplicationVocabulary { file.vocabulary }
}
