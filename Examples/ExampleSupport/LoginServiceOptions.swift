public import ArgumentParser
import MovieServices

/// The login service's own command-line options (its users and how long a token stays valid), beside the
/// connection's ``FlowClient/FlowClientOptions``: pull them into a command with `@OptionGroup var login:
/// LoginServiceOptions` and serve ``logic``.
public struct LoginServiceOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("token-lifetime"), help: "How many seconds a session token stays valid.")
    public var tokenLifetime = 3600

    @Option(
        name: .customLong("user"), help: "A user, as name:password (repeatable; default: demo:demo, alice:wonderland)."
    )
    public var users: [String] = []

    public init() {}

    public func validate() throws {
        guard tokenLifetime > 0 else { throw ValidationError("--token-lifetime must be positive") }
        for user in users where !user.contains(":") {
            throw ValidationError("--user takes name:password, not '\(user)'")
        }
    }

    /// The service's logic over the `--user` accounts (the demo's users when there are none); a name given twice
    /// keeps its last password.
    public var logic: LoginServiceLogic {
        var accounts = LoginService.demoUsers
        if !users.isEmpty {
            let pairs = users.map { $0.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false) }
            accounts = Dictionary(pairs.map { (String($0[0]), String($0[1])) }, uniquingKeysWith: { $1 })
        }
        return LoginServiceLogic(
            LoginStepperLogic(service: LoginService(users: accounts, tokenLifetime: .seconds(tokenLifetime)))
        )
    }
}
