internal import FlowWire
internal import Logging

// After a restart: the restored attachments of a kind wait for the processes that served it (``RestartGrace``).
extension DaemonCore {
    /// The names of the stepper processes of the last run, by kind (the state directory's `stepper-names`): set by
    /// the transport after ``recover(from:progress:)`` and before ``start(now:)``, which begins the grace.
    package mutating func expectStepperNames(_ names: [String: [String]]) { expectedStepperNames = names }

    /// What to keep for the next start, by kind, sorted: the names of the stepper processes connected, of those that
    /// left since a process serving the kind last joined (``stepperProcessLeft(_:)``: so a planned restart, where the
    /// services stop first, is shared too), and of the last run's still awaited while the grace runs (a crash before
    /// they are back forgets none). Kept as they change (``KeptStepperNames``), not gathered from every peer.
    package var stepperNamesToKeep: [String: [String]] { keptStepperNames.byKind }

    /// How many stepper processes (names, each once) the restart grace still awaits; 0 when none runs.
    package var restartGraceAwaited: Int { Set(restartGrace.missing.values.joined()).count }

    /// What ``stepperNamesToKeep`` gained and lost since the last call, for the transport to save.
    mutating func takeStepperNameChanges() -> [KeptStepperNames.Change] { keptStepperNames.takeChanges() }

    /// At start after a recovery: holds back the waiting attachments of the kinds the last run's processes served.
    mutating func beginRestartGrace(now: UInt64) {
        guard recoveredRecords > 0 else { return }  // a fresh state restored nothing
        // The last run's processes count as left at this start: kept until a process of their kind joins.
        leftStepperNames = expectedStepperNames.compactMapValues { $0.isEmpty ? nil : Set($0) }
        for (kind, names) in leftStepperNames { for name in names { keptStepperNames.keep(name, for: kind) } }
        restartGrace = RestartGrace(expected: expectedStepperNames, now: now, graceMs: configuration.restartGraceMs)
        for (kind, names) in restartGrace.missing { for name in names { keptStepperNames.keep(name, for: kind) } }
        guard let endsAt = restartGrace.endsAt else { return }
        logger.info(
            "restored attachments wait for the stepper processes of the last run",
            metadata: [
                "kinds": "\(restartGrace.missing.count)",
                "names": "\(RestartGrace.logged(restartGrace.missing))",
                "grace_ms": "\(endsAt - now)",
            ])
    }

    /// A stepper process said `HELLO`: the names that left its kinds before it are not kept any more (it is their
    /// newest process: a service replaced under a new name is not awaited), and a kind whose last run's processes
    /// are all back is freed.
    mutating func stepperProcessJoined(_ hello: Hello) {
        for kind in Set(hello.serves) {  // a kind named twice is one reason
            keptStepperNames.keep(hello.name, for: kind)
            for name in leftStepperNames.removeValue(forKey: kind) ?? [] { keptStepperNames.release(name, for: kind) }
            if restartGrace.missing[kind]?.contains(hello.name) == true {
                keptStepperNames.release(hello.name, for: kind)
            }
        }
        guard restartGrace.joined(hello.name, serving: hello.serves), restartGrace.endsAt == nil else { return }
        counters.restartGracesEnded["allBack", default: 0] += 1
        logger.info("every stepper process of the last run is back; restored attachments offered")
    }

    /// A stepper process left (`BYE`), was counted dead or forgotten: its name is kept for its kinds until another
    /// process serving them joins, so the next start awaits it (a deliberate scale-down costs one grace then).
    mutating func stepperProcessLeft(_ hello: Hello) {
        for kind in Set(hello.serves) {
            keptStepperNames.release(hello.name, for: kind)
            if leftStepperNames[kind, default: []].insert(hello.name).inserted {
                keptStepperNames.keep(hello.name, for: kind)
            }
        }
    }

    /// The grace is over at `now` (`restart_grace_ms` passed): what still waits goes to the processes back.
    mutating func endRestartGraceIfDue(now: UInt64) {
        guard let missing = restartGrace.end(ifDueAt: now) else { return }
        counters.restartGracesEnded["timedOut", default: 0] += 1
        // The names that did not come back are not awaited again.
        for (kind, names) in missing { for name in names { keptStepperNames.release(name, for: kind) } }
        logger.notice(
            "restart grace over; restored attachments offered to the stepper processes back",
            metadata: ["missing": "\(RestartGrace.logged(missing))"])
        offerWaitingAttachments(now: now)
    }
}
