#!/usr/bin/env python3
"""Runs the mutant suite (test/mutants/mutants.py) and says which mutants the
tests kill.

    python3 test/mutants/run.py --all              # every mutant
    python3 test/mutants/run.py --sample           # CI's five
    python3 test/mutants/run.py --only NAME[,NAME] # some (repeatable)
    python3 test/mutants/run.py --check            # only check the snippets
    python3 test/mutants/run.py --list

Every mutant's snippet must occur exactly once in its file, or the run stops
before building anything (a stale mutant is never "killed" by accident).
The tracked files of the repository (with uncommitted edits) are copied into
one scratch directory, used with one Bazel output root of its own for all
mutants: the tests of the selected mutants first run unmutated (they must
pass), then each mutant is applied, its tests run with `./bazelw test`, and
the file is restored, so that every build is incremental. The action cache
is shared with the other clones (--config=disk_cache), or read from the HTTP
cache that MLIR_EE_REMOTE_CACHE names (CI's). The scratch
directory and the output root are removed at the end.

A mutant is killed when its tests fail (a test failure or timeout; a build
failure only for a mutant marked `compile_error`), survived when they pass.
Exit status: 0 if every mutant was killed, 1 if one survived or did not
build as expected, 2 for a stale mutant or an unmutated test failure.
"""

import argparse
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# bazel test's exit codes.
BAZEL_OK, BAZEL_BUILD_FAILED, BAZEL_TESTS_FAILED = 0, 1, 3


def load_mutants():
    spec = importlib.util.spec_from_file_location("mutants", os.path.join(HERE, "mutants.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = [m["name"] for m in module.MUTANTS]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit(f"mutants.py: duplicate names: {', '.join(sorted(duplicates))}")
    return module.MUTANTS, module.SAMPLE


def check_snippets(mutants, root):
    """The problems of `mutants` in the tree at `root`: snippets not found
    exactly once, mutants that change nothing or name no test."""
    problems = []
    for m in mutants:
        path = os.path.join(root, m["file"])
        if not os.path.isfile(path):
            problems.append(f"{m['name']}: {m['file']} does not exist")
            continue
        with open(path, encoding="utf-8") as f:
            count = f.read().count(m["search"])
        if count != 1:
            problems.append(
                f"{m['name']}: the snippet {m['search']!r} occurs {count} times in "
                f"{m['file']} (must be exactly once): update the mutant"
            )
        if m["search"] == m["replace"]:
            problems.append(f"{m['name']}: replace equals search")
        if not m.get("tests"):
            problems.append(f"{m['name']}: no tests")
    return problems


def copy_tracked_files(destination):
    """Copies the repository's tracked files as they are in the working tree."""
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, stdout=subprocess.PIPE
    ).stdout.decode()
    for relative in filter(None, listing.split("\0")):
        source = os.path.join(ROOT, relative)
        if not os.path.lexists(source):  # deleted in the working tree
            continue
        target = os.path.join(destination, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)


def cache_flags():
    """The machine's disk cache, or the HTTP cache MLIR_EE_REMOTE_CACHE
    names (.ci/run sets it: the main step's build), read only."""
    url = os.environ.get("MLIR_EE_REMOTE_CACHE")
    if url:
        return [f"--remote_cache={url}", "--noremote_upload_local_results"]
    return ["--config=disk_cache"]


class Bazel:
    def __init__(self, workspace, output_root, log_dir):
        self.workspace = workspace
        self.output_root = output_root
        self.log_dir = log_dir

    def test(self, targets, log_name):
        log = os.path.join(self.log_dir, log_name + ".log")
        command = [
            "./bazelw",
            f"--output_user_root={self.output_root}",
            "test",
            *cache_flags(),
            "--test_output=errors",
            "--test_timeout=300",
            *targets,
        ]
        with open(log, "w") as out:
            status = subprocess.run(
                command, cwd=self.workspace, stdout=out, stderr=subprocess.STDOUT
            ).returncode
        return status, log

    def shutdown(self):
        subprocess.run(
            ["bazel", f"--output_user_root={self.output_root}", "shutdown"],
            cwd=self.workspace,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def tail(path, lines=40):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def run_mutant(bazel, m):
    """Applies `m` in the scratch tree, runs its tests, restores the file.
    Returns (outcome, detail)."""
    path = os.path.join(bazel.workspace, m["file"])
    with open(path, encoding="utf-8") as f:
        original = f.read()
    if original.count(m["search"]) != 1:  # checked before, but be sure
        return "stale", "snippet not found exactly once"
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original.replace(m["search"], m["replace"]))
        status, log = bazel.test(m["tests"], m["name"])
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original)
    expect_compile_error = m.get("compile_error", False)
    if status == BAZEL_TESTS_FAILED and not expect_compile_error:
        return "killed", "tests failed"
    if status == BAZEL_BUILD_FAILED:
        if expect_compile_error:
            return "killed", "does not build (expected)"
        return "ERROR", "does not build (not marked compile_error): " + log
    if status == BAZEL_OK:
        return "SURVIVED", "tests passed"
    return "ERROR", f"bazel exited with {status}: {log}"


def interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def main():
    # A run stopped by a signal still shuts its Bazel server down and
    # removes the scratch copy and its output root.
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--all", action="store_true", help="run every mutant")
    group.add_argument("--sample", action="store_true", help="run the fixed sample of five (CI)")
    group.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run these mutants (comma-separated, repeatable)",
    )
    group.add_argument(
        "--check", action="store_true", help="only check that every snippet occurs exactly once"
    )
    group.add_argument("--list", action="store_true", help="list the mutants")
    parser.add_argument(
        "--keep", action="store_true", help="keep the scratch directory and its logs"
    )
    args = parser.parse_args()

    mutants, sample = load_mutants()
    by_name = {m["name"]: m for m in mutants}
    if args.list:
        for m in mutants:
            print(
                f"{m['name']:42} {m['file']}\n{'':42} {m['why']}\n{'':42} killed by {' '.join(m['tests'])}"
            )
        return 0
    if args.all or args.check:
        selected = mutants
    else:
        names = sample if args.sample else [n for arg in args.only for n in arg.split(",") if n]
        unknown = [n for n in names if n not in by_name]
        if unknown:
            sys.exit(f"unknown mutants: {', '.join(unknown)} (see --list)")
        selected = [by_name[n] for n in names]

    # Every mutant's snippet, even for a sample: a change to the sources that
    # leaves a mutant stale fails the run that follows it (CI's sample too).
    problems = check_snippets(mutants, ROOT)
    if problems:
        print("STALE MUTANTS (nothing was run):", *problems, sep="\n  ", file=sys.stderr)
        return 2
    if args.check:
        print(f"{len(mutants)} mutants, every snippet found exactly once")
        return 0

    scratch = tempfile.mkdtemp(prefix="mlir_execution_engine_mutants.")
    workspace = os.path.join(scratch, "repo")
    bazel = Bazel(workspace, os.path.join(scratch, "output_root"), os.path.join(scratch, "logs"))
    os.makedirs(bazel.log_dir)
    start = time.monotonic()
    try:
        copy_tracked_files(workspace)
        targets = sorted({t for m in selected for t in m["tests"]})
        print(f"unmutated: {' '.join(targets)}", flush=True)
        status, log = bazel.test(targets, "unmutated")
        if status != BAZEL_OK:
            print(tail(log), file=sys.stderr)
            print(
                f"the unmutated tests fail (bazel exited with {status}); no mutant was run",
                file=sys.stderr,
            )
            return 2
        print(f"unmutated tests pass ({time.monotonic() - start:.0f}s)", flush=True)

        results = []
        for index, m in enumerate(selected, 1):
            began = time.monotonic()
            outcome, detail = run_mutant(bazel, m)
            seconds = time.monotonic() - began
            results.append((m, outcome, detail, seconds))
            print(f"[{index}/{len(selected)}] {m['name']}: {outcome} ({seconds:.0f}s)", flush=True)
            if outcome not in ("killed", "SURVIVED"):
                print(f"  {detail}", flush=True)

        width = max(len(m["name"]) for m in selected)
        print()
        print(f"{'mutant':{width}}  {'outcome':8}  {'time':>5}  tests")
        for m, outcome, detail, seconds in results:
            print(f"{m['name']:{width}}  {outcome:8}  {seconds:4.0f}s  {' '.join(m['tests'])}")
        killed = sum(outcome == "killed" for _, outcome, _, _ in results)
        survived = sum(outcome == "SURVIVED" for _, outcome, _, _ in results)
        errors = len(results) - killed - survived
        print(f"\n{killed} killed, {survived} survived" + (f", {errors} errors" if errors else ""))
        print(f"total {time.monotonic() - start:.0f}s")
        return 0 if killed == len(results) else 1
    finally:
        bazel.shutdown()
        if args.keep:
            print(f"kept {scratch}")
        else:
            subprocess.run(["chmod", "-R", "u+w", scratch], stderr=subprocess.DEVNULL)
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
