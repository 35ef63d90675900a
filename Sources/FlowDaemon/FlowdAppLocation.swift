/// Where the stock `flowd` finds the flow file it runs: `--app FILE` (or `--app=FILE`), else the config file's `app`
/// (a relative path is read from the config file's folder), else `FLOWD_APP`; the same order as every other setting
/// (flags, then the file, then the environment).
package enum FlowdAppLocation {
    /// The flow file's path, with `--app` taken out of `arguments` (the rest are the daemon's own flags); `nil` when
    /// no source names one.
    ///
    /// - Throws: ``FlowdConfigError`` when `--config` names a file that cannot be read or parsed.
    package static func resolve(
        arguments: inout [String], environment: [String: String]
    ) throws(FlowdConfigError) -> String? {
        if let flag = take("--app", from: &arguments) { return flag }
        if let config = value(of: "--config", in: arguments) {
            let file = try FlowdOptions.readConfigFile(config)
            if let app = file.app, !app.isEmpty {
                if app.hasPrefix("/") { return app }
                guard let slash = config.lastIndex(of: "/") else { return app }
                return String(config[...slash]) + app
            }
        }
        return environment["FLOWD_APP"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `name VALUE` or `name=VALUE` taken out of `arguments`.
    private static func take(_ name: String, from arguments: inout [String]) -> String? {
        if let index = arguments.firstIndex(of: name), index + 1 < arguments.count {
            defer { arguments.removeSubrange(index...(index + 1)) }
            return arguments[index + 1]
        }
        if let index = arguments.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            defer { arguments.remove(at: index) }
            return String(arguments[index].dropFirst(name.count + 1))
        }
        return nil
    }

    /// The value of `name VALUE` or `name=VALUE`, left in `arguments` (the daemon reads it too).
    private static func value(of name: String, in arguments: [String]) -> String? {
        var copy = arguments
        return take(name, from: &copy)
    }
}
