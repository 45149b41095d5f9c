// The C reference of numakit's bench mem (bench/mem-vs-c.mjs compiles it with gcc in the same
// run): the same kernels on the same design. Pinned pthreads work on slices of three arrays of
// SIZE MiB; read sums 64-bit words (gcc vectorizes it), write is memset and copy memcpy (what
// numakit's memory.fill and memory.copy run), triad a = b + s*c; bytes counted as STREAM counts
// them; a rep lasts from the first thread's start to the last one's end; best and median of
// REPS timed reps after one untimed pass. lat: one thread chases a random cycle (Sattolo) with
// one pointer per 64-byte line, after one untimed lap, in laps of 2^20 loads; prints the
// median and the fastest lap, ns per load.
//   stream_ref bw SIZE_MIB THREADS REPS CPU,CPU,...   -> "kernel best_GBps median_GBps" lines
//   stream_ref lat SIZE_MIB LOADS CPU [huge]          -> "latency ns_per_load"
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static size_t n;          // elements per array (doubles)
static int nthreads, reps;
static double *a, *b, *c;
static int cpus[1024];
static pthread_barrier_t bar;
static volatile uint64_t sink;
enum { READ, WRITE, COPY, TRIAD, NK };
static const char *names[NK] = { "read", "write", "copy", "triad" };
static const double bytes_per_elem[NK] = { 8, 8, 16, 24 };
static double times[NK][1000];
static double start[1024], end[1024];

static void *alloc(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) { perror("mmap"); exit(1); }
  if (getenv("REF_HUGE")) madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

static void kernel(int k, size_t lo, size_t hi) {
  const double s = 3.0;
  switch (k) {
  case READ: { uint64_t sum = 0; const uint64_t *x = (const uint64_t *)a; for (size_t i = lo; i < hi; i++) sum += x[i]; sink += sum; break; }
  case WRITE: memset(c + lo, 0x3f, (hi - lo) * 8); break;
  case COPY: memcpy(c + lo, a + lo, (hi - lo) * 8); break;
  case TRIAD: for (size_t i = lo; i < hi; i++) a[i] = b[i] + s * c[i]; break;
  }
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpus[id], &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  size_t lo = n * id / nthreads, hi = n * (id + 1) / nthreads;
  for (size_t i = lo; i < hi; i++) { a[i] = 1.0; b[i] = 2.0; c[i] = 0.0; }
  for (int k = 0; k < NK; k++)
    for (int r = 0; r <= reps; r++) {
      pthread_barrier_wait(&bar);
      start[id] = now();
      kernel(k, lo, hi);
      end[id] = now();
      pthread_barrier_wait(&bar);
    }
  return NULL;
}

static int cmp(const void *x, const void *y) { double d = *(const double *)x - *(const double *)y; return (d > 0) - (d < 0); }

static int bw(size_t mib, int threads, int r, char *cpulist) {
  nthreads = threads; reps = r; n = mib * 1024 * 1024 / 8;
  for (int i = 0; i < threads; i++) { cpus[i] = atoi(cpulist); char *comma = strchr(cpulist, ','); if (comma) cpulist = comma + 1; }
  a = alloc(n * 8); b = alloc(n * 8); c = alloc(n * 8);
  pthread_barrier_init(&bar, NULL, threads + 1);
  pthread_t t[1024];
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  for (int k = 0; k < NK; k++)
    for (int rep = 0; rep <= reps; rep++) {
      pthread_barrier_wait(&bar);
      pthread_barrier_wait(&bar);
      // from the first thread's start to the last one's end; the first pass is untimed
      double t0 = start[0], t1 = end[0];
      for (int i = 1; i < threads; i++) { if (start[i] < t0) t0 = start[i]; if (end[i] > t1) t1 = end[i]; }
      if (rep > 0) times[k][rep - 1] = t1 - t0;
    }
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  for (int k = 0; k < NK; k++) {
    qsort(times[k], reps, sizeof(double), cmp);
    double bytes = bytes_per_elem[k] * n;
    printf("%s %.3f %.3f\n", names[k], bytes / times[k][0] / 1e9, bytes / times[k][reps / 2] / 1e9);
  }
  return 0;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static int lat(size_t mib, long loads, int cpu) {
  cpu_set_t set; CPU_ZERO(&set); CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
  size_t lines = mib * 1024 * 1024 / 64;
  char *buf = alloc(lines * 64);
  uint32_t *perm = malloc(lines * sizeof *perm);
  for (size_t i = 0; i < lines; i++) perm[i] = i;
  for (size_t i = lines - 1; i > 0; i--) { size_t j = next() % i; uint32_t x = perm[i]; perm[i] = perm[j]; perm[j] = x; } // Sattolo: one cycle
  for (size_t i = 0; i < lines; i++) *(void **)(buf + (size_t)i * 64) = buf + (size_t)perm[i] * 64;
  free(perm);
  void **p = (void **)buf;
  for (size_t i = 0; i < lines; i++) p = *p; // untimed pass
  // Laps of 2^20 loads (numakit's lap): the median and the fastest lap, in ns per load.
  const long lap = 1 << 20;
  long laps = loads / lap < 3 ? 3 : loads / lap;
  double *ns = malloc(laps * sizeof *ns);
  for (long l = 0; l < laps; l++) {
    double t0 = now();
    for (long i = 0; i < lap; i += 16) {
      p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p;
      p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p; p = *p;
    }
    ns[l] = (now() - t0) / lap * 1e9;
  }
  sink = (uint64_t)(uintptr_t)p;
  qsort(ns, laps, sizeof *ns, cmp);
  printf("latency %.2f %.2f\n", ns[laps / 2], ns[0]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 6 && strcmp(argv[1], "bw") == 0) return bw(atol(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
  if (argc >= 5 && strcmp(argv[1], "lat") == 0) return lat(atol(argv[2]), atol(argv[3]), atoi(argv[4]));
  fprintf(stderr, "usage: stream_ref bw SIZE_MIB THREADS REPS CPUS | lat SIZE_MIB LOADS CPU\n");
  return 2;
}
