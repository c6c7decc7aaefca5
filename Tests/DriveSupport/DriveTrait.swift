import Testing

/// Runs a test (or every test of a suite) on ``DriveExecutor/shared``, off Swift's cooperative
/// pool: for tests that drive a planner, a monitor or a bridge through a long track.
public struct DriveTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withDriveExecutor(function)
    }
}

extension Trait where Self == DriveTrait {
    /// The test drives a long track: it runs on the drive harnesses' own thread
    /// (``DriveExecutor``), not on Swift's cooperative pool.
    public static var drive: Self { DriveTrait() }
}
