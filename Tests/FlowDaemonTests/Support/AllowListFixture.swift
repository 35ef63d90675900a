import FlowDaemon
import ZeroMQ

// The allow-list the security tests share (SecurityTests, ZAPHandlerTests, AccessPolicyTests).

/// The keys of the allow-list the tests use.
enum AllowListKeys {
    static let movies = publicKey()
    static let settings = publicKey()
    static let tui = publicKey()
    static let kioskTUI = publicKey()
    static let admin = publicKey()
    static let stranger = publicKey()

    private static func publicKey() -> ZMQCurveKey {
        // Made once per test process; key generation does not fail with Debian's libzmq (CURVE built in).
        try! ZMQCurve.generateKeyPair().publicKey
    }
}

/// `movies` (stepper: `home`/`detail`, may emit `openDetail` and `back`), `settings` (stepper: `settings`, any step),
/// `tui` (presenter of `default` and `kiosk`), `kiosk-tui` (presenter of any session), `admin` (operator).
func testPolicy() throws -> AccessPolicy {
    try AccessPolicy(clients: [
        AllowedClient(
            name: "movies", publicKey: AllowListKeys.movies.z85, role: .stepper, steps: ["openDetail", "back"],
            kinds: ["home", "detail"]
        ),
        AllowedClient(
            name: "settings", publicKey: AllowListKeys.settings.z85, role: .stepper, steps: ["*"], kinds: ["settings"]),
        AllowedClient(name: "tui", publicKey: AllowListKeys.tui.z85, role: .presenter, sessions: ["default", "kiosk"]),
        AllowedClient(name: "kiosk-tui", publicKey: AllowListKeys.kioskTUI.z85, role: .presenter),
        AllowedClient(name: "admin", publicKey: AllowListKeys.admin.z85, role: .operator),
    ])
}

/// ``testPolicy()`` with `change` applied to its entries.
func testPolicy(changing change: (inout [AllowedClient]) -> Void) throws -> AccessPolicy {
    var clients = try testPolicy().clients
    change(&clients)
    return try AccessPolicy(clients: clients)
}
