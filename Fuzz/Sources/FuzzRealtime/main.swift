// The realtime fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.realtime)
