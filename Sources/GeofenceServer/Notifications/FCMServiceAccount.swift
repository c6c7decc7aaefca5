import CryptoExtras
import Foundation

/// A Google service account allowed to send through Firebase Cloud Messaging: the fields of its
/// JSON key file that the OAuth 2 exchange needs.
public struct FCMServiceAccount: Sendable {
    /// The account's address (the assertion's `iss`).
    public var clientEmail: String
    /// Where the signed assertion is exchanged for an access token (the assertion's `aud`).
    public var tokenURI: String
    /// The Firebase project the key file names, if it names one.
    public var projectID: String?
    /// The key's id (the assertion's `kid`), if the file names it.
    public var privateKeyID: String?
    let privateKey: _RSA.Signing.PrivateKey

    /// Reads the JSON key file Google's console downloads (`client_email`, `private_key` as a
    /// PKCS #8 PEM, `token_uri`).
    public init(json: Data) throws(PushCredentialsError) {
        guard let fields = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw .invalidServiceAccount("the service-account key is not a JSON object")
        }
        func text(_ name: String) throws(PushCredentialsError) -> String {
            guard let value = fields[name] as? String, !value.isEmpty else {
                throw .invalidServiceAccount("the service-account key has no \(name)")
            }
            return value
        }
        let tokenURI = try text("token_uri")
        guard let url = URL(string: tokenURI), url.scheme == "https", url.host != nil else {
            throw .invalidServiceAccount("the service-account key's token_uri is not an https URL")
        }
        try self.init(clientEmail: text("client_email"), tokenURI: tokenURI, privateKeyPEM: text("private_key"))
        projectID = fields["project_id"] as? String
        privateKeyID = fields["private_key_id"] as? String
    }

    public init(clientEmail: String, tokenURI: String, privateKeyPEM: String) throws(PushCredentialsError) {
        // swift-crypto refuses RSA keys under 2048 bits, as Google issues none.
        guard let key = try? _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM) else {
            throw .unreadableKey("the service account's private_key is not an RSA key of 2048 bits or more in PEM form")
        }
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
        self.privateKey = key
    }
}
