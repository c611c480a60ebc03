# RUN: %PYTHON %s | FileCheck %s
#
# A child forked while other threads allocate and free through jitted code
# gets the lock of the kept buffers (jit_buffer_reuse.py) unlocked: its own
# allocations do not hang. Each child dies of SIGALRM if it hangs.
#
# Not under the sanitizers (tagged no_asan in BUILD): gcc 12's ASan runtime
# does not take its allocator's locks around fork, so a child forked while
# another thread frees deadlocks in ASan's quarantine (seen in gdb:
# StaticSpinMutex::LockSlow under Quarantine::Drain), whatever this
# package does.

import os
import signal
import threading

from mlir.execution_engine import jit

from fixtures import TEMPORARY

FOUR_MIB = 1 << 20  # floats
temporary = jit(TEMPORARY)
busy = True


def allocate():
    while busy:
        temporary.through_temporary(FOUR_MIB, 2.0)


threads = [threading.Thread(target=allocate) for _ in range(2)]
for thread in threads:
    thread.start()
done = 0
for _ in range(200):
    child = os.fork()
    if child == 0:
        signal.alarm(10)
        os._exit(0 if temporary.through_temporary(FOUR_MIB, 3.0) == 3.0 else 1)
    status = os.waitpid(child, 0)[1]
    if status != 0:
        print("a child failed, status", status)
        break
    done += 1
busy = False
for thread in threads:
    thread.join()
# CHECK: children forked amid allocations that allocated: 200 of 200
print("children forked amid allocations that allocated:", done, "of 200")
