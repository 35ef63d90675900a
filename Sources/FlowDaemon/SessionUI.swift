internal import FlowCore

/// A session's UI model as a snapshot's `state` record gives it back: the model, or the saved bytes of one not read
/// yet. A restored session keeps its UI as those bytes until something first looks at it (a step, a presenter's
/// `SNAPSHOT`, `TREE`): a restart does not build the thousands of screens of a deep UI it may not need yet, and a
/// compaction of a session nothing touched since writes the bytes back as they were (docs/RELIABILITY.md, "State
/// snapshots").
enum SessionUI: Hashable, Sendable, Codable {
    case model(PresentationModel)
    /// The saved model's JSON (`{"nodes": [...], "root": ...}`) as ``StateRecordReader`` checked it: reading it gives
    /// a model (the reader checks on the bytes what ``PresentationModel/init(saved:root:)`` checks).
    case unread(ArraySlice<UInt8>)

    /// The model, read from its bytes if it was not yet.
    var model: PresentationModel {
        switch self {
        case .model(let model):
            return model
        case .unread(let bytes):
            guard let model = StateRecordReader.readUI(bytes) else {
                // The reader checked these bytes for exactly what reading them refuses.
                assertionFailure("saved UI bytes the state record reader accepted do not read")
                return PresentationModel()
            }
            return model
        }
    }

    static func == (lhs: SessionUI, rhs: SessionUI) -> Bool {
        if case .unread(let left) = lhs, case .unread(let right) = rhs, left.elementsEqual(right) { return true }
        return lhs.model == rhs.model
    }

    func hash(into hasher: inout Hasher) { hasher.combine(model) }

    init(from decoder: any Decoder) throws {
        self = .model(try decoder.singleValueContainer().decode(PresentationModel.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(model)
    }
}
