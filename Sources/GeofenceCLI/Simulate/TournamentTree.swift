/// The smallest of `count` numbers under updates: a tournament tree, O(log n) per update and
/// O(1) per query. Ties go to the lowest index, as a linear scan keeping the first minimum
/// would give.
///
/// ```swift
/// var tree = TournamentTree(count: 3, initial: .infinity)
/// tree[1] = 5
/// tree.winner   // 1 (tree.minimum == 5)
/// ```
struct TournamentTree {
    private var values: [Double]
    /// Node k (1-based heap order) holds the index of its subtree's winner; leaves are
    /// nodes `leaves ..< 2 * leaves`.
    private var winners: [Int]
    private let leaves: Int

    init(count: Int, initial: Double) {
        var n = 1
        while n < max(1, count) { n *= 2 }
        leaves = n
        values = Array(repeating: initial, count: count) + Array(repeating: .infinity, count: n - count)
        winners = Array(repeating: 0, count: 2 * n)
        for i in 0..<n { winners[n + i] = i }
        for k in stride(from: n - 1, through: 1, by: -1) { winners[k] = match(winners[2 * k], winners[2 * k + 1]) }
    }

    /// The index with the smallest value (the lowest such index).
    var winner: Int { winners[1] }
    /// The smallest value.
    var minimum: Double { values[winners[1]] }

    subscript(i: Int) -> Double {
        get { values[i] }
        set {
            values[i] = newValue
            var k = (leaves + i) / 2
            while k >= 1 {
                winners[k] = match(winners[2 * k], winners[2 * k + 1])
                k /= 2
            }
        }
    }

    /// The winner of two indices (`a` < `b`): the smaller value, `a` at a tie.
    private func match(_ a: Int, _ b: Int) -> Int {
        values[b] < values[a] ? b : a
    }
}
