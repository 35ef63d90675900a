public import FlowClient
public import FlowCore

/// A fake presenter carries out a ``FlowClient/PresenterScript``'s steps as ``FlowClient/PresenterClient`` does, so
/// a test walks a script (``FlowClient/PresenterScriptWalk``) against an embedded daemon: `tapBack(in:)`,
/// `selectTab(_:in:)` and `dismiss(_:)` are the fake's own.
extension FakePresenter: PresenterOperations {
    /// A person acts on a screen (`USER_ACTION`, as ``act(_:on:payload:)``).
    ///
    /// - Returns: how many stepper attachments got it.
    /// - Throws: ``FlowClient/DaemonError`` when the daemon refused it.
    public func userAction(_ action: Step, on presentable: PresentableID) async throws -> Int {
        let refusals = record.errors.count
        if let result = act(action.name, on: presentable, payload: action.payload) { return result.delivered }
        guard let refusal = record.errors.dropFirst(refusals).first else {
            throw FlowClientError(.timedOut, "the embedded daemon did not answer USER_ACTION")
        }
        throw DaemonError(refusal)
    }
}
