// The cost of normalizing identifiers (Identifier.swift) on the ingestion path: the check
// before normalization existed (`flaw` of the id as sent) against today's (`check`: NFC, then
// `flaw`), alternating rounds in one process so that both see the same machine.
// Run: bash scripts/identifier-bench.sh
import Foundation

/// Stands in for the server's problem type, which Identifier.swift throws.
package struct Problem: Error {
    var detail: String
    package static func badRequest(field: String, detail: String) -> Problem { Problem(detail: detail) }
}

@inline(never) func before(_ s: String) throws -> String {
    if let why = Identifier.flaw(s) { throw Problem.badRequest(field: "id", detail: why) }
    return s
}

@inline(never) func after(_ s: String) throws -> String { try Identifier.check(s, field: "id") }

/// 10,000 heap strings (not literals, as a request's ids are) `prefix` + a number. Ids of 16
/// UTF-8 bytes or more, as fleets name devices: shorter ones live inside the String value
/// itself, allocating nothing either way.
func ids(_ prefix: String) -> [String] {
    (0..<10_000).map { String(decoding: Array("\(prefix)\(1000 + $0)".utf8), as: UTF8.self) }
}

let cases: [(String, [String])] = [
    ("ASCII (fleet-north/van-1234)", ids("fleet-north/van-")),
    ("Latin-1 NFC (flotte-nord/café-1234)", ids("flotte-nord/caf\u{E9}-")),
    ("CJK NFC (北区车队/配送车-1234)", ids("北区车队/配送车-")),
    ("decomposed (flotte-nord/cafe\u{301}-1234)", ids("flotte-nord/cafe\u{301}-")),
]

func nanosPerID(_ f: (String) throws -> String, _ input: [String], rounds: Int = 20) -> Double {
    var sink = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<rounds { for s in input { sink &+= (try? f(s))?.utf8.count ?? 0 } }
    let ns = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(rounds * input.count)
    precondition(sink > 0)
    return ns
}

for (name, input) in cases {
    // The fast path gives the id back in the buffer it came in: no copy, no allocation.
    let same = input.allSatisfy { s in
        let out = try! after(s)
        return s.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
            == out.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
    }
    var old: [Double] = [] // ns per id, one entry a round
    var new: [Double] = []
    for _ in 0..<7 {
        old.append(nanosPerID(before, input))
        new.append(nanosPerID(after, input))
    }
    func range(_ a: [Double]) -> String { String(format: "%.0f–%.0f ns", a.min()!, a.max()!) }
    print("\(name): before \(range(old)), after \(range(new)) per id; same buffer back: \(same)")
}
