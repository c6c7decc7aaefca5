import DriveSupport
import Testing

/// Where drive tests run (``DriveExecutor``): on the drive harnesses' own thread, off Swift's
/// cooperative pool, the default actors they call and their child tasks included.
@Suite("drive executor")
struct DriveExecutorTests {
    /// A default actor (no executor of its own), as the planner is.
    actor Probe {
        func runsOnDriveThread() -> Bool { DriveExecutor.isCurrent }
    }

    @Test(
        "a test with the drive trait, the default actors it calls and its child tasks run on the drive thread", .drive)
    func driveTrait() async {
        #expect(DriveExecutor.isCurrent)
        #expect(await Probe().runsOnDriveThread())
        async let child = DriveExecutor.isCurrent
        #expect(await child)
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { await Probe().runsOnDriveThread() } }
            for await onDriveThread in group { #expect(onDriveThread) }
        }
    }

    @Test("without the trait a test and its actors run on the cooperative pool; withDriveExecutor moves them")
    func withoutTrait() async {
        #expect(!DriveExecutor.isCurrent)
        #expect(await !Probe().runsOnDriveThread())
        let moved = await withDriveExecutor { await Probe().runsOnDriveThread() }
        #expect(moved)
        #expect(!DriveExecutor.isCurrent, "back on the pool after the scope")
    }
}
