import Testing

@testable import Geofencing

/// The in-place record table behind the engine's subject and region records (issue 35).
@Suite("Record table")
struct RecordTableTests {
    @Test("a write through a copy leaves the original as it was (copy on write)")
    func copyOnWrite() {
        var table = RecordTable<Int>()
        for i in 0..<100 { table.append(i) }
        var copy = table
        copy[7] += 1_000
        #expect(table[7] == 7)
        #expect(copy[7] == 1_007)
        #expect(table.count == 100 && copy.count == 100)
        table[99] = -1
        #expect(Array(table.suffix(2)) == [98, -1])
        #expect(Array(copy.suffix(2)) == [98, 99])
    }

    @Test("fields are read and written in place")
    func fields() {
        var hot = RecordTable<RegionStore.Hot>()
        hot.append(RegionStore.Hot(x: 1, y: 2, z: 3, size: 50, stamp: 9, flags: RegionStore.Flags.alive))
        hot[0].stamp += 1
        hot[0].flags |= RegionStore.Flags.area
        #expect(hot[0].stamp == 10)
        #expect(hot[0].flags == RegionStore.Flags.alive | RegionStore.Flags.area)
        #expect(hot[0].size == 50)
    }
}
