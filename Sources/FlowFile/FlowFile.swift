public import FlowCore
internal import Foundation

/// Reads flow files: an application declared in YAML (or JSON, read by the same parser) as docs/FLOWFILE.md
/// specifies.
///
/// `Sendable`: no state.
public enum FlowFile: Sendable {
    /// Reads and checks the file at `path`.
    ///
    /// - Throws: ``FlowFileErrors`` with every mistake found, each with its file:line:column and what to write
    ///   instead.
    public static func load(path: String) throws(FlowFileErrors) -> AppFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw FlowFileErrors([
                FlowFileDiagnostic(
                    .unreadableFile, at: SourceLocation(file: path, line: 1, column: 1),
                    "cannot read the file: \(error.localizedDescription)", fix: "give the path of a readable UTF-8 file"
                )
            ])
        }
        return try parse(text, file: path)
    }

    /// Reads and checks a file's text; `file` names it in diagnostics.
    public static func parse(_ text: String, file: String) throws(FlowFileErrors) -> AppFile {
        let node = try FileNodeReader.read(text, file: file)
        let sink = DiagnosticSink()
        let decoded = FlowFileDecoder(sink: sink, file: file).decode(node)
        if let decoded, sink.diagnostics.isEmpty {
            FlowFileValidator(app: decoded, sink: sink).validate()
        }
        guard let decoded, sink.diagnostics.isEmpty else { throw FlowFileErrors(sink.diagnostics) }
        return decoded
    }
}

extension AppFile {
    /// What the application declares it speaks, for `DESCRIBE`: its steps, stepper kinds and screen types as the
    /// file has them.
    public var vocabulary: ApplicationVocabulary {
        ApplicationVocabulary(
            steps: steps.map { .init($0.name.value, payload: $0.payload?.readable, summary: $0.summary) },
            stepperKinds: stepperKinds.map { .init($0.kind.value, steps: $0.steps.map(\.value), summary: $0.summary) },
            screenTypes: screenTypes.map { type in
                .init(
                    type.type.value, kind: type.kind.rawValue, data: type.data,
                    actions: type.actions.map {
                        .init($0.name.value, payload: $0.payload?.readable, summary: $0.summary)
                    }
                )
            }
        )
    }

    /// Every step's name.
    public var stepNames: Set<String> { Set(steps.map(\.name.value)) }

    /// The steps an operator may deep-link.
    public var deepLinkableSteps: Set<String> { Set(steps.filter(\.deepLink).map(\.name.value)) }

    /// The chain of steps `uri` stands for, by the first deep link whose pattern matches; `nil` when none does.
    ///
    /// - Throws: ``TemplateError`` when a payload names something the URI does not give (the checks rule that out
    ///   for a loaded file).
    package func steps(forURI uri: String) throws(TemplateError) -> [Step]? {
        for link in deepLinks {
            guard let values = link.pattern.match(uri) else { continue }
            var chain: [Step] = []
            for ref in link.steps {
                chain.append(Step(ref.name.value, payload: try ref.payload?.evaluate(in: values) ?? .null))
            }
            return chain
        }
        return nil
    }
}
