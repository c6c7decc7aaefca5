import Testing

@testable import GeofenceCLI

@Test func versionIsSemantic() {
    let parts = GeofenceVersion.current.split(separator: ".")
    #expect(parts.count == 3 && parts.allSatisfy { Int($0) != nil })
}
