#!/usr/bin/env python3
"""What verifying a signed local document adds (issue #15), medians:
  - a warm check of an aged document (identity unchanged: the client reuses
    its snapshot; with trusted_keys one more stat(2), of the .minisig);
  - the re-read path: a document changed in the last 2 s is read again on
    every check ("racily clean"); its mtime is set an hour ahead so every
    check takes that path deliberately, reading, verifying and parsing it;
  - a cold process: exec -> dlopen -> client -> one check -> exit, where
    libcrypto is loaded only when keys are set.
Keys and signature are made by minisign. Runs alternate between with and
without keys so machine noise hits both alike.
Usage: bench/signature_runs.py [LIBRARY] [COLD_RUNS] [WARM_CHECKS]"""
import os, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main():
    library = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "build/lib/libversiongate.so")
    cold_runs = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    warm_checks = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    work = Path(tempfile.mkdtemp(prefix="vg-sigbench-"))
    try:
        run(library, cold_runs, warm_checks, work)
    finally:
        shutil.rmtree(work, True)


def run(library, cold_runs, warm_checks, work):
    program = work / "signature_check"
    subprocess.run(["cc", "-O2", "-o", str(program), str(REPO / "bench/signature_check.c"), "-ldl"], check=True)
    subprocess.run(["minisign", "-G", "-W", "-p", str(work / "k.pub"), "-s", str(work / "k.key")],
                   check=True, capture_output=True)
    key = (work / "k.pub").read_text().splitlines()[1]
    documents = {}
    for name, mtime in [("aged", time.time() - 10), ("reread", time.time() + 3600)]:
        doc = work / (name + ".json")
        doc.write_text('{"min_required_version_linux": "1.0.39", "latest_version_linux": "1.0.41"}\n')
        subprocess.run(["minisign", "-S", "-s", str(work / "k.key"), "-m", str(doc)], check=True, capture_output=True)
        for path in (doc, Path(str(doc) + ".minisig")):
            os.utime(path, (mtime, mtime))
        documents[name] = str(doc)
    for d in ("cache", "state", "runtime"):
        (work / d).mkdir(mode=0o700)
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"), XDG_STATE_HOME=str(work / "state"),
               XDG_RUNTIME_DIR=str(work / "runtime"))
    variants = [("no keys", "-"), ("trusted_keys", key)]

    def spawn(args, capture=False):
        if capture:
            return subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout.strip()
        pid = os.posix_spawn(args[0], args, env)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            sys.exit("%s failed: %s" % (args, status))

    print("command: python3 bench/signature_runs.py %s %d %d" % (library, cold_runs, warm_checks))
    for doc_name, what in [("aged", "warm check, aged document (cached snapshot)"),
                           ("reread", "warm check, re-read path (read + verify + parse)")]:
        medians = {label: [] for label, _ in variants}
        for _ in range(5):
            for label, keys in variants:
                out = spawn([str(program), library, documents[doc_name], keys, "warm", str(warm_checks)], True)
                medians[label].append(int(out))
        line = ", ".join("%s %.2f us" % (label, statistics.median(v) / 1000) for label, v in medians.items())
        extra = (statistics.median(medians["trusted_keys"]) - statistics.median(medians["no keys"])) / 1000
        print("%-50s %s (verifying adds %.2f us)" % (what, line, extra))

    times = {label: [] for label, _ in variants}
    for _ in range(cold_runs):
        for label, keys in variants:
            start = time.perf_counter()
            spawn([str(program), library, documents["aged"], keys, "cold"])
            times[label].append((time.perf_counter() - start) * 1000)
    line = ", ".join("%s %.2f ms" % (label, statistics.median(v)) for label, v in times.items())
    extra = statistics.median(times["trusted_keys"]) - statistics.median(times["no keys"])
    print("%-50s %s (verifying adds %.2f ms)" % ("cold process, median of %d" % cold_runs, line, extra))
    for label, keys in variants:
        print("%-50s %s" % ("after one check, " + label, spawn([str(program), library, documents["aged"], keys, "maps"], True)))


main()
