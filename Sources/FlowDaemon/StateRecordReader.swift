internal import FlowCore
internal import FlowWire

/// Reads a `state` record as flowd writes it, straight from its bytes: the saved UI model is checked and kept as its
/// bytes, to be read when the session first needs it (``SessionUI``; thousands of screens in a deep UI:
/// docs/PERFORMANCE.md), the other parts are typed by ``JSONValueDecoder``. `nil` for anything else (an escape, a
/// double, the UI model's first format, a repeated key, a part missing): the caller reads the record the general
/// way, which reads what this refuses.
enum StateRecordReader {
    /// What a `state` record holds near its start as ``JournalRecord/encoded`` writes it (keys sorted: after `app`,
    /// if any); other records are not tried.
    private static let marker = Array(#""kind":"state","#.utf8)

    /// The record's other fields (`app`, `kind`, `session`, `v`, …) and its state.
    static func read(_ bytes: [UInt8]) -> (fields: [String: JSONValue], state: SessionState)? {
        guard looksLikeState(bytes) else { return nil }
        return FastJSONReader.read(bytes) { reader throws(FastPathUnsupported) in
            var fields: [String: JSONValue] = [:]
            var state: SessionState?
            try reader.object { reader, key throws(FastPathUnsupported) in
                if reader.key(key, is: "state") {
                    guard state == nil else { throw FastPathUnsupported() }
                    state = try readState(&reader, bytes)
                } else {
                    let name = try reader.text(key)
                    guard fields.updateValue(try reader.value(depth: 1), forKey: name) == nil else {
                        throw FastPathUnsupported()
                    }
                }
            }
            guard let state, fields["state"] == nil else { throw FastPathUnsupported() }
            return (fields, state)
        }
    }

    private static func looksLikeState(_ bytes: [UInt8]) -> Bool {
        let end = min(bytes.count, 512) - marker.count
        guard end >= 1 else { return false }
        for start in 1...end where bytes[start] == marker[0] && bytes[start..<start + marker.count].elementsEqual(marker) {
            return true
        }
        return false
    }

    private static func readState(
        _ reader: inout FastJSONReader, _ bytes: [UInt8]
    ) throws(FastPathUnsupported) -> SessionState {
        var parts: [String: JSONValue] = [:]
        var ui: SessionUI?
        var outbox: [CommandMessage]?
        try reader.object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "outbox") {
                // Up to `outbox_limit` commands, `outbox_bytes_limit` of them: read as the wire's COMMAND bodies are,
                // without JSON values between.
                guard outbox == nil else { throw FastPathUnsupported() }
                var commands: [CommandMessage] = []
                try reader.array { reader throws(FastPathUnsupported) in
                    commands.append(try CommandMessage(reading: &reader))
                }
                outbox = commands
            } else if reader.key(key, is: "ui") {
                guard ui == nil else { throw FastPathUnsupported() }
                let start = reader.offset
                if (try? checkUI(&reader, in: bytes)) != nil {
                    ui = .unread(bytes[start..<reader.offset])
                } else {
                    reader.offset = start
                    ui = .model(try readUI(&reader))
                }
            } else {
                let name = try reader.text(key)
                guard parts.updateValue(try reader.value(depth: 2), forKey: name) == nil else {
                    throw FastPathUnsupported()
                }
            }
        }
        guard let ui, let outbox, parts["ui"] == nil, parts["outbox"] == nil else { throw FastPathUnsupported() }
        func typed<T: Decodable>(_ name: String, _ type: T.Type) throws(FastPathUnsupported) -> T {
            guard let value = parts[name], let typed = try? JSONValueDecoder.decode(T.self, from: value) else {
                throw FastPathUnsupported()
            }
            return typed
        }
        return SessionState(
            tree: try typed("tree", SavedFlowTree.self), savedUI: ui, seq: try typed("seq", UInt64.self),
            outbox: outbox,
            awaitedReports: try typed("awaitedReports", [SessionState.AwaitedReports].self),
            remoteAttachments: try typed("remoteAttachments", [SessionState.RemoteAttachment].self))
    }

    /// A saved UI model's bytes as ``checkUI(_:in:)`` accepted them, read; `nil` if they do not read.
    static func readUI(_ bytes: ArraySlice<UInt8>) -> PresentationModel? {
        FastJSONReader.read(bytes) { reader throws(FastPathUnsupported) in try readUI(&reader) }
    }

    /// `{"nodes": [...], "root": ...}` in the second format (``PresentationModel/SavedScreen``).
    private static func readUI(_ reader: inout FastJSONReader) throws(FastPathUnsupported) -> PresentationModel {
        var nodes: [PresentationModel.SavedScreen]?
        var root: PresentableID?
        var rootRead = false
        try reader.object { reader, key throws(FastPathUnsupported) in
            if reader.key(key, is: "nodes") {
                guard nodes == nil else { throw FastPathUnsupported() }
                var read: [PresentationModel.SavedScreen] = []
                try reader.array { reader throws(FastPathUnsupported) in read.append(try readScreen(&reader)) }
                nodes = read
            } else if reader.key(key, is: "root") {
                guard !rootRead else { throw FastPathUnsupported() }
                rootRead = true
                root = try optionalID(&reader)
            } else {
                _ = try reader.value(depth: 3)
            }
        }
        guard let nodes, let model = PresentationModel(saved: nodes, root: root) else { throw FastPathUnsupported() }
        return model
    }

    private static func readScreen(
        _ reader: inout FastJSONReader
    ) throws(FastPathUnsupported) -> PresentationModel.SavedScreen {
        var screen = PresentationModel.SavedScreen(id: "")
        var seen = 0  // a bit per field of ``screenFields``
        try reader.object { reader, key throws(FastPathUnsupported) in
            guard let field = screenFields.firstIndex(where: { reader.key(key, is: $0) }) else {
                if reader.key(key, is: "node") { throw FastPathUnsupported() }  // the first format
                _ = try reader.value(depth: 4)
                return
            }
            guard seen & 1 << field == 0 else { throw FastPathUnsupported() }
            seen |= 1 << field
            switch field {
            case 0: screen.id = PresentableID(try reader.string())
            case 1: if !reader.null() { screen.kind = Screen.Kind(try reader.string()) }
            case 2: if !reader.null() { screen.type = try reader.string() }
            case 3: screen.data = try reader.value(depth: 4)
            case 4:
                if !reader.null() {
                    try reader.array { reader throws(FastPathUnsupported) in
                        screen.children.append(PresentableID(try reader.string()))
                    }
                }
            case 5: if !reader.null() { screen.tab = try reader.integer() }
            case 6: screen.master = try optionalID(&reader)
            case 7: screen.detail = try optionalID(&reader)
            default: screen.presented = try optionalID(&reader)
            }
        }
        guard seen & 1 != 0 else { throw FastPathUnsupported() }  // no id
        return screen
    }

    /// A saved screen's fields, in the order ``readScreen(_:)`` numbers them.
    static let screenFields: [StaticString] = [
        "id", "kind", "type", "data", "children", "tab", "master", "detail", "presented",
    ]

    private static func optionalID(_ reader: inout FastJSONReader) throws(FastPathUnsupported) -> PresentableID? {
        reader.null() ? nil : PresentableID(try reader.string())
    }
}
