import ExpatShim
import VersionGateCore
import VersionGatePlatform

/// The installed version of an AppStream component, read from its metainfo
/// file with libexpat (docs/design.md, "The installed version"). Every
/// failure names the file it is about.
package enum AppStreamReader {
    /// A metainfo or releases file larger than this is refused unread (real
    /// ones are a few KiB; Flathub's largest are under 200 KiB).
    package static let maxFileBytes = 1 << 20

    /// The greatest stable release of `id` on this system.
    package static func installedVersion(id: String, environment: CheckEnvironment, files: any FileSystem)
        -> Result<String, GateFailure> {
        if let why = AppID.componentIDRefusal(id) {
            return .failure(.invalidArgument("AppStream id \"\(OneLine.text(id))\": \(why)"))
        }
        let directories = AppStreamLocation.dataDirectories(environment.value("XDG_DATA_DIRS"))
        for directory in directories {
            for path in AppStreamLocation.metainfoCandidates(id: id, dataDirectories: [directory])
            where files.identity(of: path) != nil {
                return releases(path, .metainfo, files).flatMap { metainfo in
                    guard metainfo.releasesAreExternal else { return chosen(metainfo, path) }
                    let external = AppStreamLocation.externalReleases(id: id, dataDirectory: directory)
                    return releases(external, .external, files).flatMap { chosen($0, external) }
                }
            }
        }
        return .failure(.installedVersion("no AppStream metainfo for \(id) (looked for metainfo/\(id).metainfo.xml "
                                          + "under \(directories.joined(separator: ", ")))"))
    }

    private static func chosen(_ releases: AppStreamReleases, _ path: String) -> Result<String, GateFailure> {
        guard let version = releases.installed else {
            return .failure(.installedVersion("\(path) lists no stable release with a valid version"))
        }
        return .success(version)
    }

    /// The file's release elements, parsed.
    private static func releases(_ path: String, _ kind: AppStreamReleases.Kind, _ files: any FileSystem)
        -> Result<AppStreamReleases, GateFailure> {
        do {
            return parse(try files.read(path, maxBytes: maxFileBytes, trust: .document).bytes, kind, name: path)
        } catch {
            return .failure(.installedVersion(error.message))
        }
    }

    /// A metainfo or releases document's release elements; failures start
    /// with `name`.
    package static func parse(_ bytes: [UInt8], _ kind: AppStreamReleases.Kind, name path: String)
        -> Result<AppStreamReleases, GateFailure> {
        let collector = Collector(AppStreamReleases(kind: kind))
        var error = [CChar](repeating: 0, count: 256)
        let outcome = withExtendedLifetime(collector) {
            var callbacks = vgh_xml_callbacks(
                context: Unmanaged.passUnretained(collector).toOpaque(),
                start: { context, name, attributes in
                    guard let context, let name else { return }
                    Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().releases
                        .start(String(cString: name), attributes: attributePairs(attributes))
                },
                end: { context, _ in
                    guard let context else { return }
                    Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().releases.end()
                })
            return bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { text in
                    vgh_xml_parse(text.baseAddress, text.count, &callbacks, &error, error.count)
                }
            }
        }
        guard outcome == VGH_XML_OK else {
            let why = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.installedVersion("\(path): \(why)"))
        }
        if let problem = collector.releases.shapeProblem {
            return .failure(.installedVersion("\(path) \(problem)"))
        }
        return .success(collector.releases)
    }

    /// A class, so the C callbacks can reach it through one pointer.
    private final class Collector {
        var releases: AppStreamReleases
        init(_ releases: AppStreamReleases) { self.releases = releases }
    }
}

/// Attributes as libexpat hands them: name, value, ..., NULL. (A free
/// function: the C callbacks may not capture their enum.)
private func attributePairs(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [(name: String, value: String)] {
    guard let attributes else { return [] }
    var pairs: [(name: String, value: String)] = []
    var index = 0
    while let name = attributes[index], let value = attributes[index + 1] {
        pairs.append((String(cString: name), String(cString: value)))
        index += 2
    }
    return pairs
}
