import VersionGateSystem

/// The fetch helper's entry (docs/design.md, "The fetch helper"):
/// `versiongate-helper` loads this library and calls it with the request on
/// stdin and the answer's pipe on stdout. Not in the header: no host calls
/// it, and it does nothing outside that process. The exit status.
@_cdecl("vg__helper_main")
public func vg__helper_main() -> Int32 {
    HelperService.serve(input: 0, output: 1)
}
