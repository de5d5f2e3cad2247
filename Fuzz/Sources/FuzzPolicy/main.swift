// The policy fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.policy)
