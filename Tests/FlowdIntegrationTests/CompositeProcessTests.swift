import Foundation
import Testing

/// A `CompositeStepper` against real processes: the stock `flowd --app` running a file whose login screen is
/// contributed with `{composite: [{remote: login.form}, {actions: {about: aboutIsShown}}]}`, the demo's login service
/// (a FlowClient stepper process) serving `login.form` inside it, and the headless presenter. The steps of both
/// reach the flow; after a SIGKILL of flowd and a restart, the service is attached again to the same attachment and
/// what was acknowledged before is all there (docs/SEMANTICS.md R12, docs/RELIABILITY.md).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CompositeProcessTests {
    static let app = """
        flowfile: 1
        app: composite
        root: {flow: main, stepper: {one: start}}
        steps:
          start: {}
          userIsLoggedIn: {}
          alert: {payload: string}
          aboutIsShown: {}
          fakeStep: {deepLink: true, summary: "flowctl watch's probe (Cluster.startWatch): navigates nowhere"}
        stepperKinds:
          login.form: {steps: [userIsLoggedIn, alert]}
        screenTypes:
          Login:
            actions:
              proceed: {payload: {fields: {user: string, password: string}}}
              about: {}
        flows:
          main:
            root: {id: main, kind: stack}
            screens:
              login: {id: main.login, type: Login}
              welcome: {id: main.welcome}
              about: {id: main.about}
              alert: {id: main.alert, kind: alert, data: "{payload}"}
            navigate:
              start:
                commands:
                  - setStack: [login]
                contribute:
                  - screen: login
                    allowStepWhenNotPresented: true
                    stepper:
                      composite:
                        - {remote: login.form}
                        - {actions: {about: aboutIsShown}}
              aboutIsShown:
                commands:
                  - push: about
              userIsLoggedIn:
                commands:
                  - push: welcome
              alert:
                commands:
                  - alert: alert
              fakeStep: {}

        """

    @Test func aStepperProcessInsideACompositeIsServedAndKeptAcrossASIGKILL() async throws {
        try await withCluster { cluster in
            let file = cluster.runtimeDirectory + "/composite.flows.yaml"
            try Self.app.write(toFile: file, atomically: true, encoding: .utf8)
            let arguments = ["--app", file, "--state-dir", cluster.runtimeDirectory + "/state"]
            let daemon = try await cluster.startFlowd(arguments, executable: "flowd")
            let login = try cluster.startLoginService()
            #expect(try await waitForAttachments(of: login, kinds: ["login.form"]) == ["login.form default/att#2 on main.login"])
            let presenter = try cluster.startPresenter()
            try await presenter.waitFor("report main.login visible")
            let watch = try await cluster.startWatch(session: "default")

            // The ActionStepper inside the composite takes `about`; the login service's attachment takes `proceed`
            // and answers with its own STEP.
            #expect(try await presenter.run("action main.login about") == "ok action main.login about delivered=2")
            try await watch.waitFor("did navigate flow=main step=aboutIsShown")
            let proceed = #"action main.login proceed {"user":"demo","password":"demo"}"#
            #expect(try await presenter.run(proceed) == "ok \(proceed) delivered=2")
            try await watch.waitFor("did navigate flow=main step=userIsLoggedIn")
            let before = try await cluster.flowctlSucceeding(["tree", "--session", "default"])
            #expect(before.output.contains("RemoteStepper(login.form)"), "\(before.output)")
            #expect(before.output.contains("ActionStepper(about)"), "\(before.output)")

            await daemon.process.kill9()
            let attachedBefore = login.stderr.count
            try await cluster.startFlowd(arguments, executable: "flowd")
            // The service says HELLO again to the restarted daemon (the same daemon ID: the state was recovered) and
            // gets its attachment back (its client knows it: no event, logged `attached again`).
            try await login.waitForError(from: attachedBefore, "the login service's attachment handed out again") {
                $0.hasSuffix(" attached again (known attachment: no event)") && $0.contains("attachment=login.form ")
            }
            let after = try await cluster.flowctlSucceeding(["tree", "--session", "default"])
            // Visibility is the presenter's to report again after a restart; the rest is the journal's.
            func withoutVisibility(_ text: String) -> String {
                text.replacingOccurrences(of: " [visible]", with: "").replacingOccurrences(of: " [hidden]", with: "")
            }
            #expect(
                withoutVisibility(after.output) == withoutVisibility(before.output),
                "the same flows and attachments: the acknowledged steps were kept")

            // Served as before: the action reaches both steppers again, and the service's step (its answer to wrong
            // credentials) reaches the flow.
            let watchAgain = try await cluster.startWatch(session: "default")
            let wrong = #"action main.login proceed {"user":"demo","password":"nope"}"#
            #expect(try await presenter.run(wrong) == "ok \(wrong) delivered=2")
            try await watchAgain.waitFor(#"did navigate flow=main step=alert("Wrong user name or password for 'demo'")"#)
        }
    }
}
