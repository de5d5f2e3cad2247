// The signature fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.signature)
