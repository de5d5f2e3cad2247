// The channelentry fuzz target: see Fuzz/README.md.
import FuzzMain

runFuzzer(.channelentry)
