/// Records read and updated where they lie: the engine's subject records and the region
/// store's hot records.
///
/// An `Array`'s subscript getter returns a copy of the element, which the optimizer removes
/// only when it inlines the getter — and it stops inlining in very large functions. The batch
/// loop (``Engine/process(_:subjects:measured:initialTrigger:into:)``, with the whole evaluation inlined
/// into it) became one: every `subjectStates[si].field` there copied the whole record
/// (≈ 330 bytes, retaining its name and two buffers) and destroyed the copy again, about a
/// dozen times per fix — 10 % of a dense-city run — and every `store.hot[s]` of a candidate
/// was a call (docs/performance.md, issue 35). This table's subscript is a pair of
/// addressors: a read or write of a field is a load or store at the record's address,
/// whatever the optimizer inlines. Its count is read from the buffer too (the array's `count`
/// getter was left a call as well).
///
/// A value type with the array's copy-on-write: a write makes the storage unique first.
struct RecordTable<Record>: RandomAccessCollection, ExpressibleByArrayLiteral {
    private var records: [Record]

    init() { records = [] }
    init(arrayLiteral elements: Record...) { records = elements }

    var startIndex: Int { 0 }
    var endIndex: Int {
        @inline(__always) get { records.withUnsafeBufferPointer { $0.count } }
    }
    var count: Int {
        @inline(__always) get { records.withUnsafeBufferPointer { $0.count } }
    }
    var capacity: Int { records.capacity }

    /// Record `i`, in place.
    ///
    /// Safety: the addresses point into `records`' buffer, which stays where it is and alive
    /// for as long as the access to `self` that asked for them (no other access can change
    /// `records` meanwhile: Swift's exclusivity rule). The write addressor makes the buffer
    /// unique first (`withUnsafeMutableBufferPointer`), so a copy of the table is never
    /// written through. The index is checked in both.
    subscript(i: Int) -> Record {
        @inline(__always) unsafeAddress {
            records.withUnsafeBufferPointer { b in
                precondition(i >= 0 && i < b.count, "record index out of range")
                return b.baseAddress! + i
            }
        }
        @inline(__always) unsafeMutableAddress {
            records.withUnsafeMutableBufferPointer { b in
                precondition(i >= 0 && i < b.count, "record index out of range")
                return b.baseAddress! + i
            }
        }
    }

    mutating func append(_ record: Record) { records.append(record) }

    mutating func reserveCapacity(_ n: Int) { records.reserveCapacity(n) }

    /// Asks for huge pages behind the reserved storage (``HugePages``).
    mutating func adviseHugePages() { HugePages.advise(&records) }

    /// The records' storage, for prefetch hints (never read through after `body` returns).
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Record>) throws -> R) rethrows -> R {
        try records.withUnsafeBufferPointer(body)
    }
}

extension RecordTable: Sendable where Record: Sendable {}

/// The engine's subject records (``Engine/subjectStates``).
typealias SubjectTable = RecordTable<SubjectState>
