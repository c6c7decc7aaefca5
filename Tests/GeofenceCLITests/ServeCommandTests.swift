import Foundation
import GeofenceServer
import Testing

@testable import GeofenceCLI

@Suite("geofence serve", .serialized)
struct ServeCommandTests {
    @Test("options override the config file, and bad values are rejected naming the option")
    func options() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("serve-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let config = dir.appendingPathComponent("server.json")
        try Data(
            #"{"port": 9000, "database": "a.sqlite", "allowedWebhookHosts": ["hooks.internal"], "profile": "coreLocation"}"#
                .utf8
        ).write(to: config)
        let cmd =
            try GeofenceCommand.parseAsRoot(["serve", "--config", config.path, "--port", "9100"]) as? ServeCommand
        let c = try #require(try cmd?.resolvedConfiguration())
        #expect(c.port == 9100)
        #expect(c.database == "a.sqlite")
        #expect(c.allowedWebhookHosts == ["hooks.internal"])
        #expect(c.policy == .coreLocation)
        #expect(c.sqliteSynchronous == .normal)
        let full = try #require(
            try GeofenceCommand.parseAsRoot(["serve", "--sqlite-synchronous", "full"]) as? ServeCommand)
        #expect(try full.resolvedConfiguration().sqliteSynchronous == .full)
        #expect { try GeofenceCommand.parseAsRoot(["serve", "--sqlite-synchronous", "off"]) } throws: {
            GeofenceCommand.message(for: $0).contains("--sqlite-synchronous")
        }
        try Data(#"{"sqliteSynchronous": "full"}"#.utf8).write(to: config)
        let fromConfig = try #require(
            try GeofenceCommand.parseAsRoot(["serve", "--config", config.path]) as? ServeCommand)
        #expect(try fromConfig.resolvedConfiguration().sqliteSynchronous == .full)
        try Data(#"{"sqliteSynchronous": "extra"}"#.utf8).write(to: config)
        var fromFile = ServerConfiguration()
        #expect { try fromFile.apply(configFile: config.path) } throws: {
            ($0 as? ConfigurationError)?.key == "sqliteSynchronous"
        }

        #expect(throws: (any Error).self) { try GeofenceCommand.parseAsRoot(["serve", "--port", "70000"]) }
        try Data(#"{"profile": "fast"}"#.utf8).write(to: config)
        #expect(throws: (any Error).self) { try GeofenceCommand.parseAsRoot(["serve", "--config", config.path]) }
    }

    @Test("the server.json of docs/server.md is a valid configuration and sets every key it shows")
    func documentedConfigFile() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/server.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try #require(text.range(of: "`server.json` (every key optional"))
        let block = try #require(text[start.upperBound...].range(of: "```json\n"))
        let end = try #require(text[block.upperBound...].range(of: "```"))
        let json = String(text[block.upperBound..<end.lowerBound])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("doc-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(json.utf8).write(to: file)
        var c = ServerConfiguration()
        try c.apply(configFile: file.path)
        #expect(c.allowedWebhookHosts == ["hooks.internal"])
        #expect(c.sqliteSynchronous == .normal && c.snapshots.everyFixes == 100_000)
        #expect(c.idleTimeout == .seconds(60) && c.maxConnections == 10_000)
        #expect(c.snapshots.maximumShare == 0.05)
        #expect(c.planSizing == PlanAssumptions().sizing)
    }

    @Test("with no arguments the server uses geofence.sqlite on 127.0.0.1:8080")
    func defaults() throws {
        let cmd = try #require(try GeofenceCommand.parseAsRoot(["serve"]) as? ServeCommand)
        let c = try cmd.resolvedConfiguration()
        #expect(c.port == 8080 && c.host == "127.0.0.1" && c.database == "geofence.sqlite")
    }

    @Test("create-key writes to the store named by --database (not ./geofence.sqlite)")
    func createKeyUsesDatabaseOption() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "serve-cli-\(UUID().uuidString)/keys.sqlite"
        ).path
        let cmd = try #require(
            try GeofenceCommand.parseAsRoot(["serve", "create-key", "--tenant", "acme", "--database", path])
                as? ServeCommand.CreateKey)
        try await cmd.run()
        #expect(FileManager.default.fileExists(atPath: path))
        let store = try await GeofenceServer.openStore(path)
        #expect(try await store.tenants() == ["acme"])
        try await store.close()
    }
}
