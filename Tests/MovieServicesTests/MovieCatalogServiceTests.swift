import FlowCore
import MovieVocabulary
import MovieServices
import Testing

/// The movie service: what a pick means on each screen.
struct MovieCatalogServiceTests {
    let service = MovieCatalogService()

    func step(_ kind: String, _ action: String, _ payload: JSONValue = .null, context: JSONValue = .null)
        throws(ServiceError) -> Step
    {
        try service.step(for: kind, action: Step(action, payload: payload), context: context)
    }

    @Test func pickingAListedMovieEmitsMovieIsPicked() throws {
        #expect(try step(DemoStepperKind.moviesWishlist, "pick", 23452) == DemoStep.movieIsPicked(withId: 23452).step)
        let watched = try step(DemoStepperKind.moviesWatched, "pick", ["id": 43424])
        let trending = try step(DemoStepperKind.moviesTrending, "pick", ["movie": 55423])
        #expect(watched == DemoStep.movieIsPicked(withId: 43424).step)
        #expect(trending == DemoStep.movieIsPicked(withId: 55423).step)
    }

    @Test func aMovieTheListDoesNotShowOrTheCatalogueDoesNotHaveIsRefused() {
        #expect(throws: ServiceError.movieNotListed(43424, kind: "movies.wishlist")) {
            try step(DemoStepperKind.moviesWishlist, "pick", 43424)
        }
        #expect(throws: ServiceError.unknownMovie(1)) { try step(DemoStepperKind.moviesWatched, "pick", 1) }
        #expect(throws: ServiceError.badPayload(action: "pick", expected: "a movie id")) {
            try step(DemoStepperKind.moviesWatched, "pick", "Avatar")
        }
    }

    @Test func theWishlistsButtonsAskForAboutAndSettings() throws {
        #expect(try step(DemoStepperKind.moviesWishlist, "about") == DemoStep.aboutIsRequired.step)
        #expect(try step(DemoStepperKind.moviesWishlist, "settings") == DemoStep.settingsAreRequired.step)
        #expect(throws: ServiceError.unknownAction(kind: "movies.watched", action: "about")) {
            try step(DemoStepperKind.moviesWatched, "about")
        }
    }

    @Test func aMovieDetailPicksOnlyItsOwnCastsFromItsContext() throws {
        let context: JSONValue = ["movie": 21212]
        let picked = try step(DemoStepperKind.moviesDetail, "pickCast", 4, context: context)
        #expect(picked == DemoStep.castIsPicked(withId: 4).step)
        #expect(throws: ServiceError.castNotInMovie(cast: 5, movie: 21212)) {
            try step(DemoStepperKind.moviesDetail, "pickCast", 5, context: context)
        }
        #expect(throws: ServiceError.unknownCast(42)) {
            try step(DemoStepperKind.moviesDetail, "pickCast", 42, context: context)
        }
        #expect(throws: ServiceError.unknownMovie(-1)) { try step(DemoStepperKind.moviesDetail, "pickCast", 4) }
    }

    @Test func theCastPagePicksAnyCast() throws {
        #expect(try step(DemoStepperKind.moviesCastList, "pick", 5) == DemoStep.castIsPicked(withId: 5).step)
        #expect(throws: ServiceError.unknownCast(10)) { try step(DemoStepperKind.moviesCastList, "pick", 10) }
    }

    @Test func aKindTheServiceDoesNotServeIsRefused() {
        #expect(throws: ServiceError.unknownKind("login.form")) { try step(DemoStepperKind.loginForm, "proceed") }
    }

    @Test func theStepperLogicAnswersActionsForTheAttachmentsItWasGiven() throws {
        var logic = MovieStepperLogic()
        let detail = AttachmentKey(session: "default", attachment: 27)
        try logic.attach(
            ServiceAttachment(
                key: detail, kind: DemoStepperKind.moviesDetail, presentable: "wishlist.movie.23452",
                context: ["movie": 23452]
            )
        )
        #expect(try logic.handle(action: Step("pickCast", payload: 2), on: detail) == [
            ServiceEmission(detail, DemoStep.castIsPicked(withId: 2).step)
        ])
        logic.detach(detail)
        #expect(throws: ServiceError.unknownAttachment(detail)) {
            try logic.handle(action: Step("pickCast", payload: 2), on: detail)
        }
        #expect(throws: ServiceError.unknownKind("login.app")) {
            try logic.attach(ServiceAttachment(key: detail, kind: "login.app", presentable: "app.stack"))
        }
    }
}
