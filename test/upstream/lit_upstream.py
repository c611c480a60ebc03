"""Runs lit on one of upstream's tests from the release's sources
(@llvm-project//mlir/test/python or mlir/test/CAPI), for
//test/upstream:defs.bzl.

    lit_upstream.py TESTS_DIR_MARKER TEST [LIT ARGS...]

TESTS_DIR_MARKER is a file directly in the tests' directory (its
lit.local.cfg), TEST the test's path below that directory. The test directory joins a lit
suite made in $TEST_TMPDIR whose config is //test:lit.cfg.py, so that
upstream's lit.local.cfg files apply and each RUN line sees the test beside
its sibling files, as in upstream's tree; nothing is written into it.
"""

import os
import sys

from lit.main import main


def run():
    marker, test, *lit_args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    suite = os.path.join(os.environ["TEST_TMPDIR"], "suite")
    os.makedirs(suite, exist_ok=True)
    links = {
        "lit.cfg.py": os.path.join(os.path.dirname(here), "lit.cfg.py"),
        os.path.basename(os.path.dirname(marker)): os.path.dirname(os.path.abspath(marker)),
    }
    for name, target in links.items():
        link = os.path.join(suite, name)
        if not os.path.lexists(link):
            os.symlink(target, link)
    sys.argv = (
        [sys.argv[0]]
        + lit_args
        + [os.path.join(suite, os.path.basename(os.path.dirname(marker)), test)]
    )
    main()


if __name__ == "__main__":
    run()
