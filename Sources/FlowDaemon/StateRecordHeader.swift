internal import FlowWire

/// What recovery reads of a `state` record before the daemon is ready: its session and application version, from the
/// fields ``JournalRecord/encoded`` writes before the state (`{"app":…,"kind":"state","session":…,"state":`), its
/// format version after it (`,"v":5}`) and the session's usage just before that, where the record has one. The state
/// itself (the tree, the UI model, the outbox) is read when the session is made (``DaemonCore/session(_:)``). `nil` for
/// any other spelling (escapes, other keys, spaces): the caller reads the record in full, as for any record.
struct StateRecordHeader: Equatable {
    let session: String
    let app: String?
    /// Told by its format version (``AttachmentNumbering/init(version:)``).
    let numbering: AttachmentNumbering
    /// The figures the record's `usage` field holds, read from its end (``StateRecordWriter`` writes it last before
    /// `v`); `nil` when it has none (written before it) or in another spelling.
    let usage: SessionUsage?

    private static let appKey = Array(#"{"app":""#.utf8)
    private static let kindAfterApp = Array(#","kind":"state","session":""#.utf8)
    private static let kindFirst = Array(#"{"kind":"state","session":""#.utf8)
    private static let stateKey = Array(#","state":{"#.utf8)
    private static let versionKey = Array(#"},"v":"#.utf8)
    private static let usageKey = Array(#","usage":"#.utf8)
    private static let usageFields: [StaticString] = [
        "attachments", "outbox_bytes", "outbox_commands", "screens", "ui_bytes",
    ]

    /// `versions`: the format versions that hold `state` records, 3 up to this flowd's (a parameter for tests).
    init?(_ bytes: [UInt8], versions: ClosedRange<Int> = 3...JournalRecord.formatVersion) {
        var offset = 0
        var app: String?
        if Self.match(Self.appKey, in: bytes, at: &offset) {
            guard let read = Self.string(in: bytes, at: &offset), Self.match(Self.kindAfterApp, in: bytes, at: &offset)
            else { return nil }
            app = read
        } else if !Self.match(Self.kindFirst, in: bytes, at: &offset) {
            return nil
        }
        guard let session = Self.string(in: bytes, at: &offset), Self.match(Self.stateKey, in: bytes, at: &offset),
            let (version, tail) = Self.version(ending: bytes, after: offset), versions.contains(version)
        else { return nil }
        self.session = session
        self.app = app
        numbering = AttachmentNumbering(version: version)
        usage = Self.usage(before: tail, in: bytes, after: offset)
    }

    /// The usage object that ends at `tail` (the `}` before `,"v":`): a flat object (flowd writes one of five
    /// non-negative integers), so it is found by walking back to its `{` (a few dozen bytes, the UI not read), then read
    /// as the full record's reading would read it, with the wire's fast reader; `nil` if that reader cannot.
    private static func usage(before tail: Int, in bytes: [UInt8], after offset: Int) -> SessionUsage? {
        var start = tail
        while start > offset, tail - start < 200, bytes[start] != UInt8(ascii: "{") { start -= 1 }
        var at = start - usageKey.count
        guard at > offset, match(usageKey, in: bytes, at: &at) else { return nil }
        return FastJSONReader.read(bytes[start...tail]) { reader throws(FastPathUnsupported) in
            var figures = [Int?](repeating: nil, count: usageFields.count)
            try reader.fields(usageFields, depth: 1) { reader, field throws(FastPathUnsupported) in
                let figure = try reader.integer()
                guard figure >= 0 else { throw FastPathUnsupported() }
                figures[field] = figure
            }
            guard let attachments = figures[0], let outboxBytes = figures[1], let outboxCommands = figures[2],
                let screens = figures[3], let uiBytes = figures[4]
            else { throw FastPathUnsupported() }
            return SessionUsage(
                screens: screens, uiBytes: uiBytes, attachments: attachments, outboxCommands: outboxCommands,
                outboxBytes: outboxBytes)
        }
    }

    /// N where `bytes` end with `},"v":N}`, N in decimal without leading zeros (up to 9 digits: a format version may
    /// reach 10); `nil` for any other ending.
    /// Also the offset of that `}`.
    private static func version(ending bytes: [UInt8], after offset: Int) -> (version: Int, tail: Int)? {
        guard bytes.last == UInt8(ascii: "}") else { return nil }
        let end = bytes.count - 1
        var start = end
        while start > offset, end - start < 9, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start - 1]) {
            start -= 1
        }
        var tail = start - versionKey.count
        guard start < end, bytes[start] != UInt8(ascii: "0") || end - start == 1, tail >= offset,
            match(versionKey, in: bytes, at: &tail)
        else { return nil }
        return (bytes[start..<end].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }, start - versionKey.count)
    }

    private static func match(_ expected: [UInt8], in bytes: [UInt8], at offset: inout Int) -> Bool {
        guard bytes.count - offset >= expected.count,
            bytes[offset..<offset + expected.count].elementsEqual(expected)
        else { return false }
        offset += expected.count
        return true
    }

    /// A JSON string's text after its opening quote, up to the closing one; `nil` for an escape, a control
    /// character or bytes that are not UTF-8.
    private static func string(in bytes: [UInt8], at offset: inout Int) -> String? {
        var end = offset
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            guard bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 else { return nil }
            end += 1
        }
        guard end < bytes.count, let text = String(validating: bytes[offset..<end], as: UTF8.self) else { return nil }
        offset = end + 1
        return text
    }
}
