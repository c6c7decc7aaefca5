#!/usr/bin/env bash
# Re-embeds openapi/openapi.json into the server module (run after editing the document).
set -euo pipefail
cd "$(dirname "$0")"
{
  echo '// Generated from openapi/openapi.json by openapi/embed.sh; a test checks they are equal.'
  echo
  echo '/// The OpenAPI 3.1 description of the API, served at `/v1/openapi.json`.'
  echo 'enum OpenAPIDocument {'
  echo '    static let json = #"""'
  cat openapi.json
  echo '"""#'
  echo '}'
} > ../Sources/GeofenceServer/HTTP/OpenAPIDocument.swift
