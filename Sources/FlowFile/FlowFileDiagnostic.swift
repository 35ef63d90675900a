/// One thing wrong in a flow file: what, where, and what to write instead.
///
/// Printed as a compiler does, on one line: `movies.flows.yaml:12:7: error: unknown step 'movieIsPiked'; write
/// a step declared under 'steps:' (did you mean 'movieIsPicked'?)`.
///
/// `Sendable`: a value.
public struct FlowFileDiagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake it is; stable, for tools and tests.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        case unreadableFile, syntax, duplicateKey, unknownKey, wrongType, missingKey, unsupportedVersion
        case invalidName, unknownStep, unknownFlow, unknownScreen, unknownStepperKind, unknownScreenType, unknownAction
        case unhandledStep, unreachableFlow, duplicateName, duplicateScreenID, collidingScreenIDs
        case badTemplate, unknownPayloadField, noPayload, payloadMismatch
        case missingStepper, endWithContributors, noParentFlow, wrongContainer, notAllowedHere
        case notDeepLinkable, badURIPattern, unknownURIVariable, duplicateURIPattern
    }

    public var code: Code
    public var location: SourceLocation
    /// What is wrong.
    public var message: String
    /// What to write instead.
    public var fix: String

    public init(_ code: Code, at location: SourceLocation, _ message: String, fix: String) {
        self.code = code
        self.location = location
        self.message = message
        self.fix = fix
    }

    public var description: String { "\(location): error: \(message); \(fix)" }
}

/// A flow file that does not load or does not validate: every mistake found, in file order.
///
/// `Sendable`: values.
public struct FlowFileErrors: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [FlowFileDiagnostic]

    public init(_ diagnostics: [FlowFileDiagnostic]) {
        self.diagnostics = diagnostics.sorted { $0.location < $1.location }
    }

    /// One diagnostic a line.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// Where diagnostics are collected while a file is read and checked: reading goes on after a mistake so that one
/// run reports them all.
final class DiagnosticSink {
    private(set) var diagnostics: [FlowFileDiagnostic] = []

    func report(_ code: FlowFileDiagnostic.Code, at location: SourceLocation, _ message: String, fix: String) {
        diagnostics.append(FlowFileDiagnostic(code, at: location, message, fix: fix))
    }

    func add(_ diagnostic: FlowFileDiagnostic) { diagnostics.append(diagnostic) }
}

@available(*, unavailable)
extension DiagnosticSink: Sendable {}

/// The nearest of `candidates` to `name` by edit distance, when it is close enough to be a typo.
func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
    var best: (name: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(name.lowercased(), candidate.lowercased())
        if distance <= max(2, name.count / 3), distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
}

/// What to write instead of an unknown `name`: `write 'close'` when one of `candidates` is close to it (with
/// `otherwise` after it), else the candidates (the first 12) or `otherwise` alone.
func instead(of name: String, among candidates: [String], otherwise: String) -> String {
    let alternative = otherwise.isEmpty ? "" : ", or " + otherwise
    if let near = suggestion(for: name, among: candidates) { return "write '\(near)'" + alternative }
    if candidates.isEmpty { return otherwise.isEmpty ? "remove it" : otherwise }
    let shown = candidates.prefix(12).map { "'\($0)'" }.joined(separator: ", ")
    return "write one of " + shown + (candidates.count > 12 ? ", …" : "") + alternative
}

private func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let a = Array(lhs.unicodeScalars)
    let b = Array(rhs.unicodeScalars)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
