import Crypto
import Foundation
import PushStandIns

/// The APNs stand-in as a process, for the notification benchmark (scripts/bench-notifications.sh):
///
///     push-stand-in --certificate cert.pem --key key.pem --signing-key AuthKey.p8 \
///         --key-id ABC123DEFG --team-id DEF123GHIJ --topic org.example.app --expect 10000
///
/// It trusts the public half of `--signing-key` (the `.p8` the server signs with), prints
/// `listening PORT`, then `first accepted at T` and `accepted N at T` (seconds since 1970) when
/// the `--expect`ed count is reached, and `accepted N` every second while the count changes.
/// It runs until killed.
func options() -> [String: String] {
    var out: [String: String] = [:]
    var arguments = CommandLine.arguments.dropFirst()
    while let name = arguments.popFirst() {
        guard name.hasPrefix("--"), let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data("push-stand-in: expected --name value, got \(name)\n".utf8))
            exit(64)
        }
        out[String(name.dropFirst(2))] = value
    }
    return out
}

/// One line to standard output, unbuffered (the benchmark script reads it while this runs).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func required(_ options: [String: String], _ name: String) -> String {
    guard let value = options[name] else {
        FileHandle.standardError.write(Data("push-stand-in: --\(name) is required\n".utf8))
        exit(64)
    }
    return value
}

let given = options()
let signingKey = try P256.Signing.PrivateKey(
    pemRepresentation: String(contentsOfFile: required(given, "signing-key"), encoding: .utf8))
let expected = Int(given["expect"] ?? "") ?? .max
let standIn = try await APNsStandIn.start(
    keyID: required(given, "key-id"), teamID: required(given, "team-id"), publicKey: signingKey.publicKey,
    topics: [required(given, "topic")],
    certificate: (required(given, "certificate"), required(given, "key")), clock: { Date() })
say("listening \(standIn.baseURL.split(separator: ":").last ?? "")")

var last = 0
var lastPrinted = Date()
var sawFirst = false
var reported = false
while true {
    let count = standIn.acceptedCount
    let now = Date()
    if count > 0, !sawFirst {
        sawFirst = true
        say("first accepted at \(now.timeIntervalSince1970)")
    }
    if count >= expected, !reported {
        reported = true
        say("accepted \(count) at \(now.timeIntervalSince1970), refused \(standIn.refusals.count)")
    }
    if count != last, now.timeIntervalSince(lastPrinted) >= 1 {
        say("accepted \(count)")
        last = count
        lastPrinted = now
    }
    try await Task.sleep(for: .milliseconds(2))
}
