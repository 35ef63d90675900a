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
/// Stored as one JSON object per record (`kind` first); the ``JournalStore`` frames and checksums it.
struct JournalRecord: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// The state's daemon ID (the first record): a recovered daemon keeps it, so clients know nothing was lost.
        case daemon(id: String)
        /// A session was created (its root flow coordinated).
        case sessionCreated
        /// An input reached the session's tree. `origin`: the `HELLO.instance` and `STEP.req` of a stepper's STEP.
        case input(CoordinatorInput, origin: StepOrigin?)
        /// One entry of a presenter's `REPORT` (it may change the UI model as well as the tree).
        case report(PresentableReport)
        /// A presenter adopted the session's snapshot: dismissals nobody reported are reported to the tree.
        case snapshotAdopted
    }

    /// The session the record belongs to; empty for ``Kind/daemon(id:)``.
    var session: String
    var kind: Kind

    static func daemon(_ id: String) -> JournalRecord { JournalRecord(session: "", kind: .daemon(id: id)) }
}

/// Which STEP of which client an input came from: the key of STEP de-duplication.
struct StepOrigin: Hashable, Sendable {
    /// `HELLO.instance`: the client process's run.
    var instance: String
    /// `STEP.req`: increasing within the instance, the same when the client sends the step again.
    var req: UInt64
}

extension JournalRecord: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, session, daemon, input, attachment, presentable, presentables, request, step, report, instance, req
    }

    private enum KindName: String, Codable {
        case daemon, session, input, report, adopted
    }

    private enum InputName: String, Codable {
        case step, visible, hidden, dismissed, lost, adapted, deepLink = "deep_link"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch kind {
        case .daemon(let id):
            try container.encode(KindName.daemon, forKey: .kind)
            try container.encode(id, forKey: .daemon)
            return
        case .sessionCreated:
            try container.encode(KindName.session, forKey: .kind)
        case .input(let input, let origin):
            try container.encode(KindName.input, forKey: .kind)
            switch input {
            case .stepperEmitted(let attachment, let step):
                try container.encode(InputName.step, forKey: .input)
                try container.encode(attachment.rawValue, forKey: .attachment)
                try container.encode(step, forKey: .step)
            case .visibilityChanged(let id, let visible):
                try container.encode(visible ? InputName.visible : InputName.hidden, forKey: .input)
                try container.encode(id.rawValue, forKey: .presentable)
            case .dismissed(let id):
                try container.encode(InputName.dismissed, forKey: .input)
                try container.encode(id.rawValue, forKey: .presentable)
            case .presentablesLost(let ids):
                try container.encode(InputName.lost, forKey: .input)
                try container.encode(ids.map(\.rawValue), forKey: .presentables)
            case .adaptCompleted(let request, let step):
                try container.encode(InputName.adapted, forKey: .input)
                try container.encode(request.rawValue, forKey: .request)
                try container.encodeIfPresent(step, forKey: .step)
            case .deepLink(let step):
                try container.encode(InputName.deepLink, forKey: .input)
                try container.encode(step, forKey: .step)
            }
            if let origin {
                try container.encode(origin.instance, forKey: .instance)
                try container.encode(origin.req, forKey: .req)
            }
        case .report(let report):
            try container.encode(KindName.report, forKey: .kind)
            try container.encode(report, forKey: .report)
        case .snapshotAdopted:
            try container.encode(KindName.adopted, forKey: .kind)
        }
        try container.encode(session, forKey: .session)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(KindName.self, forKey: .kind) {
        case .daemon:
            self = .daemon(try container.decode(String.self, forKey: .daemon))
            return
        case .session:
            kind = .sessionCreated
        case .report:
            kind = .report(try container.decode(PresentableReport.self, forKey: .report))
        case .adopted:
            kind = .snapshotAdopted
        case .input:
            let input: CoordinatorInput
            let name = try container.decode(InputName.self, forKey: .input)
            switch name {
            case .step:
                input = .stepperEmitted(
                    AttachmentID(try container.decode(Int.self, forKey: .attachment)),
                    try container.decode(Step.self, forKey: .step)
                )
            case .visible, .hidden:
                input = .visibilityChanged(
                    PresentableID(try container.decode(String.self, forKey: .presentable)),
                    visible: name == .visible
                )
            case .dismissed:
                input = .dismissed(PresentableID(try container.decode(String.self, forKey: .presentable)))
            case .lost:
                let ids = try container.decode([String].self, forKey: .presentables)
                input = .presentablesLost(ids.map { PresentableID($0) })
            case .adapted:
                input = .adaptCompleted(
                    AdaptRequestID(try container.decode(Int.self, forKey: .request)),
                    try container.decodeIfPresent(Step.self, forKey: .step)
                )
            case .deepLink:
                input = .deepLink(try container.decode(Step.self, forKey: .step))
            }
            var origin: StepOrigin?
            if let instance = try container.decodeIfPresent(String.self, forKey: .instance) {
                origin = StepOrigin(instance: instance, req: try container.decode(UInt64.self, forKey: .req))
            }
            kind = .input(input, origin: origin)
        }
        session = try container.decode(String.self, forKey: .session)
    }
}

extension JournalRecord {
    /// The record a JSON value read by the fast path holds, or `nil` to leave it to `Codable` (which is the
    /// reference, and says what is wrong).
    init?(_ value: JSONValue) {
        guard case .object(let fields) = value, let kind = fields["kind"]?.stringValue else { return nil }
        if kind == "daemon" {
            guard let id = fields["daemon"]?.stringValue else { return nil }
            self = .daemon(id)
            return
        }
        guard let session = fields["session"]?.stringValue else { return nil }
        switch kind {
        case "session":
            self.init(session: session, kind: .sessionCreated)
        case "adopted":
            self.init(session: session, kind: .snapshotAdopted)
        case "report":
            guard case .object(let report)? = fields["report"], let presentable = report["presentable"]?.stringValue,
                let state = report["state"]?.stringValue.flatMap(PresentableState.init(rawValue:))
            else { return nil }
            self.init(session: session, kind: .report(PresentableReport(presentable: presentable, state: state)))
        case "input":
            guard let input = Self.input(fields) else { return nil }
            var origin: StepOrigin?
            if let instance = fields["instance"] {
                guard let instance = instance.stringValue, let req = fields["req"]?.intValue, req >= 0 else {
                    return nil
                }
                origin = StepOrigin(instance: instance, req: UInt64(req))
            }
            self.init(session: session, kind: .input(input, origin: origin))
        default:
            return nil
        }
    }

    private static func input(_ fields: [String: JSONValue]) -> CoordinatorInput? {
        func step(_ value: JSONValue?) -> Step? {
            guard case .object(let step)? = value, let name = step["name"]?.stringValue else { return nil }
            return Step(name, payload: step["payload"] ?? .null)
        }
        switch fields["input"]?.stringValue {
        case "step":
            guard let attachment = fields["attachment"]?.intValue, let step = step(fields["step"]) else { return nil }
            return .stepperEmitted(AttachmentID(attachment), step)
        case "visible", "hidden":
            guard let id = fields["presentable"]?.stringValue else { return nil }
            return .visibilityChanged(PresentableID(id), visible: fields["input"]?.stringValue == "visible")
        case "dismissed":
            guard let id = fields["presentable"]?.stringValue else { return nil }
            return .dismissed(PresentableID(id))
        case "lost":
            guard case .array(let ids)? = fields["presentables"] else { return nil }
            let names = ids.compactMap(\.stringValue)
            guard names.count == ids.count else { return nil }
            return .presentablesLost(names.map { PresentableID($0) })
        case "adapted":
            guard let request = fields["request"]?.intValue else { return nil }
            if let value = fields["step"], value != .null {
                guard let adapted = step(value) else { return nil }
                return .adaptCompleted(AdaptRequestID(request), adapted)
            }
            return .adaptCompleted(AdaptRequestID(request), nil)
        case "deep_link":
            return step(fields["step"]).map { .deepLink($0) }
        default:
            return nil
        }
    }
}

/// Turns records into the journal's bytes and back.
///
/// Not `Sendable`: it reuses one encoder and decoder; it lives on the daemon's I/O thread with the core.
struct JournalRecordCodec {
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    private let decoder = JSONDecoder()

    func encode(_ record: JournalRecord) -> [UInt8] {
        if let bytes = try? Self.fastEncode(record) { return bytes }
        // Every field is a string, a number or a JSON value that came from JSON: encoding cannot fail.
        return (try? Array(encoder.encode(record))) ?? []
    }

    /// The records of a step's round trip (a stepper's step, a presenter's report) without `JSONEncoder` (it cost
    /// about 7 µs a step, docs/PERFORMANCE.md); the same bytes as the `Codable` way, which does the rest.
    static func fastEncode(_ record: JournalRecord) throws(FastPathUnsupported) -> [UInt8] {
        var writer = FastJSONWriter()
        switch record.kind {
        case .input(.stepperEmitted(let attachment, let step), let origin):
            writer.raw("{\"attachment\":")
            writer.int(attachment.rawValue)
            writer.raw(",\"input\":\"step\"")
            if let origin {
                writer.raw(",\"instance\":")
                writer.string(origin.instance)
            }
            writer.raw(",\"kind\":\"input\"")
            if let origin {
                writer.raw(",\"req\":")
                writer.unsigned(origin.req)
            }
            writer.raw(",\"session\":")
            writer.string(record.session)
            writer.raw(",\"step\":")
            try writer.step(step)
            writer.raw("}")
        case .report(let report):
            writer.raw("{\"kind\":\"report\",\"report\":{\"presentable\":")
            writer.string(report.presentable)
            writer.raw(",\"state\":")
            switch report.state {
            case .visible: writer.raw("\"visible\"")
            case .hidden: writer.raw("\"hidden\"")
            case .dismissed: writer.raw("\"dismissed\"")
            }
            writer.raw("},\"session\":")
            writer.string(record.session)
            writer.raw("}")
        default:
            throw FastPathUnsupported()
        }
        return writer.bytes
    }

    /// The `Codable` way, for tests that hold the fast path to it.
    func codableEncode(_ record: JournalRecord) throws -> [UInt8] { Array(try encoder.encode(record)) }

    func decode(_ bytes: [UInt8]) throws -> JournalRecord {
        if let value = FastJSONReader.value(bytes), let record = JournalRecord(value) { return record }
        return try decoder.decode(JournalRecord.self, from: Data(bytes))
    }

    /// The `Codable` way, for tests that hold the fast path to it.
    func codableDecode(_ bytes: [UInt8]) throws -> JournalRecord {
        try decoder.decode(JournalRecord.self, from: Data(bytes))
    }
}

@available(*, unavailable)
extension JournalRecordCodec: Sendable {}

/// A snapshot's payload: the records the state needs (``DaemonCore/journalHistory``), each as a little-endian
/// `UInt32` length and its bytes. The ``JournalStore`` checksums the payload as a whole.
enum JournalSnapshot {
    static func payload(_ records: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + 4 + $1.count })
        for record in records { append(record, to: &bytes) }
        return bytes
    }

    /// Appends one record to a payload.
    static func append(_ record: [UInt8], to payload: inout [UInt8]) {
        let length = UInt32(record.count)
        payload.append(UInt8(length & 0xff))
        payload.append(UInt8(length >> 8 & 0xff))
        payload.append(UInt8(length >> 16 & 0xff))
        payload.append(UInt8(length >> 24))
        payload.append(contentsOf: record)
    }

    static func records(in payload: [UInt8]) throws(JournalError) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var offset = 0
        while offset < payload.count {
            guard payload.count - offset >= 4 else {
                throw JournalError(.corrupt, "the snapshot's payload ends inside a record length")
            }
            let length =
                Int(payload[offset]) | Int(payload[offset + 1]) << 8 | Int(payload[offset + 2]) << 16
                | Int(payload[offset + 3]) << 24
            offset += 4
            guard payload.count - offset >= length else {
                throw JournalError(.corrupt, "the snapshot's payload ends inside a record")
            }
            records.append(Array(payload[offset..<offset + length]))
            offset += length
        }
        return records
    }
}
