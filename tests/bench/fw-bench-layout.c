/* fw-bench-layout: how long the graph layout takes, against Graphviz on the same graph.
 *
 *   fw-bench-layout [--pictures DIR] [MODEL.onnx...]
 *
 * Always lays out a generated transformer stack of about 10,000 drawn nodes with every scope open (bar: under
 * 1 s), and the same with the default collapsing; each model given is loaded and laid out open too (bar for
 * vit_b_16, about 1,000 nodes: under 50 ms). Medians of 5 runs. Then `dot -Tplain` on the 10k graph written as
 * DOT, once, stopped after 120 s (skipped with a note when dot is not installed; FW_BENCH_NO_DOT=1 skips it
 * too). With --pictures, writes an SVG and a PNG of each model's layout there. Exit 1 when a bar fails. Never
 * run as a unit test: times are noisy. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "fw-test-models.h"
#include "layout/fw-layout.h"
#include "report/fw-render.h"

#define REPEAT 5
#define DOT_LIMIT_S 120

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static guint
count_drawn (FwGraph *g)
{
  guint n = 0;

  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    n += strcmp (fw_node_get_op_type (fw_graph_get_node (g, i)), "Constant") != 0;
  return n;
}

/* Median seconds of fw_layout_new + compute; the last layout is kept in *out when out is not NULL. */
static double
time_layout (FwGraph *g, guint collapse_threshold, FwLayout **out)
{
  double t[REPEAT];

  for (int r = 0; r < REPEAT; r++)
    {
      g_autoptr(GError) error = NULL;
      FwLayoutOptions options;
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(FwLayout) layout = NULL;

      fw_layout_options_init (&options);
      options.collapse_threshold = collapse_threshold;
      layout = fw_layout_new (g, &options);
      if (!fw_layout_compute (layout, NULL, &error))
        {
          g_printerr ("layout failed: %s\n", error->message);
          exit (2);
        }
      t[r] = (g_get_monotonic_time () - t0) / 1e6;
      if (out != NULL && r + 1 == REPEAT)
        *out = g_steal_pointer (&layout);
    }
  qsort (t, REPEAT, sizeof *t, compare_double);
  return t[REPEAT / 2];
}

static gboolean
report (const char *what, double seconds, double bar, FwLayout *layout)
{
  gboolean pass = seconds < bar;
  gdouble w, h;

  fw_layout_get_bounds (layout, &w, &h);
  printf ("%-34s %6u boxes %6u edges %5u layers %7u dummies  %9.1f ms  bar %6.0f ms  %s\n", what,
          fw_layout_get_n_boxes (layout), fw_layout_get_n_edges (layout), fw_layout_get_n_layers (layout),
          fw_layout_get_n_dummies (layout), seconds * 1e3, bar * 1e3, pass ? "PASS" : "FAIL");
  return pass;
}

static void
picture (const char *dir, const char *name, FwLayout *layout)
{
  g_autoptr(GError) error = NULL;
  const char *formats[] = { "svg", "png" };

  for (guint i = 0; dir != NULL && i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *file = g_strdup_printf ("%s.%s", name, formats[i]);
      g_autofree char *path = g_build_filename (dir, file, NULL);

      if (!fw_render_graph (layout, NULL, path, &error))
        {
          g_printerr ("%s\n", error->message);
          g_clear_error (&error);
        }
    }
}

static char *
write_dot (FwGraph *g, const char *dir)
{
  g_autoptr(GString) dot = g_string_new ("digraph g {\n  node [shape=box];\n");
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, "graph.dot", NULL);

  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    {
      FwNode *node = fw_graph_get_node (g, i);
      if (strcmp (fw_node_get_op_type (node), "Constant") != 0)
        g_string_append_printf (dot, "  n%u [label=\"%s\"];\n", i, fw_node_get_op_type (node));
    }
  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    {
      FwNode *node = fw_graph_get_node (g, i);

      if (strcmp (fw_node_get_op_type (node), "Constant") == 0)
        continue;
      for (guint k = 0; k < node->n_outputs; k++)
        for (guint j = 0; node->outputs[k] != NULL && j < node->outputs[k]->n_uses; j++)
          {
            FwNode *to = node->outputs[k]->uses[j].node;
            if (to != NULL && to->graph == g)
              g_string_append_printf (dot, "  n%u -> n%u;\n", i, to->index);
          }
    }
  g_string_append (dot, "}\n");
  if (!g_file_set_contents (path, dot->str, dot->len, &error))
    {
      g_printerr ("%s\n", error->message);
      exit (2);
    }
  return path;
}

static void
time_dot (FwGraph *g)
{
  g_autofree char *dot = g_find_program_in_path ("dot");
  g_autofree char *timeout = g_find_program_in_path ("timeout");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL, *in = NULL, *out = NULL, *limit = NULL;
  gint64 t0;
  int status;
  double seconds;

  if (dot == NULL || timeout == NULL)
    {
      printf ("%-34s skipped: Graphviz `dot` is not installed (apt-get install graphviz)\n",
              "dot -Tplain, same 10k graph");
      return;
    }
  dir = g_dir_make_tmp ("fw-bench-layout-XXXXXX", &error);
  if (dir == NULL)
    {
      g_printerr ("%s\n", error->message);
      exit (2);
    }
  in = write_dot (g, dir);
  out = g_build_filename (dir, "graph.plain", NULL);
  limit = g_strdup_printf ("%d", DOT_LIMIT_S);
  {
    const char *argv[] = { timeout, "-s", "KILL", limit, dot, "-Tplain", "-o", out, in, NULL };

    t0 = g_get_monotonic_time ();
    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status,
                       &error))
      {
        g_printerr ("%s\n", error->message);
        exit (2);
      }
    seconds = (g_get_monotonic_time () - t0) / 1e6;
  }
  if (WIFSIGNALED (status) || (WIFEXITED (status) && (WEXITSTATUS (status) == 124 || WEXITSTATUS (status) == 137)))
    printf ("%-34s > %d s (stopped)\n", "dot -Tplain, same 10k graph", DOT_LIMIT_S);
  else if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    printf ("%-34s failed after %.1f s (exit %d)\n", "dot -Tplain, same 10k graph", seconds,
            WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  else
    printf ("%-34s %9.1f s (one run)\n", "dot -Tplain, same 10k graph", seconds);
  g_unlink (in);
  g_unlink (out);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autoptr(FwModel) one = fw_test_transformer_block (16, 64, 4, TRUE);
  guint per_layer = count_drawn (fw_model_get_graph (one));
  guint n_layers = (10000 + per_layer - 1) / per_layer;
  g_autoptr(FwModel) stack = fw_test_transformer_stack (n_layers, 16, 64, 4, TRUE);
  FwGraph *g = fw_model_get_graph (stack);
  const char *pictures = NULL;
  gboolean ok = TRUE;
  int first = 1;

  if (argc > 2 && strcmp (argv[1], "--pictures") == 0)
    {
      pictures = argv[2];
      first = 3;
    }

  {
    g_autoptr(FwLayout) open = NULL, collapsed = NULL;
    g_autofree char *what = g_strdup_printf ("stack, %u nodes, open", count_drawn (g));
    g_autofree char *what2 = g_strdup_printf ("stack, %u nodes, collapsed", count_drawn (g));

    double t_open = time_layout (g, G_MAXUINT, &open);
    double t_collapsed = time_layout (g, 0, &collapsed);

    ok &= report (what, t_open, 1.0, open);
    ok &= report (what2, t_collapsed, 1.0, collapsed);
    picture (pictures, "stack-collapsed", collapsed);
  }
  for (int i = first; i < argc; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwModel) model = NULL;
      g_autoptr(FwLayout) layout = NULL;
      g_autofree char *name = g_path_get_basename (argv[i]);
      g_autofree char *what = NULL;
      double seconds;

      if (!g_file_test (argv[i], G_FILE_TEST_EXISTS))
        {
          printf ("%-34s skipped: not found (run the real-model suite to export it)\n", name);
          continue;
        }
      model = fw_onnx_load (argv[i], NULL, NULL, &error);
      if (model == NULL)
        {
          g_printerr ("%s\n", error->message);
          return 2;
        }
      what = g_strdup_printf ("%s, %u nodes, open", name, count_drawn (fw_model_get_graph (model)));
      seconds = time_layout (fw_model_get_graph (model), G_MAXUINT, &layout);
      ok &= report (what, seconds, 0.05, layout);
      picture (pictures, name, layout);
    }
  if (g_getenv ("FW_BENCH_NO_DOT") == NULL)
    time_dot (g);
  return ok ? 0 : 1;
}
