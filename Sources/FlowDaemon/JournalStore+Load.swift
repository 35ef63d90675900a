import SystemPackage

extension JournalStore {
    /// Reads the snapshot and the journals from its generation on (more than one when a compaction did not end),
    /// validating every frame. A torn tail (after the first frame that does not check, no frame that does) is cut
    /// off (logged, counted in ``JournalContents/discardedBytes``), and so are the journals after one shorter than
    /// the next one's header says (a power loss took its unsynced tail); damage before a tail is refused, or cut
    /// under ``JournalDamagePolicy/truncate`` (``JournalContents/damage``). Deletes what an interrupted compaction
    /// left (`snapshot.tmp`, journals older than the snapshot) and creates the live journal if missing (without a
    /// snapshot; the journal a snapshot names, missing or without a valid header, is damage). Afterwards
    /// the store accepts appends. Calling it again reads afresh and drops what is buffered.
    ///
    /// - Parameter splittingSnapshot: give the snapshot's payload as its records (``JournalSnapshot``'s framing, a
    ///   framing error is `.corrupt`) in ``JournalContents/snapshotRecords``, rather than as one array.
    ///
    /// - Throws: ``JournalError`` `.damaged` (with the file and offset), `.corrupt` or `.incompatible` when the files
    ///   cannot be trusted (nothing is changed then), `.io` when they cannot be read.
    package func load(splittingSnapshot: Bool = false) throws(JournalError) -> JournalContents {
        guard directory.isOpen else { throw JournalError(.notOpen, "the journal store is closed") }
        writer?.waitUntilIdle()
        _ = writer?.takeOutcome()
        compactingGeneration = nil
        inlineOutcome = nil
        closeJournal()
        buffer.removeAll(keepingCapacity: true)
        droppedRecordBytes = nil
        hasUnsyncedData = false
        failure = nil
        earlierJournals = []

        let names = try directory.list()
        let hasSnapshot = names.contains("snapshot")
        var snapshot: [UInt8]?
        var snapshotGeneration: UInt64 = 1
        snapshotBytes = 0
        var snapshotRecords: [[UInt8]] = []
        if hasSnapshot {
            let path = directory.filePath("snapshot")
            let file = try FileDescriptor.open(journalFile: path, .readOnly)
            defer { try? file.close() }
            let reader = try SnapshotFileReader(file, path: path)
            if splittingSnapshot { snapshotRecords = try reader.records() } else { snapshot = try reader.payload() }
            snapshotGeneration = reader.header.generation
            snapshotBytes = reader.fileBytes
        }
        let journals = names.compactMap(JournalFormat.journalGeneration(fileName:)).sorted()
        let chain = journals.filter { $0 >= snapshotGeneration }
        for (index, found) in chain.enumerated() where found != snapshotGeneration + UInt64(index) {
            let missing = snapshotGeneration + UInt64(index)
            throw JournalError(
                .corrupt,
                "\(directory.filePath(JournalFormat.journalFileName(found))) is newer than the "
                    + (index > 0
                        ? "journals before it: \(JournalFormat.journalFileName(missing)) is missing"
                        : (snapshot == nil ? "missing snapshot" : "snapshot (generation \(snapshotGeneration))")
                            + ": the snapshot it belongs to is gone")
                    + "; refusing to guess (move the files aside to start empty)")
        }

        // Read and check everything before changing anything.
        let reads = try chain.map { generation throws(JournalError) in try readJournal(generation) }
        var plan = try plan(reads)
        if hasSnapshot, reads.first?.scan == nil {
            plan.damage = try lostJournal(snapshotGeneration, bytes: reads.first?.bytes.count)
        }

        if names.contains("snapshot.tmp") {
            logger.notice(
                "journal: deleting the snapshot.tmp of an interrupted compaction",
                metadata: ["directory": "\(directory.path)"])
            directory.remove("snapshot.tmp", logger: logger)
        }
        for stale in journals where stale < snapshotGeneration {
            logger.notice(
                "journal: deleting a journal the snapshot replaced",
                metadata: ["file": "\(journalPath(stale))", "snapshot_generation": "\(snapshotGeneration)"])
            directory.remove(JournalFormat.journalFileName(stale), logger: logger)
        }
        var contents = try apply(plan, reads: reads, snapshot: snapshot, snapshotGeneration: snapshotGeneration)
        contents.snapshotRecords = snapshotRecords
        return contents
    }

    /// A journal file as read, with what its header and frames say.
    struct JournalRead {
        let generation: UInt64
        let path: String
        let bytes: [UInt8]
        let header: JournalFormat.HeaderCheck
        /// The frames after a valid header; `nil` for an interrupted creation.
        let scan: JournalFormat.FrameScan?
    }

    /// What ``load()`` makes of the journals it read.
    struct LoadPlan {
        /// How many of the journals are replayed; the last of them is the live one.
        var kept: Int
        /// Why the journals after those are dropped, if some are: a power loss took the tail they follow (or one
        /// is an interrupted creation); or damage in the last kept one, which the truncate policy cuts.
        var droppedBecause: String?
        /// The last kept journal is damaged (not a torn tail), or the journal the snapshot names is lost: cut it,
        /// or start it afresh, under the truncate policy.
        var damage: JournalError?
    }

    private func readJournal(_ generation: UInt64) throws(JournalError) -> JournalRead {
        let path = journalPath(generation)
        let file = try FileDescriptor.open(journalFile: path, .readOnly)
        defer { try? file.close() }
        let bytes = try file.readAll(path: path)
        let header = try JournalFormat.checkJournalHeader(bytes, generation: generation, path: path)
        guard case .valid(let size, _) = header else {
            return JournalRead(generation: generation, path: path, bytes: bytes, header: header, scan: nil)
        }
        let scan = JournalFormat.scanFrames(bytes, from: size, maxRecordBytes: Self.maxRecordBytes)
        return JournalRead(generation: generation, path: path, bytes: bytes, header: header, scan: scan)
    }

    /// The journal a snapshot names is created, header synced, before the snapshot is renamed into place (steps 2-3
    /// of a compaction), so no crash leaves it missing or with a partial header: what it held after the snapshot
    /// (acknowledged records) is lost. Refused as damage, or, under ``JournalDamagePolicy/truncate``, the damage
    /// that ``apply(_:reads:snapshot:snapshotGeneration:)`` starts over from the snapshot for.
    private func lostJournal(_ generation: UInt64, bytes: Int?) throws(JournalError) -> JournalError {
        let path = journalPath(generation)
        let found = JournalError(
            .damaged,
            "\(path), the journal the snapshot's records continue in, "
                + (bytes.map { "has no valid header (\($0) bytes)" } ?? "is missing")
                + ": the records after the snapshot are lost, and no crash leaves it so; nothing was changed "
                + "(docs/RELIABILITY.md, \"Torn tail or damage\")",
            file: path, offset: 0)
        guard configuration.damage == .truncate else { throw found }
        return found
    }

    /// Decides which journals are replayed: each one after the first must follow the whole of the one before it (its
    /// header names that one's length at the switch). Throws what refuses the start; changes nothing.
    private func plan(_ reads: [JournalRead]) throws(JournalError) -> LoadPlan {
        for (index, read) in reads.enumerated() {
            let isLast = index == reads.count - 1
            guard let scan = read.scan else {
                guard isLast else {
                    throw JournalError(
                        .corrupt, "\(read.path) has no valid header, and journals follow it: refusing to guess")
                }
                return index == 0
                    ? LoadPlan(kept: 1)
                    : LoadPlan(kept: index, droppedBecause: "its creation was interrupted (a header at most)")
            }
            if !scan.isTornTail {
                let found = JournalError(
                    .damaged,
                    "\(read.path) is damaged at offset \(scan.validBytes) (\(scan.reason)), and frames that check follow "
                        + "at offset \(scan.validFrameAfter ?? 0): not a torn tail; nothing was changed "
                        + "(docs/RELIABILITY.md, \"Torn tail or damage\")",
                    file: read.path, offset: scan.validBytes)
                guard configuration.damage == .truncate else { throw found }
                return LoadPlan(
                    kept: index + 1, droppedBecause: isLast ? nil : "they follow damage in \(read.path)",
                    damage: found)
            }
            if isLast { return LoadPlan(kept: index + 1) }
            let next = reads[index + 1]
            guard case .valid(_, let recorded) = next.header else {
                return LoadPlan(kept: index + 1, droppedBecause: "its creation was interrupted (a header at most)")
            }
            guard let recorded else {
                throw JournalError(
                    .corrupt, "\(next.path) is a version 1 journal after \(read.path): refusing to guess")
            }
            if scan.validBytes > recorded {
                throw JournalError(
                    .corrupt,
                    "\(read.path) holds \(scan.validBytes) bytes of frames, more than the \(recorded) that \(next.path) "
                        + "says it had: refusing to guess", file: read.path, offset: recorded)
            }
            if scan.validBytes < recorded {
                return LoadPlan(
                    kept: index + 1,
                    droppedBecause: "\(read.path) ends at \(scan.validBytes) bytes, before the \(recorded) they follow "
                        + "(a power loss took its unsynced tail)")
            }
        }
        return LoadPlan(kept: reads.count)
    }

    /// Carries `plan` out: drops the journals after the kept ones, cuts torn tails and damage, opens the live journal.
    private func apply(
        _ plan: LoadPlan, reads: [JournalRead], snapshot: [UInt8]?, snapshotGeneration: UInt64
    ) throws(JournalError) -> JournalContents {
        var discarded = 0
        var damage: JournalDamage?
        for dropped in reads.dropFirst(plan.kept) {
            if dropped.scan != nil { discarded += dropped.bytes.count }  // an interrupted creation held no record
            if plan.damage != nil {
                let aside = JournalFormat.journalFileName(dropped.generation) + ".discarded"
                try directory.move(JournalFormat.journalFileName(dropped.generation), to: aside)
                logger.error(
                    "journal: kept aside a journal that follows damage (--journal-damage truncate)",
                    metadata: ["file": "\(dropped.path)", "kept_as": "\(directory.filePath(aside))"])
            } else {
                logger.warning(
                    "journal: dropping a journal that follows a lost tail (never acknowledged under fsync always)",
                    metadata: [
                        "file": "\(dropped.path)", "discarded_bytes": "\(dropped.bytes.count)",
                        "reason": "\(plan.droppedBecause ?? "")",
                    ])
                directory.remove(JournalFormat.journalFileName(dropped.generation), logger: logger)
            }
        }
        if plan.kept < reads.count { try directory.sync() }

        var contents = JournalContents(snapshot: snapshot, records: [], discardedBytes: 0)
        for (index, read) in reads.prefix(plan.kept).enumerated() {
            let isLive = index == plan.kept - 1
            guard let scan = read.scan else {
                if let found = plan.damage {
                    damage = try keepAside(read.bytes, generation: read.generation, path: read.path, because: found)
                } else {
                    // The only journal, its creation interrupted: nothing was appended to it.
                    logger.warning(
                        "journal: recreating a journal whose creation was interrupted",
                        metadata: ["file": "\(read.path)", "bytes": "\(read.bytes.count)"])
                }
                journal = try createJournal(read.generation, previousLength: 0, syncsFile: true, syncsDirectory: true)
                generation = read.generation
                journalBytes = JournalFormat.journalHeaderSize
                contents.journalPaths.append(read.path)
                contents.journalFirstRecords.append(contents.records.count)
                continue
            }
            let file = try FileDescriptor.open(journalFile: read.path, .readWrite)
            var keep = false
            defer { if !keep { try? file.close() } }
            if scan.validBytes < read.bytes.count {
                if isLive, let found = plan.damage {
                    damage = try cut(file, generation: read.generation, bytes: read.bytes, at: scan.validBytes,
                        path: read.path, because: found)
                } else {
                    logger.notice(
                        "journal: dropping a torn tail (an append a crash interrupted; never acknowledged)",
                        metadata: [
                            "file": "\(read.path)", "offset": "\(scan.validBytes)",
                            "discarded_bytes": "\(read.bytes.count - scan.validBytes)", "reason": "\(scan.reason)",
                        ])
                    try file.truncate(to: scan.validBytes, path: read.path)
                    try file.syncData(path: read.path)
                }
                discarded += read.bytes.count - scan.validBytes
            }
            contents.journalPaths.append(read.path)
            contents.journalFirstRecords.append(contents.records.count)
            contents.records += scan.records
            contents.recordOffsets += scan.offsets
            if isLive {
                keep = true
                journal = file
                generation = read.generation
                journalBytes = scan.validBytes
            } else {
                earlierJournals.append(EarlierJournal(generation: read.generation, bytes: scan.validBytes))
            }
        }
        if journal == nil {
            if let found = plan.damage {
                damage = try keepAside(nil, generation: snapshotGeneration, path: found.file ?? "", because: found)
            }
            generation = snapshotGeneration
            journal = try createJournal(generation, previousLength: 0, syncsFile: true, syncsDirectory: true)
            journalBytes = JournalFormat.journalHeaderSize
            contents.journalPaths = [journalPath(generation)]
            contents.journalFirstRecords = [0]
        }
        contents.discardedBytes = discarded
        contents.damage = damage
        logger.info(
            "journal: loaded",
            metadata: [
                "directory": "\(directory.path)", "generation": "\(generation)", "snapshot_bytes": "\(snapshotBytes)",
                "journals": "\(contents.journalPaths.count)", "records": "\(contents.records.count)",
                "journal_bytes": "\(journalBytes)", "discarded_bytes": "\(discarded)",
            ])
        return contents
    }

    /// ``JournalDamagePolicy/truncate`` for damage the store cannot see (a record that contradicts the ones before
    /// it): keeps the journal of record `position` of `contents` aside and cuts it there; the journals after it are
    /// kept aside too. ``load()`` reads it afresh afterwards.
    package func cutDamagedJournal(
        atRecord position: Int, of contents: JournalContents, because reason: String
    ) throws(JournalError) -> JournalDamage {
        try requireUsable()
        let index = contents.journal(ofRecord: position)
        let path = contents.journalPaths[index]
        let offset = contents.recordOffsets[position]
        guard let generation = JournalFormat.journalGeneration(fileName: String(path.split(separator: "/").last ?? ""))
        else { throw JournalError(.notOpen, "load() has not run") }
        for later in contents.journalPaths.dropFirst(index + 1) {
            let name = String(later.split(separator: "/").last ?? "")
            try directory.move(name, to: name + ".discarded")
        }
        let file = try FileDescriptor.open(journalFile: path, .readWrite)
        defer { try? file.close() }
        let bytes = try file.readAll(path: path)
        let error = JournalError(.damaged, reason, file: path, offset: offset)
        return try cut(file, generation: generation, bytes: bytes, at: offset, path: path, because: error)
    }

    /// ``JournalDamagePolicy/truncate`` for a journal the snapshot names that is missing (`bytes` `nil`) or has no
    /// valid header: keeps what there is aside, as ``cut(_:generation:bytes:at:path:because:)`` does, before the
    /// journal is created afresh; the state starts from the snapshot.
    private func keepAside(
        _ bytes: [UInt8]?, generation: UInt64, path: String, because error: JournalError
    ) throws(JournalError) -> JournalDamage {
        var keptAs = "(nothing: the file was missing)"
        if bytes != nil {
            let name = "\(JournalFormat.journalFileName(generation)).damaged-at-0"
            try directory.move(JournalFormat.journalFileName(generation), to: name)
            try directory.sync()
            keptAs = directory.filePath(name)
        }
        let damage = JournalDamage(
            file: path, offset: 0, discardedBytes: bytes?.count ?? 0, keptAs: keptAs, reason: error.message)
        logger.error(
            "journal: damaged; starting from the snapshot as asked (--journal-damage truncate)",
            metadata: ["file": "\(path)", "kept_as": "\(keptAs)", "error": "\(error)"])
        return damage
    }

    /// ``JournalDamagePolicy/truncate``: keeps a copy of the whole journal aside (`journal-<generation>.damaged-at-
    /// <offset>`, synced), then cuts the journal at `offset`.
    private func cut(
        _ file: FileDescriptor, generation: UInt64, bytes: [UInt8], at offset: Int, path: String,
        because error: JournalError
    ) throws(JournalError) -> JournalDamage {
        let name = "\(JournalFormat.journalFileName(generation)).damaged-at-\(offset)"
        let copyPath = directory.filePath(name)
        let copy = try FileDescriptor.open(journalFile: copyPath, .writeOnly, options: [.create, .truncate])
        do throws(JournalError) {
            try copy.write(bytes, at: 0, path: copyPath)
            try copy.syncAll(path: copyPath)
            try? copy.close()
        } catch {
            try? copy.close()
            throw error
        }
        try directory.sync()
        try file.truncate(to: offset, path: path)
        try file.syncData(path: path)
        let damage = JournalDamage(
            file: path, offset: offset, discardedBytes: bytes.count - offset, keptAs: copyPath, reason: error.message)
        logger.error(
            "journal: damaged; starting from the records before the damage as asked (--journal-damage truncate)",
            metadata: [
                "file": "\(path)", "offset": "\(offset)", "discarded_bytes": "\(damage.discardedBytes)",
                "kept_as": "\(copyPath)", "error": "\(error)",
            ])
        return damage
    }
}
