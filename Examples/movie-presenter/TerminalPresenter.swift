// The interactive presenter: draws the session's UI in the terminal and turns a person's keys into PresenterClient's
// user operations (tapBack, selectTab, dismiss: the model changes and its truthful reports go to flowd) and actions
// (USER_ACTION).

import FlowClient
import FlowCore
import FlowWire
import Foundation
import Logging
import MovieVocabulary
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Something the UI loop reacts to.
enum UIEvent: Sendable {
    case change(PresenterChange)
    case key(Key)
    case resize
    case log(String)
}

/// Hands the loop the warnings logged, to show in the status line (the terminal is taken: logs cannot go there).
///
/// `Sendable`: behind a mutex.
final class LogRelay: Sendable {
    private let sink = Mutex<AsyncStream<UIEvent>.Continuation?>(nil)

    func connect(_ continuation: AsyncStream<UIEvent>.Continuation?) { sink.withLock { $0 = continuation } }

    func post(_ message: String) { _ = sink.withLock { $0?.yield(.log(message)) } }
}

/// A log handler that posts warnings and worse to a ``LogRelay``.
struct RelayLogHandler: LogHandler {
    let relay: LogRelay
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (metadata.merging(event.metadata ?? [:]) { $1 }).sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        relay.post("\(event.level): \(event.message)" + (fields.isEmpty ? "" : " \(fields)"))
    }
}

/// The interactive presenter as a service: the client, and the terminal UI until `q`, the end of the client or a
/// graceful shutdown (SIGTERM, SIGINT, SIGHUP). The terminal is restored in every case.
struct TerminalPresenterService: Service {
    let client: PresenterClient
    let terminal: Terminal
    let relay: LogRelay
    var state: ViewState

    func run() async throws {
        let (events, continuation) = AsyncStream.makeStream(of: UIEvent.self)
        let changes = client.changes()
        try terminal.enter()
        defer { terminal.restore() }
        relay.connect(continuation)
        defer { relay.connect(nil) }
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await client.run() }
                group.addTask {
                    for await change in changes { continuation.yield(.change(change)) }
                    await waitUntilCancelled()
                }
                group.addTask {
                    for await key in Terminal.keys() { continuation.yield(.key(key)) }
                    continuation.yield(.key(.endOfInput))
                    await waitUntilCancelled()
                }
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sigwinch) { continuation.yield(.resize) }
                }
                group.addTask {
                    var loop = TerminalUILoop(client: client, terminal: terminal, state: state)
                    await loop.run(events)
                }
                // The first to end (`q`, or the client) ends the others.
                _ = try await group.next()
                group.cancelAll()
                continuation.finish()
                try await group.waitForAll()
            }
        }
    }
}

private func waitUntilCancelled() async {
    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
}

/// The UI loop: one event at a time, a redraw after each.
struct TerminalUILoop {
    let client: PresenterClient
    let terminal: Terminal
    var state: ViewState
    let renderer = ScreenRenderer()
    /// The rows on the terminal now (as written), to redraw only what changed.
    private var shown: [String] = []

    init(client: PresenterClient, terminal: Terminal, state: ViewState) {
        self.client = client
        self.terminal = terminal
        self.state = state
    }

    private var catalogue: DemoCatalogue { renderer.catalogue }

    /// Returns at `q` (or Ctrl-C, Ctrl-D, the end of standard input) or when the events end.
    mutating func run(_ events: AsyncStream<UIEvent>) async {
        draw()
        for await event in events {
            switch event {
            case .change(let change):
                note(change)
            case .key(let key):
                if await !handle(key) { return }
            case .resize:
                shown = []
            case .log(let message):
                state.warning = message
            }
            draw()
        }
    }

    /// Draws the frame: only the rows that changed since the last one (whole frames on a small pty are written in
    /// pieces and flicker); everything after a resize or Ctrl-L.
    private mutating func draw() {
        state.lastSeq = client.lastSeq
        let (columns, rows) = terminal.size()
        let lines = renderer.frame(model: client.model, state: state, columns: columns, rows: rows).map(\.ansi)
        var text = ""
        if lines.count != shown.count {
            text = "\u{1B}[H\u{1B}[2J"
            shown = []
        }
        for (index, line) in lines.enumerated() where index >= shown.count || shown[index] != line {
            text += "\u{1B}[\(index + 1);1H" + line + "\u{1B}[K"
        }
        shown = lines
        if !text.isEmpty { terminal.write(text) }
    }

    private mutating func note(_ change: PresenterChange) {
        switch change.cause {
        case .commands(let commands):
            let last = commands.last.map { "flowd: \($0.command) (seq \($0.seq))" } ?? "flowd"
            state.activity = last + (commands.count > 1 ? " and \(commands.count - 1) before it" : "")
        case .snapshot(let seq):
            state.activity = "flowd: snapshot of the whole UI (seq \(seq))"
        case .userOperation(let operation):
            state.activity = "you: \(operation)"
        case .sessionEnded:
            state.activity = "flowd: the session was ended"
        }
        if !change.rejected.isEmpty {
            state.message = ("could not carry out: \(change.rejected.map(\.description).joined(separator: "; "))", true)
        }
        if !change.reports.isEmpty {
            state.reports = change.reports.map { "\($0.presentable) \($0.state.rawValue)" }.joined(separator: " · ")
        }
    }

    // MARK: - Keys

    /// Carries out a key; returns `false` to quit.
    private mutating func handle(_ key: Key) async -> Bool {
        if state.prompt != nil {
            await handlePrompt(key)
            return true
        }
        state.message = nil
        let model = client.model
        let focus = Focus(model: model)
        switch key {
        case .character("q"), .interrupt, .endOfInput:
            return false
        case .redraw:
            shown = []
        case .escape:
            if let modal = focus.alert ?? focus.modal {
                await perform("closed \(modal)") { client in try await client.dismiss(modal) }
            } else {
                state.message = ("nothing to close", false)
            }
        case _ where focus.alert != nil:
            if key == .enter, let alert = focus.alert {
                await perform("closed \(alert)") { client in try await client.dismiss(alert) }
            } else {
                state.message = ("an alert is open: Enter or Esc closes it", false)
            }
        case .up, .character("k"):
            moveSelection(by: -1, model: model, focus: focus)
        case .down, .character("j"):
            moveSelection(by: 1, model: model, focus: focus)
        case .enter, .right:
            await pick(model: model, focus: focus)
        case .character("b"), .backspace, .left:
            await back(model: model, focus: focus)
        case .character(let digit) where digit.isNumber:
            guard let tabs = focus.frontPath.first(where: { model.screen($0)?.kind == .tabs }),
                let number = digit.wholeNumberValue, number >= 1
            else {
                state.message = ("no tab bar on screen", false)
                break
            }
            await perform("selected tab \(number)") { client in try await client.selectTab(number - 1, in: tabs) }
        case .tab, .backTab:
            guard let tabs = focus.frontPath.last(where: { model.screen($0)?.kind == .tabs }) else {
                state.message = ("no tab bar on screen", false)
                break
            }
            let count = model.children(of: tabs).count
            guard count > 0 else { break }
            let next = ((model.selectedTab(of: tabs) ?? 0) + (key == .tab ? 1 : count - 1)) % count
            await perform("selected tab \(next + 1)") { client in try await client.selectTab(next, in: tabs) }
        case .character("l"), .character("L"):
            guard let form = renderer.formScreen(type: DemoScreenType.login, model: model, focus: focus) else {
                state.message = ("no login form on screen", false)
                break
            }
            if key == .character("L") {
                state.prompt = Prompt(purpose: .loginUser(form: form))
            } else {
                await logIn(on: form, user: "demo", password: "demo")
            }
        case .character("a"), .character("A"):
            guard let form = renderer.formScreen(type: DemoScreenType.apiKey, model: model, focus: focus) else {
                state.message = ("no API key form on screen", false)
                break
            }
            if key == .character("A") {
                state.prompt = Prompt(purpose: .apiKey(form: form))
            } else {
                await setApiKey(on: form, key: "demo-api-key")
            }
        case .character("s"):
            await wishlistButton(DemoAction.settings, model: model, focus: focus)
        case .character("i"):
            await wishlistButton(DemoAction.about, model: model, focus: focus)
        case .character("o"):
            await wishlistButton(DemoAction.logout, model: model, focus: focus)
        case .character("d"):
            guard let target = renderer.doneTarget(model: model, focus: focus) else {
                state.message = ("nothing to be done with here (Done is on About and Settings)", false)
                break
            }
            await send(Step(DemoAction.done), on: target)
        default:
            state.message = ("unknown key: see the keys below", false)
        }
        return true
    }

    private mutating func moveSelection(by delta: Int, model: PresentationModel, focus: Focus) {
        guard let front = focus.front, let owner = renderer.listOwner(of: front, model: model),
            let items = catalogue.list(of: owner, in: model), !items.isEmpty
        else {
            state.message = ("no list on screen", false)
            return
        }
        let current = state.selected(in: owner, count: items.count)
        state.selection[owner] = min(max(current + delta, 0), items.count - 1)
    }

    private mutating func pick(model: PresentationModel, focus: Focus) async {
        guard let front = focus.front else { return }
        if let owner = renderer.listOwner(of: front, model: model), let items = catalogue.list(of: owner, in: model),
            !items.isEmpty
        {
            let item = items[state.selected(in: owner, count: items.count)]
            await send(item.action, on: owner, what: item.label)
        } else if let form = renderer.formScreen(type: DemoScreenType.login, model: model, focus: focus) {
            await logIn(on: form, user: "demo", password: "demo")
        } else if let form = renderer.formScreen(type: DemoScreenType.apiKey, model: model, focus: focus) {
            await setApiKey(on: form, key: "demo-api-key")
        } else if let target = renderer.doneTarget(model: model, focus: focus) {
            await send(Step(DemoAction.done), on: target)
        } else {
            state.message = ("nothing to open here", false)
        }
    }

    private mutating func back(model: PresentationModel, focus: Focus) async {
        guard let stack = focus.frontPath.last(where: { model.screen($0)?.kind == .stack }),
            model.children(of: stack).count > 1
        else {
            state.message = ("nothing to go back to", false)
            return
        }
        await perform("back in \(stack)") { client in try await client.tapBack(in: stack) }
    }

    /// The wishlist's buttons (gear, About, Logout) work while the wishlist is in front.
    private mutating func wishlistButton(_ action: String, model: PresentationModel, focus: Focus) async {
        let list: PresentableID = "wishlist.list"
        guard focus.front == list else {
            state.message = ("\(action) is a button of the Wishlist: go to its list first", false)
            return
        }
        await send(Step(action), on: list)
    }

    private mutating func logIn(on form: PresentableID, user: String, password: String) async {
        let payload: JSONValue = ["user": .string(user), "password": .string(password)]
        await send(Step(DemoAction.proceed, payload: payload), on: form, what: "log in as \(user)")
    }

    private mutating func setApiKey(on form: PresentableID, key: String) async {
        await send(Step(DemoAction.setApiKey, payload: ["key": .string(key)]), on: form, what: "API key")
    }

    private mutating func handlePrompt(_ key: Key) async {
        guard var prompt = state.prompt else { return }
        switch key {
        case .escape, .interrupt:
            state.prompt = nil
            state.message = ("cancelled", false)
            return
        case .backspace:
            if !prompt.text.isEmpty { prompt.text.removeLast() }
        case .character(let character):
            prompt.text.append(character)
        case .enter:
            state.prompt = nil
            switch prompt.purpose {
            case .loginUser(let form):
                state.prompt = Prompt(purpose: .loginPassword(form: form, user: prompt.text))
            case .loginPassword(let form, let user):
                await logIn(on: form, user: user, password: prompt.text)
            case .apiKey(let form):
                await setApiKey(on: form, key: prompt.text)
            }
            return
        default:
            break
        }
        state.prompt = prompt
    }

    // MARK: - Sending

    /// `USER_ACTION`: the daemon hands it to the screen's steppers; what they emit comes back as commands.
    private mutating func send(_ action: Step, on presentable: PresentableID, what: String? = nil) async {
        let label = "\(action.name)\(what.map { " (\($0))" } ?? "") on \(presentable)"
        do {
            let delivered = try await client.userAction(action, on: presentable)
            state.message = ("sent \(label): delivered to \(delivered) stepper(s)", false)
        } catch {
            state.message = ("\(label) failed: \(error)", true)
        }
    }

    /// A user operation on the model (its reports go to flowd).
    private mutating func perform(_ label: String, _ operation: (PresenterClient) async throws -> Void) async {
        let client = client
        do {
            try await operation(client)
            state.message = (label, false)
        } catch {
            state.message = ("\(label) failed: \(error)", true)
        }
    }
}

extension MoviePresenterCommand {
    /// The terminal UI: logs leave the terminal (to `--log-file`, or nowhere; warnings show on the status line)
    /// while it runs; standard error is given back afterwards, for an error to be printed.
    func runTerminalUI() async throws {
        let level = connection.level()
        let target = logFile.map { open($0, O_WRONLY | O_CREAT | O_APPEND, 0o644) } ?? open("/dev/null", O_WRONLY)
        guard target >= 0 else {
            let reason = String(cString: strerror(errno))
            throw TerminalError("cannot open the log file \(logFile ?? "/dev/null"): \(reason)")
        }
        let savedStandardError = dup(STDERR_FILENO)
        dup2(target, STDERR_FILENO)
        close(target)
        defer {
            if savedStandardError >= 0 {
                dup2(savedStandardError, STDERR_FILENO)
                close(savedStandardError)
            }
        }
        let relay = LogRelay()
        LoggingSystem.bootstrap { label in
            var stream = StreamLogHandler.standardError(label: label)
            stream.logLevel = level
            return MultiplexLogHandler([stream, RelayLogHandler(relay: relay)])
        }
        let logger = Logger(label: "flowd.movie-presenter")
        let client = PresenterClient(
            name: name, session: session, createSession: create,
            configuration: try connection.clientConfiguration(logger: logger)
        )
        logger.info(
            "terminal presenter starting",
            metadata: ["control": "\(connection.endpoints.control)", "session": "\(session)"]
        )
        var state = ViewState()
        state.session = session
        state.name = name
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(
                        service: TerminalPresenterService(
                            client: client, terminal: Terminal(), relay: relay, state: state
                        ),
                        successTerminationBehavior: .gracefullyShutdownGroup
                    )
                ],
                gracefulShutdownSignals: [.sigterm, .sigint, .sighup],
                logger: logger
            )
        )
        try await group.run()
        logger.info("terminal presenter stopped")
    }
}
