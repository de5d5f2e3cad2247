#!/usr/bin/env python3
"""Make a throwaway PKI for the loopback server's TLS scenarios.

    python3 make_certs.py OUTDIR

Writes, in OUTDIR (all EC P-256, SHA-256):

  ca.pem / ca.key                the test root CA clients are told to trust
  server.pem / server.key        signed by ca; SAN IP:127.0.0.1, IP:::1,
                                 DNS:localhost -> verification succeeds
  wronghost.pem / .key           signed by ca; SAN DNS:wrong.example.com only
                                 -> hostname mismatch
  expired.pem / .key             signed by ca for 127.0.0.1/::1/localhost;
                                 valid 2020-01-01 .. 2021-01-01 -> expired
  untrusted.pem / .key           for 127.0.0.1/::1/localhost, signed by
                                 other_ca.pem / other_ca.key, which clients do
                                 not trust -> unknown issuer

Why `openssl ca` for the leaves: OpenSSL 3.0's `x509 -req` cannot set a
start date, so the expired certificate needs `ca -startdate/-enddate`; using
the same path for every leaf keeps one signing routine.

Idempotent: a finished OUTDIR (marked by `.complete`) is left as is, so tests
can call this on every run; an flock on OUTDIR/.lock makes concurrent callers
wait for one another instead of mixing two PKIs. Takes well under a second.
Importable: ``make_certs(outdir) -> dict[name, Path]``.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

OPENSSL = "/usr/bin/openssl" if os.path.exists("/usr/bin/openssl") else "openssl"
VALID_DAYS = "3650"
LOOPBACK_SAN = "IP:127.0.0.1,IP:::1,DNS:localhost"

# name -> (issuer, subject CN, SAN, start, end); None = yesterday..+10 years.
LEAVES = {
    "server": ("ca", "VersionGate test server", LOOPBACK_SAN, None, None),
    "wronghost": ("ca", "wrong.example.com", "DNS:wrong.example.com", None, None),
    "expired": ("ca", "VersionGate expired", LOOPBACK_SAN,
                "20200101000000Z", "20210101000000Z"),
    "untrusted": ("other_ca", "VersionGate untrusted", LOOPBACK_SAN, None, None),
}
CAS = {"ca": "VersionGate Test Root CA", "other_ca": "VersionGate Other CA (untrusted)"}

CONFIG = """\
# Minimal config for `openssl req` and `openssl ca`; written per run so the
# system openssl.cnf never changes what we make.
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = unused

[ ca_ext ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always

[ ca ]
default_ca = the_ca
[ the_ca ]
database = {work}/index.txt
new_certs_dir = {work}
serial = {work}/serial
default_md = sha256
policy = any_cn
unique_subject = no
email_in_dn = no
copy_extensions = none
[ any_cn ]
commonName = supplied

[ leaf_ext ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = ${{ENV::VG_SAN}}
"""

OUTPUTS = [f"{n}.{ext}" for n in [*CAS, *LEAVES] for ext in ("pem", "key")]


def run(*args: str, env: dict | None = None) -> None:
    res = subprocess.run([OPENSSL, *args], capture_output=True, text=True,
                         env=env, timeout=30)
    if res.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed:\n{res.stderr}")


def ec_key_args() -> list[str]:
    return ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]


def build(out: Path, work: Path) -> None:
    cnf = work / "openssl.cnf"
    cnf.write_text(CONFIG.format(work=work))
    (work / "index.txt").write_text("")
    (work / "serial").write_text(secrets.token_hex(8) + "\n")
    env = dict(os.environ, OPENSSL_CONF=str(cnf), VG_SAN="DNS:unused")

    for name, cn in CAS.items():
        run("req", "-config", str(cnf), "-x509", *ec_key_args(), "-sha256",
            "-days", VALID_DAYS, "-subj", f"/CN={cn}",
            "-extensions", "ca_ext",
            "-keyout", str(work / f"{name}.key"), "-out", str(work / f"{name}.pem"),
            env=env)

    # Valid leaves start a day back, so a skewed clock never sees them as
    # "not yet valid".
    now = datetime.now(timezone.utc)
    yesterday = (now - timedelta(days=1)).strftime("%Y%m%d%H%M%SZ")
    later = (now + timedelta(days=int(VALID_DAYS))).strftime("%Y%m%d%H%M%SZ")
    for name, (issuer, cn, san, start, end) in LEAVES.items():
        csr = work / f"{name}.csr"
        run("req", "-config", str(cnf), "-new", *ec_key_args(),
            "-subj", f"/CN={cn}",
            "-keyout", str(work / f"{name}.key"), "-out", str(csr), env=env)
        dates = ["-startdate", start or yesterday, "-enddate", end or later]
        run("ca", "-batch", "-config", str(cnf), "-notext",
            "-cert", str(work / f"{issuer}.pem"),
            "-keyfile", str(work / f"{issuer}.key"),
            "-extensions", "leaf_ext", *dates,
            "-in", str(csr), "-out", str(work / f"{name}.pem"),
            env=dict(env, VG_SAN=san))

    for f in OUTPUTS:
        os.replace(work / f, out / f)


def make_certs(outdir: str | os.PathLike) -> dict[str, Path]:
    out = Path(outdir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    paths = {f.replace(".", "_"): out / f for f in OUTPUTS}
    stamp = out / ".complete"
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and all(p.exists() for p in paths.values()):
            return paths
        stamp.unlink(missing_ok=True)
        with tempfile.TemporaryDirectory(prefix=".work-", dir=out) as work:
            build(out, Path(work))
        stamp.write_text("complete\n")
    return paths


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} OUTDIR", file=sys.stderr)
        return 2
    make_certs(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
