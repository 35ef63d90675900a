internal import FlowCore
internal import Logging

// The application's versions: the file read again on SIGHUP, and the versions recovered sessions name.
extension DaemonCore {
    /// The application new sessions get.
    var currentApplication: any FlowApplication { apps.current?.application ?? application }

    /// The version new sessions get (`HEALTH`'s `app_version` is its id); `nil` for an application given as code.
    package var currentAppVersion: AppVersion? { apps.current }

    /// The ids of the versions the daemon holds: the current one and every one a live session uses. The transport
    /// keeps their texts in the state directory and may delete the others.
    package var liveAppVersions: Set<String> { apps.ids }

    /// A session's version (`nil`: none, or no such session).
    package func appVersion(of session: String) -> String? {
        sessions[made: session]?.appVersion ?? sessions[pending: session]?.appVersion
    }

    mutating func appVersionRead(_ version: AppVersion) {
        let previous = apps.current
        guard previous?.id != version.id else {
            logger.notice(
                "SIGHUP: the application's file is unchanged; new sessions keep its version",
                metadata: ["version": "\(version.id)"])
            return
        }
        apps.makeCurrent(version)
        counters.countAppReloads()
        counters.appReloads! += 1
        logger.notice(
            "SIGHUP: the application's file was read again; new sessions get its new version, running ones keep theirs",
            metadata: [
                "version": "\(version.id)", "previous": "\(previous?.id ?? "-")",
                "sessions_on_previous": "\(previous.map { apps.users(of: $0.id) } ?? 0)",
            ])
    }

    mutating func appReloadRefused(_ error: AppVersionError) {
        counters.countAppReloads()
        counters.appReloadsRefused! += 1
        for problem in error.problems { logger.error("SIGHUP: \(problem)") }
        logger.error(
            "SIGHUP: the application's file was refused; new sessions keep getting the current version",
            metadata: ["version": "\(apps.current?.id ?? "-")", "problems": "\(error.problems.count)"])
    }

    /// Holds the version `id` a recovered session names, from the state directory unless it is held already.
    ///
    /// - Throws: ``RecoveryError`` `missingAppVersion` when no version of that id is kept (or none can be, for an
    ///   application given as code), `unrestorable` when the kept file does not give an application.
    mutating func holdRecoveredVersion(
        _ id: String, session: String, record: Int, of count: Int
    ) throws(RecoveryError) {
        guard apps[id] == nil else { return }
        let located =
            "journal record \(record + 1) of \(count): session '\(session)' runs the application version \(id)"
        guard let storedAppVersion else {
            throw RecoveryError(
                .missingAppVersion, "\(located), but this daemon's application is not read from a file", record: record)
        }
        let version: AppVersion?
        do {
            version = try storedAppVersion(id)
        } catch {
            throw RecoveryError(
                .unrestorable, "\(located), whose kept file does not give an application: \(error)", record: record)
        }
        guard let version else {
            throw RecoveryError(
                .missingAppVersion,
                "\(located), whose file is not in the state directory (apps/\(id).flows.yaml); flowd does not run it "
                    + "with another version", record: record)
        }
        apps.hold(version)
    }
}
