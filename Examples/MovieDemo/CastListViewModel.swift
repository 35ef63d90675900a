import FlowCore
import MovieVocabulary

/// Trending's cast page stepper: pick a cast.
public final class CastListViewModel: CastPicker, CustomStringConvertible {
    public let steps = StepRelay()
    /// Every cast.
    public let casts: [Cast]

    /// The cast page of the catalogue of `services`.
    public init(services: AppServices) {
        casts = services.moviesService.allCasts()
    }

    public var description: String { "CastListViewModel" }
}
