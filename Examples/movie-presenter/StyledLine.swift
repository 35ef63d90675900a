// Styled text for the terminal: runs of text with a style, lines of them, and their ANSI form.

/// How a run of text looks.
enum TextStyle: Hashable, Sendable {
    case plain
    case bold
    case dim
    case reverse
    case error
}

/// A run of text in one style.
struct Span: Hashable, Sendable {
    var text: String
    var style: TextStyle

    init(_ text: String, _ style: TextStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// One line of the frame.
struct Line: Hashable, Sendable, ExpressibleByStringLiteral {
    var spans: [Span]

    init(_ spans: [Span]) { self.spans = spans }
    init(_ text: String, _ style: TextStyle = .plain) { self.spans = [Span(text, style)] }
    init(stringLiteral value: String) { self.init(value) }

    static let empty = Line([])

    /// The text without styles.
    var plain: String { spans.map(\.text).joined() }

    /// How many columns it takes (one per character: the demo's text is narrow).
    var width: Int { spans.reduce(0) { $0 + $1.text.count } }

    /// Cut to `width` columns and padded with spaces to exactly `width`.
    func fitted(to width: Int) -> Line {
        var result: [Span] = []
        var left = max(width, 0)
        for span in spans where left > 0 {
            let text = String(span.text.prefix(left))
            left -= text.count
            if !text.isEmpty { result.append(Span(text, span.style)) }
        }
        if left > 0 { result.append(Span(String(repeating: " ", count: left))) }
        return Line(result)
    }

    /// `self`, then `other` right-aligned so the whole is `width` wide (`other` is dropped when it does not fit).
    func withRight(_ other: Line, width: Int) -> Line {
        let gap = width - self.width - other.width
        guard gap >= 1 else { return fitted(to: width) }
        return Line(spans + [Span(String(repeating: " ", count: gap))] + other.spans)
    }

    static func + (lhs: Line, rhs: Line) -> Line { Line(lhs.spans + rhs.spans) }

    /// The line as ANSI escape sequences (SGR), attributes reset at its end.
    var ansi: String {
        var text = ""
        for span in spans {
            switch span.style {
            case .plain: text += span.text
            case .bold: text += "\u{1B}[1m" + span.text + "\u{1B}[22m"
            case .dim: text += "\u{1B}[2m" + span.text + "\u{1B}[22m"
            case .reverse: text += "\u{1B}[7m" + span.text + "\u{1B}[27m"
            case .error: text += "\u{1B}[1;31m" + span.text + "\u{1B}[22;39m"
            }
        }
        return text + "\u{1B}[0m"
    }
}
