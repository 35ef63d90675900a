internal import FlowCore

/// What a template may name where it is written, with types: `payload` in a flow's handler of a step (the step's
/// declared payload), the URI's variables in a deep link.
struct TemplateScope {
    var names: [String: PayloadType]
    /// Whose payload `payload` is (`the step 'movieIsPicked'`), or `the URI pattern '…'`.
    var owner: String
    var isDeepLink: Bool

    static func handler(of step: StepDecl?, name: String) -> TemplateScope {
        TemplateScope(names: ["payload": step?.payloadType ?? .any], owner: "the step '\(name)'", isDeepLink: false)
    }

    /// The type a reference gives; reported (and `nil`) when it names nothing in scope.
    func type(of path: [String], at location: SourceLocation, in template: Template, sink: DiagnosticSink)
        -> PayloadType?
    {
        let written = "{" + path.joined(separator: ".") + "}"
        guard var type = names[path[0]] else {
            if isDeepLink {
                sink.report(
                    .unknownURIVariable, at: location, "'\(written)' names no variable of \(owner)",
                    fix: instead(of: written, among: names.keys.sorted().map { "{\($0)}" }, otherwise: "")
                )
            } else {
                sink.report(
                    .badTemplate, at: location, "'\(written)' names nothing a step handler has",
                    fix: "write {payload} or {payload.<field>}: the handled step's payload"
                )
            }
            return nil
        }
        if type == .none {
            sink.report(
                .noPayload, at: location, "'\(written)' names the payload of \(owner), which carries none",
                fix: "declare a payload for the step under 'steps:', or leave the reference out"
            )
            return nil
        }
        for (depth, field) in path.enumerated().dropFirst() {
            switch type {
            case .any: return .any
            case .object(let fields):
                guard let fieldType = fields[field] else {
                    sink.report(
                        .unknownPayloadField, at: location,
                        "'\(written)' names the field '\(field)', which the payload of \(owner) (\(type)) does not declare",
                        fix: Self.fieldFix(
                            field, among: fields.keys.sorted(), parent: path[..<depth].joined(separator: "."))
                    )
                    return nil
                }
                type = fieldType
            default:
                let parent = "{" + path[..<depth].joined(separator: ".") + "}"
                sink.report(
                    .unknownPayloadField, at: location,
                    "'\(written)' names the field '\(field)', but the payload of \(owner) is \(type), not an object",
                    fix: "write \(parent)"
                )
                return nil
            }
        }
        return type
    }

    private static func fieldFix(_ field: String, among fields: [String], parent: String) -> String {
        if let near = suggestion(for: field, among: fields) { return "write {\(parent).\(near)}" }
        if fields.isEmpty { return "declare the field under the payload's 'fields'" }
        return "write one of " + fields.map { "{\(parent).\($0)}" }.joined(separator: ", ") + ", or declare the field"
    }

    /// The type a template gives: its reference's for a whole reference, `string` otherwise.
    func type(of template: Template, sink: DiagnosticSink) -> PayloadType? {
        var whole: PayloadType?
        var ok = true
        for reference in template.references {
            let type = type(of: reference.path, at: reference.location, in: template, sink: sink)
            if type == nil { ok = false }
            whole = type
        }
        guard ok else { return nil }
        return template.isWholeReference ? whole : .string
    }

    /// The type a value gives; `nil` when one of its templates is wrong (reported).
    func type(of value: TemplateValue, sink: DiagnosticSink) -> PayloadType? {
        switch value {
        case .literal(let json): return PayloadType(of: json)
        case .text(let template): return type(of: template, sink: sink)
        case .array(let items):
            let types = items.map { type(of: $0, sink: sink) }
            return types.contains(where: { $0 == nil }) ? nil : .any
        case .object(let members):
            var fields: [String: PayloadType] = [:]
            var ok = true
            for key in members.keys.sorted() {
                if let type = type(of: members[key]!, sink: sink) { fields[key] = type } else { ok = false }
            }
            return ok ? .object(fields) : nil
        }
    }
}

extension PayloadType {
    /// The type of a literal value.
    init(of value: JSONValue) {
        switch value {
        case .null: self = .none
        case .bool: self = .bool
        case .int: self = .int
        case .double: self = .number
        case .string: self = .string
        case .array: self = .any
        case .object(let members): self = .object(members.mapValues(PayloadType.init(of:)))
        }
    }
}
