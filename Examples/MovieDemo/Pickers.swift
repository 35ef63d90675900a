import FlowCore
import MovieVocabulary

/// A view model whose screen lists movies: tapping one emits `movieIsPicked(withId:)`.
public protocol MoviePicker: Stepper {
    /// The movies the screen lists.
    var movies: [Movie] { get }
    /// The user taps the movie with `movieId`.
    func pick(movieId: Int)
}

/// A view model whose screen lists casts: tapping one emits `castIsPicked(withId:)`.
public protocol CastPicker: Stepper {
    /// The casts the screen lists.
    var casts: [Cast] { get }
    /// The user taps the cast with `castId`.
    func pick(castId: Int)
}

extension MoviePicker {
    /// Emits `movieIsPicked(withId: movieId)`.
    public func pick(movieId: Int) { steps.accept(DemoStep.movieIsPicked(withId: movieId)) }
}

extension CastPicker {
    /// Emits `castIsPicked(withId: castId)`.
    public func pick(castId: Int) { steps.accept(DemoStep.castIsPicked(withId: castId)) }
}
