// The url fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.url)
