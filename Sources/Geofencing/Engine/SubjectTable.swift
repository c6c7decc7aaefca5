/// The engine's subject records, read and updated where they lie.
///
/// An `Array`'s subscript getter returns a copy of the element, which the optimizer removes
/// only when it inlines the getter — and it stops inlining in very large functions. The batch
/// loop (``Engine/process(_:subjects:initialTrigger:into:)``, with the whole evaluation inlined
/// into it) became one: every `subjectStates[si].field` there copied the whole record
/// (≈ 330 bytes, retaining its name and two buffers) and destroyed the copy again, about a
/// dozen times per fix — 10 % of a dense-city run (docs/performance.md, issue 35). This
/// table's subscript is a pair of addressors: a read or write of a field is a load or store
/// at the record's address, whatever the optimizer inlines.
///
/// A value type with the array's copy-on-write: a write makes the storage unique first.
struct SubjectTable: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    private var records: [SubjectState]

    init() { records = [] }
    init(arrayLiteral elements: SubjectState...) { records = elements }

    var startIndex: Int { 0 }
    var endIndex: Int { records.count }

    /// Subject `i`'s record, in place.
    ///
    /// Safety: the addresses point into `records`' buffer, which stays where it is and alive
    /// for as long as the access to `self` that asked for them (no other access can change
    /// `records` meanwhile: Swift's exclusivity rule). The write addressor makes the buffer
    /// unique first (`withUnsafeMutableBufferPointer`), so a copy of the table is never
    /// written through. The index is checked in both.
    subscript(i: Int) -> SubjectState {
        @inline(__always) unsafeAddress {
            precondition(i >= 0 && i < records.count, "subject index out of range")
            return records.withUnsafeBufferPointer { $0.baseAddress! + i }
        }
        @inline(__always) unsafeMutableAddress {
            precondition(i >= 0 && i < records.count, "subject index out of range")
            return records.withUnsafeMutableBufferPointer { $0.baseAddress! + i }
        }
    }

    mutating func append(_ record: SubjectState) { records.append(record) }

    mutating func reserveCapacity(_ n: Int) { records.reserveCapacity(n) }

    /// The records' storage, for prefetch hints (never read through after `body` returns).
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<SubjectState>) throws -> R) rethrows -> R {
        try records.withUnsafeBufferPointer(body)
    }
}
