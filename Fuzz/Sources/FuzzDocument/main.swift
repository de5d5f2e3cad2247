// The document fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.document)
