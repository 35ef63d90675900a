// What the interactive presenter draws, as a pure function of the presentation model and the UI's own state (list
// selections, the status lines, a prompt): a frame of styled lines, turned into ANSI escape sequences by the caller.

import FlowCore
import Foundation
import MovieVocabulary

// MARK: - Styled lines

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

// MARK: - What is on screen

/// The way from the window root to the screen in front, and what lies on it: the screen a person sees and acts on.
///
/// The way follows the shown child of every container (the top of a stack, the selected tab) and every modal but an
/// alert, which is drawn as a box over the screen it covers. The part after the last modal is "in front": only its
/// tab bars and stacks are drawn and can be used (a tab bar under a full-screen modal is not on screen).
struct Focus: Sendable {
    /// Root to front, modal hops included.
    var path: [PresentableID] = []
    /// Where the front part of ``path`` starts (the last modal, or the root).
    var frontStart = 0
    /// The alert over the front, if one.
    var alert: PresentableID?

    init(model: PresentationModel) {
        guard var current = model.rootID else { return }
        while path.count < 64 {
            path.append(current)
            if let presented = model.presented(over: current) {
                if model.screen(presented)?.kind == .alert {
                    alert = presented
                } else {
                    frontStart = path.count
                    current = presented
                    continue
                }
            }
            guard let screen = model.screen(current) else { break }
            let children = model.children(of: current)
            if screen.kind == .stack, let top = children.last {
                current = top
            } else if screen.kind == .tabs, let selected = model.selectedTab(of: current),
                children.indices.contains(selected)
            {
                current = children[selected]
            } else {
                break
            }
        }
    }

    /// The screen in front: a view, a split view, or an empty container.
    var front: PresentableID? { path.last }
    /// The front part of the way.
    var frontPath: ArraySlice<PresentableID> { path[frontStart...] }
    /// The modal the front part starts with, if any.
    var modal: PresentableID? { frontStart > 0 ? path[frontStart] : nil }
}

/// A row of a list a person can move through and pick.
struct ListItem: Hashable, Sendable {
    var label: String
    var detail: String
    /// What picking it sends (`USER_ACTION`) on the list's screen.
    var action: Step
}

/// The demo's screens as a person sees them: titles, lists, forms. Knows the demo's catalogue (the movies and casts
/// the screens' data point to).
struct DemoCatalogue: Sendable {
    let movies = MoviesService()

    /// A short title for a screen or container, for tab bars and breadcrumbs.
    func title(of id: PresentableID, in model: PresentationModel) -> String {
        switch id.rawValue {
        case "app.stack": return "App"
        case "onboarding.stack": return "Onboarding"
        case "dashboard.tabs": return "Dashboard"
        case "wishlist.stack", "wishlist.list": return "Wishlist"
        case "watched.stack", "watched.list": return "Watched"
        case "trending.stack", "trending.pages": return "Trending"
        case "trending.movies": return "Movies"
        case "trending.casts": return "Casts"
        case "settings.split", "settings.master", "settings.list": return "Settings"
        default: break
        }
        guard let screen = model.screen(id) else { return id.rawValue }
        switch screen.type {
        case DemoScreenType.movieDetail: return screen.data.intValue.flatMap(movies.movie(forId:))?.title ?? id.rawValue
        case DemoScreenType.castDetail: return screen.data.intValue.flatMap(movies.cast(forId:))?.name ?? id.rawValue
        case DemoScreenType.login: return "Login"
        case DemoScreenType.apiKey: return "API key"
        case DemoScreenType.about: return "About"
        case "alert": return "Alert"
        default: return id.rawValue
        }
    }

    /// The list a screen shows, if it shows one.
    func list(of id: PresentableID, in model: PresentationModel) -> [ListItem]? {
        guard let screen = model.screen(id) else { return nil }
        switch screen.type {
        case DemoScreenType.wishlistList:
            return movies.wishlistMovies().map(movieItem)
        case DemoScreenType.watchedList:
            return movies.watchedMovies().map(movieItem)
        case DemoScreenType.castList:
            return movies.allCasts().map {
                ListItem(label: $0.name, detail: "cast \($0.id)", action: Step(DemoAction.pick, payload: .int($0.id)))
            }
        case DemoScreenType.movieDetail:
            guard let movie = screen.data.intValue.flatMap(movies.movie(forId:)) else { return nil }
            return movies.casts(for: movie).map {
                ListItem(
                    label: $0.name, detail: "cast \($0.id)", action: Step(DemoAction.pickCast, payload: .int($0.id))
                )
            }
        case DemoScreenType.settingsList:
            return [
                ListItem(label: "Login", detail: "log in again", action: Step(DemoAction.login)),
                ListItem(label: "API key", detail: "set the API key", action: Step(DemoAction.apiKey)),
                ListItem(label: "About", detail: "about the demo", action: Step(DemoAction.about)),
            ]
        default:
            return nil
        }
    }

    private func movieItem(_ movie: Movie) -> ListItem {
        ListItem(
            label: movie.title, detail: "\(movie.year)  \(movie.director)",
            action: Step(DemoAction.pick, payload: .int(movie.id))
        )
    }
}

// MARK: - The UI's own state

/// A line being typed at the bottom of the screen (a user name, a password, an API key).
struct Prompt: Hashable, Sendable {
    enum Purpose: Hashable, Sendable {
        /// The login form's user, then its password.
        case loginUser(form: PresentableID)
        case loginPassword(form: PresentableID, user: String)
        /// The API key form's key.
        case apiKey(form: PresentableID)
    }

    var purpose: Purpose
    var text = ""

    var label: String {
        switch purpose {
        case .loginUser: return "User"
        case .loginPassword: return "Password"
        case .apiKey: return "API key"
        }
    }

    /// What is shown of the text typed (a password is masked).
    var shown: String {
        if case .loginPassword = purpose { return String(repeating: "*", count: text.count) }
        return text
    }
}

/// What the interactive presenter keeps besides the model.
struct ViewState: Sendable {
    /// The session hosted and this presenter's name, for the title bar.
    var session = "default"
    var name = "movie-presenter"
    /// The selected row of each list, by the list's screen.
    var selection: [PresentableID: Int] = [:]
    /// The last change of the UI (a command from flowd, a snapshot, a person's operation).
    var activity = "waiting for flowd…"
    /// What that change reported to flowd.
    var reports = ""
    /// The answer to the last key (an error is shown as one).
    var message: (text: String, isError: Bool)?
    /// The last warning logged.
    var warning: String?
    /// The line being typed, if any.
    var prompt: Prompt?
    /// The last sequence number applied.
    var lastSeq: UInt64 = 0

    /// The selected row of `list`, kept within `count` rows.
    func selected(in list: PresentableID, count: Int) -> Int {
        guard count > 0 else { return 0 }
        return min(max(selection[list] ?? 0, 0), count - 1)
    }
}

// MARK: - The frame

/// Draws a frame: title bar, the window's way to the front screen, tab bars, the stack's breadcrumb, the front
/// screen (a split view's master and detail side by side, an alert as a box over the screen), status lines and the
/// keys.
struct ScreenRenderer: Sendable {
    let catalogue = DemoCatalogue()

    /// Exactly `rows` lines of exactly `columns` columns.
    func frame(model: PresentationModel, state: ViewState, columns: Int, rows: Int) -> [Line] {
        let width = max(columns, 20)
        let focus = Focus(model: model)
        var top: [Line] = []
        let title = Line(" Flowd movie demo · session \(state.session) · seq \(state.lastSeq) ", .reverse)
        top.append(title.withRight(Line(" \(state.name) ", .reverse), width: width).reversedBackground(width: width))
        top.append(windowLine(model: model, focus: focus, width: width))
        top += tabBars(model: model, focus: focus)
        top.append(breadcrumb(model: model, focus: focus))
        top.append(Line(String(repeating: "─", count: width), .dim))

        var bottom: [Line] = [Line(String(repeating: "─", count: width), .dim)]
        bottom += statusLines(state: state)
        bottom += keyLines(hints: keyHints(model: model, focus: focus, state: state), width: width)

        let contentRows = max(rows - top.count - bottom.count, 1)
        var content: [Line]
        if let front = focus.front {
            content = self.content(of: front, model: model, state: state, width: width, rows: contentRows)
        } else {
            content = ["", Line("  No window root yet: waiting for flowd's commands for this session.", .dim)]
        }
        content = Array(content.prefix(contentRows))
        content += Array(repeating: Line.empty, count: contentRows - content.count)
        if let alert = focus.alert {
            content = overlay(alert: alert, model: model, on: content, width: width)
        }
        let lines = top + content + bottom
        return Array(lines.prefix(max(rows, 1))).map { $0.fitted(to: width) }
    }

    // MARK: Header

    /// ` window  app.stack › dashboard.tabs › [modal] …`: the way from the window root to the front; when it is too
    /// wide, the entries after the root are elided from the left (`app.stack › … › wishlist.list`).
    private func windowLine(model: PresentationModel, focus: Focus, width: Int) -> Line {
        guard !focus.path.isEmpty else { return Line(" window  (empty)", .dim) }
        func line(eliding elided: Int) -> Line {
            var spans = [Span(" window  ", .dim)]
            for (index, id) in focus.path.enumerated() {
                if index > 0, index <= elided {
                    if index == 1 { spans.append(Span(" › …", .dim)) }
                    continue
                }
                if index > 0 { spans.append(Span(index == focus.frontStart ? " › [modal] " : " › ", .dim)) }
                spans.append(Span(id.rawValue, index == focus.path.count - 1 ? .bold : .plain))
            }
            if let alert = focus.alert {
                spans.append(Span(" + [alert] ", .dim))
                spans.append(Span(alert.rawValue, .bold))
            }
            return Line(spans)
        }
        for elided in 0..<focus.path.count {
            let candidate = line(eliding: elided)
            if candidate.width <= width { return candidate }
        }
        return line(eliding: focus.path.count - 2)
    }

    /// One row per tab bar in front: `[1 Wishlist]` (reverse video) is the selected tab.
    private func tabBars(model: PresentationModel, focus: Focus) -> [Line] {
        var lines: [Line] = []
        for (depth, tabs) in focus.frontPath.filter({ model.screen($0)?.kind == .tabs }).enumerated() {
            let selected = model.selectedTab(of: tabs) ?? 0
            var spans = [Span(depth == 0 ? " " : "   ")]
            for (index, tab) in model.children(of: tabs).enumerated() {
                let label = (depth == 0 ? "\(index + 1) " : "") + catalogue.title(of: tab, in: model)
                spans.append(index == selected ? Span("[\(label)]", .reverse) : Span(" \(label) "))
                spans.append(Span("  "))
            }
            spans.append(Span(depth == 0 ? "" : "(Tab: next page)", .dim))
            lines.append(Line(spans))
        }
        return lines
    }

    /// The innermost stack in front: its entries bottom to top.
    private func breadcrumb(model: PresentationModel, focus: Focus) -> Line {
        guard let stack = focus.frontPath.last(where: { model.screen($0)?.kind == .stack }) else {
            let front = focus.front.map { catalogue.title(of: $0, in: model) } ?? ""
            return Line([Span(" "), Span(front, .bold)])
        }
        let entries = model.children(of: stack)
        var spans = [Span(" ")]
        for (index, entry) in entries.enumerated() {
            if index > 0 { spans.append(Span(" › ", .dim)) }
            spans.append(Span(catalogue.title(of: entry, in: model), index == entries.count - 1 ? .bold : .plain))
        }
        spans.append(Span("   (\(stack), \(entries.count) deep)", .dim))
        return Line(spans)
    }

    // MARK: Content

    private func heading(_ title: String, _ id: PresentableID, width: Int) -> Line {
        Line([Span(" "), Span(title, .bold)]).withRight(Line(id.rawValue + " ", .dim), width: width)
    }

    /// A screen's lines, `width` wide at most.
    func content(of id: PresentableID, model: PresentationModel, state: ViewState, width: Int, rows: Int) -> [Line] {
        guard let screen = model.screen(id) else { return [] }
        switch screen.kind {
        case .split:
            return splitView(id, model: model, state: state, width: width, rows: rows)
        case .stack, .tabs:
            let children = model.children(of: id)
            let shown = screen.kind == .stack ? children.last : model.selectedTab(of: id).flatMap {
                children.indices.contains($0) ? children[$0] : nil
            }
            if let shown { return content(of: shown, model: model, state: state, width: width, rows: rows) }
            return [heading(catalogue.title(of: id, in: model), id, width: width), Line("   (empty)", .dim)]
        default:
            break
        }
        var lines = [heading(headingTitle(of: screen, model: model), id, width: width), .empty]
        switch screen.type {
        case DemoScreenType.wishlistList:
            lines.append(Line("   Movies to watch. Enter: open a movie.", .dim))
        case DemoScreenType.watchedList:
            lines.append(Line("   Movies watched. Enter: open a movie.", .dim))
        case DemoScreenType.castList:
            lines.append(Line("   Every cast. Enter: open a cast.", .dim))
        case DemoScreenType.movieDetail:
            if let movie = screen.data.intValue.flatMap(catalogue.movies.movie(forId:)) {
                lines += [
                    Line("   Year      \(movie.year)"),
                    Line("   Director  \(movie.director)"),
                    Line("   Writer    \(movie.writer)"),
                    Line("   Budget    $\(movie.budget.formatted())"),
                    Line("   Status    \(movie.watched ? "watched" : "on the wishlist")"),
                    .empty,
                    Line([Span("   "), Span("Cast", .bold), Span("  (Enter: open a cast)", .dim)]),
                ]
            }
        case DemoScreenType.castDetail:
            if let cast = screen.data.intValue.flatMap(catalogue.movies.cast(forId:)) {
                let movies = catalogue.movies.movies.filter { catalogue.movies.casts(for: $0).contains(cast) }
                lines += [Line("   Cast id   \(cast.id)"), .empty, Line([Span("   "), Span("Movies", .bold)])]
                lines += movies.map { Line("     \($0.title) (\($0.year))") }
            }
        case DemoScreenType.login:
            lines += [
                Line("   User      demo"),
                Line("   Password  ****"),
                .empty,
                Line([
                    Span("   l", .bold), Span("  log in as demo/demo     "), Span("L", .bold),
                    Span("  type a user and password"),
                ]),
            ]
        case DemoScreenType.apiKey:
            lines += [
                Line("   Key       ________________"),
                .empty,
                Line([Span("   a", .bold), Span("  set the demo API key    "), Span("A", .bold), Span("  type a key")]),
            ]
        case DemoScreenType.about:
            lines += [
                Line("   The RxFlow movie demo on Flowd: the flows run in flowd, the steppers in the login and"),
                Line("   movie services, and this terminal is the presenter."),
                .empty,
                Line([Span("   d", .bold), Span("  done")]),
            ]
        case DemoScreenType.settingsList:
            lines.append(Line("   Enter: open a row.", .dim))
        default:
            if screen.data != .null { lines.append(Line("   \(screen.data)")) }
        }
        if let items = catalogue.list(of: id, in: model) {
            lines.append(.empty)
            let used = lines.count
            let selected = state.selected(in: id, count: items.count)
            let room = max(rows - used, 1)
            let first = selected >= room ? selected - room + 1 : 0
            for (index, item) in items.enumerated().dropFirst(first).prefix(room) {
                let label = item.label.padding(toLength: max(item.label.count, 30), withPad: " ", startingAt: 0)
                if index == selected {
                    lines.append(Line([Span("   "), Span("> \(label)  \(item.detail) ", .reverse)]))
                } else {
                    lines.append(Line([Span("     \(label)  "), Span(item.detail, .dim)]))
                }
            }
        }
        return lines
    }

    private func headingTitle(of screen: Screen, model: PresentationModel) -> String {
        switch screen.type {
        case DemoScreenType.wishlistList: return "Wishlist"
        case DemoScreenType.watchedList: return screen.id == "trending.movies" ? "Trending movies" : "Watched"
        case DemoScreenType.castList: return "Trending casts"
        case DemoScreenType.movieDetail:
            guard let movie = screen.data.intValue.flatMap(catalogue.movies.movie(forId:)) else { break }
            return "\(movie.title) (\(movie.year))"
        case DemoScreenType.login: return "Log in"
        case DemoScreenType.apiKey: return "API key"
        case DemoScreenType.settingsList: return "Settings"
        default: break
        }
        return catalogue.title(of: screen.id, in: model)
    }

    /// Master and detail side by side.
    private func splitView(
        _ id: PresentableID, model: PresentationModel, state: ViewState, width: Int, rows: Int
    ) -> [Line] {
        let masterWidth = min(max(width / 3, 24), width / 2)
        let detailWidth = width - masterWidth - 1
        let master = model.master(of: id).map {
            [Line(" [master]", .dim)] + content(of: $0, model: model, state: state, width: masterWidth, rows: rows - 1)
        } ?? [Line(" [master] (none)", .dim)]
        let detail = model.detail(of: id).map {
            [Line(" [detail]", .dim)] + content(of: $0, model: model, state: state, width: detailWidth, rows: rows - 1)
        } ?? [Line(" [detail] (none)", .dim)]
        var lines: [Line] = []
        for row in 0..<max(master.count, detail.count) {
            let left = row < master.count ? master[row] : .empty
            let right = row < detail.count ? detail[row] : .empty
            lines.append(left.fitted(to: masterWidth) + Line("│", .dim) + right)
        }
        return lines
    }

    /// An alert as a box over the middle of the content, the content under it dimmed.
    private func overlay(alert: PresentableID, model: PresentationModel, on content: [Line], width: Int) -> [Line] {
        let message = model.screen(alert)?.data.stringValue ?? catalogue.title(of: alert, in: model)
        let inner = min(max(message.count + 4, 36), width - 4)
        let body = [
            "",
            "  " + message,
            "",
            "  Enter or Esc: OK",
        ]
        var box = [Line("┌─ Alert " + String(repeating: "─", count: max(inner - 8, 0)) + "┐", .bold)]
        box += body.map {
            Line([Span("│", .bold), Span($0.padding(toLength: inner, withPad: " ", startingAt: 0)), Span("│", .bold)])
        }
        box.append(Line("└" + String(repeating: "─", count: inner) + "┘", .bold))
        let left = max((width - inner - 2) / 2, 0)
        let firstRow = max((content.count - box.count) / 2, 0)
        var lines = content.map { Line($0.plain, .dim) }
        for (offset, boxLine) in box.enumerated() where firstRow + offset < lines.count {
            let under = Array(lines[firstRow + offset].plain)
            let before = String(under.prefix(left)).padding(toLength: left, withPad: " ", startingAt: 0)
            let after = String(under.dropFirst(left + inner + 2))
            lines[firstRow + offset] = Line(before, .dim) + boxLine + Line(after, .dim)
        }
        return lines
    }

    // MARK: Footer

    private func statusLines(state: ViewState) -> [Line] {
        if let prompt = state.prompt {
            return [
                Line([Span(" \(prompt.label): ", .bold), Span(prompt.shown), Span("_", .reverse)]),
                Line(" Enter: accept   Esc: cancel", .dim),
            ]
        }
        var first = Line([Span(" last: ", .dim), Span(state.activity)])
        if let message = state.message {
            first = Line([Span(" "), Span(message.text, message.isError ? .error : .bold)])
        }
        var second = Line([Span(" reported: ", .dim), Span(state.reports.isEmpty ? "-" : state.reports)])
        if let warning = state.warning {
            second = Line([Span(" log: ", .dim), Span(warning, .error)])
        }
        return [first, second]
    }

    /// The keys that do something now, as `key label` pairs.
    func keyHints(model: PresentationModel, focus: Focus, state: ViewState) -> [(String, String)] {
        if state.prompt != nil { return [] }
        if focus.alert != nil { return [("Enter/Esc", "close the alert"), ("q", "quit")] }
        var hints: [(String, String)] = []
        let front = focus.front
        let listScreen = front.flatMap { listOwner(of: $0, model: model) }
        if let listScreen, catalogue.list(of: listScreen, in: model)?.isEmpty == false {
            hints += [("↑↓/jk", "move"), ("Enter", "open")]
        }
        if let stack = focus.frontPath.last(where: { model.screen($0)?.kind == .stack }),
            model.children(of: stack).count > 1
        {
            hints.append(("b", "back"))
        }
        if let tabs = focus.frontPath.first(where: { model.screen($0)?.kind == .tabs }) {
            hints.append(("1-\(model.children(of: tabs).count)", "tab"))
            hints.append(("Tab", "next tab"))
        }
        if formScreen(type: DemoScreenType.login, model: model, focus: focus) != nil { hints.append(("l", "log in")) }
        if formScreen(type: DemoScreenType.apiKey, model: model, focus: focus) != nil {
            hints.append(("a", "set API key"))
        }
        if front == "wishlist.list" {
            hints += [("s", "settings"), ("i", "about"), ("o", "log out")]
        }
        if doneTarget(model: model, focus: focus) != nil { hints.append(("d", "done")) }
        if focus.modal != nil { hints.append(("Esc", "close")) }
        hints.append(("q", "quit"))
        return hints
    }

    private func keyLines(hints: [(String, String)], width: Int) -> [Line] {
        guard !hints.isEmpty else { return [] }
        var lines: [Line] = []
        var current = Line([Span(" ")])
        for (key, label) in hints {
            let piece = Line([Span(key, .reverse), Span(" \(label)  ")])
            if current.width + piece.width > width, current.width > 1 {
                lines.append(current)
                current = Line([Span(" ")])
            }
            current = current + piece
        }
        lines.append(current)
        return Array(lines.suffix(2))
    }

    // MARK: Where keys go

    /// The screen whose list the arrows move: the screen in front, or a split view's master's top screen.
    func listOwner(of front: PresentableID, model: PresentationModel) -> PresentableID? {
        guard let screen = model.screen(front) else { return nil }
        if screen.kind == .split, let master = model.master(of: front) {
            return model.screen(master)?.kind == .stack ? model.children(of: master).last : master
        }
        return catalogue.list(of: front, in: model) != nil ? front : nil
    }

    /// The login or API key form on screen: the screen in front or a split view's detail.
    func formScreen(type: String, model: PresentationModel, focus: Focus) -> PresentableID? {
        guard let front = focus.front, let screen = model.screen(front) else { return nil }
        if screen.type == type { return front }
        if screen.kind == .split, let detail = model.detail(of: front), model.screen(detail)?.type == type {
            return detail
        }
        return nil
    }

    /// Where `done` goes: the About screen presented modally, or the settings' split view.
    func doneTarget(model: PresentationModel, focus: Focus) -> PresentableID? {
        guard let front = focus.front, let screen = model.screen(front) else { return nil }
        if screen.type == DemoScreenType.about, case .presented = model.placement(of: front) { return front }
        if screen.kind == .split { return front }
        return nil
    }
}

extension Line {
    /// The title bar: reverse video across the whole width.
    fileprivate func reversedBackground(width: Int) -> Line {
        Line(fitted(to: width).spans.map { Span($0.text, .reverse) })
    }
}
