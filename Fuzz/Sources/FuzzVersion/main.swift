// The version fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.version)
