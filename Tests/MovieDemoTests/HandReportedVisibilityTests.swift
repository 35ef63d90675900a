import FlowCore
import MovieDemo
import MovieVocabulary
import Testing

/// The launch and movie detail journeys with visibility reported by hand, as a presenter process would, instead of
/// by the presentation model: the coordinator only knows what it is told.
struct HandReportedVisibilityTests {
    private static func launchedWithoutReports() throws -> MovieDemoJourney {
        let journey = MovieDemoJourney(onboarded: true, feedback: .manual)
        try journey.launch()
        return journey
    }

    private static func show(_ ids: [PresentableID], in journey: MovieDemoJourney) {
        for id in ids { journey.report(.visibilityChanged(id, visible: true)) }
    }

    private static func hide(_ ids: [PresentableID], in journey: MovieDemoJourney) {
        for id in ids { journey.report(.visibilityChanged(id, visible: false)) }
    }

    @Test func aStepFromAHiddenScreenIsDroppedAndTheSameStepFromTheVisibleScreenNavigates() throws {
        let journey = try Self.launchedWithoutReports()
        #expect(journey.didNavigateLog.last == "did navigate flow=CastListFlow step=castListAreRequired")
        #expect(journey.presentation.visiblePresentables.isEmpty == false)
        #expect(!journey.machine.isVisible("watched.list"))

        // The presenter says the wishlist tab is on screen; the Watched tab is not.
        Self.show(["app.stack", "dashboard.tabs", "wishlist.stack", "wishlist.list"], in: journey)

        // A tap reaching the hidden Watched list is dropped.
        try journey.pickMovie(43424, on: "watched.list")
        let drop = StepDrop(
            step: DemoStep.movieIsPicked(withId: 43424).step, reason: .notVisible,
            coordinator: FlowCoordinatorID(4), attachment: AttachmentID(8)
        )
        #expect(journey.drops == [drop])
        #expect(journey.didNavigateLog.count == 8)

        // The wishlist list is visible: Avatar's detail is pushed.
        try journey.pickMovie(23452, on: "wishlist.list")
        #expect(journey.didNavigateLog.last == "did navigate flow=WishlistFlow step=movieIsPicked(23452)")

        // The detail is pushed but nobody said it is on screen: picking a cast there is dropped.
        try journey.pickCast(0, on: "wishlist.movie.23452")
        #expect(journey.drops.last?.step == DemoStep.castIsPicked(withId: 0).step)
        #expect(journey.drops.last?.reason == .notVisible)
        #expect(journey.didNavigateLog.count == 9)

        // Once the presenter reports it, the same step from the same screen navigates.
        Self.hide(["wishlist.list"], in: journey)
        Self.show(["wishlist.movie.23452"], in: journey)
        try journey.pickCast(0, on: "wishlist.movie.23452")
        #expect(journey.didNavigateLog.last == "did navigate flow=WishlistFlow step=castIsPicked(0)")

        // And the Watched list, once on screen, gets its movie detail too.
        Self.hide(["wishlist.stack", "wishlist.movie.23452"], in: journey)
        Self.show(["watched.stack", "watched.list"], in: journey)
        try journey.pickMovie(43424, on: "watched.list")
        #expect(journey.didNavigateLog.suffix(3) == [
            "did navigate flow=WishlistFlow step=movieIsPicked(23452)",
            "did navigate flow=WishlistFlow step=castIsPicked(0)",
            "did navigate flow=WatchedFlow step=movieIsPicked(43424)",
        ])
        #expect(journey.drops.count == 2)
    }

    @Test func theWishlistListIsContributedWithAllowStepWhenNotPresentedSoItsTapsNavigateUnreported() throws {
        let journey = try Self.launchedWithoutReports()
        #expect(!journey.machine.isVisible("wishlist.list"))
        try journey.pickMovie(21212, on: "wishlist.list")
        #expect(journey.didNavigateLog.last == "did navigate flow=WishlistFlow step=movieIsPicked(21212)")
        #expect(journey.drops == [])
    }

    @Test func aDismissalReportedByHandDetachesTheDetailsStepper() throws {
        let journey = try Self.launchedWithoutReports()
        try journey.pickMovie(23452, on: "wishlist.list")
        Self.show(["wishlist.movie.23452"], in: journey)
        journey.report(.dismissed("wishlist.movie.23452"))
        #expect(journey.stepper(MovieDetailViewModel.self, on: "wishlist.movie.23452") == nil)
        #expect(throws: JourneyError.noStepper("CastPicker", on: "wishlist.movie.23452")) {
            try journey.pickCast(0, on: "wishlist.movie.23452")
        }
    }
}
