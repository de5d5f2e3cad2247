// The itunes fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.itunes)
