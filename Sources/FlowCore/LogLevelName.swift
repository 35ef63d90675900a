package import Logging

extension Logger.Level {
    /// The level a `--log-level` flag or a config file's `log_level` names, in any case (`info`, `DEBUG`).
    package init?(named name: String) { self.init(rawValue: name.lowercased()) }

    /// Every level's name, for the message that refuses another: `trace, debug, …, critical`.
    package static var allNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
