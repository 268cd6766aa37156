// Counts the process's heap allocations, for the benchmarks' allocations-per-operation figures.
//
// On Linux (glibc), this file defines malloc, calloc, realloc, posix_memalign, aligned_alloc and
// memalign. The executable's definitions come first in the dynamic linker's lookup, so every
// allocation of the process comes here: the Swift runtime's, Foundation's, the library's and
// glibc's own internal ones. Each is counted (while counting is on) and handed to glibc's
// allocator through its __libc_ entry points, so `free`, which is not replaced, releases the
// memory as usual. Not counted: valloc and pvalloc, which nothing here calls.
//
// Elsewhere (Apple platforms, whose two-level namespace doesn't let an executable replace
// malloc this way) nothing is replaced, and allocation_count() returns -1: "not available".

#if defined(__linux__)
// For the declarations of posix_memalign and memalign, whatever the -std option.
#define _GNU_SOURCE
#endif

#include "AllocationCounter.h"

#if defined(__linux__)

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>

// glibc's allocator under its own names (exported by libc.so.6, declared in no header).
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic int64_t allocations;
static _Atomic bool counting;

static inline void count_allocation(void) {
  if (atomic_load_explicit(&counting, memory_order_relaxed)) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  }
}

int64_t allocation_count(void) {
  return atomic_load_explicit(&allocations, memory_order_relaxed);
}

void allocation_counting_set_enabled(bool enabled) {
  atomic_store_explicit(&counting, enabled, memory_order_relaxed);
}

void *malloc(size_t size) {
  count_allocation();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  count_allocation();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  count_allocation();
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  count_allocation();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count_allocation();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  void *memory;
  int saved = errno;
  // The alignment must be a power of two and a multiple of sizeof(void *).
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  count_allocation();
  memory = __libc_memalign(alignment, size);
  if (memory == NULL) {
    errno = saved;  // posix_memalign reports by its result, and leaves errno alone
    return ENOMEM;
  }
  *result = memory;
  return 0;
}

#else

int64_t allocation_count(void) { return -1; }

void allocation_counting_set_enabled(bool enabled) { (void)enabled; }

#endif
