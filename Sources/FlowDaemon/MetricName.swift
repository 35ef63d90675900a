/// The names of flowd's metrics, in one list (README's Metrics table says what each counts; tests and the benchmark
/// read them here).
package enum MetricName: Sendable {
    // The daemon's (``DaemonMetrics``).
    package static let stepsAccepted = "flowd_steps_accepted_total"
    package static let stepsDuplicate = "flowd_steps_duplicate_total"
    package static let stepsDropped = "flowd_steps_dropped_total"
    package static let commandsSent = "flowd_commands_sent_total"
    package static let commandsAcked = "flowd_commands_acked_total"
    package static let navigations = "flowd_navigations_total"
    package static let errors = "flowd_errors_total"
    package static let messagesIn = "flowd_messages_in_total"
    package static let messagesOut = "flowd_messages_out_total"
    package static let authDenied = "flowd_auth_denied_total"
    package static let peersRevoked = "flowd_peers_revoked_total"
    package static let sendsDropped = "flowd_sends_dropped_total"
    package static let adapts = "flowd_adapts_total"
    package static let adaptAnswersDropped = "flowd_adapt_answers_dropped_total"
    package static let appReloads = "flowd_app_reloads_total"
    package static let peers = "flowd_peers"
    package static let sessions = "flowd_sessions"
    package static let sessionsPending = "flowd_sessions_pending"
    package static let sessionsUnrestorable = "flowd_sessions_unrestorable"
    // The journal's (``JournalMetrics``).
    package static let journalBytes = "flowd_journal_bytes"
    package static let snapshotBytes = "flowd_snapshot_bytes"
    package static let journalSyncs = "flowd_journal_syncs_total"
    package static let journalWriteFailures = "flowd_journal_write_failures_total"
    package static let journalAvailable = "flowd_journal_available"
    package static let compactions = "flowd_journal_compactions_total"
    package static let compactionStallMax = "flowd_journal_compaction_stall_max_seconds"
    package static let recoverySeconds = "flowd_recovery_seconds"
    package static let recoveredRecords = "flowd_recovered_records"
}
