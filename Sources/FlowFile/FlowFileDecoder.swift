/// Reads an ``AppFile`` from a file's nodes: the format's structure (keys, shapes, required values). Names are
/// checked against each other afterwards, by ``FlowFileValidator``.
struct FlowFileDecoder {
    let sink: DiagnosticSink
    let file: String

    static let topKeys = ["flowfile", "app", "root", "steps", "stepperKinds", "screenTypes", "flows", "deepLinks"]
    static let currentVersion = 1

    /// The file's application; `nil` when the top is not a mapping.
    func decode(_ node: FileNode) -> AppFile? {
        guard let top = MappingReader(node, as: "the flow file", keys: Self.topKeys, sink: sink) else { return nil }
        var version = Self.currentVersion
        if let versionNode = top.required("flowfile", "\(Self.currentVersion)") {
            if let written = versionNode.integer, written == Self.currentVersion {
                version = written
            } else {
                sink.report(
                    .unsupportedVersion, at: versionNode.location,
                    "flow file format \(versionNode.what) is not one this flowd reads",
                    fix: "write 'flowfile: \(Self.currentVersion)'"
                )
            }
        }
        let app = top.required("app", "<the application's name>").flatMap {
            MappingReader.scalar($0, as: "'app'", sink: sink)
        }
        let root = top.required("root", "<the root flow's name>").flatMap(decodeRoot)
        let steps = top.value("steps").map(decodeSteps) ?? []
        let kinds = top.value("stepperKinds").map(decodeStepperKinds) ?? []
        let types = top.value("screenTypes").map(decodeScreenTypes) ?? []
        let flows = top.required("flows", "<a mapping of flows>").map(decodeFlows) ?? []
        let links = top.value("deepLinks").map(decodeDeepLinks) ?? []
        let rootDecl =
            root
            ?? RootDecl(
                flow: Name(value: "", location: node.location), stepper: nil, allowStepWhenDismissed: false,
                location: node.location)
        return AppFile(
            version: version, app: app?.value ?? "", root: rootDecl, steps: steps, stepperKinds: kinds,
            screenTypes: types, flows: flows, deepLinks: links
        )
    }

    // MARK: - Root

    private func decodeRoot(_ node: FileNode) -> RootDecl? {
        if node.text != nil {
            return MappingReader.scalar(node, as: "'root'", sink: sink).map {
                RootDecl(flow: $0, stepper: nil, allowStepWhenDismissed: false, location: node.location)
            }
        }
        guard
            let root = MappingReader(
                node, as: "'root'", keys: ["flow", "stepper", "allowStepWhenDismissed"], sink: sink),
            let flow = root.required("flow", "<the root flow's name>").flatMap({
                MappingReader.scalar($0, as: "'flow' of 'root'", sink: sink)
            })
        else { return nil }
        return RootDecl(
            flow: flow, stepper: root.value("stepper").flatMap(decodeStepper),
            allowStepWhenDismissed: root.bool("allowStepWhenDismissed"), location: node.location
        )
    }

    // MARK: - Vocabulary

    private func decodeSteps(_ node: FileNode) -> [StepDecl] {
        guard let entries = MappingReader.namedEntries(node, as: "'steps'", sink: sink) else { return [] }
        return entries.compactMap { name, value in
            if value.isEmpty { return StepDecl(name: name, payload: nil, summary: "", deepLink: false) }
            guard
                let step = MappingReader(
                    value, as: "the step '\(name)'", keys: ["payload", "summary", "deepLink"], sink: sink)
            else { return nil }
            return StepDecl(
                name: name, payload: step.value("payload").flatMap(decodePayload),
                summary: step.string("summary")?.value ?? "", deepLink: step.bool("deepLink")
            )
        }
    }

    private func decodeStepperKinds(_ node: FileNode) -> [StepperKindDecl] {
        guard let entries = MappingReader.namedEntries(node, as: "'stepperKinds'", sink: sink) else { return [] }
        return entries.compactMap { name, value in
            if value.isEmpty { return StepperKindDecl(kind: name, steps: [], summary: "") }
            guard
                let kind = MappingReader(
                    value, as: "the stepper kind '\(name)'", keys: ["steps", "summary"], sink: sink)
            else { return nil }
            let steps =
                kind.value("steps").flatMap { MappingReader.list($0, as: "'steps' of '\(name)'", sink: sink) } ?? []
            return StepperKindDecl(
                kind: name,
                steps: steps.compactMap { MappingReader.scalar($0, as: "a step of '\(name)'", sink: sink) },
                summary: kind.string("summary")?.value ?? ""
            )
        }
    }

    private func decodeScreenTypes(_ node: FileNode) -> [ScreenTypeDecl] {
        guard let entries = MappingReader.namedEntries(node, as: "'screenTypes'", sink: sink) else { return [] }
        return entries.compactMap { name, value in
            if value.isEmpty { return ScreenTypeDecl(type: name, kind: .view, data: nil, actions: [], summary: nil) }
            guard
                let type = MappingReader(
                    value, as: "the screen type '\(name)'", keys: ["kind", "data", "summary", "actions"], sink: sink)
            else { return nil }
            let actions =
                type.value("actions").flatMap {
                    MappingReader.namedEntries($0, as: "'actions' of '\(name)'", sink: sink)
                } ?? []
            return ScreenTypeDecl(
                type: name, kind: decodeKind(type) ?? .view, data: type.string("data")?.value,
                actions: actions.compactMap { actionName, value in
                    if value.isEmpty { return ActionDecl(name: actionName, payload: nil, summary: "") }
                    guard
                        let action = MappingReader(
                            value, as: "the action '\(actionName)'", keys: ["payload", "summary"], sink: sink)
                    else { return nil }
                    return ActionDecl(
                        name: actionName, payload: action.value("payload").flatMap(decodePayload),
                        summary: action.string("summary")?.value ?? ""
                    )
                },
                summary: type.string("summary")?.value
            )
        }
    }

    /// `kind:` of a mapping: one of the screen kinds.
    func decodeKind(_ reader: MappingReader) -> ScreenKindName? {
        guard let name = reader.string("kind") else { return nil }
        if let kind = ScreenKindName(rawValue: name.value) { return kind }
        sink.report(
            .wrongType, at: name.location, "'\(name)' is not a screen kind",
            fix: instead(of: name.value, among: ScreenKindName.allCases.map(\.rawValue), otherwise: "")
        )
        return nil
    }

    /// A payload: a type name, or `{type, fields, describe}`.
    func decodePayload(_ node: FileNode) -> PayloadDecl? {
        if node.text != nil { return decodePayloadType(node).map { PayloadDecl(type: $0, location: node.location) } }
        guard let payload = MappingReader(node, as: "a payload", keys: ["type", "fields", "describe"], sink: sink),
            let type = decodePayloadType(node)
        else { return nil }
        return PayloadDecl(type: type, describe: payload.string("describe")?.value, location: node.location)
    }

    private func decodePayloadType(_ node: FileNode) -> PayloadType? {
        let names = PayloadType.scalars.keys.sorted() + ["object"]
        if let text = node.text {
            if let type = PayloadType.scalars[text] { return type }
            sink.report(
                .wrongType, at: node.location, "'\(text)' is not a payload type",
                fix: instead(of: text, among: names, otherwise: ""))
            return nil
        }
        guard let pairs = node.pairs else {
            sink.report(
                .wrongType, at: node.location, "a payload type is a name or a mapping, not a list",
                fix: "write 'int', 'string', … or '{fields: {name: type}}'")
            return nil
        }
        let typeNode = pairs.first { $0.key.text == "type" }?.value
        let fieldsNode = pairs.first { $0.key.text == "fields" }?.value
        if let fieldsNode {
            if let typeNode, typeNode.text != "object" {
                sink.report(
                    .wrongType, at: typeNode.location, "a payload with 'fields' is an object",
                    fix: "write 'type: object' or leave 'type' out")
            }
            guard let fields = MappingReader.namedEntries(fieldsNode, as: "'fields'", sink: sink) else { return nil }
            var types: [String: PayloadType] = [:]
            for (name, value) in fields {
                if value.pairs != nil {
                    _ = MappingReader(value, as: "the field '\(name)'", keys: ["type", "fields"], sink: sink)
                }
                types[name.value] = decodePayloadType(value) ?? .any
            }
            return .object(types)
        }
        guard let typeNode else { return .any }
        if typeNode.text == "object" { return .object([:]) }
        return decodePayloadType(typeNode)
    }

    // MARK: - Deep links

    private func decodeDeepLinks(_ node: FileNode) -> [DeepLinkDecl] {
        guard let items = MappingReader.list(node, as: "'deepLinks'", sink: sink) else { return [] }
        return items.compactMap { item -> DeepLinkDecl? in
            guard let link = MappingReader(item, as: "a deep link", keys: ["uri", "steps", "summary"], sink: sink),
                let uriNode = link.required("uri", "<scheme://host/path/{variable}>"),
                let uri = MappingReader.scalar(uriNode, as: "'uri'", sink: sink),
                let stepsNode = link.required("steps", "[<step>, …]")
            else { return nil }
            let pattern: URIPattern
            do throws(FlowFileDiagnostic) {
                pattern = try URIPattern(parsing: uri.value, at: templateLocation(uriNode))
            } catch {
                sink.add(error)
                return nil
            }
            let steps = MappingReader.list(stepsNode, as: "'steps' of a deep link", sink: sink) ?? []
            return DeepLinkDecl(
                pattern: pattern, steps: steps.compactMap(decodeStepRef), summary: link.string("summary")?.value,
                location: item.location
            )
        }
    }

    // MARK: - Shared pieces

    /// A step: `name`, or `{step: name, payload: <value>}`.
    func decodeStepRef(_ node: FileNode) -> StepRef? {
        if node.text != nil {
            return MappingReader.scalar(node, as: "a step", sink: sink).map {
                StepRef(name: $0, payload: nil, location: node.location)
            }
        }
        guard let ref = MappingReader(node, as: "a step", keys: ["step", "payload"], sink: sink),
            let name = ref.required("step", "<a step's name>").flatMap({
                MappingReader.scalar($0, as: "'step'", sink: sink)
            })
        else { return nil }
        return StepRef(name: name, payload: ref.value("payload").flatMap(decodeTemplateValue), location: node.location)
    }

    /// A value whose strings are templates.
    func decodeTemplateValue(_ node: FileNode) -> TemplateValue? {
        switch node.value {
        case .scalar:
            guard case .string(let text) = node.json else { return .literal(node.json) }
            return decodeTemplate(text, node).map(TemplateValue.text)
        case .sequence(let items):
            return .array(items.compactMap(decodeTemplateValue))
        case .mapping(let pairs):
            var members: [String: TemplateValue] = [:]
            for pair in pairs { members[pair.key.text ?? pair.key.what] = decodeTemplateValue(pair.value) }
            return .object(members)
        }
    }

    /// A template from a scalar's text; reported when malformed.
    func decodeTemplate(_ text: String, _ node: FileNode) -> Template? {
        do throws(FlowFileDiagnostic) {
            return try Template(parsing: text, at: templateLocation(node))
        } catch {
            sink.add(error)
            return nil
        }
    }

    /// Where a scalar's text starts: after its opening quote when quoted.
    func templateLocation(_ node: FileNode) -> SourceLocation {
        if case .scalar(_, let plain) = node.value, !plain { return node.location.advanced(by: 1) }
        return node.location
    }
}
