public import FlowCore

// The `OK` results of an operator's requests (`docs/PROTOCOL.md` §7); `DESCRIBE`'s is `ApplicationVocabulary`.

/// One session as `SESSIONS` lists it.
public struct SessionSummary: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The session ID.
    public var id: String
    /// How many flows (coordinators) its tree has.
    public var flows: Int
    /// The name of the presenter hosting it; `null` when none does (§7).
    @Nullable public var presenter: String?
    /// Its last command sequence number.
    public var seq: UInt64
    /// How many steppers are attached in its tree.
    public var steppers: Int
    /// `true` when its saved state did not restore after a restart: it is refused with `sessionUnrestorable` until
    /// an operator ends it, and its other figures are 0 (§3); absent (`nil`) for every other session.
    public var unrestorable: Bool?
    /// What it holds against its bounds (§7.3): its screens, their bytes, its attachments, its outbox's commands and
    /// bytes; flat in the summary, each absent (`nil`) for an unrestorable session and from a daemon that does not say.
    public var screens: Int?
    public var uiBytes: Int?
    public var attachments: Int?
    public var outboxCommands: Int?
    public var outboxBytes: Int?

    public init(
        id: String, flows: Int, presenter: String?, seq: UInt64, steppers: Int, unrestorable: Bool? = nil,
        usage: SessionUsage? = nil
    ) {
        self.id = id
        self.flows = flows
        self.presenter = presenter
        self.seq = seq
        self.steppers = steppers
        self.unrestorable = unrestorable
        self.usage = usage
    }

    /// The five figures together; `nil` when any is absent.
    public var usage: SessionUsage? {
        get {
            guard let screens, let uiBytes, let attachments, let outboxCommands, let outboxBytes else { return nil }
            return SessionUsage(
                screens: screens, uiBytes: uiBytes, attachments: attachments, outboxCommands: outboxCommands,
                outboxBytes: outboxBytes)
        }
        set {
            screens = newValue?.screens
            uiBytes = newValue?.uiBytes
            attachments = newValue?.attachments
            outboxCommands = newValue?.outboxCommands
            outboxBytes = newValue?.outboxBytes
        }
    }

    /// `default flows=9 presenter=tui seq=57 steppers=4`, then its usage when known
    /// (` screens=12 ui_bytes=804 attachments=4 outbox_commands=9 outbox_bytes=1210`), or `kiosk-3 unrestorable`.
    public var description: String {
        if unrestorable == true { return "\(id) unrestorable" }
        return "\(id) flows=\(flows) presenter=\(presenter ?? "-") seq=\(seq) steppers=\(steppers)"
            + (usage.map { " \($0)" } ?? "")
    }

    enum CodingKeys: String, CodingKey {
        case id, flows, presenter, seq, steppers, unrestorable, screens, attachments
        case uiBytes = "ui_bytes"
        case outboxCommands = "outbox_commands"
        case outboxBytes = "outbox_bytes"
    }
}

/// `SESSIONS`' result: a page of the sessions, sorted by ID (§7.3).
public struct SessionList: WireResult, Hashable {
    public var sessions: [SessionSummary]
    /// The `after` of the next page when more sessions follow (the last ID of this one); `nil` (absent): none do.
    public var next: String?

    public init(sessions: [SessionSummary], next: String? = nil) {
        self.sessions = sessions
        self.next = next
    }
}

/// `TREE`'s result: a session's flow tree.
public struct TreeReport: WireResult, Hashable {
    /// The tree (§7.1).
    public var tree: WireTree
    /// The daemon's readable rendering, one line per flow and stepper; its format may change.
    public var text: String

    public init(tree: WireTree, text: String) {
        self.tree = tree
        self.text = text
    }
}

/// `DEEPLINK`'s result.
public struct DeepLinkResult: WireResult, Hashable {
    /// How many flows navigated, the first navigation of a flow the deep link started included.
    public var navigations: Int
    /// For a URI: the chain's steps applied, in order (the steps skipped because their screens were shown already
    /// are not among them); `nil` for a step.
    public var applied: [String]?
    /// For a URI: the chain's leading steps skipped because their screens were shown already; `nil` for a step.
    public var skipped: [String]?

    public init(navigations: Int, applied: [String]? = nil, skipped: [String]? = nil) {
        self.navigations = navigations
        self.applied = applied
        self.skipped = skipped
    }
}

/// `CREATE_SESSION`'s result.
public struct CreateSessionResult: WireResult, Hashable {
    /// `false` when the session existed already.
    public var created: Bool

    public init(created: Bool) { self.created = created }

    /// Built directly: every `CREATE_SESSION` answers with it, and the encoder's round trip was a tenth of a
    /// creation's CPU at 100 000 sessions (docs/PERFORMANCE.md).
    public var json: JSONValue { ["created": .bool(created)] }
}

/// `END_SESSION`'s result: what the session was when it ended (§4).
public struct EndSessionResult: WireResult, Hashable, CustomStringConvertible {
    /// Its last command sequence number.
    public var seq: UInt64
    /// The name of the presenter that hosted it (and was told); `null` when none did (§7).
    @Nullable public var presenter: String?
    /// How many attachments (remote and in-daemon) ended with it.
    public var attachments: Int

    public init(seq: UInt64, presenter: String?, attachments: Int) {
        self.seq = seq
        self.presenter = presenter
        self.attachments = attachments
    }

    /// `seq=57 presenter=tui attachments=4`.
    public var description: String { "seq=\(seq) presenter=\(presenter ?? "-") attachments=\(attachments)" }
}

/// `HEALTH`'s result: the daemon's health.
public struct HealthReport: WireResult, Hashable {
    /// What the daemon's journal holds; only for a daemon with a state directory.
    public struct Journal: Sendable, Hashable, Codable {
        /// Records in the journal.
        public var records: Int
        /// Records replayed when the daemon started.
        public var recoveredRecords: Int
        /// Whether the journal is being written; `false` while its writes fail and state changes are refused
        /// (`journalUnavailable`); `nil` from a daemon that does not say.
        public var available: Bool?

        public init(records: Int, recoveredRecords: Int, available: Bool? = nil) {
            self.records = records
            self.recoveredRecords = recoveredRecords
            self.available = available
        }

        enum CodingKeys: String, CodingKey {
            case records, available
            case recoveredRecords = "recovered_records"
        }
    }

    /// `ok` when the daemon serves; `degraded` while its journal cannot be written (state changes are refused).
    public var status: String
    /// The daemon's run ID.
    public var daemon: String
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// How many sessions it holds.
    public var sessions: Int
    /// Of those, sessions recovered at start and not made yet (they are made on first use or in the background);
    /// `nil` from a daemon that does not say.
    public var sessionsPending: Int?
    /// Of those, sessions whose saved state did not restore when they were made (refused with
    /// `sessionUnrestorable` until ended); `nil` from a daemon that does not say.
    public var sessionsUnrestorable: Int?
    /// Connected clients by role (`stepper`, `presenter`, `operator`).
    public var peers: [String: Int]
    /// The daemon's counters by name (messages, errors by code, …; §7): an open set, new ones may be added.
    public var counters: JSONValue
    public var journal: Journal?
    /// The version of the application's file new sessions get (a daemon that runs a flow file, `flowd --app`);
    /// `nil` from a daemon whose application is code, or that does not say.
    public var appVersion: String?
    /// The bounds each session is held to (`daemon.max_session_screens`, `daemon.max_session_ui_bytes`,
    /// `daemon.max_session_attachments`, `daemon.outbox_limit`, `daemon.outbox_bytes_limit`); `nil` from a daemon
    /// that does not say.
    public var sessionBounds: SessionUsage?
    /// The largest of each figure over the sessions made now (each may be another session's; §7); with
    /// ``sessionBounds``, whether any session is near a bound. `nil` from a daemon that does not say.
    public var sessionUsageMax: SessionUsage?
    /// After a restart, while restored attachments are held back for the last run's stepper processes (§5.1): what
    /// is awaited and for how long still; `nil` when no grace runs, or from a daemon that does not say.
    public var restartGrace: RestartGrace?

    /// `HEALTH`'s `restart_grace`: `{"awaited": {"login.app": ["login-b"]}, "ms_left": 2140}`.
    public struct RestartGrace: Sendable, Hashable, Codable {
        /// The kinds held back, each with the names of its last run's processes not back yet, sorted.
        public var awaited: [String: [String]]
        /// Milliseconds until the grace ends whoever is back.
        public var msLeft: Int

        public init(awaited: [String: [String]], msLeft: Int) {
            self.awaited = awaited
            self.msLeft = msLeft
        }

        enum CodingKeys: String, CodingKey {
            case awaited
            case msLeft = "ms_left"
        }
    }

    public init(
        status: String = "ok", daemon: String, uptimeSeconds: Double, sessions: Int, sessionsPending: Int? = nil,
        sessionsUnrestorable: Int? = nil, peers: [String: Int], counters: JSONValue, journal: Journal? = nil,
        appVersion: String? = nil, sessionBounds: SessionUsage? = nil, sessionUsageMax: SessionUsage? = nil,
        restartGrace: RestartGrace? = nil
    ) {
        self.restartGrace = restartGrace
        self.sessionBounds = sessionBounds
        self.sessionUsageMax = sessionUsageMax
        self.sessionsPending = sessionsPending
        self.sessionsUnrestorable = sessionsUnrestorable
        self.appVersion = appVersion
        self.status = status
        self.daemon = daemon
        self.uptimeSeconds = uptimeSeconds
        self.sessions = sessions
        self.peers = peers
        self.counters = counters
        self.journal = journal
    }

    enum CodingKeys: String, CodingKey {
        case status, daemon, sessions, peers, counters, journal
        case uptimeSeconds = "uptime_s"
        case sessionsPending = "sessions_pending"
        case sessionsUnrestorable = "sessions_unrestorable"
        case appVersion = "app_version"
        case sessionBounds = "session_bounds"
        case sessionUsageMax = "session_usage_max"
        case restartGrace = "restart_grace"
    }
}
