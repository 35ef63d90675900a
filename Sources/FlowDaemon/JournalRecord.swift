#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import FlowCore
internal import FlowWire

/// One change of the daemon's state, as the journal keeps it.
///
/// Replaying a daemon's records in order into a fresh ``DaemonCore`` (with the same application) rebuilds every
/// session exactly: the same flows, attachments, UI, unreported dismissals, command sequence numbers and outbox, and
/// the same STEP de-duplication windows. That holds because the coordinator state machine is deterministic given its
/// inputs, and a record is the input itself, not its effect (flows are application objects: flowd cannot serialize
/// them, it re-runs them). docs/RELIABILITY.md has the list and the argument.
///
/// Stored as one JSON object per record with sorted keys (``encoded``, ``init(decoding:)``); the ``JournalStore``
/// frames and checksums it.
struct JournalRecord: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// The state's daemon ID (the first record): a recovered daemon keeps it, so clients know nothing was lost.
        /// `replacing`: the daemon ID this one replaces, for a state that lost records (``DaemonCore/changeDaemonID(to:)``).
        case daemon(id: String, replacing: String?)
        /// A session was created (its root flow coordinated). `app`: the version of the application's file it runs
        /// (``AppVersion``), for a daemon whose application is a file; `nil`: the application the daemon started with.
        /// Format version 4 when `app` is set; 5 since `numbering` (``AttachmentNumbering``).
        case sessionCreated(app: String?, numbering: AttachmentNumbering = .compositeLeaves)
        /// A session was ended (`END_SESSION`): its state is dropped. Format version 2.
        case sessionEnded
        /// An input reached the session's tree. `origin`: the `HELLO.instance` and `STEP.req` of a stepper's STEP.
        case input(CoordinatorInput, origin: StepOrigin?)
        /// One entry of a presenter's `REPORT` (it may change the UI model as well as the tree).
        case report(PresentableReport)
        /// A presenter adopted the session's snapshot: it will not report the dismissals of the commands before it.
        case snapshotAdopted
        /// The session's live state as data, in a snapshot: it stands for every record of the session before it.
        /// `app` and `numbering` as for ``sessionCreated(app:numbering:)``. Format version 3 (4 when `app` is set, 5
        /// since `numbering`). `usage`: what the session held against its bounds as it was saved (``SessionUsage``),
        /// so that `HEALTH` counts a pending or hibernated session without reading its UI; `nil` in a record written
        /// before it (a field of format version 5 that older readers ignore).
        case state(
            SessionState, app: String?, numbering: AttachmentNumbering = .compositeLeaves, usage: SessionUsage? = nil)
        /// The session's records after this one were written numbering a composite's steppers one by one: the first
        /// record a flowd of format version 5 journals for a session an older flowd started. Format version 5.
        case compositeLeaves
        /// The STEP de-duplication windows, at the end of a snapshot (empty session). Format version 3.
        case stepWindows(StepResultWindows)
    }

    /// The session the record belongs to; empty for ``Kind/daemon(id:replacing:)``.
    var session: String
    var kind: Kind

    static func daemon(_ id: String, replacing: String? = nil) -> JournalRecord {
        JournalRecord(session: "", kind: .daemon(id: id, replacing: replacing))
    }
}

extension JournalRecord {
    /// Whether the record starts a session's records: its creation, or its state saved as data.
    var startsSession: Bool {
        switch kind {
        case .sessionCreated, .state: true
        default: false
        }
    }

    /// Whether the record belongs to no session.
    var isGlobal: Bool {
        switch kind {
        case .daemon, .stepWindows: true
        default: false
        }
    }
}

/// Which STEP of which client an input came from: the key of STEP de-duplication.
struct StepOrigin: Hashable, Sendable {
    /// `HELLO.instance`: the client process's run.
    var instance: String
    /// `STEP.req`: increasing within the instance, the same when the client sends the step again.
    var req: UInt64
}

// MARK: - Record format versions

extension JournalRecord {
    /// The newest record format version this flowd reads and writes. A record says its version in `"v"` (absent: 1);
    /// a record kind added later is written with the version that introduced it, so that an older flowd refuses it
    /// by name (``DecodingFailure/newerVersion(_:kind:)``) instead of reading a journal it would replay wrong.
    static let formatVersion = 5

    /// Why bytes are not a record this flowd can replay.
    enum DecodingFailure: Error, Hashable, CustomStringConvertible {
        /// Written by a newer flowd: a record format version above ``formatVersion``.
        case newerVersion(Int, kind: String)
        /// Not a record of a version this flowd reads: bad JSON, an unknown kind, a missing or mistyped field.
        case malformed(String)

        var description: String {
            switch self {
            case .newerVersion(let version, let kind):
                "a '\(kind)' record of format version \(version); this flowd reads versions up to \(formatVersion)"
            case .malformed(let reason): reason
            }
        }
    }
}

// MARK: - Encoding

extension JournalRecord {
    /// The record's bytes: a JSON object with sorted keys, written directly (JSONEncoder cost about 7 µs a step,
    /// docs/PERFORMANCE.md). The bytes are pinned by JournalRecordTests' golden records.
    var encoded: [UInt8] {
        var json = RecordWriter()
        switch kind {
        case .daemon(let id, let replacing):
            json.field("daemon", string: id, first: true)
            json.field("kind", literal: "\"daemon\"")
            if let replacing { json.field("replaces", string: replacing) }
            return json.finish()
        case .sessionCreated(let app, let numbering):
            if let app { json.field("app", string: app, first: true) }
            json.field("kind", literal: "\"session\"", first: app == nil)
            json.field("session", string: session)
            if numbering == .compositeLeaves {
                json.field("v", int: 5)
            } else if app != nil {
                json.field("v", int: 4)
            }
            return json.finish()
        case .compositeLeaves:
            json.field("kind", literal: "\"leaves\"", first: true)
            json.field("session", string: session)
            json.field("v", int: 5)
            return json.finish()
        case .snapshotAdopted:
            json.field("kind", literal: "\"adopted\"", first: true)
        case .sessionEnded:
            json.field("kind", literal: "\"ended\"", first: true)
            json.field("session", string: session)
            json.field("v", int: 2)
            return json.finish()
        case .state(let state, let app, let numbering, let usage):
            return StateRecordWriter.write(session: session, state: state, app: app, numbering: numbering, usage: usage)
                ?? Self.encodeJSON(
                    StateBody(session: session, state: state, app: app, numbering: numbering, usage: usage))
        case .stepWindows(let windows):
            return Self.encodeJSON(StepWindowsBody(windows: windows))
        case .report(let report):
            json.field("kind", literal: "\"report\"", first: true)
            json.writer.raw(",\"report\":{\"presentable\":")
            json.writer.string(report.presentable)
            json.writer.raw(",\"state\":")
            json.writer.string(report.state.rawValue)
            json.writer.raw("}")
        case .input(let input, let origin):
            Self.encode(input, origin: origin, session: session, into: &json)
            return json.finish()
        }
        json.field("session", string: session)
        return json.finish()
    }

    /// An input record's fields in key order: attachment, input, instance, kind, presentable(s), req, request, session,
    /// step.
    private static func encode(
        _ input: CoordinatorInput, origin: StepOrigin?, session: String, into json: inout RecordWriter
    ) {
        var step: Step?
        switch input {
        case .stepperEmitted(let attachment, let emitted):
            json.field("attachment", int: attachment.rawValue, first: true)
            json.field("input", literal: "\"step\"")
            step = emitted
        case .visibilityChanged(_, let visible):
            json.field("input", literal: visible ? "\"visible\"" : "\"hidden\"", first: true)
        case .dismissed:
            json.field("input", literal: "\"dismissed\"", first: true)
        case .presentablesLost:
            json.field("input", literal: "\"lost\"", first: true)
        case .adaptCompleted(_, let adapted):
            json.field("input", literal: "\"adapted\"", first: true)
            step = adapted
        case .deepLink(let link):
            json.field("input", literal: "\"deep_link\"", first: true)
            step = link
        }
        if let origin { json.field("instance", string: origin.instance) }
        json.field("kind", literal: "\"input\"")
        switch input {
        case .visibilityChanged(let id, _), .dismissed(let id):
            json.field("presentable", string: id.rawValue)
        case .presentablesLost(let ids):
            json.writer.raw(",\"presentables\":[")
            for (index, id) in ids.enumerated() {
                if index > 0 { json.writer.raw(",") }
                json.writer.string(id.rawValue)
            }
            json.writer.raw("]")
        default:
            break
        }
        if let origin {
            json.writer.raw(",\"req\":")
            json.writer.unsigned(origin.req)
        }
        if case .adaptCompleted(let request, _) = input { json.field("request", int: request.rawValue) }
        json.field("session", string: session)
        if let step { json.step(step) }
    }
}

/// A record's JSON object, key by key (the caller keeps them sorted).
private struct RecordWriter {
    var writer = FastJSONWriter()
    /// The bytes of a step whose payload the fast writer leaves to `JSONEncoder` (a double), written last.
    private var encodedStep: [UInt8]?

    init() { writer.raw("{") }

    mutating func field(_ key: StaticString, literal: StaticString, first: Bool = false) {
        writer.key(key, first: first)
        writer.raw(literal)
    }

    mutating func field(_ key: StaticString, string: String, first: Bool = false) {
        writer.key(key, first: first)
        writer.string(string)
    }

    mutating func field(_ key: StaticString, int: Int, first: Bool = false) {
        writer.key(key, first: first)
        writer.int(int)
    }

    /// The `step` field, which sorts last wherever it appears.
    mutating func step(_ step: Step) {
        writer.raw(",\"step\":")
        guard Self.hasDouble(step.payload) else {
            try? writer.step(step)  // throws only for a double
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A step's payload came from JSON, so it encodes as JSON.
        encodedStep = (try? Array(encoder.encode(step))) ?? Array("null".utf8)
    }

    private static func hasDouble(_ value: JSONValue) -> Bool {
        switch value {
        case .double: true
        case .null, .bool, .int, .string: false
        case .array(let values): values.contains(where: hasDouble)
        case .object(let members): members.values.contains(where: hasDouble)
        }
    }

    mutating func finish() -> [UInt8] {
        guard let encodedStep else {
            writer.raw("}")
            return writer.takeBytes()
        }
        return writer.takeBytes() + encodedStep + [UInt8(ascii: "}")]
    }
}

// MARK: - Decoding

extension JournalRecord {
    /// Reads a record's bytes (any JSON spelling of the fields ``encoded`` writes; unknown fields are ignored).
    ///
    /// - Throws: ``DecodingFailure``.
    init(decoding bytes: [UInt8]) throws(DecodingFailure) {
        // The fast reader covers what flowd writes but doubles and escaped strings; JSONDecoder reads the rest.
        let stateRead = StateRecordReader.read(bytes)
        guard
            let value = stateRead.map({ JSONValue.object($0.fields) }) ?? FastJSONReader.value(bytes)
                ?? (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))),
            case .object(let fields) = value
        else { throw .malformed("not a JSON object") }
        let kind = fields["kind"]?.stringValue ?? "?"
        let version = fields["v"].map { $0.intValue ?? Int.max } ?? 1
        guard version <= Self.formatVersion else { throw .newerVersion(version, kind: kind) }
        if kind == "steps", version >= 3 {
            var windows = fields["windows"].flatMap { try? JSONValueDecoder.decode(StepResultWindows.self, from: $0) }
            if windows == nil { windows = try Self.decodeJSON(StepWindowsBody.self, bytes).windows }
            self = JournalRecord(session: "", kind: .stepWindows(windows!))
            return
        }
        if kind == "daemon" {
            self = .daemon(try Self.string("daemon", in: fields), replacing: fields["replaces"]?.stringValue)
            return
        }
        let session = try Self.string("session", in: fields)
        switch kind {
        case "session":
            let app = fields["app"]?.stringValue
            guard app != nil || fields["app"] == nil else {
                throw .malformed("a session record whose app is not a string")
            }
            let numbering = AttachmentNumbering(version: version)
            self.init(session: session, kind: .sessionCreated(app: app, numbering: numbering))
        case "adopted":
            self.init(session: session, kind: .snapshotAdopted)
        case "ended" where version >= 2:
            self.init(session: session, kind: .sessionEnded)
        case "state" where version >= 3:
            let app = fields["app"]?.stringValue
            guard app != nil || fields["app"] == nil else {
                throw .malformed("a state record whose app is not a string")
            }
            let state = if let stateRead { stateRead.state } else { try Self.sessionState(fields["state"], bytes) }
            // Figures for HEALTH only: a usage that does not read is left out, the record still replays.
            let usage = fields["usage"].flatMap { try? JSONValueDecoder.decode(SessionUsage.self, from: $0) }
            self.init(
                session: session,
                kind: .state(state, app: app, numbering: AttachmentNumbering(version: version), usage: usage))
        case "leaves" where version >= 5:
            self.init(session: session, kind: .compositeLeaves)
        case "report":
            guard case .object(let report)? = fields["report"], let presentable = report["presentable"]?.stringValue,
                let state = report["state"]?.stringValue.flatMap(PresentableState.init(rawValue:))
            else { throw .malformed("a report record without a presentable and a state") }
            self.init(session: session, kind: .report(PresentableReport(presentable: presentable, state: state)))
        case "input":
            var origin: StepOrigin?
            if let instance = fields["instance"] {
                guard let instance = instance.stringValue else { throw .malformed("an instance that is not a string") }
                origin = StepOrigin(instance: instance, req: try Self.req(fields, bytes))
            }
            self.init(session: session, kind: .input(try Self.input(fields), origin: origin))
        default:
            throw .malformed("an unknown record kind '\(kind)' (format version \(version))")
        }
    }

    private static func input(_ fields: [String: JSONValue]) throws(DecodingFailure) -> CoordinatorInput {
        let name = fields["input"]?.stringValue ?? "?"
        switch name {
        case "step":
            guard let attachment = fields["attachment"]?.intValue else { throw .malformed("a step without attachment") }
            return .stepperEmitted(AttachmentID(attachment), try step(fields["step"]))
        case "visible", "hidden":
            return .visibilityChanged(PresentableID(try string("presentable", in: fields)), visible: name == "visible")
        case "dismissed":
            return .dismissed(PresentableID(try string("presentable", in: fields)))
        case "lost":
            guard case .array(let ids)? = fields["presentables"] else { throw .malformed("lost without presentables") }
            let names = ids.compactMap(\.stringValue)
            guard names.count == ids.count else { throw .malformed("presentables that are not strings") }
            return .presentablesLost(names.map { PresentableID($0) })
        case "adapted":
            guard let request = fields["request"]?.intValue else { throw .malformed("adapted without a request") }
            let value = fields["step"] ?? .null
            return .adaptCompleted(AdaptRequestID(request), value == .null ? nil : try step(value))
        case "deep_link":
            return .deepLink(try step(fields["step"]))
        default:
            throw .malformed("an unknown input '\(name)'")
        }
    }

    private static func step(_ value: JSONValue?) throws(DecodingFailure) -> Step {
        guard case .object(let step)? = value, let name = step["name"]?.stringValue else {
            throw .malformed("a step without a name")
        }
        return Step(name, payload: step["payload"] ?? .null)
    }

    private static func string(_ key: String, in fields: [String: JSONValue]) throws(DecodingFailure) -> String {
        guard let value = fields[key]?.stringValue else { throw .malformed("no string '\(key)'") }
        return value
    }

    /// `req` is a `UInt64`; one above `Int.max` is not an `Int` in a JSON value, so it is read again as what it is.
    private static func req(_ fields: [String: JSONValue], _ bytes: [UInt8]) throws(DecodingFailure) -> UInt64 {
        if let req = fields["req"]?.intValue, req >= 0 { return UInt64(req) }
        struct Unsigned: Decodable { var req: UInt64 }
        guard let wide = try? JSONDecoder().decode(Unsigned.self, from: Data(bytes)) else {
            throw .malformed("a req that is not an unsigned integer")
        }
        return wide.req
    }
}

// MARK: - Records written by JSONEncoder

// The records a compaction writes, once per session: their size, not the cost of encoding them, matters.
extension JournalRecord {
    struct StateBody: Codable {
        var kind = "state"
        var session: String
        var state: SessionState
        /// The session's application version (``Kind/sessionCreated(app:numbering:)``); written only when set.
        var app: String?
        /// ``Kind/state(_:app:numbering:usage:)``'s `usage`; written only when set.
        var usage: SessionUsage?
        var v: Int

        init(
            session: String, state: SessionState, app: String?, numbering: AttachmentNumbering = .compositeLeaves,
            usage: SessionUsage? = nil
        ) {
            self.session = session
            self.state = state
            self.app = app
            self.usage = usage
            v = numbering.stateVersion(app: app)
        }
    }

    struct StepWindowsBody: Codable {
        var kind = "steps"
        var windows: StepResultWindows
        var v = 3
    }

    static func encodeJSON(_ body: some Encodable) -> [UInt8] {
        // Every part of a state is a value flowd made and can encode: a failure here is a bug, not an input.
        (try? Array(makeEncoder().encode(body))) ?? []
    }

    /// The encoder of the records not written by hand (``StateRecordWriter`` matches its bytes).
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A `state` record's state: typed from the value the fast reader gave, or decoded again by `JSONDecoder`
    /// where that is not certain to read the same (``JSONValueDecoder``).
    static func sessionState(_ value: JSONValue?, _ bytes: [UInt8]) throws(DecodingFailure) -> SessionState {
        if let value, let state = try? JSONValueDecoder.decode(SessionState.self, from: value) { return state }
        return try decodeJSON(StateBody.self, bytes).state
    }

    static func decodeJSON<Body: Decodable>(_ type: Body.Type, _ bytes: [UInt8]) throws(DecodingFailure) -> Body {
        do {
            return try JSONDecoder().decode(Body.self, from: Data(bytes))
        } catch {
            throw .malformed("a '\(Body.self)' record that does not decode: \(error)")
        }
    }
}

// MARK: - Attachment numbering

/// How a session's records number the steppers of a `CompositeStepper`, which their `step` inputs name by attachment:
/// told by the format version of the record that starts the session (docs/RELIABILITY.md, "Replay").
enum AttachmentNumbering: Hashable, Sendable {
    /// Before format version 5: a composite was one attachment. Records written so are replayed only as far as the
    /// session meets no composite (``DaemonCore/recover(from:progress:)``).
    case wholeComposites
    /// Since format version 5: each stepper inside a composite is an attachment of its own (SEMANTICS R12).
    case compositeLeaves

    /// The numbering of a `session` or `state` record of format version `version`.
    init(version: Int) {
        self = version >= 5 ? .compositeLeaves : .wholeComposites
    }

    /// The format version of a `state` record: the one it was read with, or this flowd's.
    func stateVersion(app: String?) -> Int {
        self == .compositeLeaves ? 5 : app == nil ? 3 : 4
    }
}
