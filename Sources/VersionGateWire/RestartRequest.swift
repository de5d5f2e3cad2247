import VersionGateCore

extension HelperRequest {
    /// Start the newest installed version of this app, in `directory`.
    package struct Restart: Sendable, Equatable {
        package var directory: String
        /// Wait for the new version to end and answer its exit status.
        package var wait: Bool
        package var arguments: [String]

        package init(directory: String, wait: Bool, arguments: [String]) {
            (self.directory, self.wait, self.arguments) = (directory, wait, arguments)
        }

        /// Its records after the mode.
        func add(to message: inout HelperMessage) {
            message.add("cwd", directory)
            if wait { message.add("wait", "1") }
            for argument in arguments { message.add("arg", argument) }
        }

        /// The restart as `add` wrote it: each record has a default.
        init(_ message: HelperMessage) {
            self.init(directory: message.value("cwd") ?? "/", wait: message.value("wait") == "1", arguments: message.values("arg"))
        }
    }
}
