import Foundation
import Testing

/// `flowctl present`, a scripted headless presenter, against a real `movie-flowd` and login service: it hosts the
/// session, carries out the steps as the UI allows them and leaves; each kind of failure has its exit code.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct FlowctlPresentProcessTests {
    static let proceed = #"action:onboarding.login:proceed:{"password":"demo","user":"demo"}"#

    @Test func flowctlPresentLogsInThroughTheOnboardingAndLeaves() async throws {
        try await withCluster { cluster in
            try await cluster.startFlowd()
            let login = try cluster.startLoginService()
            // The login form's action is delivered to the login service only once it attached to the form.
            _ = try await waitForAttachments(of: login, kinds: ["login.app", "login.form"])

            let result = try await cluster.flowctl([
                "present", "--session", "default", "--timeout", "60", "wait:onboarding.login", Self.proceed,
                "wait:onboarding.apikey",
            ])
            #expect(result.exit == .exited(0), "\(result)\n\(cluster.diagnostics)")
            #expect(result.stdout.first?.hasPrefix("visible: ") == true, "\(result)")
            #expect(
                result.stdout.filter { $0.hasPrefix("done: ") } == [
                    "done: wait:onboarding.login", "done: \(Self.proceed) (delivered 1)", "done: wait:onboarding.apikey",
                ],
                "\(result)")
            #expect(result.stdout.contains { $0.hasPrefix("visible: ") && $0.contains("onboarding.apikey") })

            // It left (BYE): another presenter hosts the session at once, and finds it where the script left it.
            let again = try await cluster.flowctl(["present", "--timeout", "60", "wait:onboarding.apikey"])
            #expect(again.exit == .exited(0), "\(again)")
            #expect(again.stdout.last == "done: wait:onboarding.apikey", "\(again)")
        }
    }

    /// An operator's `flowctl end-session` mid-script ends `flowctl present` at once (exit 1, naming `sessionEnded`);
    /// it used to wait out `--timeout` (here longer than the harness waits for its exit).
    @Test func flowctlPresentEndsAtOnceWhenTheSessionIsEnded() async throws {
        try await withCluster { cluster in
            try await cluster.startFlowd()
            try cluster.startLoginService()
            let present = try cluster.launch(
                "flowctl",
                ["present", "--create", "--session", "kiosk", "--timeout", "600", "wait:onboarding.login",
                    "wait:onboarding.apikey"])
            _ = try await present.waitForOutput(line: "done: wait:onboarding.login")

            let ended = try await cluster.flowctlSucceeding(["end-session", "kiosk"])
            #expect(ended.stdout.first?.hasPrefix("ended session kiosk") == true, "\(ended)")
            let exit = await present.waitForExit(within: generousDeadline)
            #expect(exit == .exited(1), "\(present.diagnostics)")
            #expect(
                present.stderr.lines.contains {
                    $0 == "flowctl: flowd ended the session (sessionEnded) before the steps completed"
                }, "\(present.diagnostics)")
            // The empty SNAPSHOT before the notice took the screens down.
            #expect(present.stdout.lines.last == "visible: ", "\(present.diagnostics)")
        }
    }

    /// SIGTERM stops `flowctl present` as a failure while steps are left (exit 1, saying so), and as the normal end
    /// of a run without steps (exit 0), as its `--help` says.
    @Test func flowctlPresentStoppedBySIGTERMFailsOnlyWithStepsLeft() async throws {
        try await withCluster { cluster in
            try await cluster.startFlowd()
            try cluster.startLoginService()
            let waiting = try cluster.launch(
                "flowctl", ["present", "--timeout", "600", "wait:onboarding.login", "wait:onboarding.apikey"])
            _ = try await waiting.waitForOutput(line: "done: wait:onboarding.login")
            waiting.signal(SIGTERM)
            #expect(await waiting.waitForExit(within: generousDeadline) == .exited(1), "\(waiting.diagnostics)")
            #expect(
                waiting.stderr.lines.contains { $0 == "flowctl: the presenter stopped before the steps completed" },
                "\(waiting.diagnostics)")

            let hosting = try cluster.launch("flowctl", ["present", "--create", "--session", "hosted"])
            _ = try await hosting.waitForOutput("a visible line") { $0.hasPrefix("visible: ") }
            hosting.signal(SIGTERM)
            #expect(await hosting.waitForExit(within: generousDeadline) == .exited(0), "\(hosting.diagnostics)")
        }
    }

    @Test func flowctlPresentFailsClearlyWithItsExitCodes() async throws {
        try await withCluster { cluster in
            // No daemon: no UI within --timeout, exit 2 (as any flowctl command that gets no answer).
            let silent = try await cluster.flowctl(["present", "--timeout", "1", "wait:onboarding.login"])
            #expect(silent.exit == .exited(2), "\(silent)")
            let control = "ipc://\(cluster.runtimeDirectory)/control.sock"
            #expect(
                silent.stderr.contains { $0.hasPrefix("flowctl: flowd did not answer within 1.0 s at \(control)") },
                "\(silent)")

            // A step that cannot be read: a usage mistake, before anything starts.
            let unreadable = try await cluster.flowctl(["present", "wait:onboarding.login", "tab:dashboard"])
            #expect(unreadable.exit == .exited(64), "\(unreadable)")
            #expect(unreadable.stderr.contains { $0.contains("'tab:dashboard' is not tab:TABS:INDEX") }, "\(unreadable)")

            try await cluster.startFlowd()
            try cluster.startLoginService()
            // A session that does not exist, without --create: the daemon refuses the SYNC, exit 1.
            let unknown = try await cluster.flowctl(["present", "--session", "nosuch", "wait:onboarding.login"])
            #expect(unknown.exit == .exited(1), "\(unknown)")
            #expect(unknown.stderr.contains { $0.contains("unknownSession") }, "\(unknown)")
            // Without steps too (it once ended as a script without steps ends, exit 0), saying why.
            let hosting = try await cluster.flowctl(["present", "--session", "nosuch"])
            #expect(hosting.exit == .exited(1), "\(hosting)")
            #expect(
                hosting.stderr.contains { $0.hasPrefix("flowctl: flowd refused SYNC: unknownSession") }, "\(hosting)")

            // A step the UI refuses (the login form's stack holds one screen: nothing to go back to), exit 1.
            let refused = try await cluster.flowctl([
                "present", "--create", "--session", "other", "--timeout", "60", "wait:onboarding.login",
                "back:onboarding.stack",
            ])
            #expect(refused.exit == .exited(1), "\(refused)")
            #expect(refused.stderr.contains { $0.hasPrefix("flowctl: back:onboarding.stack failed: ") }, "\(refused)")
        }
    }
}
