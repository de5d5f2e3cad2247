// The snapd fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.snapd)
