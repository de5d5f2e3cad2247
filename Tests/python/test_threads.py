"""Thread safety: vg_check (process-wide clients) and vg_client_check on one
client, 8 threads x 200 checks each, every answer consistent."""

from __future__ import annotations

import threading

from conftest import MANDATORY, OPTIONAL, UP_TO_DATE, VG_ECONFIG, VG_OK, flat, vg

THREADS = 8
CHECKS = 200


def hammer(work):
    """Run work(thread_index, i) THREADS x CHECKS times; collect results."""
    results = [[] for _ in range(THREADS)]
    errors = []
    start = threading.Barrier(THREADS)

    def run(t):
        try:
            start.wait()
            for i in range(CHECKS):
                results[t].append(work(t, i))
        except BaseException as e:  # reported below, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    flat_results = [x for per in results for x in per]
    assert len(flat_results) == THREADS * CHECKS
    return flat_results


def snapshot(r):
    return (r.code, r.status, r.error, r.should_prompt, r.title, r.message,
            r.min_required, r.latest, r.store_url)


def test_vg_check_from_many_threads(write_doc, tmp_path):
    optional = write_doc(flat(update_url_linux="https://flathub.org/apps/a.b"))
    mandatory = write_doc(flat(min_required="9.0"))
    missing = tmp_path / "missing.json"
    sources = [optional, mandatory, missing]

    def work(t, i):
        src = sources[(t + i) % 3]
        with vg.check(src, "1.0.40") as r:
            return src, snapshot(r)

    got = hammer(work)
    by_source = {s: [snap for src, snap in got if src == s] for s in sources}

    opt = by_source[optional]
    assert {s[:3] for s in opt} == {(VG_OK, OPTIONAL, VG_OK)}
    # once per session, across all threads: exactly one prompt
    assert sum(s[3] for s in opt) == 1
    assert len({s[4:] for s in opt}) == 1
    assert opt[0][8] == "https://flathub.org/apps/a.b"

    man = by_source[mandatory]
    assert {s[:4] for s in man} == {(VG_OK, MANDATORY, VG_OK, True)}
    assert len({s[4:] for s in man}) == 1

    mis = by_source[missing]
    assert {s[:4] for s in mis} == {(VG_ECONFIG, UP_TO_DATE, VG_ECONFIG, False)}


def test_one_client_from_many_threads(write_doc):
    src = write_doc(flat())
    versions = ["1.0.38", "1.0.40", "1.0.41", "bad"]
    expected = {"1.0.38": MANDATORY, "1.0.40": OPTIONAL, "1.0.41": UP_TO_DATE,
                "bad": UP_TO_DATE}
    with vg.Client(source=src, session_scope="process") as c:
        def work(t, i):
            v = versions[(t * 7 + i) % 4]
            with c.check(v) as r:
                return v, r.code, r.status, r.error, r.should_prompt

        got = hammer(work)
    for v, code, status, error, should_prompt in got:
        assert status == expected[v], v
        assert code == error
        if v == "1.0.38":
            assert should_prompt
    optional_prompts = [p for v, _, _, _, p in got if v == "1.0.40"]
    assert sum(optional_prompts) == 1


def test_clients_created_and_freed_concurrently(write_doc):
    src = write_doc(flat())

    def work(t, i):
        with vg.Client(source=src, session_scope="process",
                       locale=("de", "fr", "en", "es")[i % 4]) as c:
            with c.check("1.0.40") as r:
                return r.status, r.should_prompt

    got = hammer(work)
    assert {status for status, _ in got} == {OPTIONAL}
    # The process is the session: exactly one of all these clients prompts.
    assert sum(prompt for _, prompt in got) == 1
