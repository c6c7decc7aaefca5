import Foundation
import GeoFormats
import Geodesy

/// Fetches a device's plans from the server (`GET /v1/devices/{id}/plan`) and keeps the one in
/// force with HTTP's caching rules: it is fresh for the plan's `max-age`, then revalidated
/// with `If-None-Match` (a `304` keeps it and counts in ``PlanSourceStatistics/notModified``).
///
/// ```swift
/// let source = ServerPlanSource(server: "https://geo.example.com", key: apiKey, device: "phone-7",
///                               transport: URLSessionPlanTransport())
/// let result = try await source.fetch(at: here, now: .now)      // .changed(plan) or .unchanged
/// if await source.isExpired(at: .now) { _ = try await source.revalidate(now: .now) }
/// ```
///
/// ``fetch(at:now:)`` asks for the plan at a new point; ``revalidate(now:)`` asks again for
/// the plan held (the same URL, so an unchanged plan is a `304`). Both send the ETag held, so
/// a switched-off tenant's answer (which does not depend on the point) is a `304` too.
public actor ServerPlanSource {
    /// The outcome of a request.
    public enum Result: Sendable, Hashable {
        /// A new plan (a `200`).
        case changed(ServerPlan)
        /// The plan held is still the server's (a `304`).
        case unchanged
    }

    /// The server's base URL (`http://127.0.0.1:8080`).
    public nonisolated let server: String
    public nonisolated let key: String
    public nonisolated let device: String
    /// The device's region slots (the plan keeps one for its re-plan circle).
    public nonisolated let slots: Int
    /// The longest time between the phone's fixes (seconds), sent when above 1 s so that the
    /// server sizes the re-plan circle for it; `nil`: the server's assumption (1 s).
    public nonisolated let fixInterval: TimeInterval?
    /// How late the phone's region events may arrive (seconds), sent when above 0 so that the
    /// server sizes the re-plan circle for the travel in that time (Core Location: 300; within
    /// `ReplanSizing.boundedEventLatency`).
    public nonisolated let eventLatency: TimeInterval
    let transport: any PlanTransport

    /// The plan in force.
    public private(set) var plan: ServerPlan?
    /// Requests and their outcomes.
    public private(set) var statistics = PlanSourceStatistics()
    private var etag: String?
    private var heldURL: String?
    private var expiresAt: Date?

    public init(
        server: String, key: String, device: String, slots: Int = 20, fixInterval: TimeInterval? = nil,
        eventLatency: TimeInterval = 0, transport: any PlanTransport
    ) {
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.key = key
        self.device = device
        self.slots = slots
        self.fixInterval = fixInterval.map { min(3_600, max(1, $0.isFinite ? $0 : 3_600)) }
        self.eventLatency = ReplanSizing.boundedEventLatency(eventLatency)
        self.transport = transport
    }

    /// Whether the plan held is past its max-age at `now` (or there is none).
    public func isExpired(at now: Date) -> Bool {
        guard let expiresAt else { return true }
        return now >= expiresAt
    }

    /// Asks for the plan at `point`, sized for the longer of ``eventLatency`` and
    /// `eventLatency` (a follower's monitor states its own).
    public func fetch(
        at point: Coordinate, now: Date, eventLatency: TimeInterval = 0
    ) async throws(PlanSourceError) -> Result {
        try await request(url(at: point, eventLatency: eventLatency), now: now)
    }

    /// Asks again for the plan held (or fails when none is held).
    public func revalidate(now: Date) async throws(PlanSourceError) -> Result {
        guard let heldURL else { throw .malformed("no plan held to revalidate") }
        return try await request(heldURL, now: now)
    }

    func url(at point: Coordinate, eventLatency asked: TimeInterval = 0) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        let id = device.addingPercentEncoding(withAllowedCharacters: allowed) ?? device
        var url = "\(server)/v1/devices/\(id)/plan?lat=\(point.latitude)&lon=\(point.longitude)&slots=\(slots)"
        if let fixInterval, fixInterval > 1 { url += "&fixInterval=\(fixInterval)" }
        let latency = max(eventLatency, ReplanSizing.boundedEventLatency(asked))
        if latency > 0 { url += "&eventLatency=\(latency)" }
        return url
    }

    private func request(_ url: String, now: Date) async throws(PlanSourceError) -> Result {
        var headers = [("Authorization", "Bearer \(key)"), ("Accept", "application/json")]
        if let etag { headers.append(("If-None-Match", etag)) }
        let response: PlanHTTPResponse
        do { response = try await transport.get(url, headers: headers) } catch {
            statistics.failures += 1
            throw .transport("\(error)")
        }
        switch response.status {
        case 304 where plan != nil:
            statistics.notModified += 1
            heldURL = url
            expiresAt = now.addingTimeInterval(Self.maxAge(response.headers["cache-control"]) ?? plan!.maxAge)
            return .unchanged
        case 200:
            let json: JSONValue
            do { json = try JSONValue(parsing: response.body) } catch {
                statistics.failures += 1
                throw .malformed("\(error)")
            }
            let new: ServerPlan
            do { new = try ServerPlan(json: json) } catch {
                statistics.failures += 1
                throw error
            }
            statistics.fetched += 1
            plan = new
            etag = response.headers["etag"]
            heldURL = url
            expiresAt = now.addingTimeInterval(Self.maxAge(response.headers["cache-control"]) ?? new.maxAge)
            return .changed(new)
        default:
            statistics.failures += 1
            let detail = (try? JSONValue(parsing: response.body))?["detail"]?.stringValue ?? ""
            throw .status(response.status, String(detail.prefix(200)))
        }
    }

    /// The `max-age` directive of a `Cache-Control` value, in seconds.
    static func maxAge(_ cacheControl: String?) -> TimeInterval? {
        guard let cacheControl else { return nil }
        for part in cacheControl.split(separator: ",") {
            let p = part.trimmingCharacters(in: .whitespaces)
            if p.lowercased().hasPrefix("max-age="), let n = Int(p.dropFirst(8)), n >= 0 { return TimeInterval(n) }
        }
        return nil
    }
}

/// What a ``ServerPlanSource`` has done.
public struct PlanSourceStatistics: Sendable, Hashable {
    /// Plans received (`200`).
    public var fetched = 0
    /// Plans confirmed unchanged (`304`).
    public var notModified = 0
    /// Requests that failed (transport, status, malformed answer).
    public var failures = 0

    public init(fetched: Int = 0, notModified: Int = 0, failures: Int = 0) {
        self.fetched = fetched
        self.notModified = notModified
        self.failures = failures
    }
}
