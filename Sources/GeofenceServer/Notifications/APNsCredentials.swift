import Crypto
import Foundation

/// What APNs token authentication needs: the signing key made in the developer account (a `.p8`
/// file), its key id, and the team id that owns it.
public struct APNsCredentials: Sendable {
    /// The 10-character key id Apple shows beside the key (the JWT's `kid`).
    public var keyID: String
    /// The 10-character team id (the JWT's `iss`).
    public var teamID: String
    /// The P-256 key from the `.p8` file.
    public var privateKey: P256.Signing.PrivateKey

    public init(keyID: String, teamID: String, privateKey: P256.Signing.PrivateKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.privateKey = privateKey
    }

    /// Reads the `.p8` file's text (a PKCS #8 PEM, `-----BEGIN PRIVATE KEY-----`).
    public init(keyID: String, teamID: String, p8 pem: String) throws(PushCredentialsError) {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
            throw .unreadableKey("the APNs key \(keyID) is not a P-256 private key in PEM form (.p8)")
        }
        self.init(keyID: keyID, teamID: teamID, privateKey: key)
    }
}

/// A push service's credentials could not be used.
public enum PushCredentialsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key text is not the kind of key the service needs.
    case unreadableKey(String)
    /// A field of the service account's JSON is missing or malformed.
    case invalidServiceAccount(String)

    public var description: String {
        switch self {
        case .unreadableKey(let detail), .invalidServiceAccount(let detail): detail
        }
    }
}
