#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import FlowCore
internal import FlowWire

/// Writes a `state` record byte for byte as `JSONEncoder` does (``JournalRecord/encodeJSON(_:)``: sorted keys, slashes
/// not escaped), the UI model's screens and the outbox by hand: a compaction encodes every changed session's state on
/// the I/O thread, and `JSONEncoder` took tens of milliseconds for a UI of 10 000 screens (docs/PERFORMANCE.md).
/// `nil` where a part is left to `JSONEncoder` (a double); ``StateRecordTests`` hold it to `JSONEncoder`'s bytes.
enum StateRecordWriter {
    static func write(
        session: String, state: SessionState, app: String?, numbering: AttachmentNumbering = .compositeLeaves,
        usage: SessionUsage? = nil
    ) -> [UInt8]? {
        // The tree is a handful of flows whose states the application encodes: JSONEncoder's, spliced in.
        guard let tree = try? JournalRecord.makeEncoder().encode(state.tree) else { return nil }
        var writer = FastJSONWriter()
        do throws(FastPathUnsupported) {
            writer.raw("{")
            if let app {
                writer.raw("\"app\":")
                writer.string(app)
                writer.raw(",")
            }
            writer.raw("\"kind\":\"state\",\"session\":")
            writer.string(session)
            writer.raw(",\"state\":{\"awaitedReports\":[")
            for (index, awaited) in state.awaitedReports.enumerated() {
                writer.raw(index == 0 ? "{\"count\":" : ",{\"count\":")
                writer.int(awaited.count)
                writer.raw(",\"presentable\":")
                writer.string(awaited.presentable.rawValue)
                writer.raw("}")
            }
            writer.raw("],\"outbox\":[")
            for (index, command) in state.outbox.enumerated() {
                if index > 0 { writer.raw(",") }
                try command.write(to: &writer)
            }
            writer.raw("],\"remoteAttachments\":[")
            for (index, remote) in state.remoteAttachments.enumerated() {
                writer.raw(index == 0 ? "{\"attachment\":" : ",{\"attachment\":")
                writer.int(remote.attachment)
                writer.raw(",\"context\":")
                try writer.value(remote.context)
                writer.raw(remote.stepped ? ",\"stepped\":true}" : ",\"stepped\":false}")
            }
            writer.raw("],\"seq\":")
            writer.unsigned(state.seq)
            writer.raw(",\"tree\":")
            var bytes = writer.takeBytes()
            bytes.append(contentsOf: tree)
            writer = FastJSONWriter()
            writer.raw(",\"ui\":")
            switch state.savedUI {
            case .model(let ui):
                try write(ui, to: &writer)
            case .unread(let saved):  // as it was read, untouched since
                bytes.append(contentsOf: writer.takeBytes())
                bytes.append(contentsOf: saved)
                writer = FastJSONWriter()
            }
            writer.raw("}")
            if let usage { write(usage, to: &writer) }
            writer.raw(",\"v\":")
            writer.int(numbering.stateVersion(app: app))
            writer.raw("}")
            bytes.append(contentsOf: writer.takeBytes())
            return bytes
        } catch {
            return nil
        }
    }

    /// `,"usage":{"attachments":…,"outbox_bytes":…,"outbox_commands":…,"screens":…,"ui_bytes":…}`: the keys sorted,
    /// as `JSONEncoder` writes ``SessionUsage`` (``StateRecordHeader/usage(before:in:after:)`` reads this form).
    private static func write(_ usage: SessionUsage, to writer: inout FastJSONWriter) {
        writer.raw(",\"usage\":{\"attachments\":")
        writer.int(usage.attachments)
        writer.raw(",\"outbox_bytes\":")
        writer.int(usage.outboxBytes)
        writer.raw(",\"outbox_commands\":")
        writer.int(usage.outboxCommands)
        writer.raw(",\"screens\":")
        writer.int(usage.screens)
        writer.raw(",\"ui_bytes\":")
        writer.int(usage.uiBytes)
        writer.raw("}")
    }

    /// `{"nodes":[…],"root":…}`: a node's fields in key order, each left out where ``PresentationModel``'s
    /// `Codable` leaves it out.
    private static func write(_ ui: PresentationModel, to writer: inout FastJSONWriter) throws(FastPathUnsupported) {
        writer.raw("{\"nodes\":[")
        for (index, screen) in ui.savedScreens.enumerated() {
            writer.raw(index == 0 ? "{" : ",{")
            if !screen.children.isEmpty {
                writer.raw("\"children\":[")
                for (position, child) in screen.children.enumerated() {
                    if position > 0 { writer.raw(",") }
                    writer.string(child.rawValue)
                }
                writer.raw("],")
            }
            if screen.data != .null {
                writer.raw("\"data\":")
                try writer.value(screen.data)
                writer.raw(",")
            }
            if let detail = screen.detail {
                writer.raw("\"detail\":")
                writer.string(detail.rawValue)
                writer.raw(",")
            }
            writer.raw("\"id\":")
            writer.string(screen.id.rawValue)
            if screen.kind != .view {
                writer.raw(",\"kind\":")
                writer.string(screen.kind.rawValue)
            }
            if let master = screen.master {
                writer.raw(",\"master\":")
                writer.string(master.rawValue)
            }
            if let presented = screen.presented {
                writer.raw(",\"presented\":")
                writer.string(presented.rawValue)
            }
            if screen.tab != 0 {
                writer.raw(",\"tab\":")
                writer.int(screen.tab)
            }
            if let type = screen.type {
                writer.raw(",\"type\":")
                writer.string(type)
            }
            writer.raw("}")
        }
        writer.raw("]")
        if let root = ui.rootID {
            writer.raw(",\"root\":")
            writer.string(root.rawValue)
        }
        writer.raw("}")
    }
}
