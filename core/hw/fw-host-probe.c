/* fw-host-probe.c: the `host` profile. host.yaml gives the shape and the fallbacks; sysfs gives cores and
 * caches; a short probe measures memory bandwidth and FLOP rate once per machine and caches the result. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "hw/fw-host-bench.h"
#include "hw/fw-host-calibrate.h"
#include "hw/fw-hw-private.h"

/* Bump when the probe changes, so old caches are measured again. */
#define PROBE_VERSION 1

/* Floats one iteration of the FMA loop updates (each with a multiply and an add). */
#define FMA_LANES     32
#define FMA_MIN_US    10000

#define SYS_CPU "/sys/devices/system/cpu"

/* Serialises probing: two probes at once would each measure half the machine. */
static GMutex probe_lock;

typedef struct
{
  guint   physical_cores;
  guint   logical_cpus;
  guint64 l1_bytes;
  guint64 l2_per_core_bytes;
  guint64 llc_bytes;
} HostTopology;

static char *
read_sys_text (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

/* sysfs writes cache sizes as "48K", "2048K" or "32M" (binary units). */
static guint64
parse_cache_size (const char *text)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);

  if (end == text)
    return 0;
  switch (*end)
    {
    case 'K': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    case '\0': return v;
    default: return 0;
    }
}

static void
read_caches (HostTopology *t)
{
  g_autoptr(GDir) dir = g_dir_open (SYS_CPU "/cpu0/cache", 0, NULL);
  const char *entry;
  guint llc_level = 0;

  while (dir && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *base = NULL, *level_s = NULL, *type = NULL, *size_s = NULL;
      g_autofree char *p_level = NULL, *p_type = NULL, *p_size = NULL;
      guint level;
      guint64 size;

      if (!g_str_has_prefix (entry, "index"))
        continue;
      base = g_build_filename (SYS_CPU "/cpu0/cache", entry, NULL);
      p_level = g_build_filename (base, "level", NULL);
      p_type = g_build_filename (base, "type", NULL);
      p_size = g_build_filename (base, "size", NULL);
      level_s = read_sys_text (p_level);
      type = read_sys_text (p_type);
      size_s = read_sys_text (p_size);
      if (!level_s || !type || !size_s || strcmp (type, "Instruction") == 0)
        continue;
      level = (guint) g_ascii_strtoull (level_s, NULL, 10);
      size = parse_cache_size (size_s);
      if (size == 0)
        continue;
      if (level == 1)
        t->l1_bytes = size;
      else if (level == 2)
        t->l2_per_core_bytes = size;
      if (level >= llc_level)
        {
          llc_level = level;
          t->llc_bytes = size;
        }
    }
}

/* Physical cores: distinct (package, core) pairs, so SMT siblings count once. */
static guint
count_physical_cores (void)
{
  g_autoptr(GDir) dir = g_dir_open (SYS_CPU, 0, NULL);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *entry;

  while (dir && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p_pkg = NULL, *p_core = NULL, *pkg = NULL, *core = NULL;

      if (!g_str_has_prefix (entry, "cpu") || !g_ascii_isdigit (entry[3]))
        continue;
      p_pkg = g_build_filename (SYS_CPU, entry, "topology", "physical_package_id", NULL);
      p_core = g_build_filename (SYS_CPU, entry, "topology", "core_id", NULL);
      pkg = read_sys_text (p_pkg);
      core = read_sys_text (p_core);
      if (pkg && core)
        g_hash_table_add (seen, g_strconcat (pkg, ":", core, NULL));
    }
  return g_hash_table_size (seen);
}

static void
read_topology (HostTopology *t)
{
  guint physical;

  memset (t, 0, sizeof *t);
  /* g_get_num_processors honours the affinity mask: the CPUs this process may really use. */
  t->logical_cpus = MAX (1, g_get_num_processors ());
  physical = count_physical_cores ();
  t->physical_cores = physical == 0 ? t->logical_cpus : MIN (physical, t->logical_cpus);
  read_caches (t);
}

/* What identifies this machine for the cache: CPU model and CPU count (and the probe's version). */
static char *
machine_key (const HostTopology *t)
{
  g_autofree char *cpuinfo = NULL;
  g_autofree char *model = NULL;

  if (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL))
    {
      g_auto(GStrv) lines = g_strsplit (cpuinfo, "\n", -1);
      for (guint i = 0; lines[i] && model == NULL; i++)
        {
          char *colon = strchr (lines[i], ':');
          if (colon == NULL)
            continue;
          *colon = '\0';
          g_strstrip (lines[i]);
          /* x86 says "model name"; some Arm kernels only give "Hardware" or "CPU part". */
          if (strcmp (lines[i], "model name") == 0 || strcmp (lines[i], "Hardware") == 0
              || strcmp (lines[i], "CPU part") == 0)
            model = g_strdup (g_strstrip (colon + 1));
        }
    }
  return g_strdup_printf ("%s; %u CPUs; probe %d", model ? model : "unknown CPU", t->logical_cpus,
                          PROBE_VERSION);
}

/* ---- the probe ---- */

/* Volatile inputs make the kernel read memory, so the compiler can neither treat it as a pure function and
 * move it out from between the two clock readings nor fold the loop at compile time. */
static volatile float fma_multiplier = 0.999999f;
static volatile float fma_addend = 1e-6f;

#if defined(__GNUC__)
/* Eight independent 4-lane accumulators held in registers: enough chains to hide the multiply and add
 * latencies, so the loop runs at the throughput of the baseline ISA's vector units (SSE2 on x86-64, NEON
 * on Arm). That is the code quality the host target's plain C kernels get, which is what the cost model
 * should price, not a datasheet peak needing -march=native. */
typedef float FmaVec __attribute__ ((vector_size (16)));

static G_GNUC_NO_INLINE float
fma_kernel (guint64 iterations)
{
  const FmaVec m = { fma_multiplier, fma_multiplier, fma_multiplier, fma_multiplier };
  const FmaVec k = { fma_addend, fma_addend, fma_addend, fma_addend };
  FmaVec a0 = { 0.1f, 0.2f, 0.3f, 0.4f };
  FmaVec a1 = a0 + k, a2 = a1 + k, a3 = a2 + k, a4 = a3 + k, a5 = a4 + k, a6 = a5 + k, a7 = a6 + k;
  FmaVec total;

  for (guint64 it = 0; it < iterations; it++)
    {
      a0 = a0 * m + k;
      a1 = a1 * m + k;
      a2 = a2 * m + k;
      a3 = a3 * m + k;
      a4 = a4 * m + k;
      a5 = a5 * m + k;
      a6 = a6 * m + k;
      a7 = a7 * m + k;
    }
  total = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  return total[0] + total[1] + total[2] + total[3];
}
#else
/* Without vector extensions: an array the compiler may vectorise. */
static G_GNUC_NO_INLINE float
fma_kernel (guint64 iterations)
{
  float acc[FMA_LANES];
  const float m = fma_multiplier, k = fma_addend;
  float sum = 0;

  for (guint i = 0; i < FMA_LANES; i++)
    acc[i] = (float) i * 1e-3f;
  for (guint64 it = 0; it < iterations; it++)
    for (guint i = 0; i < FMA_LANES; i++)
      acc[i] = acc[i] * m + k;
  for (guint i = 0; i < FMA_LANES; i++)
    sum += acc[i];
  return sum;
}
#endif

/* One core's fp32 multiply-add rate (2 FLOP each), best of three timed runs of about 10 ms. */
static double
measure_flops_per_core (void)
{
  guint64 iterations = 1 << 12;
  gint64 elapsed = 0, best;
  volatile float sink;

  /* Grow the run until it is long enough for the microsecond clock to time it well. */
  for (;;)
    {
      gint64 start = g_get_monotonic_time ();
      sink = fma_kernel (iterations);
      elapsed = g_get_monotonic_time () - start;
      /* The cap only matters with a broken clock; a real core reaches 10 ms far below it. */
      if (elapsed >= FMA_MIN_US || iterations >= G_GUINT64_CONSTANT (1) << 32)
        break;
      iterations *= 2;
    }
  best = elapsed;
  for (guint r = 0; r < 2; r++)
    {
      gint64 start = g_get_monotonic_time ();
      sink = fma_kernel (iterations);
      best = MIN (best, g_get_monotonic_time () - start);
    }
  (void) sink;
  return best <= 0 ? 0 : 2.0 * FMA_LANES * (double) iterations / (best * 1e-6);
}

/* ---- the cache ---- */

static char *
cache_path (void)
{
  return g_build_filename (g_get_user_cache_dir (), "fusion-workbench", "host-profile.yaml", NULL);
}

/* The cached profile if it was measured on this machine by this probe; anything else means "measure". */
static FwProfile *
read_cache (const char *path, const char *key)
{
  g_autoptr(FwYamlDocument) doc = NULL;
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *machine = NULL;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  doc = fw_yaml_load_file (path, &error);
  if (doc != NULL)
    profile = fw_profile_from_document (doc, path, &machine, &error);
  if (profile == NULL)
    {
      g_debug ("host profile cache %s unusable, measuring again: %s", path, error->message);
      return NULL;
    }
  if (profile->kind != FW_PROFILE_CPU || g_strcmp0 (machine, key) != 0)
    {
      g_debug ("host profile cache %s is from another machine (%s), measuring again", path,
               machine ? machine : "?");
      return NULL;
    }
  return g_steal_pointer (&profile);
}

gboolean
fw_host_cache_write (const char *path, const FwProfile *profile, const char *machine, const char *what,
                     const char *advice, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format_iso8601 (now);
  g_autofree char *header = g_strdup_printf ("Fusion Workbench %s, measured %s on this machine.\n%s", what, stamp,
                                             advice);
  g_autofree char *yaml = fw_profile_serialize (profile, machine, header);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, "%s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  return g_file_set_contents_full (path, yaml, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

char *
fw_host_machine_key (void)
{
  HostTopology topo;

  read_topology (&topo);
  return machine_key (&topo);
}

gboolean
fw_host_profile_no_probe (void)
{
  return g_strcmp0 (g_getenv ("FW_HOST_PROFILE_NO_PROBE"), "1") == 0;
}

FwProfile *
fw_host_profile_load_uncalibrated (GError **error)
{
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(GMutexLocker) locker = NULL;
  g_autoptr(GError) write_error = NULL;
  g_autofree char *key = NULL, *path = NULL;
  HostTopology topo;
  double bandwidth, flops;

  profile = fw_profile_load_resource ("host", error);
  if (profile == NULL)
    return NULL;

  read_topology (&topo);
  profile->cube_cores = topo.physical_cores;
  profile->vector_cores = topo.logical_cpus;
  /* A missing level keeps host.yaml's fallback; the L2 stands in for the Unified Buffer. */
  if (topo.l1_bytes)
    profile->l1_bytes = topo.l1_bytes;
  if (topo.l2_per_core_bytes)
    profile->ub_bytes = topo.l2_per_core_bytes;
  if (topo.llc_bytes)
    profile->l2_bytes = topo.llc_bytes;

  if (fw_host_profile_no_probe ())
    {
      /* Tests want speed and the same numbers everywhere, so the cache is neither read nor written. */
      g_free (profile->source);
      profile->source = g_strdup ("estimate: FW_HOST_PROFILE_NO_PROBE=1, bandwidth and FLOP rate are "
                                  "host.yaml's fixed fallbacks, not measured");
      return g_steal_pointer (&profile);
    }

  key = machine_key (&topo);
  path = cache_path ();
  locker = g_mutex_locker_new (&probe_lock);
  {
    FwProfile *cached = read_cache (path, key);
    if (cached)
      return cached;
  }

  bandwidth = fw_host_bench_triad (topo.logical_cpus);
  flops = measure_flops_per_core () * topo.physical_cores;
  if (bandwidth > 0)
    profile->hbm_bytes_per_s = bandwidth;
  if (flops > 0)
    {
      /* The integer rate keeps its ratio to the matrix rate the file gave. */
      gdouble int8_ratio = profile->cube_flops_per_s > 0 ? profile->cube_int8_ops_per_s / profile->cube_flops_per_s : 1;
      profile->cube_flops_per_s = profile->vector_flops_per_s = flops;
      profile->cube_int8_ops_per_s = flops * int8_ratio;
    }

  /* source stays untranslated, like a path: reports quote it and must not change with the locale. */
  g_free (profile->source);
  if (fw_host_cache_write (path, profile, key, "host profile", "Delete this file to measure again.", &write_error))
    profile->source = g_strdup_printf ("probe: measured now, saved to %s", path);
  else
    {
      /* Not fatal: the numbers are good for this run, the next one measures again. */
      g_debug ("host profile not cached: %s", write_error->message);
      profile->source = g_strdup_printf ("probe: measured now, not saved (%s)", write_error->message);
    }
  return g_steal_pointer (&profile);
}
