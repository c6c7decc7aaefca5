import Foundation

/// The OpenAPI 3.1 description of the API, served at `/v1/openapi.json`: the package resource
/// `Resources/openapi.json` (`openapi/openapi.json` is a symbolic link to it), read once. One
/// file is the contract; the contract tests and the CI's schemathesis run check the server
/// against it.
enum OpenAPIDocument {
    /// The document's bytes, or `nil` when the resource bundle is missing (a broken install;
    /// the route then answers 500 and the log says why).
    static let data: Data? = PackageResources.url("openapi.json").flatMap { try? Data(contentsOf: $0) }
}
