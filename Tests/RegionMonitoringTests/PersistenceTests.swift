import Foundation
import Geodesy
import Testing

@testable import RegionMonitoring

@Suite("Persistence")
struct PersistenceTests {
    let circle = MonitorCondition.circular(center: paris, radius: 500)

    @Test("conditions and last events persist under the monitor's name, across device restarts")
    func persistsAcrossDevices() async throws {
        let dir = temporaryDirectory()
        let store = MonitorStore(directory: dir)
        let first = makeDevice(store: store)
        let m = try await Monitor("fleet", device: first)
        await m.add(circle, identifier: "depot", assuming: .unsatisfied)
        try await first.feed(walkIn())
        #expect(FileManager.default.fileExists(atPath: store.url(for: "fleet").path))

        let second = makeDevice(store: store)
        let reopened = try await Monitor("fleet", device: second)
        #expect(await reopened.identifiers == ["depot"])
        #expect(await reopened.record(for: "depot")?.lastEvent.state == .satisfied)
        #expect(await reopened.record(for: "depot")?.lastEvent.date == t0.addingTimeInterval(30))
    }

    @Test("events missed while closed survive a device restart and are delivered once")
    func pendingPersist() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        let first = makeDevice(store: store)
        let m = try await Monitor("fleet", device: first)
        await m.add(circle, identifier: "depot", assuming: .unsatisfied)
        await m.close()
        try await first.feed(walkIn())

        let second = makeDevice(store: store)
        let relaunched = try await Monitor("fleet", device: second)
        #expect(await drain(relaunched).map(\.state) == [.satisfied])
        let third = makeDevice(store: store)
        #expect(await drain(try await Monitor("fleet", device: third)).isEmpty)
    }

    @Test("a missing store is a fresh monitor")
    func missingStore() async throws {
        let store = MonitorStore(directory: temporaryDirectory().appendingPathComponent("not-yet"))
        let m = try await Monitor("new", device: makeDevice(store: store))
        #expect(await m.identifiers.isEmpty)
    }

    @Test("a corrupt store is reported with its path and reason, left untouched, and can be discarded")
    func corruptStore() async throws {
        let dir = temporaryDirectory()
        let store = MonitorStore(directory: dir)
        let url = store.url(for: "fleet")
        let garbage = Data("{\"version\": 1, \"name\": \"fleet\", \"order\": [".utf8)
        try garbage.write(to: url)
        let device = makeDevice(store: store)
        do {
            _ = try await Monitor("fleet", device: device)
            Issue.record("expected storeCorrupt")
        } catch {
            guard case .storeCorrupt(let name, let path, let reason) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(name == "fleet")
            #expect(path == url.path)
            #expect(reason.contains("JSON"))
        }
        #expect(try Data(contentsOf: url) == garbage, "never overwritten")
        try store.discard(name: "fleet")
        _ = try await Monitor("fleet", device: device)
    }

    @Test("a store whose records do not match is corrupt, naming what is wrong")
    func inconsistentStore() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        try Data(#"{"version":1,"name":"fleet","order":["a"],"records":{},"pending":[]}"#.utf8).write(
            to: store.url(for: "fleet"))
        await #expect(throws: MonitoringError.self) { _ = try await Monitor("fleet", device: makeDevice(store: store)) }
        try Data(#"{"version":1,"name":"fleet","order":[],"pending":[]}"#.utf8).write(to: store.url(for: "fleet"))
        do { _ = try await Monitor("fleet", device: makeDevice(store: store)) } catch {
            #expect(error.description.contains("records"))
        }
    }

    @Test("an unwritable store gives persistenceUnavailable, never a crash")
    func unwritable() async throws {
        let dir = temporaryDirectory()
        let blocker = dir.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let store = MonitorStore(directory: blocker) // a file where the directory should be
        let device = makeDevice(store: store)
        let m = try await Monitor("fleet", device: device)
        await m.add(circle, identifier: "a", assuming: .unsatisfied)
        try await device.feed(walkIn())
        let events = await drain(m)
        #expect(events.count == 1)
        #expect(events.first?.persistenceUnavailable == true)
    }

    @Test("writes are atomic JSON: the file always decodes to the last state")
    func atomicJSON() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        let device = makeDevice(store: store)
        let m = try await Monitor("fleet", device: device)
        for i in 0..<5 { await m.add(circle, identifier: "c\(i)") }
        let snap = try #require(try store.load(name: "fleet"))
        #expect(snap.order == ["c0", "c1", "c2", "c3", "c4"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(leftovers == ["fleet.monitor.json"], "no temporary files left behind")
    }

    @Test("location manager regions persist between launches of the app, across device restarts")
    func appRegionsPersist() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        let first = makeDevice(store: store)
        let (m, _) = await manager(on: first)
        await m.startMonitoring(for: region("a"))
        await m.startMonitoring(for: region("b", at: offset(5_000)))
        await m.stopMonitoring(for: region("b"))

        let second = makeDevice(store: store)
        let (relaunched, rec) = await manager(on: second)
        #expect(await relaunched.monitoredRegions.map(\.identifier) == ["a"])
        try await second.feed(walkIn())
        #expect(rec.enters == ["a"])
        #expect(await second.storeIssue == nil)
    }

    @Test("an unreadable region file is reported by the device, which starts with no regions")
    func corruptAppRegions() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        try Data("[{\"circle\":".utf8).write(to: store.appRegionsURL)
        let device = makeDevice(store: store)
        guard case .storeCorrupt(_, let path, _)? = await device.storeIssue else {
            Issue.record("expected a store issue")
            return
        }
        #expect(path == store.appRegionsURL.path)
        let (m, _) = await manager(on: device)
        #expect(await m.monitoredRegions.isEmpty)
    }
}
