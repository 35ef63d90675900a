/// Reads a journal record's kind for the coverage summary (the `input` name for inputs).
struct RecordKinds {
    func kind(of record: [UInt8]) -> String {
        let text = String(decoding: record, as: UTF8.self)
        for name in ["step", "visible", "hidden", "dismissed", "lost", "adapted", "deep_link"]
        where text.contains("\"input\":\"\(name)\"") {
            return name
        }
        if text.contains("\"kind\":\"report\"") {
            for state in ["visible", "hidden", "dismissed"] where text.contains("\"state\":\"\(state)\"") {
                return "report.\(state)"
            }
        }
        for name in ["daemon", "session", "report", "adopted"] where text.contains("\"kind\":\"\(name)\"") {
            return name
        }
        return "other"
    }
}
