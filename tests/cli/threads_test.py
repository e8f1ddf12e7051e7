#!/usr/bin/env python3
"""--threads: its errors, and the same bytes whatever the number of
threads (runs big enough that the helpers do start).

Usage: threads_test.py MHA_EXPLAIN

Prints TAP.
"""
import os
import random
import subprocess
import sys
import time

from taplib import Program, done, ok

MHA = Program(sys.argv[1])


def words(n, seed):
    rng = random.Random(seed)
    vocab = "the cat sat on mat and dog ran to house big small red".split()
    return " ".join(rng.choice(vocab) for _ in range(n))


def errors():
    for value in ("0", "257", "-1", "two", "", "1.5", "99999999999999999999"):
        MHA.check_error([words(3, 1), "--threads", value], "--threads",
                        "--threads %r: status 2, one line naming the option"
                        % value)
    r = MHA.run([words(3, 1), "--threads", "0"])
    ok(b"1 to 256" in r.stderr, "the error gives the range 1 to 256",
       r.stderr)
    r = MHA.run(["--help"])
    ok(r.returncode == 0 and b"--threads N" in r.stdout,
       "--help lists --threads")


def same_bytes():
    wide = ["--d-model", "96", "--d-out", "96", "--heads", "4"]
    cases = [
        ("all variants and the block, causal, CSV",
         wide + ["--variant", "single,wrapper,fused,block", "--format", "csv",
                 words(150, 2)]),
        ("--no-causal, --qkv-bias, CSV",
         wide + ["--no-causal", "--qkv-bias", "--format", "csv",
                 words(120, 3)]),
        ("--kv cross-attention, CSV",
         wide + ["--kv", words(90, 4), "--format", "csv", words(110, 5)]),
        ("text, --average, --tie --check",
         wide + ["--average", "--tie", "--check", words(130, 6)]),
    ]
    for name, args in cases:
        outputs = [MHA.run(args + ["--threads", n]) for n in ("1", "2", "3")]
        first = outputs[0]
        ok(first.returncode == 0 and len(first.stdout) > 10000 and
           all(r.returncode == 0 and r.stdout == first.stdout and
               r.stderr == first.stderr for r in outputs),
           "%s: the same bytes with --threads 1, 2 and 3" % name,
           [(r.returncode, len(r.stdout), r.stderr[:200]) for r in outputs])
    default = MHA.run(cases[0][1])
    one = MHA.run(cases[0][1] + ["--threads", "1"])
    ok(default.returncode == 0 and default.stdout == one.stdout,
       "the default number of threads gives the same bytes as 1")


def cpu_cgroup():
    """A new cgroup folder with the cpu controller, as (folder, "v1" or
    "v2"), or (None, why not): needs root and a writable cgroup file
    system with the cpu controller (v1's cpu hierarchy, or v2 with cpu in
    the top's cgroup.subtree_control)."""
    try:
        mounts = open("/proc/self/mountinfo").read().splitlines()
    except OSError as e:
        return None, "no /proc/self/mountinfo: %s" % e
    for line in mounts:
        fields = line.split(" - ")
        if len(fields) != 2:
            continue
        point = fields[0].split()[4].replace("\\040", " ")
        kind, _, options = fields[1].split()[:3]
        top = None
        if kind == "cgroup" and "cpu" in options.split(","):
            top = (point, "v1")
        elif kind == "cgroup2":
            try:
                control = open(os.path.join(point, "cgroup.subtree_control"))
                if "cpu" in control.read().split():
                    top = (point, "v2")
            except OSError:
                pass
        if top is not None:
            folder = os.path.join(top[0], "mha-explain-test-%d" % os.getpid())
            try:
                os.mkdir(folder)
            except OSError as e:
                return None, "cannot make a cgroup in %s: %s" % (top[0], e)
            return folder, top[1]
    return None, "no cgroup file system with the cpu controller"


def set_quota(folder, kind, quota):
    """quota: microseconds of CPU time per 100 ms, or None for none."""
    if kind == "v2":
        with open(os.path.join(folder, "cpu.max"), "w") as f:
            f.write("%s 100000" % ("max" if quota is None else quota))
    else:
        with open(os.path.join(folder, "cpu.cfs_period_us"), "w") as f:
            f.write("100000")
        with open(os.path.join(folder, "cpu.cfs_quota_us"), "w") as f:
            f.write("-1" if quota is None else str(quota))


def most_threads(folder, args):
    """(exit status, the most threads seen) of a run inside the cgroup."""
    def enter():
        with open(os.path.join(folder, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    proc = subprocess.Popen(MHA.command(args), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=enter)
    most = 0
    while proc.poll() is None:
        try:
            with open("/proc/%d/status" % proc.pid) as f:
                for line in f:
                    if line.startswith("Threads:"):
                        most = max(most, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.001)
    return proc.wait(), most


def cgroup_quota():
    """The default --threads follows a cgroup CPU quota, counted as the
    threads the program runs (big enough for the helpers to start)."""
    cpus = len(os.sched_getaffinity(0))
    folder, kind = cpu_cgroup()
    if folder is None or cpus < 2 or MHA.prefix:
        why = kind if folder is None else (
            "one CPU" if cpus < 2 else "under MHA_EXPLAIN_PREFIX")
        for _ in range(3):
            ok(True, "# SKIP %s" % why)
        if folder is not None:
            os.rmdir(folder)
        return
    args = ["--d-model", "384", "--d-out", "384", "--heads", "12",
            "--variant", "single,wrapper,fused", "--format", "csv",
            words(200, 7)]
    try:
        for quota, expected, name in (
                (None, min(cpus, 256), "no quota: one thread per CPU"),
                (50000, 1, "half a CPU: 1 thread"),
                (150000, 2, "1.5 CPUs: rounded up, 2 threads")):
            set_quota(folder, kind, quota)
            status, most = most_threads(folder, args)
            ok(status == 0 and most == expected,
               "cgroup %s, %s (%d CPUs in the affinity mask)"
               % (kind, name, cpus),
               "status %d, most threads seen %d" % (status, most))
    finally:
        os.rmdir(folder)


def main():
    errors()
    same_bytes()
    cgroup_quota()
    return done()


if __name__ == "__main__":
    sys.exit(main())
