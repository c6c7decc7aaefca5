import Foundation

/// Track files opened on a thread of their own while the caller does other work (loads the
/// regions): opening a file reads its first megabyte to detect the format, about 1 ms per
/// file, so 200 tracks would otherwise keep one core busy for 0.2 s while the other waits.
///
/// ```swift
/// let opening = TrackOpening(paths: tracks)
/// let regions = try InputFiles.loadRegions(path: path)   // meanwhile
/// let sources = try opening.wait()
/// ```
///
/// The files are opened in order, as ``InputFiles/openTrack(path:)`` would open them one
/// after the other, and ``wait()`` throws the first one's error. Call ``wait()`` once,
/// even on a path that fails otherwise, so that no thread outlives the command.
final class TrackOpening: @unchecked Sendable {
    typealias Opened = (format: String, source: any TrackSource)

    private let finished = DispatchSemaphore(value: 0)
    // Written by the opening thread before it signals `finished`; read only after waiting.
    private var result: Result<[Opened], InputError> = .success([])

    init(paths: [String]) {
        let thread = Thread { [self] in
            do throws(InputError) {
                var opened: [Opened] = []
                opened.reserveCapacity(paths.count)
                for path in paths { opened.append(try InputFiles.openTrack(path: path)) }
                result = .success(opened)
            } catch {
                result = .failure(error)
            }
            finished.signal()
        }
        thread.name = "geofence.open-tracks"
        thread.start()
    }

    /// The opened tracks, in the order of the paths, once the thread is done.
    /// - Throws: the first file's ``InputError``.
    func wait() throws(InputError) -> [Opened] {
        finished.wait()
        return try result.get()
    }
}
