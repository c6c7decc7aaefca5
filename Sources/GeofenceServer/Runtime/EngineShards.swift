import Foundation
import Geofencing

/// One tenant's engine split by device into shards that run in parallel: each device lives in
/// exactly one shard (``shard(of:)``, a fixed hash of its identifier), and every shard holds
/// the same regions — one region store and index, shared copy-on-write, since processing a
/// fix never writes them (``Engine/shareRegions(of:)``).
///
/// Devices never influence each other in an engine, so the shards together behave exactly as
/// one engine holding every device: the same events for the same fixes of each device, in
/// each device's order. Region changes go to shard 0 and are then shared with the others, so
/// all shards always hold the same regions.
///
/// A shard's engine may be taken out (``take(_:)``) to run a batch off the tenant's actor, and
/// put back (``putBack(_:_:)``); reads and region changes happen only while every shard is in
/// (the runtime waits for that first).
package struct EngineShards: Sendable {
    /// The shards; `nil` while a shard is taken out.
    private var engines: [Engine?]

    /// One shard per active processor core: the most engines that can run at once.
    package static var defaultCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// An empty engine split into `count` shards (at least 1).
    init(policy: HysteresisPolicy, count: Int) {
        self.init(Engine(policy: policy), count: count)
    }

    /// `engine`'s regions and subjects, each subject moved to its shard.
    init(_ engine: Engine, count: Int) {
        let n = max(1, count)
        guard n > 1 else {
            engines = [engine]
            return
        }
        let empty = engine.withoutSubjects
        var shards = [Engine](repeating: empty, count: n)
        for subject in engine.subjects {
            _ = shards[Self.shard(of: subject, count: n)].adoptSubject(subject, from: engine)
        }
        engines = shards
    }

    var count: Int { engines.count }

    /// The shard of `device`: FNV-1a of its UTF-8 bytes (the same in every process, unlike
    /// `Hasher`), its bits mixed (MurmurHash3's finalizer: FNV's low bits follow the bytes'
    /// low bits, so `dev-1`, `dev-2`, … would alternate between two shards of four), modulo
    /// the shard count.
    func shard(of device: String) -> Int { Self.shard(of: device, count: engines.count) }

    static func shard(of device: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return Int(hash % UInt64(count))
    }

    // MARK: Taking shards out

    /// Takes shard `k`'s engine out (uniquely held by the caller, so running fixes through it
    /// copies nothing); it must be put back before any read or region change.
    mutating func take(_ k: Int) -> Engine {
        guard let engine = engines[k] else { preconditionFailure("engine shard \(k) is already taken out") }
        engines[k] = nil
        return engine
    }

    mutating func putBack(_ engine: consuming Engine, _ k: Int) {
        precondition(engines[k] == nil, "engine shard \(k) was not taken out")
        engines[k] = engine
    }

    /// The shard holding `device`, in place.
    subscript(device device: String) -> Engine {
        get { engines[shard(of: device)]! }
        _modify { yield &engines[shard(of: device)]! }
    }

    /// Shard 0, which leads region changes.
    private var lead: Engine { engines[0]! }

    // MARK: Reads

    func lastFix(of device: String) -> LocationFix? { self[device: device].lastFix(of: device) }
    func regionsContaining(subject device: String) -> [String] {
        self[device: device].regionsContaining(subject: device)
    }
    func pendingRegions(of device: String) -> [String] { self[device: device].pendingRegions(of: device) }
    func state(of device: String, in region: String) -> RegionState {
        self[device: device].state(of: device, in: region)
    }
    func region(identifier: String) -> Region? { lead.region(identifier: identifier) }
    var regions: [Region] { lead.regions }
    var regionCount: Int { lead.regionCount }
    /// Every device, shard by shard (each in order of first appearance).
    var subjects: [String] { engines.flatMap { $0!.subjects } }

    /// One engine holding every shard's subjects (for snapshots and tests): shard 0 with the
    /// others' subjects adopted. O(devices); run it off the tenant's actor when it is large.
    var merged: Engine {
        var all = lead
        for k in engines.indices.dropFirst() {
            let shard = engines[k]!
            for subject in shard.subjects { _ = all.adoptSubject(subject, from: shard) }
        }
        return all
    }

    // MARK: Changes

    /// Runs `fix` through its device's shard.
    mutating func process(_ fix: LocationFix) throws -> [TransitionEvent] {
        try self[device: fix.subject].process(fix)
    }

    /// Adds or replaces regions in every shard (``Engine/add(contentsOf:)``: all or nothing).
    mutating func add(contentsOf regions: [Region]) throws {
        try engines[0]!.add(contentsOf: regions)
        shareLeadRegions()
    }

    /// Removes a region from every shard; whether it was there.
    @discardableResult
    mutating func remove(identifier: String) -> Bool {
        guard engines[0]!.remove(identifier: identifier) else { return false }
        shareLeadRegions()
        return true
    }

    private mutating func shareLeadRegions() {
        let lead = self.lead
        for k in engines.indices.dropFirst() { engines[k]!.shareRegions(of: lead) }
    }
}
