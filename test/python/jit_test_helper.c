// A shared library for test/python/jit_callbacks.py, loaded through
// jit(shared_libs=): a function jitted code calls, and a native thread, which
// Python never created, that calls a jitted function through its packed wrapper
// (ExecutionEngine.raw_lookup's address: `void fn(void **args)`, the
// arguments' addresses then the result's).

#include <pthread.h>
#include <stdint.h>

typedef void (*PackedFn)(void **);

struct Job {
  PackedFn fn;
  int64_t arg;
  int64_t result;
  uint64_t thread;
};

static void *runJob(void *opaque) {
  struct Job *job = (struct Job *)opaque;
  job->thread = (uint64_t)pthread_self();
  void *args[2] = {&job->arg, &job->result};
  job->fn(args);
  return NULL;
}

/// Calls the packed fn(arg) -> i64 on a new thread and returns its result;
/// stores the thread's pthread_self() (Python's threading.get_ident() there) in
/// `*thread` if not null. Returns -1 if no thread could be started.
int64_t jit_test_call_in_thread(PackedFn fn, int64_t arg, uint64_t *thread) {
  struct Job job = {fn, arg, 0, 0};
  pthread_t handle;
  if (pthread_create(&handle, NULL, runJob, &job) != 0)
    return -1;
  pthread_join(handle, NULL);
  if (thread)
    *thread = job.thread;
  return job.result;
}

int64_t jit_test_triple(int64_t x) { return 3 * x; }
