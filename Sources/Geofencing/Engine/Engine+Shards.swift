import Foundation

/// Engines that split one set of subjects between them over the same regions (the server's
/// per-tenant engine shards, a replay's worker lanes): the region side is shared, copy-on-write,
/// never copied per engine.
extension Engine {
    /// This engine's regions and policy with no subjects: the start of a shard.
    package var withoutSubjects: Engine {
        var copy = self
        copy.subjectStates = []
        copy.subjectIndex = [:]
        return copy
    }

    /// Takes `other`'s regions and policy (its store, index, stamps and shortcut epoch; shared
    /// with it, not copied), keeping this engine's subjects: the same engine as applying to
    /// this one the region changes that made `other` from the regions this one had.
    ///
    /// Valid only when this engine's regions and policy were `other`'s before those changes
    /// (a shard whose regions are only ever changed through this call): subject records refer
    /// to regions by slot and stamp and are checked against the store lazily, on their next
    /// fix or read, so moving the store, index and stamps across is what the changes do.
    package mutating func shareRegions(of other: Engine) {
        precondition(other.stampCounter >= stampCounter, "a shard takes regions from the engine that leads it")
        policy = other.policy
        rule = other.rule
        epoch = other.epoch
        store = other.store
        catalogueGeneration = other.catalogueGeneration
        index = other.index
        stampCounter = other.stampCounter
        initialExitLog = other.initialExitLog
        useSafeRects = other.useSafeRects
    }
}
