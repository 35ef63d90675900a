import FlowWire
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The default endpoints' folder, as `docs/PROTOCOL.md` §1 gives the rule a client in another language follows.
struct RuntimeFolderRuleTests {
    private func folder(_ environment: [String: String]) -> String {
        FlowdEndpoints.defaultRuntimeDirectory(environment: environment)
    }

    @Test func flowdRuntimeDirWinsThenXDGThenTheUsersOwnFolder() {
        let own = getuid() == 0 ? "/run/flowd" : "/tmp/flowd-\(getuid())"
        #expect(folder(["FLOWD_RUNTIME_DIR": "/srv/f", "XDG_RUNTIME_DIR": "/run/user/7"]) == "/srv/f")
        #expect(folder(["XDG_RUNTIME_DIR": "/run/user/7"]) == "/run/user/7/flowd")
        #expect(folder([:]) == own)
        // Set but empty counts as not set, for both.
        #expect(folder(["FLOWD_RUNTIME_DIR": "", "XDG_RUNTIME_DIR": "/run/user/7"]) == "/run/user/7/flowd")
        #expect(folder(["FLOWD_RUNTIME_DIR": "", "XDG_RUNTIME_DIR": ""]) == own)
        #expect(
            FlowdEndpoints.default(environment: ["FLOWD_RUNTIME_DIR": "/srv/f"])
                == FlowdEndpoints(control: "ipc:///srv/f/control.sock", events: "ipc:///srv/f/events.sock"))
    }
}
