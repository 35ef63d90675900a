#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
@testable import FlowDaemon
import Logging
import Testing

/// The daemon's journal store runs its `.interval` syncs on a ``JournalSyncer``: the caller does not wait for the disk.
@Suite(.timeLimit(.minutes(1)))
struct JournalBackgroundSyncTests {
    private let quiet = Logger(label: "JournalBackgroundSyncTests", factory: { _ in SwiftLogNoOpLogHandler() })

    private func withStore(
        syncer: JournalSyncer, _ body: (JournalStore) throws -> Void
    ) throws {
        var template = Array("/tmp/flowd-journal-sync-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let root = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let configuration = JournalConfiguration(directory: root + "/state", fsync: .interval(milliseconds: 100))
        let store = try JournalStore(configuration: configuration, logger: quiet, syncer: syncer)
        defer { store.close() }
        _ = try store.load()
        try body(store)
    }

    @Test func commitsGoOnWhileASyncRunsAndTheNextSyncWaitsForIt() throws {
        let gate = ThreadGate()  // holds each sync on the syncer's thread until the test lets it go
        let syncer = JournalSyncer(gate: { gate.pass() })
        try withStore(syncer: syncer) { store in
            store.append(Array("a".utf8))
            try store.commit(now: 1000)  // due at once: the sync starts, and is held on the syncer's thread
            try #require(gate.waitUntilHeld())
            #expect(store.syncCount == 1)
            #expect(syncer.isSyncing)

            // The commits after it write while that sync is held: nothing on this thread waits for the disk.
            store.append(Array("b".utf8))
            try store.commit(now: 1050)
            store.append(Array("c".utf8))
            try store.commit(now: 1100)  // due again, but the first sync still runs: none starts
            #expect(store.syncCount == 1)
            #expect(store.nextSyncDue == 1100, "still due: the next call starts it")

            gate.open()
            syncer.waitUntilIdle()
            #expect(!syncer.isSyncing)
            try store.syncIfDue(now: 1101)
            try #require(gate.waitUntilHeld())
            #expect(store.syncCount == 2)
            #expect(store.nextSyncDue == nil)
            gate.open()
        }
    }

    @Test func aFailedBackgroundSyncMakesTheStoreUnusableAtItsNextCall() throws {
        let syncer = JournalSyncer()
        try withStore(syncer: syncer) { store in
            store.simulatedSyncError = .ioError
            store.append(Array("a".utf8))
            try store.commit(now: 1000)  // the sync starts; its failure is not known yet
            syncer.waitUntilIdle()
            store.append(Array("b".utf8))
            #expect(throws: JournalError.self) { try store.commit(now: 1010) }
            do {
                try store.syncIfDue(now: 5000)
                Issue.record("a store whose sync failed went on")
            } catch let error as JournalError {
                #expect(error.code == .unusable, "as after a failed inline sync")
            }
        }
    }

    /// Out of descriptors (`EMFILE`, every one held by connections), the syncer gets no duplicate of the journal's:
    /// the sync runs on the caller's thread, and the store goes on. Before, the `.io` error reached the I/O loop
    /// through an idle turn's `syncIfDue` and stopped flowd.
    @Test func aSyncWithoutADuplicateDescriptorRunsOnTheCallersThread() throws {
        let gate = ThreadGate()
        let syncer = JournalSyncer(gate: { gate.pass() })  // a sync handed to it would wait for the test: none is
        try withStore(syncer: syncer) { store in
            store.simulatedDuplicateError = .tooManyOpenFiles
            store.append(Array("a".utf8))
            try store.commit(now: 1000)
            #expect(store.syncCount == 1 && !syncer.isSyncing && store.nextSyncDue == nil)
            store.append(Array("b".utf8))
            try store.commit(now: 1010)
            try store.syncIfDue(now: 1200)
            #expect(store.syncCount == 2 && !syncer.isSyncing && store.nextSyncDue == nil)

            store.simulatedDuplicateError = nil  // descriptors free again: back to the syncer
            store.append(Array("c".utf8))
            try store.commit(now: 1400)
            try #require(gate.waitUntilHeld())
            #expect(store.syncCount == 3 && syncer.isSyncing)
            gate.open()
            syncer.waitUntilIdle()
        }
    }

    @Test func closeWaitsForTheSyncThatRunsAndDoesNotSyncAgainAfterItFailed() throws {
        let syncer = JournalSyncer()
        try withStore(syncer: syncer) { store in
            store.simulatedSyncError = .ioError
            store.append(Array("a".utf8))
            try store.commit(now: 1000)
            store.append(Array("b".utf8))
            store.close()  // waits for the failing sync, then neither writes nor syncs what is left
            #expect(!syncer.isSyncing)
            #expect(store.syncCount == 1)
        }
    }
}
