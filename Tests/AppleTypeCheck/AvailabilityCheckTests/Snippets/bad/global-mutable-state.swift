// Swift 6 language mode: a global `var` is shared mutable state.
// Xcode: var 'lastRegion' is not concurrency-safe because it is nonisolated global shared mutable state
// expect: [Swift 6] var 'lastRegion' is not concurrency-safe because it is nonisolated global shared mutable state
var lastRegion = ""
