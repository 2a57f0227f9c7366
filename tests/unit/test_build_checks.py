"""devcluster/checks.sh: a build step's check never fails on its own output (issue #30).

A fresh machine's first `make demo` failed at "FAILED etcd" with nothing in the log: `etcd --version | grep -q ...`
under `set -o pipefail`, where grep exits at its first match and etcd dies of SIGPIPE writing its next line."""

from __future__ import annotations

import subprocess
from pathlib import Path

CHECKS = Path(__file__).resolve().parents[2] / "devcluster" / "checks.sh"


def fake_binary(tmp_path: Path) -> Path:
    """Prints the version line first, then a lot more: the writer is still writing when a grep -q has matched."""
    exe = tmp_path / "etcd"
    exe.write_text('#!/bin/sh\necho "etcd Version: 3.6.16"\nseq 1 20000 | sed "s/^/Git SHA: /"\n')
    exe.chmod(0o755)
    return exe


def bash(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f"set -uo pipefail; . {CHECKS}; {script}"], capture_output=True, text=True)


def test_the_check_passes_200_times_under_pipefail(tmp_path):
    exe = fake_binary(tmp_path)
    out = bash(f'for i in $(seq 200); do prints -F "etcd Version: 3.6.16" {exe} --version || exit 1; done')
    assert out.returncode == 0, out.stderr


def test_the_old_form_of_the_check_does_fail_on_the_same_binary(tmp_path):
    """What the test above guards against: `cmd | grep -q` fails under pipefail (SIGPIPE, status 141)."""
    exe = fake_binary(tmp_path)
    out = bash(f'fails=0; for i in $(seq 20); do {exe} --version | grep -q "etcd Version" || fails=$((fails+1)); done; '
               'echo $fails')  # fmt: skip
    assert int(out.stdout.strip()) > 0


def test_a_failing_check_says_why(tmp_path):
    exe = fake_binary(tmp_path)
    wrong = bash(f'prints -F "etcd Version: 9.9.9" {exe} --version')
    assert wrong.returncode == 1 and "printed no line matching 'etcd Version: 9.9.9'" in wrong.stderr
    broken = bash("prints -x v1 false")
    assert broken.returncode == 1 and "exited with status 1" in broken.stderr


def test_a_network_failure_of_a_module_download_is_told_from_a_build_error(tmp_path):
    log = tmp_path / "log"
    log.write_text('go: sigs.k8s.io/kueue@v0.19.2: Get "https://proxy/...": dial tcp: i/o timeout\n')
    assert bash(f"transient {log}").returncode == 0
    log.write_text("./main.go:3:2: undefined: foo\n")
    assert bash(f"transient {log}").returncode == 1
