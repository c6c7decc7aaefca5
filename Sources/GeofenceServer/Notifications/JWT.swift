import Crypto
import CryptoExtras
import Foundation

/// Compact JSON Web Tokens (RFC 7519) in the two forms the push services take: ES256 for APNs
/// provider tokens, RS256 for the assertion a Google service account exchanges for an access
/// token. Only signing lives here; the stand-ins in the tests verify with `JWT.Parts`.
package enum JWT {
    /// `header.claims`, each base64url-encoded JSON, ready to be signed.
    static func signingInput(header: some Encodable, claims: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try base64URL(encoder.encode(header)) + "." + base64URL(encoder.encode(claims))
    }

    /// ES256 (RFC 7518 §3.4): the P-256 signature as raw `r‖s`, 64 bytes, not DER.
    static func signES256(
        header: some Encodable, claims: some Encodable, key: P256.Signing.PrivateKey
    ) throws
        -> String
    {
        let input = try signingInput(header: header, claims: claims)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + base64URL(signature.rawRepresentation)
    }

    /// RS256 (RFC 7518 §3.3): RSASSA-PKCS1-v1_5 with SHA-256, the only algorithm Google's
    /// token endpoint takes for a service-account assertion.
    static func signRS256(
        header: some Encodable, claims: some Encodable, key: _RSA.Signing.PrivateKey
    ) throws
        -> String
    {
        let input = try signingInput(header: header, claims: claims)
        let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + base64URL(signature.rawRepresentation)
    }

    /// Base64url without padding (RFC 7515 §2).
    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The inverse of `base64URL`; nil for text that is not base64url.
    static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// A compact token split into its three parts, for checking one.
    package struct Parts {
        package var header: [String: Any]
        package var claims: [String: Any]
        package var signingInput: String
        package var signature: Data

        /// Nil unless the text is three base64url parts of which the first two are JSON objects.
        package init?(_ token: String) {
            let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
            guard pieces.count == 3,
                let headerData = JWT.decodeBase64URL(pieces[0]),
                let claimsData = JWT.decodeBase64URL(pieces[1]),
                let signature = JWT.decodeBase64URL(pieces[2]),
                let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
                let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
            else { return nil }
            self.header = header
            self.claims = claims
            self.signingInput = pieces[0] + "." + pieces[1]
            self.signature = signature
        }
    }
}
