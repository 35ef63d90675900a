/// The metrics endpoint's answers to a request head, as bytes.
///
/// The head is read here rather than by NIOHTTP1: a scrape needs only the request line, and the endpoint keeps its own
/// head-size limit (`431`) and a strict `METHOD /path HTTP/1.x` line (else `400`), the answers its tests pin.
enum MetricsRequest {
    /// The answer to a complete request head; `render` makes the body of a `GET /metrics`.
    static func respond(to request: [UInt8], render: () -> [UInt8]) -> [UInt8] {
        let line = request.prefix { $0 != UInt8(ascii: "\n") }
        let text = String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...], as: UTF8.self)
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }),
            parts[1].hasPrefix("/"), parts[2].hasPrefix("HTTP/1.")
        else {
            return response(400, "Bad Request", body: "bad request\n")
        }
        let path = parts[1].prefix { $0 != "?" }
        guard path == "/metrics", parts[0] == "GET" || parts[0] == "HEAD" else {
            return response(404, "Not Found", body: "not found\n")
        }
        let body = render()
        var response = head(200, "OK", type: "text/plain; version=0.0.4; charset=utf-8", length: body.count)
        if parts[0] == "GET" { response += body }
        return response
    }

    /// The answer to a head larger than the limit.
    static let tooLarge = response(431, "Request Header Fields Too Large", body: "request too large\n")

    /// Whether the request head is complete: an empty line (`\r\n\r\n`, or `\n\n` from lax clients), looked for from
    /// `start` on.
    static func headEnds(in bytes: [UInt8], from start: Int) -> Bool {
        let newline = UInt8(ascii: "\n")
        var index = max(start, 1)
        while index < bytes.count {
            if bytes[index] == newline {
                if bytes[index - 1] == newline { return true }
                if index >= 3, bytes[index - 1] == UInt8(ascii: "\r"), bytes[index - 2] == newline { return true }
            }
            index += 1
        }
        return false
    }

    private static func response(_ status: Int, _ reason: String, body: String) -> [UInt8] {
        head(status, reason, type: "text/plain; charset=utf-8", length: body.utf8.count) + Array(body.utf8)
    }

    private static func head(_ status: Int, _ reason: String, type: String, length: Int) -> [UInt8] {
        let text =
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n"
            + "Connection: close\r\n\r\n"
        return Array(text.utf8)
    }
}
