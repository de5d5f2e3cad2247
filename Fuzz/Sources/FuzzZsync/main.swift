// The zsync fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.zsync)
