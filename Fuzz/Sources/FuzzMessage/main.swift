// The message fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.message)
