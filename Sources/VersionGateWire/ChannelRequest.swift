import VersionGateCore

extension ChannelQuestion {
    /// The exchange that asks this channel at `endpoint` (no trailing
    /// slash), conditional when `entry` holds an answer with validators.
    /// apt's lists are read, never asked over HTTP: its request is empty.
    package func httpRequest(endpoint: String, revalidating entry: ChannelEntry?) -> HTTPRequest {
        var http: HTTPRequest
        switch self {
        case .appStore(let bundleID, let country):
            http = HTTPRequest(url: "\(endpoint)/lookup?bundleId=\(PercentEncoding.encoded(bundleID))&country=\(country)")
        case .snap(let name, _):
            http = HTTPRequest(url: "\(endpoint)/v2/snaps/info/\(PercentEncoding.encoded(name))?fields=version",
                               headers: [("Snap-Device-Series", "16")])
        case .flathub(let appID):
            http = HTTPRequest(url: "\(endpoint)/api/v2/appstream/\(PercentEncoding.encoded(appID))")
        case .apt:
            http = HTTPRequest(url: "")
        }
        guard let entry, entry.served != nil else { return http }
        if let etag = entry.etag { http.headers.append(("If-None-Match", etag)) }
        if let modified = entry.lastModified { http.headers.append(("If-Modified-Since", modified)) }
        return http
    }
}
