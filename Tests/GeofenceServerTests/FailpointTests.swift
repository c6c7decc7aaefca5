import Foundation
import Testing

@testable import GeofenceServer

/// `GEOFENCE_FAILPOINTS` (docs/server.md, "Failpoints (testing)"): what it arms, and what it refuses.
@Suite("Failpoints")
struct FailpointTests {
    @Test("a failpoint stalls at its first reach unless @N names another")
    func parsesNamesAndReaches() throws {
        #expect(try Failpoints.parse("").get().isEmpty)
        #expect(try Failpoints.parse("snapshot-before-commit").get() == [.snapshotBeforeCommit: 1])
        #expect(
            try Failpoints.parse(" snapshot-after-export@3 , snapshot-after-commit").get()
                == [.snapshotAfterExport: 3, .snapshotAfterCommit: 1])
    }

    @Test(
        "an unknown failpoint or a reach below 1 is refused, naming the entry",
        arguments: [
            ("snapshot-befor-commit", "unknown failpoint 'snapshot-befor-commit'"),
            ("snapshot-before-commit@0", "'snapshot-before-commit@0'"),
            ("snapshot-before-commit@x", "'snapshot-before-commit@x'"),
            ("snapshot-before-commit@", "'snapshot-before-commit@'"),
        ])
    func refusesMalformedEntries(_ text: String, named: String) {
        guard case .failure(let error) = Failpoints.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.key == "GEOFENCE_FAILPOINTS")
        #expect(error.description.contains(named), "\(error)")
    }

    @Test("nothing is armed when the variable is unset (as in these tests)")
    func unarmedWithoutTheVariable() {
        #expect(ProcessInfo.processInfo.environment["GEOFENCE_FAILPOINTS"] == nil)
        #expect(!Failpoints.isArmed)
    }

    @Test("geofence serve with a misspelt failpoint does not start, and says why")
    func serverRefusesAnUnknownFailpoint() async throws {
        do {
            let server = try await ChildServer.start(
                ["--database", Harness.temporaryDatabase()],
                environment: ["GEOFENCE_FAILPOINTS": "snapshot-befor-commit"])
            server.kill()
            Issue.record("the server started")
        } catch ChildServerError.didNotStart(let log) {
            #expect(log.contains("unknown failpoint 'snapshot-befor-commit'"), "\(log.suffix(600))")
        }
    }
}
