/// Attaching steppers in ``FlowCoordinatorStateMachine``: one stepper, or each stepper inside a ``CompositeStepper``.
///
/// A composite is not attached itself: each stepper inside it (nested composites included) is attached on its own,
/// with the composite's presentable, role and `allowStep*` flags, so a driver serves each as if it had been
/// contributed alone (a `RemoteStepper` gets its stepper process, an `ActionStepper` the person's actions), and the
/// steps still come in the order RxFlow's merge gives (`docs/SEMANTICS.md` R12).
extension FlowCoordinatorStateMachine {
    /// Where and how a contribution's steppers are attached: the same for every stepper inside a composite.
    struct Contribution {
        let coordinator: FlowCoordinatorID
        /// The contributed presentable (for ``StepperAttachment/Role/flow``, the flow's root).
        let presentable: PresentableID
        let role: StepperAttachment.Role
        let allowStepWhenNotPresented: Bool
        let allowStepWhenDismissed: Bool
    }

    /// A composite's inner steppers as attached: a leaf's attachment, or a nested composite's own parts.
    enum CompositePart {
        case stepper(StepperAttachment)
        case composite([CompositePart])
    }

    /// Attaches every stepper inside `composite` as `contribution`, depth first, then readies them as RxFlow's
    /// `CompositeStepper.readyToEmitSteps()` would. None holds an initial step: a composite's inner initial steps are
    /// ordinary steps (D8).
    mutating func attachInner(of composite: CompositeStepper, as contribution: Contribution) {
        compositesAttached += 1
        let parts = attachParts(of: composite, as: contribution)
        readyParts(parts)
    }

    private mutating func attachParts(
        of composite: CompositeStepper, as contribution: Contribution
    ) -> [CompositePart] {
        var parts: [CompositePart] = []
        for inner in composite.innerSteppers {
            if let nested = inner as? CompositeStepper {
                parts.append(.composite(attachParts(of: nested, as: contribution)))
            } else {
                parts.append(.stepper(attach(inner, as: contribution, holding: nil)))
            }
        }
        return parts
    }

    /// RxFlow's `readyToEmitSteps()`: the inner initial steps in order, through the gates of emitted steps (its merge
    /// binds them to the composite's relay), then each inner stepper's `readyToEmitSteps()`, a nested composite's
    /// doing the same in its turn. Listened to before, so what they emit there is kept (D5).
    private mutating func readyParts(_ parts: [CompositePart]) {
        for case .stepper(let attachment) in parts where !attachment.stepper.initialStep.isNone {
            stepperEmitted(attachment.id, attachment.stepper.initialStep)
        }
        for part in parts {
            switch part {
            case .stepper(let attachment): ready(attachment)
            case .composite(let nested): readyParts(nested)
            }
        }
    }

    // MARK: - Attaching one stepper

    /// Attaches one stepper as `contribution`: recorded in the tree (its coordinator's, its presentable's for a
    /// contributor) with the initial step it holds for a first visibility (D8), `.attach` output, listened to.
    mutating func attach(
        _ stepper: any Stepper, as contribution: Contribution, holding held: Step?
    ) -> StepperAttachment {
        lastAttachmentNumber += 1
        let attachment = StepperAttachment(
            id: AttachmentID(lastAttachmentNumber), coordinator: contribution.coordinator,
            presentable: contribution.presentable, role: contribution.role, stepper: stepper,
            allowStepWhenNotPresented: contribution.allowStepWhenNotPresented,
            allowStepWhenDismissed: contribution.allowStepWhenDismissed
        )
        attachments[attachment.id] = Attachment(info: attachment, pendingInitialStep: held)
        nodes[attachment.coordinator]?.attachments.append(attachment.id)
        if attachment.role == .contributor {
            presentables[attachment.presentable, default: PresentableState()].attachments.append(attachment.id)
        }
        actions.append(.attach(attachment))
        listen(to: attachment)
        return attachment
    }

    /// Listens to a stepper as RxFlow subscribes to it: the driver subscribes (``attachmentObserver``) and the
    /// machine takes what the stepper emits synchronously during its calls.
    mutating func listen(to attachment: StepperAttachment) {
        emissions.register(attachment.stepper.steps, as: attachment.id)
        attachmentObserver?(attachment)
    }

    /// RxFlow's `do(onSubscribed: { stepper.readyToEmitSteps() })`, after the initial step: what the stepper emits
    /// there joins its coordinator's queue behind the initial step.
    mutating func ready(_ attachment: StepperAttachment) {
        attachment.stepper.readyToEmitSteps()
        takeEmissions()
    }
}
