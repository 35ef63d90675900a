import FlowCore

/// Trending's cast page stepper: pick a cast.
public final class CastListViewModel: CastPicker, CustomStringConvertible {
    public let steps = StepRelay()
    public let casts: [Cast]

    public init(services: AppServices) {
        casts = services.moviesService.allCasts()
    }

    public var description: String { "CastListViewModel" }
}
