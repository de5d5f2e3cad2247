// The metainfo fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.metainfo)
