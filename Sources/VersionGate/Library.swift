#if canImport(Glibc)
import Glibc
#endif
import VersionGateC

@_cdecl("vg_library_version")
public func vg_library_version() -> UnsafePointer<CChar> {
    return staticCString("1.5.0")   // scripts/generate writes it from VERSION
}

@_cdecl("vg_free")
public func vg_free(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}

/// A static string's bytes as a C string: no allocation, never freed.
func staticCString(_ s: StaticString) -> UnsafePointer<CChar> {
    return UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// A malloc'd copy for a `char **out` (released with vg_free); NULL for nil.
func mallocCopy(_ text: String?) -> UnsafeMutablePointer<CChar>? {
    text.flatMap { strdup($0) }
}
