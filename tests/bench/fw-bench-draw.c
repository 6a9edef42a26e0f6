/* fw-bench-draw.c: the cost of one frame of the graph canvas on a ~10,000-node transformer stack laid out
 * with every scope open, in a 1920x1080 view: fully zoomed out (the whole graph fitted), at zoom 1 (labels)
 * and fully zoomed in. A frame is the widget's snapshot (building the render nodes) plus drawing them with
 * cairo onto a 1920x1080 image; the bar is 16 ms (60 frames a second) for each. The widget's own GPU
 * renderer is timed too, for information: on a virtual display it is software rendering.
 *
 * Needs a display: `xvfb-run -a -s "-screen 0 1920x1080x24" build/tests/bench/fw-bench-draw`. */
#include "config.h"

#include <gtk/gtk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw-graph-view.h"
#include "fw-test-models.h"

#define WIDTH   1920
#define HEIGHT  1080
#define RUNS    15
#define BAR_MS  16.0

static guint
count_drawn (FwGraph *g)
{
  guint n = 0;

  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    n += strcmp (fw_node_get_op_type (fw_graph_get_node (g, i)), "Constant") != 0;
  return n;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v, guint n)
{
  qsort (v, n, sizeof (double), compare_double);
  return v[n / 2];
}

/* Median milliseconds of snapshot + cairo drawing, and of the renderer alone; FALSE over the bar. */
static gboolean
time_frame (GtkWidget *view, const char *what)
{
  double frame[RUNS], render[RUNS], build[RUNS];
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (view));
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, WIDTH, HEIGHT);
  double f, r, b;

  for (guint i = 0; i < RUNS; i++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      g_autoptr(GskRenderNode) node = NULL;
      g_autoptr(GdkTexture) texture = NULL;
      gint64 t0, t1, t2, t3;
      cairo_t *cr;

      t0 = g_get_monotonic_time ();
      GTK_WIDGET_GET_CLASS (view)->snapshot (view, snapshot);
      node = gtk_snapshot_free_to_node (snapshot);
      t1 = g_get_monotonic_time ();
      cr = cairo_create (surface);
      if (node != NULL)
        gsk_render_node_draw (node, cr);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      t2 = g_get_monotonic_time ();
      if (node != NULL && renderer != NULL)
        texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, WIDTH, HEIGHT));
      t3 = g_get_monotonic_time ();
      frame[i] = (t2 - t0) / 1000.0;
      build[i] = (t1 - t0) / 1000.0;
      render[i] = (t3 - t2) / 1000.0;
    }
  cairo_surface_destroy (surface);
  f = median (frame, RUNS);
  r = median (render, RUNS);
  b = median (build, RUNS);
  printf ("%-24s zoom %-8.5f %6.2f ms (snapshot %5.2f)  [renderer %s: %7.2f ms]  bar %.0f ms  %s\n",
          what, fw_graph_view_get_zoom (FW_GRAPH_VIEW (view)), f, b,
          renderer ? G_OBJECT_TYPE_NAME (renderer) : "none", r, BAR_MS, f < BAR_MS ? "PASS" : "FAIL");
  return f < BAR_MS;
}

int
main (int argc, char **argv)
{
  g_autoptr(FwModel) one = NULL, stack = NULL;
  g_autoptr(FwLayout) layout = NULL;
  g_autoptr(GError) error = NULL;
  FwLayoutOptions options;
  GtkWidget *window, *view;
  guint per_layer, n_layers, n_boxes;
  gdouble w, h;
  gboolean ok = TRUE;

  gtk_init ();
  one = fw_test_transformer_block (16, 64, 4, TRUE);
  per_layer = count_drawn (fw_model_get_graph (one));
  n_layers = (10000 + per_layer - 1) / per_layer;
  stack = fw_test_transformer_stack (n_layers, 16, 64, 4, TRUE);

  fw_layout_options_init (&options);
  options.collapse_threshold = G_MAXUINT;
  layout = fw_layout_new (fw_model_get_graph (stack), &options);
  if (!fw_layout_compute (layout, NULL, &error))
    {
      fprintf (stderr, "layout: %s\n", error->message);
      return 1;
    }
  n_boxes = fw_layout_get_n_boxes (layout);
  fw_layout_get_bounds (layout, &w, &h);
  printf ("transformer stack: %u boxes, %u edges, %u layers, %.0f x %.0f units, view %dx%d, median of %d\n",
          n_boxes, fw_layout_get_n_edges (layout), fw_layout_get_n_layers (layout), w, h, WIDTH, HEIGHT, RUNS);

  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, HEIGHT);
  view = fw_graph_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), view);
  fw_graph_view_set_layout (FW_GRAPH_VIEW (view), layout);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (view);
  if (gtk_widget_get_width (view) != WIDTH || gtk_widget_get_height (view) != HEIGHT)
    printf ("note: the view is %dx%d (the display is smaller than %dx%d)\n",
            gtk_widget_get_width (view), gtk_widget_get_height (view), WIDTH, HEIGHT);

  fw_graph_view_zoom_to_fit (FW_GRAPH_VIEW (view));
  ok &= time_frame (view, "fully zoomed out (fit)");
  fw_graph_view_set_zoom (FW_GRAPH_VIEW (view), 0.1);
  ok &= time_frame (view, "edges, no labels");
  fw_graph_view_set_zoom (FW_GRAPH_VIEW (view), 1.0);
  ok &= time_frame (view, "zoom 1 (labels)");
  fw_graph_view_set_zoom (FW_GRAPH_VIEW (view), 1e9);
  ok &= time_frame (view, "fully zoomed in");

  gtk_window_destroy (GTK_WINDOW (window));
  return ok ? 0 : 1;
}
