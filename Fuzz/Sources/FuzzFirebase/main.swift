// The firebase fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.firebase)
