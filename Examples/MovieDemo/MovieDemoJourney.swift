public import FlowCore
public import MovieVocabulary
public import Logging
import Synchronization

/// The RxFlow demo's journeys, played in one process: a person using the app, a ``FlowCoordinatorStateMachine``
/// deciding every navigation, and a ``PresentationModel`` standing for UIKit.
///
/// The journey drives the machine as ``FlowCoordinator`` does: it subscribes to every attached stepper (the machine
/// calls `readyToEmitSteps()` and handles what steppers emit synchronously during its calls); steps the steppers
/// emit later (a gesture) are queued and handled one at a time. After each input it **settles**: it handles the
/// queued steps first, then hands every navigation command recorded so far to
/// the presentation model as one batch (one UI turn) and feeds the visibility and dismissal reports back to the
/// machine; and again, until nothing is left. With ``VisibilityFeedback/manual`` the commands still change the
/// presentation model but nothing is reported: the caller reports with ``report(_:)``, like a hand-written
/// presenter.
///
/// A person acts through the screens: ``stepper(_:on:)`` finds the stepper attached to a screen (a composite's
/// steppers are attached one by one), and the gestures (``pickMovie(_:on:)``, ``tapBack(in:)``, …) call its action
/// or the presentation model's user operation. Gestures do not check that the screen is visible: the coordinator's
/// visibility gate decides, which is what the demo shows.
///
/// Every navigation is logged as RxFlowDemo's `AppDelegate` does, in ``didNavigateLog``:
/// `did navigate flow=WishlistFlow step=movieIsPicked(23452)`.
///
/// The demo's flows adapt synchronously; an asynchronous adaptation (``CoordinatorAction/runAdapt(_:)``) is not run
/// by this driver and stays pending.
///
/// Not `Sendable`: it owns the state machine, which owns the flows. Use it from one task.
public final class MovieDemoJourney {
    /// The scripted journeys of RxFlowDemo, in the order ``wholeJourney(logger:)`` plays them; each one starts where
    /// the previous one ends.
    public enum Chapter: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Launch on a first run: the dashboard's three tabs are built, the onboarding is presented over them.
        case launch
        /// Login, then API key: the onboarding flag is set, AppFlow dismisses the onboarding.
        case onboarding
        /// Logout from the wishlist: the onboarding is presented again; then the user logs in again.
        case logout
        /// A movie picked in Watched, in Trending's movie page (back each time), then in Wishlist (stays open).
        case movieDetail
        /// A cast picked in the open wishlist movie detail, back twice; a cast picked in Trending's cast page, back.
        case castDetail
        /// Settings presented from the wishlist's gear: `.multiple` with a forwarded alert, rows, login, Done (`.end`).
        case settings
        /// The About button twice: adapted to `unauthorized` (alert), then the About screen, closed with Done.
        case about
        /// The deep link `movieIsPicked(23452)`: Wishlist, Watched and TrendingMovie each push Avatar's detail.
        case deepLink

        public var description: String { rawValue }
    }

    /// Who reports visibility and dismissal to the coordinator.
    public enum VisibilityFeedback: Sendable, Hashable {
        /// The presentation model, after every command batch and user operation.
        case presentationModel
        /// The caller, with ``MovieDemoJourney/report(_:)``.
        case manual
    }

    /// The services the flows and view models share.
    public let services: AppServices
    /// Who reports visibility.
    public let feedback: VisibilityFeedback
    /// The coordinator tree.
    public private(set) var machine = FlowCoordinatorStateMachine()
    /// The UI.
    public private(set) var presentation = PresentationModel()
    /// One line per navigation: `did navigate flow=<Flow> step=<step>`.
    public private(set) var didNavigateLog: [String] = []
    /// Every action of the machine and every report fed to it, described, in order.
    public private(set) var transcript: [String] = []
    /// The steps the machine dropped, in order.
    public private(set) var drops: [StepDrop] = []
    /// The commands the presentation model could not carry out, in order (none in the demo).
    public private(set) var rejectedCommands: [PresentationUpdate.Rejection] = []

    private let logger: Logger
    private let inbox = Inbox()
    private var subscriptions: [AttachmentID: (relay: StepRelay, subscription: StepRelay.Subscription)] = [:]
    private var pendingCommands: [NavigationCommand] = []

    /// A journey on a device whose user has (`onboarded`) or has not gone through the onboarding yet.
    ///
    /// - Parameters:
    ///   - onboarded: the onboarding flag at launch; `false` is a first run.
    ///   - feedback: who reports visibility; the presentation model by default.
    ///   - logger: where navigations, chapters and drops are logged; nowhere by default.
    public init(onboarded: Bool = false, feedback: VisibilityFeedback = .presentationModel, logger: Logger? = nil) {
        self.services = AppServices(preferencesService: PreferencesService(onboarded: onboarded))
        self.feedback = feedback
        self.logger = logger ?? Logger(label: "flowd.demo", factory: { _ in SwiftLogNoOpLogHandler() })
    }

    deinit {
        for (_, entry) in subscriptions { entry.relay.cancel(entry.subscription) }
    }

    // MARK: - Journeys

    /// Plays every chapter in order on a first run and returns the journey.
    ///
    /// - Throws: a ``JourneyError`` when a chapter cannot be played (a screen or stepper is not where it should be).
    public static func wholeJourney(logger: Logger? = nil) throws(JourneyError) -> MovieDemoJourney {
        let journey = MovieDemoJourney(logger: logger)
        for chapter in Chapter.allCases { try journey.run(chapter) }
        return journey
    }

    /// Plays one chapter from where the previous one ended, and returns the navigations it logged.
    ///
    /// - Throws: a ``JourneyError`` when a gesture cannot be made.
    @discardableResult
    public func run(_ chapter: Chapter) throws(JourneyError) -> [String] {
        let start = didNavigateLog.count
        logger.info("journey chapter", metadata: ["chapter": "\(chapter)"])
        switch chapter {
        case .launch:
            try launch()
        case .onboarding:
            try tapProceed(on: DemoScreens.onboardingLogin.id)
            try tapSetApiKey(on: DemoScreens.onboardingApiKey.id)
        case .logout:
            try tapLogout()
            try tapProceed(on: DemoScreens.onboardingLogin.id)
            try tapSetApiKey(on: DemoScreens.onboardingApiKey.id)
        case .movieDetail:
            try selectTab(1, in: DemoScreens.dashboard.id)
            try pickMovie(43424, on: DemoScreens.watchedList.id)
            try tapBack(in: DemoScreens.watched.id)
            try selectTab(2, in: DemoScreens.dashboard.id)
            try pickMovie(55423, on: DemoScreens.trendingMovies.id)
            try tapBack(in: DemoScreens.trending.id)
            try selectTab(0, in: DemoScreens.dashboard.id)
            try pickMovie(21212, on: DemoScreens.wishlistList.id)
        case .castDetail:
            try pickCast(4, on: DemoScreens.movieDetail(21212, in: "wishlist").id)
            try tapBack(in: DemoScreens.wishlist.id)
            try tapBack(in: DemoScreens.wishlist.id)
            try selectTab(2, in: DemoScreens.dashboard.id)
            try selectTab(1, in: DemoScreens.trendingPages.id)
            try pickCast(5, on: DemoScreens.trendingCasts.id)
            try tapBack(in: DemoScreens.trending.id)
            try selectTab(0, in: DemoScreens.trendingPages.id)
            try selectTab(0, in: DemoScreens.dashboard.id)
        case .settings:
            try tapSettings()
            try dismissModal(DemoScreens.settingsAlert(SettingsFlow.multipleContributorsMessage).id)
            try pickSettingsRow(.apiKey)
            try pickSettingsRow(.about)
            try pickSettingsRow(.login)
            try tapProceed(on: DemoScreens.settingsLogin.id)
            try tapSettingsDone()
        case .about:
            try tapAbout()
            try dismissModal(DemoScreens.wishlistUnauthorized.id)
            try tapAbout()
            try tapAboutDone()
        case .deepLink:
            deepLink(to: .movieIsPicked(withId: 23452))
        }
        return Array(didNavigateLog[start...])
    }

    // MARK: - Gestures

    /// Starts the app: coordinates ``AppFlow`` with an ``AppStepper`` (RxFlowDemo's `AppDelegate`), the flows
    /// getting their view models from ``LocalDemoSteppers``.
    ///
    /// - Throws: ``JourneyError/flow(_:)`` when the app was launched already.
    public func launch() throws(JourneyError) {
        let steppers = LocalDemoSteppers(services: services)
        let appFlow = AppFlow(steppers: steppers)
        let appStepper = steppers.app()
        do {
            perform(try machine.coordinate(flow: appFlow, with: appStepper))
        } catch {
            throw .flow(error)
        }
        settle()
    }

    /// Taps a movie in the list shown as `screen` (wishlist, watched, trending movies).
    public func pickMovie(_ movieId: Int, on screen: PresentableID) throws(JourneyError) {
        try act((any MoviePicker).self, on: screen) { $0.pick(movieId: movieId) }
    }

    /// Taps a cast in a movie detail or in Trending's cast page.
    public func pickCast(_ castId: Int, on screen: PresentableID) throws(JourneyError) {
        try act((any CastPicker).self, on: screen) { $0.pick(castId: castId) }
    }

    /// Taps Proceed on a login screen.
    public func tapProceed(on screen: PresentableID) throws(JourneyError) {
        try act(LoginViewModel.self, on: screen) { $0.proceed() }
    }

    /// Validates the API key on an API key screen.
    public func tapSetApiKey(on screen: PresentableID) throws(JourneyError) {
        try act(ApiKeyViewModel.self, on: screen) { $0.setApiKey() }
    }

    /// Taps Logout on the wishlist.
    public func tapLogout(on screen: PresentableID = DemoScreens.wishlistList.id) throws(JourneyError) {
        try act(WishlistViewModel.self, on: screen) { $0.logout() }
    }

    /// Taps About on the wishlist.
    public func tapAbout(on screen: PresentableID = DemoScreens.wishlistList.id) throws(JourneyError) {
        try act(WishlistViewModel.self, on: screen) { $0.about() }
    }

    /// Taps Done on the About screen.
    public func tapAboutDone(on screen: PresentableID = DemoScreens.wishlistAbout.id) throws(JourneyError) {
        try act(AboutViewModel.self, on: screen) { $0.done() }
    }

    /// Taps the wishlist's gear button (its stepper is part of WishlistFlow's flow stepper, on the wishlist stack).
    public func tapSettings(on screen: PresentableID = DemoScreens.wishlist.id) throws(JourneyError) {
        try act(WishlistStepper.self, on: screen) { $0.settingsAreRequired() }
    }

    /// Taps a row of the settings list.
    public func pickSettingsRow(
        _ row: SettingsListViewModel.Row,
        on screen: PresentableID = DemoScreens.settingsList.id
    ) throws(JourneyError) {
        try act(SettingsListViewModel.self, on: screen) { $0.pick(row) }
    }

    /// Taps Done in the settings (SettingsFlow's flow stepper, on the split view).
    public func tapSettingsDone(on screen: PresentableID = DemoScreens.settings.id) throws(JourneyError) {
        try act(SettingsStepper.self, on: screen) { $0.settingsDone() }
    }

    /// Taps the back button of a stack.
    public func tapBack(in stack: PresentableID) throws(JourneyError) {
        try userOperation { (model: inout PresentationModel) throws(PresentationError) in
            try model.userTapsBack(in: stack)
        }
    }

    /// Selects a tab of a tab bar (the dashboard, Trending's pages).
    public func selectTab(_ index: Int, in tabs: PresentableID) throws(JourneyError) {
        try userOperation { (model: inout PresentationModel) throws(PresentationError) in
            try model.userSelectsTab(index, in: tabs)
        }
    }

    /// Dismisses a modal (taps an alert's button).
    public func dismissModal(_ modal: PresentableID) throws(JourneyError) {
        try userOperation { (model: inout PresentationModel) throws(PresentationError) in
            try model.userDismisses(modal)
        }
    }

    /// Injects a deep link (RxFlowDemo's local notification calls `coordinator.navigate(to:)`).
    public func deepLink(to step: DemoStep) {
        logger.info("deep link", metadata: ["step": "\(step.step)"])
        feed(.deepLink(step.step))
        settle()
    }

    /// Reports visibility or dismissal by hand (for ``VisibilityFeedback/manual``), then settles.
    public func report(_ input: CoordinatorInput) {
        feed(input)
        settle()
    }

    // MARK: - Queries

    /// The stepper of type `T` attached to `screen`, most recent attachment first (a composite's steppers are
    /// attached one by one: docs/SEMANTICS.md R12); flow steppers count as attached to their flow's root.
    public func stepper<T>(_ type: T.Type, on screen: PresentableID) -> T? {
        for attachment in machine.liveAttachments.reversed() where attachment.presentable == screen {
            if let found = attachment.stepper as? T { return found }
        }
        return nil
    }

    /// The flow tree now.
    public func snapshot() -> FlowTreeSnapshot { machine.snapshot() }

    /// The screens now, as ``PresentationModel/description`` renders them.
    public var screens: String { presentation.description }

    // MARK: - Driving

    private func act<T>(_ type: T.Type, on screen: PresentableID, _ action: (T) -> Void) throws(JourneyError) {
        guard let stepper = stepper(type, on: screen) else {
            throw .noStepper(String(describing: type), on: screen)
        }
        action(stepper)
        settle()
    }

    private func userOperation(
        _ operation: (inout PresentationModel) throws(PresentationError) -> [CoordinatorInput]
    ) throws(JourneyError) {
        let reports: [CoordinatorInput]
        do {
            reports = try operation(&presentation)
        } catch {
            throw .presentation(error)
        }
        if feedback == .presentationModel {
            for report in reports { feed(report) }
        }
        settle()
    }

    private func feed(_ input: CoordinatorInput) {
        transcript.append("input \(Self.describe(input))")
        perform(machine.handle(input))
    }

    /// Handles queued steps, then the pending command batch and its reports, until nothing is left.
    private func settle() {
        while true {
            if let (attachment, step) = inbox.popFirst() {
                feed(.stepperEmitted(attachment, step))
                continue
            }
            guard !pendingCommands.isEmpty else { return }
            let update = presentation.apply(pendingCommands)
            pendingCommands = []
            for rejection in update.rejected {
                rejectedCommands.append(rejection)
                logger.warning("command rejected", metadata: ["rejection": "\(rejection)"])
            }
            if feedback == .presentationModel {
                for report in update.reports { feed(report) }
            }
        }
    }

    private func perform(_ actions: [CoordinatorAction]) {
        for action in actions {
            transcript.append(action.description)
            switch action {
            case .didNavigate(let event):
                didNavigateLog.append("did navigate \(event)")
                logger.debug("did navigate", metadata: ["flow": "\(event.flow)", "step": "\(event.step)"])
            case .command(let command, _):
                pendingCommands.append(command)
            case .attach(let attachment):
                let inbox = self.inbox
                let id = attachment.id
                let subscription = attachment.stepper.steps.subscribe { step in inbox.append(id, step) }
                subscriptions[id] = (attachment.stepper.steps, subscription)
            case .detach(let id, _):
                if let entry = subscriptions.removeValue(forKey: id) { entry.relay.cancel(entry.subscription) }
            case .stepDropped(let drop):
                drops.append(drop)
                logger.debug("step dropped", metadata: ["step": "\(drop.step)", "reason": "\(drop.reason)"])
            case .runAdapt(let request):
                logger.warning("asynchronous adaptation not run by the journey", metadata: ["request": "\(request)"])
            default:
                break
            }
        }
    }

    private static func describe(_ input: CoordinatorInput) -> String {
        switch input {
        case .stepperEmitted(let attachment, let step): return "\(attachment) emitted \(step)"
        case .visibilityChanged(let id, let visible): return "\(id) \(visible ? "visible" : "hidden")"
        case .dismissed(let id): return "\(id) dismissed"
        case .presentablesLost(let ids): return "lost \(ids.map(\.rawValue).joined(separator: ", "))"
        case .adaptCompleted(let request, let step): return "\(request) completed \(step.map { "\($0)" } ?? "failed")"
        case .deepLink(let step): return "deep link \(step)"
        }
    }
}

@available(*, unavailable)
extension MovieDemoJourney: Sendable {}

/// Why a journey gesture could not be made.
public enum JourneyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No stepper of that type is attached to the screen.
    case noStepper(String, on: PresentableID)
    /// The presentation model refused a user operation.
    case presentation(PresentationError)
    /// The coordinator refused (the app was launched twice).
    case flow(FlowError)

    public var description: String {
        switch self {
        case .noStepper(let type, let screen): return "no \(type) attached to \(screen)"
        case .presentation(let error): return "presentation: \(error)"
        case .flow(let error): return "\(error)"
        }
    }
}

/// The steps emitted by attached steppers, waiting to be handled. `Sendable`: behind a `Mutex`, since steppers may
/// emit from any thread.
private final class Inbox: Sendable {
    private let items = Mutex<[(AttachmentID, Step)]>([])

    func append(_ attachment: AttachmentID, _ step: Step) {
        items.withLock { $0.append((attachment, step)) }
    }

    func popFirst() -> (AttachmentID, Step)? {
        items.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
