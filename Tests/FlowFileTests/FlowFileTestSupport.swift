import FlowFile
import Foundation

/// The repository's root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The path of a file in the repository.
func repositoryPath(_ relative: String) -> String { repositoryRoot.appendingPathComponent(relative).path }

/// Each diagnostic of `text` (read as `bad.yaml`) as `line:column: message; fix`; empty when it is valid.
func diagnostics(_ text: String, file: String = "bad.yaml") -> [String] {
    do {
        _ = try FlowFile.parse(text, file: file)
        return []
    } catch {
        return error.diagnostics.map { "\($0.location.lineAndColumn): \($0.message); \($0.fix)" }
    }
}

/// A small valid file that the bad-file cases change in one place each.
let baseFile = """
    flowfile: 1
    app: hello
    root: main
    steps:
      start: {}
      open:
        payload: {fields: {id: int}}
        deepLink: true
      close: {}
      greet: {payload: string}
    stepperKinds:
      greeter: {steps: [open, greet]}
    screenTypes:
      Home:
        actions:
          about: {}
      Detail: {data: "<int>"}
    flows:
      main:
        root: {id: main.stack, kind: stack}
        stepper: {remote: greeter, initial: start}
        screens:
          home: {id: main.home, type: Home}
          detail: {id: "main.detail.{payload.id}", type: Detail, data: "{payload.id}"}
          hello: {id: main.hello, kind: alert, data: "{payload}"}
        navigate:
          start:
            commands:
              - setStack: [home]
            contribute:
              - screen: home
                stepper: {actions: {about: {step: open, payload: {id: 1}}}}
          open:
            commands:
              - push: detail
            contribute:
              - flow: modal
            use:
              - when: created
                commands:
                  - present: modal
          greet:
            commands:
              - alert: hello
          close:
            commands:
              - dismiss: root
      modal:
        root: {id: modal.stack, kind: stack}
        stepper: {one: close}
        navigate:
          close:
            end: close
    deepLinks:
      - uri: "hello://detail/{id:int}"
        steps:
          - {step: open, payload: {id: "{id}"}}

    """

/// `baseFile` with `old` (which must be in it) replaced by `new`.
func base(replacing old: String, with new: String) -> String {
    precondition(baseFile.contains(old), "the base file has no '\(old)'")
    return baseFile.replacingOccurrences(of: old, with: new)
}
