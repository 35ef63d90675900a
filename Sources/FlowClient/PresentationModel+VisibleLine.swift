public import FlowCore

extension PresentationModel {
    /// One line of what is visible, outermost first, with each screen's text data: `hello, hello.greeting "Hello,
    /// default!"`.
    public var visibleLine: String {
        visiblePresentables.map { id in
            if case .string(let text)? = screen(id)?.data { return "\(id) \"\(text)\"" }
            return id.rawValue
        }.joined(separator: ", ")
    }
}
