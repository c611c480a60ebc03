//===- foreign_thread.c - Calls a function on a thread of its own ---------===//
//
// A shared library for test/python/engine_errors.py: jitted code hands it a
// function pointer, and it calls the function on a pthread it starts, a
// thread Python never created.
//
//===----------------------------------------------------------------------===//

#include <pthread.h>
#include <stdlib.h>

typedef double (*Function)(double);

struct Call {
  Function function;
  double argument;
  double result;
};

static void *run(void *data) {
  struct Call *call = (struct Call *)data;
  call->result = call->function(call->argument);
  return 0;
}

/// Calls `function(argument)` on a new thread, waits for it and returns its
/// result (-1 if the thread cannot be started).
double call_on_new_thread(Function function, double argument) {
  struct Call call = {function, argument, 0.0};
  pthread_t thread;
  if (pthread_create(&thread, 0, run, &call) != 0)
    return -1.0;
  pthread_join(thread, 0);
  return call.result;
}

static void *runAndFree(void *data) {
  struct Call *call = (struct Call *)data;
  call->function(call->argument);
  free(call);
  return 0;
}

/// Calls `function(argument)` on a new detached thread and returns at once:
/// 0, or -1 if the thread cannot be started.
int call_on_detached_thread(Function function, double argument) {
  struct Call *call = (struct Call *)malloc(sizeof(struct Call));
  if (!call)
    return -1;
  call->function = function;
  call->argument = argument;
  pthread_t thread;
  if (pthread_create(&thread, 0, runAndFree, call) != 0) {
    free(call);
    return -1;
  }
  pthread_detach(thread);
  return 0;
}
