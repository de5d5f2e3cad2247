#if canImport(Glibc)
import Glibc
#endif

/// The process's own environment, one variable at a time: the helper's
/// proxies, and CheckEnvironment (the host's seam) reads through it too.
package enum ProcessEnvironment {
    package static func value(_ name: String) -> String? {
        getenv(name).flatMap { String(validatingCString: $0) }
    }
}
