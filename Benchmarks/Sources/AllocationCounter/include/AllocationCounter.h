// Counts the process's heap allocations, for the benchmarks' allocations-per-operation figures.

#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// The number of heap allocations counted so far (calls of malloc, calloc, realloc,
/// posix_memalign, aligned_alloc and memalign while counting was on), or -1 where allocations
/// can't be counted (every platform but Linux).
int64_t allocation_count(void);

/// Turns counting on or off (off at launch), so that the figures that don't count allocations
/// don't pay for it: off, an allocation costs one relaxed load more than glibc's own.
void allocation_counting_set_enabled(bool enabled);

#endif
