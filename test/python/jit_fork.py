# RUN: %PYTHON %s | FileCheck %s
#
# A forked child has one thread, the one that called fork (a fork-start
# process pool forks while other threads run): no call of a module hangs in
# it, whatever another thread of the parent was doing at the fork. A
# module's first call compiling on another thread leaves its lock held and
# its engine half made: the child re-arms the lock (os.register_at_fork) and
# makes the engine anew, compiling the module, or lowering it first when
# jit() took it from the cache. A cache load under way on a thread of its
# own (jit() of a cached module) delays the fork until it is done, so that
# no lock of LLVM's it takes stays held in the child. LLVM's OpenMP runtime
# starts again in a child, whose parallel calls run on threads of its own.
# Each child dies of SIGALRM if it hangs.

import os
import signal
import tempfile
import threading

import numpy as np

import mlir.jit.state
from mlir import jit_cache
from mlir._mlir_libs import _mlirExecutionEngine as native
from mlir.execution_engine import FAST_PIPELINE, jit

from fixtures import STORE

ROOT = tempfile.mkdtemp(prefix="jit_fork_", dir=os.environ.get("TEST_TMPDIR"))
PARENT = os.getpid()


def source(k, functions=1):
    """f0 .. f<functions-1>, each (a, b) -> (a + k) * b."""
    return "\n".join(
        f"""func.func @f{i}(%a: f64, %b: f64) -> f64 {{
  %k = arith.constant {k}.0 : f64
  %c = arith.addf %a, %k : f64
  %d = arith.mulf %c, %b : f64
  return %d : f64
}}"""
        for i in range(functions)
    )


def in_child(work, seconds=20):
    """Runs `work` in a forked child; its exit status (0 if `work` returns
    True; SIGALRM's if it hangs)."""
    child = os.fork()
    if child == 0:
        signal.alarm(seconds)
        try:
            code = 0 if work() else 1
        except BaseException as error:
            print("child:", type(error).__name__, error, flush=True)
            code = 2
        os._exit(code)
    return os.waitpid(child, 0)[1]


def describe(status):
    if os.WIFSIGNALED(status):
        return signal.Signals(os.WTERMSIG(status)).name
    return f"exit {os.WEXITSTATUS(status)}"


class Paused:
    """Replaces `owner.name`, a step of a module's first call, by one that
    does the step, then (in this process only: a child does not wait)
    waits until released. The call's thread holds the module's lock
    meanwhile, as it would while compiling."""

    def __init__(self, owner, name):
        self.owner, self.name = owner, name
        self.original = getattr(owner, name)
        self.inside, self.release = threading.Event(), threading.Event()

        def step(*args, **kwargs):
            result = self.original(*args, **kwargs)
            if os.getpid() == PARENT:
                self.inside.set()
                self.release.wait()
            return result

        setattr(owner, name, step)

    def restore(self):
        setattr(self.owner, self.name, self.original)


def fork_during_first_call(module, owner, step, child_work):
    """Forks while another thread's first call of `module` is paused
    after `step`; returns the child's status and the thread's result."""
    paused = Paused(owner, step)
    results = []
    thread = threading.Thread(target=lambda: results.append(module.f0(1.0, 2.0)))
    thread.start()
    paused.inside.wait()
    status = in_child(child_work)
    paused.release.set()
    thread.join()
    paused.restore()
    return describe(status), results


# A module compiling (no cache) on another thread: the child compiles it.
module = jit(source(1), cache_dir=None)
status, results = fork_during_first_call(
    module, mlir.jit.state, "ExecutionEngine", lambda: module.f0(2.0, 3.0) == 9.0
)
print("compiling on another thread:", status, results)
# CHECK: compiling on another thread: exit 0 [4.0]

# Callbacks are bound to the child's engine too.
CALLBACK = """
func.func private @twice(f64) -> f64
func.func @f0(%a: f64, %b: f64) -> f64 {
  %t = func.call @twice(%a) : (f64) -> f64
  %r = arith.addf %t, %b : f64
  return %r : f64
}
"""
module = jit(CALLBACK, cache_dir=None)
module.register("twice", lambda x: 2 * x)
status, results = fork_during_first_call(
    module, native, "_bind_callbacks", lambda: module.f0(2.0, 3.0) == 7.0
)
print("binding callbacks on another thread:", status, results)
# CHECK: binding callbacks on another thread: exit 0 [4.0]

# A module jit() took from the cache, paused once its engine from the cache
# was taken (and its runtime functions registered on it): the child lowers
# the module and makes an engine of its own, from the cache, or compiling
# it if the entry is gone.
cache = os.path.join(ROOT, "cache")
jit(source(2), cache_dir=cache).f0(0.0, 0.0)
module = jit(source(2), cache_dir=cache)
before = jit_cache.statistics()


def cached_in_child(clear):
    if clear:
        jit_cache.clear(cache)
    right = module.f0(2.0, 3.0) == 12.0
    after = jit_cache.statistics()
    made = {key: after[key] - before[key] for key in ("hits", "compilations")}
    return right and made == (
        {"hits": 0, "compilations": 1} if clear else {"hits": 1, "compilations": 0}
    )


for clear in (False, True):
    status, results = fork_during_first_call(
        module, native, "_bind_runtime_support", lambda: cached_in_child(clear)
    )
    print("bound from the cache on another thread, entry cleared", clear, status, results)
    module = jit(source(2), cache_dir=cache)
    before = jit_cache.statistics()
# CHECK: bound from the cache on another thread, entry cleared False exit 0 [6.0]
# CHECK: bound from the cache on another thread, entry cleared True exit 0 [6.0]

# The lock held by another thread at the fork (as register() holds it).
module = jit(CALLBACK, cache_dir=None)
module.register("twice", lambda x: 3 * x)
held, done = threading.Event(), threading.Event()


def hold():
    with module._state.lock:
        held.set()
        done.wait()


holder = threading.Thread(target=hold)
holder.start()
held.wait()
status = in_child(lambda: module.f0(2.0, 3.0) == 9.0)
done.set()
holder.join()
print("the lock held by another thread:", describe(status), module.f0(2.0, 3.0))
# CHECK: the lock held by another thread: exit 0 9.0

# As a fork-start pool forks: a thread makes the first calls of 24 modules
# while this one forks again and again; each child calls every module.
modules = [jit(source(k, functions=8), cache_dir=None) for k in range(24)]


def first_calls():
    for module in modules:
        module.f0(1.0, 2.0)


def every_module():
    return all(m.f0(2.0, 3.0) == (2.0 + k) * 3.0 for k, m in enumerate(modules))


thread = threading.Thread(target=first_calls)
thread.start()
statuses = []
while thread.is_alive() or not statuses:
    statuses.append(describe(in_child(every_module, seconds=60)))
thread.join()
print("children forked amid first calls:", sorted(set(statuses)))
# CHECK: children forked amid first calls: ['exit 0']

# Forks amid cache loads (jit() of cached modules on two threads): each
# child makes an engine of its own, which loads LLVM's runtime libraries.
loads = os.path.join(ROOT, "loads")
jit(source(3), cache_dir=loads).f0(0.0, 0.0)
busy = True


def load():
    while busy:
        jit(source(3), cache_dir=loads)


threads = [threading.Thread(target=load) for _ in range(2)]
for thread in threads:
    thread.start()
statuses = [
    describe(in_child(lambda: jit(source(4), cache_dir=None).f0(2.0, 3.0) == 18.0))
    for _ in range(40)
]
busy = False
for thread in threads:
    thread.join()
print("children forked amid cache loads:", sorted(set(statuses)))
# CHECK: children forked amid cache loads: ['exit 0']

# Parallel calls: OpenMP's threads of the parent are not the child's.
parallel = jit(STORE, pipeline=FAST_PIPELINE, cache_dir=None)
x = np.zeros(1 << 20)
parallel.store(x)


def stores():
    y = np.zeros(1 << 20)
    parallel.store(y)
    return np.array_equal(y, np.arange(1 << 20, dtype=np.float64))


busy = True


def store_in_parallel():
    while busy:
        parallel.store(np.zeros(1 << 20))


thread = threading.Thread(target=store_in_parallel)
thread.start()
statuses = [describe(in_child(stores)) for _ in range(20)]
busy = False
thread.join()
print("parallel calls in children:", sorted(set(statuses)))
# CHECK: parallel calls in children: ['exit 0']
