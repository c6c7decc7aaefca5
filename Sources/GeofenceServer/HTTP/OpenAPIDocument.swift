// Generated from openapi/openapi.json by openapi/embed.sh; a test checks they are equal.

/// The OpenAPI 3.1 description of the API, served at `/v1/openapi.json`.
enum OpenAPIDocument {
    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Geofence server",
    "version": "1.0.0",
    "description": "Devices report locations; the server detects geofence transitions per tenant and delivers them by webhook. All routes but /health need `Authorization: Bearer KEY` (create keys with `geofence serve create-key --tenant T`). Errors are RFC 9457 problem documents naming the field at fault."
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080"
    }
  ],
  "security": [
    {
      "apiKey": []
    }
  ],
  "paths": {
    "/health": {
      "get": {
        "summary": "Liveness",
        "security": [],
        "responses": {
          "200": {
            "description": "Server is up",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "status": {
                      "const": "ok"
                    }
                  }
                }
              }
            }
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "summary": "Prometheus metrics (operator token, or any API key when none is configured)",
        "responses": {
          "200": {
            "description": "Prometheus text format",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/openapi.json": {
      "get": {
        "summary": "This document",
        "responses": {
          "200": {
            "description": "OpenAPI 3.1 document",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    },
    "/v1/regions": {
      "get": {
        "summary": "List regions, ordered by id",
        "parameters": [
          {
            "name": "bbox",
            "in": "query",
            "required": false,
            "description": "Only regions whose bounding box overlaps this box: `minLon,minLat,maxLon,maxLat` in degrees (west, south, east, north, as in RFC 7946). A west edge east of the east edge crosses the antimeridian. Answered from the tenant's regions in memory; the page then also carries `matched`, how many regions overlap in all. 400 naming `bbox` unless four finite numbers with latitudes in [-90, 90], minLat <= maxLat and longitudes in [-180, 180].",
            "schema": {
              "type": "string",
              "pattern": "^[^,]+,[^,]+,[^,]+,[^,]+$"
            },
            "example": "121.40,31.15,121.60,31.30"
          },
          {
            "name": "after",
            "in": "query",
            "required": false,
            "description": "Return regions whose id sorts after this (the previous page's `next`)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "Page size",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "default": 100
            }
          }
        ],
        "responses": {
          "200": {
            "description": "A page",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RegionPage"
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "post": {
        "summary": "Create a region (409 if the id exists)",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RegionFeature"
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RegionFeature"
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/regions/import": {
      "post": {
        "summary": "Bulk import a GeoJSON FeatureCollection (all or nothing; existing ids replaced)",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RegionCollection"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Imported",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "imported": {
                      "type": "integer"
                    },
                    "created": {
                      "type": "integer"
                    },
                    "replaced": {
                      "type": "integer"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/regions/nearby": {
      "get": {
        "summary": "The regions nearest a point, and the re-plan radius",
        "parameters": [
          {
            "name": "lat",
            "in": "query",
            "required": true,
            "description": "Latitude (degrees)",
            "schema": {
              "type": "number",
              "minimum": -90,
              "maximum": 90
            }
          },
          {
            "name": "lon",
            "in": "query",
            "required": true,
            "description": "Longitude (degrees)",
            "schema": {
              "type": "number",
              "minimum": -180,
              "maximum": 180
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "How many",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100,
              "default": 20
            }
          }
        ],
        "responses": {
          "200": {
            "description": "Nearest first",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Nearby"
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/regions/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "description": "Identifier",
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256
          }
        }
      ],
      "get": {
        "summary": "Get a region",
        "responses": {
          "200": {
            "description": "The region",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RegionFeature"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "put": {
        "summary": "Create or replace a region (the path id wins)",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/RegionFeature"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Replaced",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RegionFeature"
                }
              }
            }
          },
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/RegionFeature"
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "delete": {
        "summary": "Delete a region",
        "responses": {
          "204": {
            "description": "Deleted"
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/devices/{id}/locations": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "description": "Identifier",
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256
          }
        }
      ],
      "post": {
        "summary": "Report one fix or a batch (≤ 10,000, in time order)",
        "description": "Answers with the events the batch confirmed. A fix older than the device's last accepted fix, or a batch out of time order, is rejected with 409 (the problem carries lastAcceptedTimestamp) and nothing changes. Retrying is safe: a batch that ends exactly with the device's last accepted fix (same time, position and accuracy) is a retry of a committed batch and is answered 200 with duplicate true, accepted 0 and no events (its events are in /v1/events and on their way to the webhooks).",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "oneOf": [
                  {
                    "$ref": "#/components/schemas/Fix"
                  },
                  {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Fix"
                    },
                    "maxItems": 10000
                  },
                  {
                    "type": "object",
                    "required": [
                      "fixes"
                    ],
                    "properties": {
                      "fixes": {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/Fix"
                        },
                        "maxItems": 10000
                      }
                    }
                  }
                ]
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Accepted",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "accepted": {
                      "type": "integer"
                    },
                    "duplicate": {
                      "type": "boolean",
                      "description": "Present and true when the batch was a retry of the last committed one; nothing changed."
                    },
                    "events": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Event"
                      }
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/devices/{id}/state": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "description": "Identifier",
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256
          }
        }
      ],
      "get": {
        "summary": "A device's last fix and region states (Core Location's requestState)",
        "parameters": [
          {
            "name": "regions",
            "in": "query",
            "required": false,
            "description": "Comma-separated region ids whose state to report",
            "schema": {
              "type": "string"
            }
          }
        ],
        "responses": {
          "200": {
            "description": "State",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/DeviceState"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/events": {
      "get": {
        "summary": "The tenant's events after a cursor, oldest first",
        "parameters": [
          {
            "name": "after",
            "in": "query",
            "required": false,
            "description": "Cursor (`next` of the previous page; 0 or absent from the start)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "Page size",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "default": 100
            }
          }
        ],
        "responses": {
          "200": {
            "description": "A page",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "events": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Event"
                      }
                    },
                    "next": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/webhooks": {
      "get": {
        "summary": "List webhook endpoints",
        "responses": {
          "200": {
            "description": "Endpoints",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "webhooks": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Webhook"
                      }
                    }
                  }
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "post": {
        "summary": "Register an endpoint (host must be on the operator's allow-list); the secret is shown once",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "required": [
                  "url"
                ],
                "properties": {
                  "url": {
                    "type": "string",
                    "format": "uri"
                  }
                }
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "Created",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Webhook"
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/webhooks/{id}": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "description": "Identifier",
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256
          }
        }
      ],
      "delete": {
        "summary": "Remove an endpoint (pending deliveries are cancelled)",
        "responses": {
          "204": {
            "description": "Deleted"
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/webhooks/{id}/deliveries": {
      "parameters": [
        {
          "name": "id",
          "in": "path",
          "required": true,
          "description": "Identifier",
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256
          }
        }
      ],
      "get": {
        "summary": "Delivery state of each event sent to this endpoint",
        "parameters": [
          {
            "name": "after",
            "in": "query",
            "required": false,
            "description": "Delivery id cursor",
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "Page size",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000
            }
          }
        ],
        "responses": {
          "200": {
            "description": "Deliveries",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "properties": {
                    "deliveries": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Delivery"
                      }
                    },
                    "next": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/events/stream": {
      "get": {
        "summary": "The tenant's events as Server-Sent Events, live, resumable",
        "description": "Each event is `id: CURSOR`, `event: enter|exit|dwell`, `data: <Event JSON>`. Resume with the `Last-Event-ID` header (or `after`) set to the last id seen: no gaps, no duplicates. The stream ends after `limit` events or `timeout` seconds; reconnect to continue.",
        "parameters": [
          {
            "name": "after",
            "in": "query",
            "required": false,
            "description": "Cursor to start after (0 from the start)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "Last-Event-ID",
            "in": "header",
            "required": false,
            "description": "Resume cursor (wins over `after`)",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "End the stream after this many events",
            "schema": {
              "type": "integer",
              "minimum": 1
            }
          },
          {
            "name": "timeout",
            "in": "query",
            "required": false,
            "description": "End the stream after this many seconds",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 300,
              "default": 25
            }
          }
        ],
        "responses": {
          "200": {
            "description": "Event stream",
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "$ref": "#/paths/~1v1~1events/get/responses/400"
          },
          "401": {
            "$ref": "#/paths/~1v1~1events/get/responses/401"
          }
        }
      }
    },
    "/v1/ingest/owntracks": {
      "post": {
        "summary": "Report a location from the OwnTracks app (HTTP mode)",
        "description": "One OwnTracks message. Only _type location carries a fix (lat, lon, tst required; acc in metres, vel in km/h, cog in degrees optional); every other type and an empty body are acknowledged with [] and change nothing. The device is USER/DEVICE from the X-Limit-U and X-Limit-D headers (or the u and d query parameters, the topic owntracks/USER/DEVICE, or the Basic user with the tid). Same validation, events and webhooks as POST /v1/devices/{id}/locations; problems name OwnTracks' fields.",
        "security": [
          {
            "apiKey": []
          },
          {
            "basicKey": []
          },
          {
            "keyQuery": []
          }
        ],
        "parameters": [
          {
            "name": "X-Limit-U",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "maxLength": 128
            },
            "description": "OwnTracks user name"
          },
          {
            "name": "X-Limit-D",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "maxLength": 128
            },
            "description": "OwnTracks device name"
          },
          {
            "name": "u",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "maxLength": 128
            },
            "description": "User name, when the headers are absent"
          },
          {
            "name": "d",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "maxLength": 128
            },
            "description": "Device name, when the headers are absent"
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/OwnTracksMessage"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Acknowledged: an empty array (no commands for the app)",
            "content": {
              "application/json": {
                "schema": {
                  "type": "array",
                  "maxItems": 0
                }
              }
            }
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/ingest/osmand": {
      "get": {
        "summary": "Report a location in the OsmAnd protocol (Traccar Client, OsmAnd)",
        "description": "Parameters in the query string, a form body (POST) or Traccar Client's JSON body. Same validation, events and webhooks as POST /v1/devices/{id}/locations; problems name the protocol's parameter. Answers an empty 200.",
        "security": [
          {
            "apiKey": []
          },
          {
            "basicKey": []
          },
          {
            "keyQuery": []
          }
        ],
        "parameters": [
          {
            "name": "id",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 256
            },
            "description": "Device identifier (or deviceid); required unless the body carries it"
          },
          {
            "name": "deviceid",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 256
            },
            "description": "Device identifier, when id is absent"
          },
          {
            "name": "lat",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": -90,
              "maximum": 90
            },
            "description": "Latitude in degrees"
          },
          {
            "name": "lon",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": -180,
              "maximum": 180
            },
            "description": "Longitude in degrees"
          },
          {
            "name": "location",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "LATITUDE,LONGITUDE instead of lat and lon"
          },
          {
            "name": "timestamp",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "Unix seconds (below 2^31) or milliseconds, RFC 3339, or yyyy-MM-dd HH:mm:ss UTC; absent: the time of arrival"
          },
          {
            "name": "accuracy",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": 0
            },
            "description": "Horizontal accuracy in metres"
          },
          {
            "name": "hdop",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": 0
            },
            "description": "Horizontal dilution of precision, used as hdop x 5 m when accuracy is absent"
          },
          {
            "name": "speed",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number"
            },
            "description": "Speed in knots; negative means unknown"
          },
          {
            "name": "bearing",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number"
            },
            "description": "Course in degrees; negative means unknown"
          },
          {
            "name": "heading",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number"
            },
            "description": "Course in degrees, when bearing is absent"
          },
          {
            "name": "valid",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "true",
                "false",
                "1",
                "0"
              ]
            },
            "description": "false or 0: the app distrusts the fix; acknowledged, not used"
          }
        ],
        "responses": {
          "200": {
            "description": "Accepted (an empty body)"
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      },
      "post": {
        "summary": "Report a location in the OsmAnd protocol (Traccar Client, OsmAnd)",
        "description": "Parameters in the query string, a form body (POST) or Traccar Client's JSON body. Same validation, events and webhooks as POST /v1/devices/{id}/locations; problems name the protocol's parameter. Answers an empty 200.",
        "security": [
          {
            "apiKey": []
          },
          {
            "basicKey": []
          },
          {
            "keyQuery": []
          }
        ],
        "parameters": [
          {
            "name": "id",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 256
            },
            "description": "Device identifier (or deviceid); required unless the body carries it"
          },
          {
            "name": "deviceid",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 256
            },
            "description": "Device identifier, when id is absent"
          },
          {
            "name": "lat",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": -90,
              "maximum": 90
            },
            "description": "Latitude in degrees"
          },
          {
            "name": "lon",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": -180,
              "maximum": 180
            },
            "description": "Longitude in degrees"
          },
          {
            "name": "location",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "LATITUDE,LONGITUDE instead of lat and lon"
          },
          {
            "name": "timestamp",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "Unix seconds (below 2^31) or milliseconds, RFC 3339, or yyyy-MM-dd HH:mm:ss UTC; absent: the time of arrival"
          },
          {
            "name": "accuracy",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": 0
            },
            "description": "Horizontal accuracy in metres"
          },
          {
            "name": "hdop",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number",
              "minimum": 0
            },
            "description": "Horizontal dilution of precision, used as hdop x 5 m when accuracy is absent"
          },
          {
            "name": "speed",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number"
            },
            "description": "Speed in knots; negative means unknown"
          },
          {
            "name": "bearing",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number"
            },
            "description": "Course in degrees; negative means unknown"
          },
          {
            "name": "heading",
            "in": "query",
            "required": false,
            "schema": {
              "type": "number"
            },
            "description": "Course in degrees, when bearing is absent"
          },
          {
            "name": "valid",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "enum": [
                "true",
                "false",
                "1",
                "0"
              ]
            },
            "description": "false or 0: the app distrusts the fix; acknowledged, not used"
          }
        ],
        "requestBody": {
          "required": false,
          "content": {
            "application/x-www-form-urlencoded": {
              "schema": {
                "type": "object",
                "additionalProperties": {
                  "type": "string"
                }
              }
            },
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/TraccarLocation"
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "Accepted (an empty body)"
          },
          "400": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "Problem (RFC 9457)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "apiKey": {
        "type": "http",
        "scheme": "bearer",
        "description": "A tenant API key from `geofence serve create-key`"
      },
      "basicKey": {
        "type": "http",
        "scheme": "basic",
        "description": "HTTP Basic authentication with the API key as the password (the user name is free; OwnTracks sends its user there)"
      },
      "keyQuery": {
        "type": "apiKey",
        "in": "query",
        "name": "key",
        "description": "The API key as a query parameter, for apps configured with a URL only (Traccar Client). It can end up in logs: use only over TLS and where nothing else is possible."
      }
    },
    "schemas": {
      "Problem": {
        "type": "object",
        "required": [
          "type",
          "title",
          "status",
          "detail"
        ],
        "properties": {
          "type": {
            "type": "string"
          },
          "title": {
            "type": "string"
          },
          "status": {
            "type": "integer"
          },
          "detail": {
            "type": "string"
          },
          "field": {
            "type": "string",
            "description": "JSON path or query parameter at fault"
          },
          "lastAcceptedTimestamp": {
            "type": "string",
            "format": "date-time",
            "description": "On a 409 out-of-order fix: the device's last accepted fix time"
          }
        }
      },
      "Position": {
        "type": "array",
        "minItems": 2,
        "items": {
          "type": "number"
        },
        "description": "[longitude, latitude]"
      },
      "RegionFeature": {
        "type": "object",
        "required": [
          "geometry"
        ],
        "properties": {
          "type": {
            "const": "Feature"
          },
          "id": {
            "type": "string"
          },
          "geometry": {
            "oneOf": [
              {
                "type": "object",
                "required": [
                  "type",
                  "coordinates"
                ],
                "properties": {
                  "type": {
                    "const": "Point"
                  },
                  "coordinates": {
                    "$ref": "#/components/schemas/Position"
                  }
                }
              },
              {
                "type": "object",
                "required": [
                  "type",
                  "coordinates"
                ],
                "properties": {
                  "type": {
                    "const": "Polygon"
                  },
                  "coordinates": {
                    "type": "array",
                    "items": {
                      "type": "array",
                      "items": {
                        "$ref": "#/components/schemas/Position"
                      },
                      "minItems": 4
                    }
                  }
                }
              },
              {
                "type": "object",
                "required": [
                  "type",
                  "coordinates"
                ],
                "properties": {
                  "type": {
                    "const": "MultiPolygon"
                  },
                  "coordinates": {
                    "type": "array",
                    "items": {
                      "type": "array",
                      "items": {
                        "type": "array",
                        "items": {
                          "$ref": "#/components/schemas/Position"
                        },
                        "minItems": 4
                      }
                    }
                  }
                }
              }
            ]
          },
          "properties": {
            "type": "object",
            "properties": {
              "id": {
                "type": "string"
              },
              "radius": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": 10000000,
                "description": "metres; required for Point"
              },
              "notifyOnEntry": {
                "type": "boolean",
                "default": true
              },
              "notifyOnExit": {
                "type": "boolean",
                "default": true
              },
              "dwell": {
                "type": "number",
                "minimum": 0,
                "description": "seconds"
              }
            },
            "additionalProperties": true
          }
        }
      },
      "RegionCollection": {
        "type": "object",
        "required": [
          "type",
          "features"
        ],
        "properties": {
          "type": {
            "const": "FeatureCollection"
          },
          "features": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/RegionFeature"
            }
          }
        }
      },
      "RegionPage": {
        "type": "object",
        "properties": {
          "regions": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/RegionFeature"
            }
          },
          "next": {
            "type": [
              "string",
              "null"
            ]
          },
          "matched": {
            "type": "integer",
            "description": "With `bbox` only: how many regions overlap the box, over all pages"
          }
        }
      },
      "Nearby": {
        "type": "object",
        "properties": {
          "regions": {
            "type": "array",
            "items": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/RegionFeature"
                },
                {
                  "type": "object",
                  "properties": {
                    "distanceMeters": {
                      "type": "number"
                    }
                  }
                }
              ]
            }
          },
          "replanRadiusMeters": {
            "type": "number",
            "description": "Re-query after moving this far (boundary distance of the farthest region returned, at least 50 m)"
          },
          "stableRadiusMeters": {
            "type": "number",
            "description": "Moving less than this cannot change the set (half the gap to the next region)"
          }
        }
      },
      "Fix": {
        "type": "object",
        "required": [
          "latitude",
          "longitude",
          "timestamp"
        ],
        "properties": {
          "latitude": {
            "type": "number",
            "minimum": -90,
            "maximum": 90
          },
          "longitude": {
            "type": "number",
            "minimum": -180,
            "maximum": 180
          },
          "timestamp": {
            "oneOf": [
              {
                "type": "string",
                "format": "date-time"
              },
              {
                "type": "number",
                "description": "Unix seconds"
              }
            ]
          },
          "horizontalAccuracy": {
            "type": "number",
            "minimum": 0,
            "description": "metres"
          },
          "speed": {
            "type": "number",
            "minimum": 0
          },
          "course": {
            "type": "number",
            "minimum": 0,
            "maximum": 360
          }
        }
      },
      "Event": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string",
            "description": "Unique; the idempotency key"
          },
          "cursor": {
            "type": "string"
          },
          "event": {
            "enum": [
              "enter",
              "exit",
              "dwell"
            ]
          },
          "device": {
            "type": "string"
          },
          "region": {
            "type": "string"
          },
          "time": {
            "type": "string",
            "format": "date-time",
            "description": "Confirmation time (fix time)"
          },
          "crossedAt": {
            "type": "string",
            "format": "date-time"
          },
          "latitude": {
            "type": "number"
          },
          "longitude": {
            "type": "number"
          },
          "initial": {
            "type": "boolean"
          }
        }
      },
      "DeviceState": {
        "type": "object",
        "properties": {
          "device": {
            "type": "string"
          },
          "lastFix": {
            "$ref": "#/components/schemas/Fix"
          },
          "inside": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "pending": {
            "type": "array",
            "items": {
              "type": "string"
            }
          },
          "regions": {
            "type": "object",
            "additionalProperties": {
              "enum": [
                "unknown",
                "inside",
                "outside",
                null
              ]
            }
          }
        }
      },
      "Webhook": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "url": {
            "type": "string"
          },
          "secret": {
            "type": "string",
            "description": "Only in the creation answer. Signature: Geofence-Signature: t=UNIX,v1=hex(HMAC-SHA256(secret, t + '.' + body))"
          }
        }
      },
      "Delivery": {
        "type": "object",
        "properties": {
          "id": {
            "type": "string"
          },
          "eventId": {
            "type": "string"
          },
          "state": {
            "enum": [
              "pending",
              "delivered",
              "failed",
              "cancelled"
            ]
          },
          "attempts": {
            "type": "integer"
          },
          "lastStatus": {
            "type": "integer"
          },
          "lastError": {
            "type": "string"
          },
          "deliveredAt": {
            "type": "string",
            "format": "date-time"
          },
          "nextAttemptAt": {
            "type": "string",
            "format": "date-time"
          }
        }
      },
      "OwnTracksMessage": {
        "type": "object",
        "required": [
          "_type"
        ],
        "properties": {
          "_type": {
            "type": "string",
            "description": "location carries a fix; other types are acknowledged and ignored; encrypted is refused"
          },
          "lat": {
            "type": "number",
            "minimum": -90,
            "maximum": 90
          },
          "lon": {
            "type": "number",
            "minimum": -180,
            "maximum": 180
          },
          "tst": {
            "type": "integer",
            "description": "Unix seconds"
          },
          "acc": {
            "type": "number",
            "minimum": 0,
            "description": "metres"
          },
          "vel": {
            "type": "number",
            "description": "km/h; negative means unknown"
          },
          "cog": {
            "type": "number",
            "description": "degrees; negative means unknown"
          },
          "tid": {
            "type": "string"
          },
          "topic": {
            "type": "string"
          }
        }
      },
      "TraccarLocation": {
        "type": "object",
        "required": [
          "device_id",
          "location"
        ],
        "properties": {
          "device_id": {
            "type": "string",
            "minLength": 1,
            "maxLength": 256
          },
          "location": {
            "oneOf": [
              {
                "$ref": "#/components/schemas/TraccarFix"
              },
              {
                "type": "array",
                "minItems": 1,
                "items": {
                  "$ref": "#/components/schemas/TraccarFix"
                }
              }
            ]
          }
        }
      },
      "TraccarFix": {
        "type": "object",
        "required": [
          "coords"
        ],
        "properties": {
          "timestamp": {
            "type": "string",
            "format": "date-time"
          },
          "coords": {
            "type": "object",
            "required": [
              "latitude",
              "longitude"
            ],
            "properties": {
              "latitude": {
                "type": "number",
                "minimum": -90,
                "maximum": 90
              },
              "longitude": {
                "type": "number",
                "minimum": -180,
                "maximum": 180
              },
              "accuracy": {
                "type": "number",
                "description": "metres; negative means unknown"
              },
              "speed": {
                "type": "number",
                "description": "m/s; negative means unknown"
              },
              "heading": {
                "type": "number",
                "description": "degrees; negative means unknown"
              },
              "altitude": {
                "type": "number"
              }
            }
          }
        }
      }
    }
  }
}
"""#
}
