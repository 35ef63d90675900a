public import FlowCore

/// What a person does on a presenter's UI, as a script carries it out (``PresenterScript/Step/perform(on:)``):
/// ``PresenterClient`` over a daemon, or FlowdTesting's `FakePresenter` in a test.
///
/// The methods are `async` so that a presenter may await the daemon's answer; `Sendable` is not asked, since a
/// test's fake belongs to its test.
public protocol PresenterOperations {
    /// A person's action on a screen (`USER_ACTION`); returns how many stepper attachments got it.
    func userAction(_ action: Step, on presentable: PresentableID) async throws -> Int
    /// A person taps the back button of `stack`.
    func tapBack(in stack: PresentableID) async throws
    /// A person selects the tab at `index` of `tabs`.
    func selectTab(_ index: Int, in tabs: PresentableID) async throws
    /// A person closes the modal `modal`.
    func dismiss(_ modal: PresentableID) async throws
}

extension PresenterClient: PresenterOperations {}
