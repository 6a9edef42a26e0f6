/* fw-bench-load: measures one model's load + shape inference in this process, for the load benchmark
 * (tests/bench/run-load-bench.sh, `meson test -C build --benchmark`).
 *
 * Usage: fw-bench-load MODEL [--repeat N]
 *
 * Prints one JSON object on stdout:
 *   file_bytes                size of MODEL
 *   nodes, values, static_values, ops_without_inference    what inference reached (a sanity check)
 *   first_s                   the first load + infer (the one the memory figures describe)
 *   median_s, min_s, runs_s   load + infer, repeated N times (default 5), each on a fresh model
 *   read_median_s             baseline: g_file_get_contents of the same file, N times, median
 *   rss_before_kb             VmRSS just before the first load
 *   peak_added_kb             VmHWM after the first load + infer minus rss_before_kb; the peak is reset
 *                             first through /proc/self/clear_refs ("5") where the kernel allows it,
 *                             hwm_reset says whether it was (if not, the figure is an upper bound)
 *   anon_added_kb, file_added_kb   RssAnon / RssFile growth while the model is alive: copies of weights
 *                             would show as anonymous memory, touched pages of the mapping as file memory
 *   load_anon_added_kb, load_file_added_kb   the same, measured after fw_onnx_load and before inference
 * Exit status: 0 ok, 2 usage or the model did not load or infer. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "onnx/fw-onnx.h"
#include "shape/fw-shape-infer.h"

typedef struct
{
  gint64 rss, hwm, anon, file;
} Mem;

/* Reads /proc/self/status without allocating (the figures must not include our own reading). */
static Mem
read_mem (void)
{
  Mem m = { -1, -1, -1, -1 };
  char buf[8192];
  int fd = open ("/proc/self/status", O_RDONLY | O_CLOEXEC);
  ssize_t n = -1;

  if (fd >= 0)
    {
      n = read (fd, buf, sizeof buf - 1);
      close (fd);
    }
  if (n <= 0)
    return m;
  buf[n] = '\0';
  for (char *line = buf; line && *line; )
    {
      char *next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      if (strncmp (line, "VmRSS:", 6) == 0)
        m.rss = g_ascii_strtoll (line + 6, NULL, 10);
      else if (strncmp (line, "VmHWM:", 6) == 0)
        m.hwm = g_ascii_strtoll (line + 6, NULL, 10);
      else if (strncmp (line, "RssAnon:", 8) == 0)
        m.anon = g_ascii_strtoll (line + 8, NULL, 10);
      else if (strncmp (line, "RssFile:", 8) == 0)
        m.file = g_ascii_strtoll (line + 8, NULL, 10);
      line = next;
    }
  return m;
}

/* Resets VmHWM to the current RSS (Linux >= 4.0). */
static gboolean
reset_hwm (void)
{
  int fd = open ("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = write (fd, "5", 1) == 1;
  close (fd);
  return ok;
}

typedef struct
{
  guint nodes, values, static_values, no_inference;
} Stats;

static FwModel *
load_and_infer (const char *path, Stats *stats, Mem *after_load, GError **error)
{
  g_autoptr(FwModel) model = fw_onnx_load (path, NULL, NULL, error);
  FwInferOptions opts = { 0 };
  FwInferReport rep;
  gboolean ok;

  if (after_load)
    *after_load = read_mem ();
  if (model == NULL)
    return NULL;
  fw_infer_report_init (&rep);
  ok = fw_shape_infer_graph (fw_model_get_graph (model), &opts, &rep, error);
  if (ok && stats)
    {
      stats->nodes = rep.n_nodes;
      stats->values = rep.n_values;
      stats->static_values = rep.n_static_values;
      stats->no_inference = rep.ops_without_inference ? g_hash_table_size (rep.ops_without_inference) : 0;
    }
  fw_infer_report_clear (&rep);
  return ok ? g_steal_pointer (&model) : NULL;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (GArray *a)
{
  g_autoptr(GArray) s = g_array_copy (a);
  g_array_sort (s, compare_double);
  if (s->len == 0)
    return 0;
  return s->len % 2 ? g_array_index (s, double, s->len / 2)
                    : (g_array_index (s, double, s->len / 2 - 1) + g_array_index (s, double, s->len / 2)) / 2;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) reads = g_array_new (FALSE, FALSE, sizeof (double));
  const char *path = NULL;
  guint repeat = 5;
  Stats stats = { 0 };
  FwModel *model;
  Mem before, mid, after;
  gboolean hwm_reset;
  gint64 t0, t1;
  GStatBuf st;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--repeat") == 0 && i + 1 < argc)
        {
          repeat = (guint) strtoul (argv[++i], NULL, 10);
          if (repeat == 0 || repeat > 1000)
            {
              g_printerr ("fw-bench-load: --repeat wants 1..1000\n");
              return 2;
            }
        }
      else if (argv[i][0] == '-' || path != NULL)
        {
          g_printerr ("usage: fw-bench-load MODEL [--repeat N]\n");
          return 2;
        }
      else
        path = argv[i];
    }
  if (path == NULL || g_stat (path, &st) != 0)
    {
      g_printerr ("usage: fw-bench-load MODEL [--repeat N] (MODEL must exist)\n");
      return 2;
    }

  /* The first load: memory and time. Nothing of the model has been touched by this process before. */
  hwm_reset = reset_hwm ();
  before = read_mem ();
  t0 = g_get_monotonic_time ();
  model = load_and_infer (path, &stats, &mid, &error);
  t1 = g_get_monotonic_time ();
  after = read_mem ();
  if (model == NULL)
    {
      g_printerr ("fw-bench-load: %s\n", error->message);
      return 2;
    }
  g_object_unref (model);

  for (guint i = 0; i < repeat; i++)
    {
      gint64 a = g_get_monotonic_time ();
      double s;
      model = load_and_infer (path, NULL, NULL, &error);
      s = (g_get_monotonic_time () - a) / 1e6;
      if (model == NULL)
        {
          g_printerr ("fw-bench-load: %s\n", error->message);
          return 2;
        }
      g_object_unref (model);
      g_array_append_val (runs, s);
    }

  /* Baseline: reading the file's bytes into memory, which any parser that copies has to do at least. */
  for (guint i = 0; i < repeat; i++)
    {
      char *contents = NULL;
      gsize len = 0;
      gint64 a = g_get_monotonic_time ();
      double s;
      if (!g_file_get_contents (path, &contents, &len, &error))
        {
          g_printerr ("fw-bench-load: %s\n", error->message);
          return 2;
        }
      s = (g_get_monotonic_time () - a) / 1e6;
      g_free (contents);
      g_array_append_val (reads, s);
    }

  {
    GString *j = g_string_new ("{");
    double min = G_MAXDOUBLE;

    for (guint i = 0; i < runs->len; i++)
      min = MIN (min, g_array_index (runs, double, i));
    g_string_append_printf (j, "\"file_bytes\":%" G_GINT64_FORMAT, (gint64) st.st_size);
    g_string_append_printf (j, ",\"nodes\":%u,\"values\":%u,\"static_values\":%u,\"ops_without_inference\":%u",
                            stats.nodes, stats.values, stats.static_values, stats.no_inference);
    g_string_append_printf (j, ",\"first_s\":%.6f,\"median_s\":%.6f,\"min_s\":%.6f,\"runs_s\":[",
                            (t1 - t0) / 1e6, median (runs), min);
    for (guint i = 0; i < runs->len; i++)
      g_string_append_printf (j, "%s%.6f", i ? "," : "", g_array_index (runs, double, i));
    g_string_append_printf (j, "],\"read_median_s\":%.6f", median (reads));
    g_string_append_printf (j, ",\"hwm_reset\":%s,\"rss_before_kb\":%" G_GINT64_FORMAT
                            ",\"peak_added_kb\":%" G_GINT64_FORMAT ",\"anon_added_kb\":%" G_GINT64_FORMAT
                            ",\"file_added_kb\":%" G_GINT64_FORMAT
                            ",\"load_anon_added_kb\":%" G_GINT64_FORMAT ",\"load_file_added_kb\":%" G_GINT64_FORMAT
                            "}\n",
                            hwm_reset ? "true" : "false", before.rss, after.hwm - before.rss,
                            after.anon - before.anon, after.file - before.file,
                            mid.anon - before.anon, mid.file - before.file);
    fputs (j->str, stdout);
    g_string_free (j, TRUE);
  }
  return 0;
}
