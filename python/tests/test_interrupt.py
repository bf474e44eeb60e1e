"""Ctrl-C during a long evaluation (docs/limits.md): KeyboardInterrupt within 2 s, from inside a
long step (a nearest-neighbour search), and nothing left working afterwards. The evaluation runs
in a child interpreter, which the test interrupts with SIGINT as a terminal would."""

import signal
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent("""
    import resource, sys, time
    import numpy as np, pandas as pd, synthaudit

    def cpu():
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    rng = np.random.default_rng(1)
    def frame(n):
        return pd.DataFrame({f"x{i}": rng.normal(size=n) for i in range(8)})
    conf, syn = frame(400_000), frame(400_000)
    print("STARTED", flush=True)
    try:
        synthaudit.evaluate(conf, {"s": [syn]}, metrics="distance_to_closest_record",
                            baseline_draws=0, null_draws=0, threads=2)
        print("FINISHED", flush=True)
    except KeyboardInterrupt:
        stopped = time.monotonic()
        print("INTERRUPTED", flush=True)
        before = cpu()
        time.sleep(1.0)
        # Idle OpenMP threads spin for well under a millisecond, then sleep: a search still
        # running would use a second of CPU per thread in this second.
        print("CPU_AFTER", cpu() - before, flush=True)
""")


def test_sigint_stops_a_long_search_within_two_seconds():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "STARTED", child.stderr.read()
        time.sleep(3.0)  # inside the search by now (the tables are encoded in well under 1 s)
        assert child.poll() is None, "the evaluation ended before it could be interrupted"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        reacted = time.monotonic() - sent
        rest, errors = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert line == "INTERRUPTED", f"{line!r}: {errors[-2000:]}"
    assert reacted < 2.0, f"KeyboardInterrupt came {reacted:.2f} s after SIGINT"
    assert child.returncode == 0, errors[-2000:]
    cpu_after = float(rest.split("CPU_AFTER")[1].split()[0])
    assert cpu_after < 0.3, f"{cpu_after:.2f} s of CPU in the second after the interrupt"
