// What the interactive presenter draws, as a pure function of the presentation model and the UI's own state (list
// selections, the status lines, a prompt): a frame of styled lines, turned into ANSI escape sequences by the caller.

import FlowCore
import Foundation
import MovieVocabulary

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
