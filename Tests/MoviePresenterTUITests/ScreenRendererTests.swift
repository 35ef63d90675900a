import FlowCore
import MovieVocabulary
import Testing

@testable import movie_presenter

/// The terminal presenter's drawing and key decoding, without a terminal: frames drawn from presentation models
/// built with the demo's screens, read as plain text.
struct ScreenRendererTests {
    /// The model the demo has at launch: the dashboard pushed on the app's stack, the onboarding presented over it.
    private func launchModel() -> PresentationModel {
        var model = PresentationModel()
        let update = model.apply([
            .setRoot(DemoScreens.app),
            .push(DemoScreens.dashboard, onto: DemoScreens.app.id),
            .setTabs(
                DemoScreens.dashboard.id, [DemoScreens.wishlist, DemoScreens.watched, DemoScreens.trending], selected: 0
            ),
            .push(DemoScreens.wishlistList, onto: DemoScreens.wishlist.id),
            .push(DemoScreens.watchedList, onto: DemoScreens.watched.id),
            .present(DemoScreens.onboarding, over: DemoScreens.app.id),
            .push(DemoScreens.onboardingLogin, onto: DemoScreens.onboarding.id),
        ])
        #expect(update.rejected.isEmpty)
        return model
    }

    private func text(_ model: PresentationModel, _ state: ViewState = ViewState(), columns: Int = 100, rows: Int = 30)
        -> [String]
    {
        ScreenRenderer().frame(model: model, state: state, columns: columns, rows: rows).map(\.plain)
    }

    @Test func aFrameHasExactlyTheTerminalsRowsAndColumns() {
        for (columns, rows) in [(100, 30), (80, 24), (40, 12)] {
            let lines = ScreenRenderer().frame(model: launchModel(), state: ViewState(), columns: columns, rows: rows)
            #expect(lines.count == rows)
            #expect(lines.allSatisfy { $0.width == columns })
        }
    }

    @Test func theOnboardingModalHidesTheTabBarAndShowsTheLoginForm() {
        let lines = text(launchModel())
        #expect(lines[1].hasPrefix(" window  app.stack › [modal] onboarding.stack › onboarding.login"))
        #expect(!lines.contains { $0.contains("Wishlist") })
        #expect(lines.contains { $0.contains("Log in") && $0.contains("onboarding.login") })
        #expect(lines.last?.contains("l log in") == true)
    }

    @Test func theDashboardShowsTheSelectedTabTheBreadcrumbAndTheSelectedMovie() throws {
        var model = launchModel()
        _ = try model.apply(.dismiss(presentedOver: DemoScreens.app.id))
        var state = ViewState()
        state.selection[DemoScreens.wishlistList.id] = 2
        var lines = text(model, state)
        #expect(lines[2].hasPrefix(" [1 Wishlist]   2 Watched    3 Trending"))
        #expect(lines.contains { $0.hasPrefix("   > Avatar") })
        #expect(lines.contains { $0.hasPrefix("     Star Trek Beyond") })

        _ = try model.apply(.push(DemoScreens.movieDetail(23452, in: "wishlist"), onto: DemoScreens.wishlist.id))
        lines = text(model, state)
        #expect(lines[3].hasPrefix(" Wishlist › Avatar   (wishlist.stack, 2 deep)"))
        #expect(lines.contains { $0.contains("Avatar (2009)") && $0.contains("wishlist.movie.23452") })
        // Avatar (even id): casts 0, 2, 4, 6, 8; the first is selected.
        #expect(lines.contains { $0.hasPrefix("   > Worthington") })
        for cast in ["Weaver", "Rodriguez", "Weathers", "Duke"] { #expect(lines.contains { $0.contains(cast) }) }
        #expect(!lines.contains { $0.contains("Saldana") })

        _ = try model.userSelectsTab(1, in: DemoScreens.dashboard.id)
        lines = text(model, state)
        #expect(lines[2].hasPrefix("  1 Wishlist   [2 Watched]   3 Trending"))
        #expect(lines.contains { $0.hasPrefix("   > The Terminator") })
    }

    @Test func theSettingsSplitViewShowsMasterAndDetailSideBySideUnderTheAlertBox() throws {
        var model = launchModel()
        _ = try model.apply(.dismiss(presentedOver: DemoScreens.app.id))
        let update = model.apply([
            .present(DemoScreens.settings, over: DemoScreens.wishlist.id),
            .showMaster(DemoScreens.settings.id, DemoScreens.settingsMaster),
            .setStack(DemoScreens.settingsMaster.id, [DemoScreens.settingsList]),
            .showDetail(DemoScreens.settings.id, DemoScreens.settingsLogin),
            .present(DemoScreens.settingsAlert("Demo of multiple Flow Contributor"), over: DemoScreens.settings.id),
        ])
        #expect(update.rejected.isEmpty)
        #expect(
            text(model, columns: 140)[1].hasPrefix(
                " window  app.stack › dashboard.tabs › wishlist.stack › [modal] settings.split + [alert] settings.alert"
            )
        )
        var lines = text(model)
        // Too wide for 100 columns: the way is elided after the root.
        let elided = " window  app.stack › … › wishlist.stack › [modal] settings.split + [alert] settings.alert"
        #expect(lines[1].hasPrefix(elided))
        #expect(lines.contains { $0.contains("│  Demo of multiple Flow Contributor") })
        #expect(lines.contains { $0.contains("┌─ Alert") })
        #expect(!lines.contains { $0.contains("[1 Wishlist]") })

        _ = try model.userDismisses("settings.alert")
        lines = text(model)
        #expect(lines.contains { $0.contains("[master]") && $0.contains("│ [detail]") })
        #expect(lines.contains { $0.contains("Settings") && $0.contains("settings.list │ Log in") })
        #expect(lines.contains { $0.hasPrefix("   > Login") })
        #expect(lines.last?.contains("d done") == true)
    }

    @Test func withoutAWindowRootTheFrameSaysItWaitsForFlowd() {
        let lines = text(PresentationModel())
        #expect(lines.contains { $0.contains("No window root yet") })
    }

    @Test func keysAreDecodedFromTheBytesOfATerminalInRawMode() {
        #expect(KeyDecoder.keys(in: Array("\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(KeyDecoder.keys(in: [0x1B]) == [.escape])
        #expect(
            KeyDecoder.keys(in: [0x0D, 0x7F, 0x09, 0x03, 0x04]) == [.enter, .backspace, .tab, .interrupt, .endOfInput]
        )
        #expect(KeyDecoder.keys(in: Array("jk1".utf8)) == [.character("j"), .character("k"), .character("1")])
        #expect(KeyDecoder.keys(in: Array("\u{1B}[Z".utf8)) == [.backTab])
        #expect(KeyDecoder.keys(in: Array("é".utf8)) == [.character("é")])
    }
}
