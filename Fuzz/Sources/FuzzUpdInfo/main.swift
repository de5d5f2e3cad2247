// The updinfo fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.updinfo)
