import Crypto
import Foundation

/// The webhook signature: header `Geofence-Signature: t=UNIX_SECONDS,v1=HEX` where
/// `HEX = hex(HMAC-SHA256(secret, "\(t)." + body))` (the time is signed so a captured request
/// cannot be replayed later with a new time). Receivers recompute it and compare in constant
/// time, and dedup on the `Geofence-Event-Id` header.
public enum WebhookSignature {
    public static let header = "Geofence-Signature"
    public static let eventIDHeader = "Geofence-Event-Id"

    /// The header value for `body` sent at `timestamp` (whole Unix seconds).
    public static func header(secret: String, timestamp: Int, body: Data) -> String {
        "t=\(timestamp),v1=\(hex(mac(secret: secret, timestamp: timestamp, body: body)))"
    }

    /// Whether `header` is a valid signature of `body` under `secret`.
    public static func verify(header: String, secret: String, body: Data) -> Bool {
        var t: Int?
        var v1: String?
        for part in header.split(separator: ",") {
            let kv = part.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            if kv[0] == "t" { t = Int(kv[1]) }
            if kv[0] == "v1" { v1 = String(kv[1]) }
        }
        guard let t, let v1, let given = unhex(v1) else { return false }
        var data = Data("\(t).".utf8)
        data.append(body)
        return HMAC<SHA256>.isValidAuthenticationCode(
            given, authenticating: data, using: SymmetricKey(data: Data(secret.utf8)))
    }

    static func mac(secret: String, timestamp: Int, body: Data) -> Data {
        var data = Data("\(timestamp).".utf8)
        data.append(body)
        return Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: Data(secret.utf8))))
    }

    static func hex(_ d: some Sequence<UInt8>) -> String {
        d.map { String(format: "%02x", $0) }.joined()
    }

    static func unhex(_ s: String) -> Data? {
        guard s.count % 2 == 0 else { return nil }
        var out = Data()
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            guard let b = UInt8(s[i..<j], radix: 16) else { return nil }
            out.append(b)
            i = j
        }
        return out
    }
}

/// API keys: `gfk_` + 64 hex digits of randomness; the store keeps only the SHA-256 (hex).
public enum APIKey {
    /// A fresh random key.
    public static func generate() -> String {
        var rng = SystemRandomNumberGenerator()
        return "gfk_" + WebhookSignature.hex((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &rng) })
    }

    /// The hash stored for `key`.
    public static func hash(_ key: String) -> String {
        WebhookSignature.hex(SHA256.hash(data: Data(key.utf8)))
    }
}
