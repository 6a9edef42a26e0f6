/* test-graph-view.c: the graph canvas on a real-ish model (one transformer layer) in a window on a virtual
 * display: properties, fitting, search, clicks on nodes and hulls, framing a candidate, and one frame as a
 * picture that must not be blank; and on a stack of layers laid out with its scopes collapsed, a
 * double-click that opens one. */
#include "config.h"

#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "fw-graph-framing.h"
#include "fw-graph-view.h"
#include "fw-test-models.h"
#include "plan/fw-node-refusal.h"

typedef struct
{
  FwModel    *model;
  FwProfile  *profile;
  FwRuleSet  *rules;
  FwPlan     *plan;
  FwLayout   *layout;
  GtkWidget  *window;
  FwGraphView *view;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  FwLayoutOptions layout_options;
  FwPlanOptions plan_options;

  f->model = fw_test_transformer_block (8, 16, 2, FALSE);
  f->profile = fw_test_profile_910b ();
  f->rules = fw_test_builtin_rules ();
  g_assert_true (fw_test_infer (f->model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&plan_options);
  /* Under balanced the layer's attention and norms fuse whole, leaving no node refused to hover or colour;
   * conservative keeps them apart, each with its code, and still fuses the epilogues. */
  plan_options.strategy = FW_STRATEGY_CONSERVATIVE;
  f->plan = fw_plan_new (f->model, f->profile, f->rules, &plan_options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f->plan->candidates->len, >, 0);

  fw_layout_options_init (&layout_options);
  layout_options.collapse_threshold = G_MAXUINT;
  f->layout = fw_layout_new (fw_model_get_graph (f->model), &layout_options);
  g_assert_true (fw_layout_compute (f->layout, NULL, &error));
  g_assert_no_error (error);

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 800, 600);
  f->view = FW_GRAPH_VIEW (fw_graph_view_new ());
  g_object_ref_sink (f->view);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (f->view));
  fw_graph_view_set_layout (f->view, f->layout);
  fw_graph_view_set_plan (f->view, f->plan);
  gtk_window_present (GTK_WINDOW (f->window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->view));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->view)), >, 100);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_set_child (GTK_WINDOW (f->window), NULL);
  gtk_window_destroy (GTK_WINDOW (f->window));
  fw_graph_view_set_plan (f->view, NULL);
  g_assert_finalize_object (f->view);
  g_assert_finalize_object (f->layout);
  fw_plan_free (f->plan);
  g_object_unref (f->model);
  fw_profile_unref (f->profile);
  fw_rule_set_free (f->rules);
}

static void
count_notify (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

static void
record_node (FwGraphView *view, FwNode *node, FwNode **out)
{
  *out = node;
}

static void
record_candidate (FwGraphView *view, guint candidate, guint *out)
{
  *out = candidate;
}

/* The widget point showing layout point (x, y). */
static void
to_widget (FwGraphView *view, gdouble x, gdouble y, gdouble *wx, gdouble *wy)
{
  gdouble x0, y0, x1, y1;

  fw_graph_view_get_visible_area (view, &x0, &y0, &x1, &y1);
  *wx = (x - x0) * fw_graph_view_get_zoom (view);
  *wy = (y - y0) * fw_graph_view_get_zoom (view);
}

static void
test_properties (Fixture *f, gconstpointer data)
{
  guint zoom_notes = 0, candidate_notes = 0, layout_notes = 0;
  g_autoptr(FwLayout) layout = NULL;
  guint candidate = 0;
  gdouble zoom = 0;

  g_signal_connect (f->view, "notify::zoom", G_CALLBACK (count_notify), &zoom_notes);
  g_signal_connect (f->view, "notify::selected-candidate", G_CALLBACK (count_notify), &candidate_notes);
  g_signal_connect (f->view, "notify::layout", G_CALLBACK (count_notify), &layout_notes);

  g_object_get (f->view, "layout", &layout, "zoom", &zoom, "selected-candidate", &candidate, NULL);
  g_assert_true (layout == f->layout);
  g_assert_cmpuint (candidate, ==, G_MAXUINT);
  g_assert_null (fw_graph_view_get_project (f->view));

  g_object_set (f->view, "zoom", 2.0, NULL);
  g_assert_cmpfloat_with_epsilon (fw_graph_view_get_zoom (f->view), 2.0, 1e-9);
  g_assert_cmpuint (zoom_notes, ==, 1);
  g_object_set (f->view, "zoom", 2.0, NULL);
  g_assert_cmpuint (zoom_notes, ==, 1);

  g_object_set (f->view, "selected-candidate", 1u, NULL);
  g_assert_cmpuint (fw_graph_view_get_selected_candidate (f->view), ==, 1);
  g_assert_cmpuint (candidate_notes, ==, 1);
  fw_graph_view_select_candidate (f->view, G_MAXUINT);
  g_assert_cmpuint (fw_graph_view_get_selected_candidate (f->view), ==, G_MAXUINT);
  g_assert_cmpuint (candidate_notes, ==, 2);

  fw_graph_view_set_layout (f->view, f->layout);
  g_assert_cmpuint (layout_notes, ==, 0);
  fw_graph_view_set_layout (f->view, NULL);
  g_assert_null (fw_graph_view_get_layout (f->view));
  g_assert_cmpuint (layout_notes, ==, 1);
  g_object_set (f->view, "layout", f->layout, NULL);
  g_assert_true (fw_graph_view_get_layout (f->view) == f->layout);
  g_assert_cmpuint (layout_notes, ==, 2);
}

/* With a project, hulls follow its plan and a decision redraws them; the view lets the project go. */
static void
test_project (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  FwProject *project;
  guint notes = 0;

  fw_plan_options_init (&options);
  project = fw_project_new (f->model, f->profile, f->rules, &options, &error);
  g_assert_no_error (error);
  g_signal_connect (f->view, "notify::project", G_CALLBACK (count_notify), &notes);
  g_object_set (f->view, "project", project, NULL);
  g_assert_true (fw_graph_view_get_project (f->view) == project);
  g_assert_cmpuint (notes, ==, 1);
  g_assert_true (fw_project_accept (project, 0, &error));
  g_assert_no_error (error);
  fw_graph_view_select_candidate (f->view, 0);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->view));
  /* A failed check flags the hull (drawn with its badge); a pass clears it. */
  g_assert_false (fw_graph_view_get_candidate_flagged (f->view, 0));
  fw_project_set_verification (project, 0, "fail");
  fw_project_set_check_detail (project, 0, "Isolated: FAIL");
  g_assert_true (fw_graph_view_get_candidate_flagged (f->view, 0));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->view));
  fw_project_set_verification (project, 0, "pass");
  fw_project_set_check_detail (project, 0, "Isolated: pass");
  g_assert_false (fw_graph_view_get_candidate_flagged (f->view, 0));
  /* The host passed but the Ascend kernel failed on the twin: flagged as well. */
  fw_project_set_twin (project, 0, "fail");
  fw_project_set_check_detail (project, 0, "On the Ascend C twin: FAIL");
  g_assert_true (fw_graph_view_get_candidate_flagged (f->view, 0));
  fw_project_set_twin (project, 0, "pass");
  fw_project_set_check_detail (project, 0, "On the Ascend C twin: pass");
  g_assert_false (fw_graph_view_get_candidate_flagged (f->view, 0));
  fw_graph_view_set_project (f->view, NULL);
  g_assert_cmpuint (notes, ==, 2);
  g_assert_finalize_object (project);
}

/* A short graph, laid out: fitting shows it whole. */
static FwLayout *
short_layout (FwModel **model)
{
  g_autoptr(GError) error = NULL;
  FwLayout *layout;

  *model = fw_test_elementwise_chain (3, 16, FALSE);
  layout = fw_layout_new (fw_model_get_graph (*model), NULL);
  g_assert_true (fw_layout_compute (layout, NULL, &error));
  g_assert_no_error (error);
  return layout;
}

static void
test_zoom_to_fit (Fixture *f, gconstpointer data)
{
  gdouble w, h, x0, y0, x1, y1, top, vw, vh, zoom;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwLayout) layout = NULL;

  /* The transformer layer is too tall to read whole in the window: fitting keeps a readable zoom, spans
   * the graph's width and keeps the view's top where it was (within the graph). */
  vw = gtk_widget_get_width (GTK_WIDGET (f->view));
  vh = gtk_widget_get_height (GTK_WIDGET (f->view));
  fw_layout_get_bounds (f->layout, &w, &h);
  g_assert_cmpfloat (MIN (vw / w, vh / h), <, FW_GRAPH_READABLE_ZOOM);
  fw_graph_view_set_zoom (f->view, 4.0);
  fw_graph_view_get_visible_area (f->view, &x0, &y0, &x1, &y1);
  g_assert_true (x1 - x0 < w || y1 - y0 < h);
  g_assert_cmpint (fw_graph_view_get_detail (f->view), ==, FW_GRAPH_DETAIL_LABELS);
  top = y0;

  fw_graph_view_zoom_to_fit (f->view);
  zoom = fw_graph_view_get_zoom (f->view);
  g_assert_cmpfloat (zoom, >=, FW_GRAPH_READABLE_ZOOM);
  g_assert_cmpint (fw_graph_view_get_detail (f->view), ==, FW_GRAPH_DETAIL_LABELS);
  fw_graph_view_get_visible_area (f->view, &x0, &y0, &x1, &y1);
  g_assert_cmpfloat_with_epsilon (y0, CLAMP (top, 0, h - vh / zoom), 1e-6);
  g_assert_cmpfloat (y1, <=, h + 1e-6);
  if (w * zoom <= vw)
    {
      g_assert_cmpfloat (x0, <=, 1e-6);
      g_assert_cmpfloat (x1, >=, w - 1e-6);
    }

  /* A short graph fits whole, tight along one axis. */
  layout = short_layout (&model);
  fw_graph_view_set_layout (f->view, layout);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->view));
  fw_graph_view_set_zoom (f->view, 4.0);
  fw_graph_view_zoom_to_fit (f->view);
  fw_layout_get_bounds (layout, &w, &h);
  fw_graph_view_get_visible_area (f->view, &x0, &y0, &x1, &y1);
  g_assert_cmpfloat (x0, <=, 1e-6);
  g_assert_cmpfloat (y0, <=, 1e-6);
  g_assert_cmpfloat (x1, >=, w - 1e-6);
  g_assert_cmpfloat (y1, >=, h - 1e-6);
  g_assert_true (fabs ((x1 - x0) - w) < 1 || fabs ((y1 - y0) - h) < 1);
  fw_graph_view_set_layout (f->view, f->layout);

  /* The zoom stays within its limits whatever is asked; far out, the detail drops to pixel rows. */
  fw_graph_view_set_zoom (f->view, 1e9);
  g_assert_cmpfloat (fw_graph_view_get_zoom (f->view), <=, 8.0);
  fw_graph_view_set_zoom (f->view, 0);
  g_assert_cmpfloat (fw_graph_view_get_zoom (f->view), >, 0);
  g_assert_cmpint (fw_graph_view_get_detail (f->view), ==, FW_GRAPH_DETAIL_ROWS);
}

/* A new layout opens on its start once the view has a size (the window sets it while its stack still shows
 * the loading page): the first layer at the top, at a zoom where labels are drawn, not a speck fitted into
 * no pixels. */
static void
test_zoom_to_fit_unallocated (Fixture *f, gconstpointer data)
{
  FwGraphView *view = FW_GRAPH_VIEW (fw_graph_view_new ());
  gdouble w, h, x0, y0, x1, y1, vw;
  guint in_view = 0;

  g_object_ref_sink (view);
  fw_graph_view_set_layout (view, f->layout);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), ==, 0);
  fw_graph_view_zoom_to_fit (view);
  gtk_window_set_child (GTK_WINDOW (f->window), GTK_WIDGET (view));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));

  vw = gtk_widget_get_width (GTK_WIDGET (view));
  g_assert_cmpfloat (vw, >, 100);
  fw_layout_get_bounds (f->layout, &w, &h);
  fw_graph_view_get_visible_area (view, &x0, &y0, &x1, &y1);
  g_assert_cmpfloat (fw_graph_view_get_zoom (view), >=, FW_GRAPH_READABLE_ZOOM);
  g_assert_cmpfloat (fw_graph_view_get_zoom (view), <=, 1.0);
  g_assert_cmpint (fw_graph_view_get_detail (view), ==, FW_GRAPH_DETAIL_LABELS);
  g_assert_cmpfloat (y0, <=, 1e-6);
  /* Every box of the first layer is on screen. */
  for (guint i = 0; i < fw_layout_get_n_boxes (f->layout); i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (f->layout, i);

      if (box->layer != 0)
        continue;
      g_assert_cmpfloat (box->x, >=, x0);
      g_assert_cmpfloat (box->x + box->w, <=, x1);
      g_assert_cmpfloat (box->y + box->h, <=, y1);
      in_view++;
    }
  g_assert_cmpuint (in_view, >, 0);

  gtk_window_set_child (GTK_WINDOW (f->window), NULL);
  g_object_unref (view);
}

static void
test_search (Fixture *f, gconstpointer data)
{
  FwNode *selected = NULL, *first;
  gdouble x0, y0, x1, y1;
  guint b;
  const FwLayoutBox *box;

  g_signal_connect (f->view, "node-selected", G_CALLBACK (record_node), &selected);
  g_assert_false (fw_graph_view_search (f->view, "NoSuchOpAnywhere", TRUE));
  g_assert_null (selected);

  g_assert_true (fw_graph_view_search (f->view, "matmul", TRUE));
  g_assert_nonnull (selected);
  g_assert_cmpstr (fw_node_get_op_type (selected), ==, "MatMul");
  g_assert_true (fw_graph_view_get_selected_node (f->view) == selected);
  first = selected;

  /* Framed: the node's box is on screen. */
  b = fw_layout_find_node (f->layout, first);
  box = fw_layout_get_box (f->layout, b);
  fw_graph_view_get_visible_area (f->view, &x0, &y0, &x1, &y1);
  g_assert_cmpfloat (box->x, >=, x0);
  g_assert_cmpfloat (box->x + box->w, <=, x1);
  g_assert_cmpfloat (box->y, >=, y0);
  g_assert_cmpfloat (box->y + box->h, <=, y1);

  /* The next one is another MatMul; going back returns to the first. */
  g_assert_true (fw_graph_view_search (f->view, "MatMul", TRUE));
  g_assert_cmpstr (fw_node_get_op_type (selected), ==, "MatMul");
  g_assert_true (selected != first);
  g_assert_true (fw_graph_view_search (f->view, "MatMul", FALSE));
  g_assert_true (selected == first);
}

static void
test_click_node (Fixture *f, gconstpointer data)
{
  FwNode *selected = NULL;
  const FwLayoutBox *box = fw_layout_get_box (f->layout, 0);
  gdouble wx, wy;

  g_signal_connect (f->view, "node-selected", G_CALLBACK (record_node), &selected);
  fw_graph_view_set_zoom (f->view, 1.0);
  fw_graph_view_search (f->view, fw_node_get_name (box->node), TRUE);
  selected = NULL;
  to_widget (f->view, box->x + box->w / 2, box->y + box->h / 2, &wx, &wy);
  fw_graph_view_click (f->view, 1, wx, wy);
  g_assert_true (selected == box->node);

  /* A click on empty canvas clears the selection. */
  fw_graph_view_zoom_to_fit (f->view);
  fw_graph_view_click (f->view, 1, 1, 1);
  g_assert_null (fw_graph_view_get_selected_node (f->view));
}

static void
test_click_hull (Fixture *f, gconstpointer data)
{
  guint chosen = G_MAXUINT, c = 0;
  FwNode *selected = NULL;
  const FwCandidate *cand = g_ptr_array_index (f->plan->candidates, 0);
  guint b = fw_layout_find_node (f->layout, g_ptr_array_index (cand->nodes, 0));
  const FwLayoutBox *box = fw_layout_get_box (f->layout, b);
  gdouble wx, wy;

  g_signal_connect (f->view, "candidate-selected", G_CALLBACK (record_candidate), &chosen);
  g_signal_connect (f->view, "node-selected", G_CALLBACK (record_node), &selected);
  fw_graph_view_select_candidate (f->view, c);
  /* In the hull's padding left of the box: not on any box (boxes are 18 units apart). */
  to_widget (f->view, box->x - 3, box->y + box->h / 2, &wx, &wy);
  fw_graph_view_click (f->view, 1, wx, wy);
  g_assert_cmpuint (chosen, !=, G_MAXUINT);
  g_assert_null (selected);
  g_assert_cmpuint (fw_graph_view_get_selected_candidate (f->view), ==, chosen);
  {
    const FwCandidate *hit = g_ptr_array_index (f->plan->candidates, chosen);
    gboolean has_node = FALSE;

    for (guint i = 0; i < hit->nodes->len; i++)
      has_node |= fw_layout_find_node (f->layout, g_ptr_array_index (hit->nodes, i)) == b;
    g_assert_true (has_node);
  }
}

static void
test_select_candidate (Fixture *f, gconstpointer data)
{
  guint notes = 0;
  guint last = f->plan->candidates->len - 1;
  const FwCandidate *cand = g_ptr_array_index (f->plan->candidates, last);
  gdouble x0, y0, x1, y1;

  g_signal_connect (f->view, "notify::selected-candidate", G_CALLBACK (count_notify), &notes);
  fw_graph_view_set_zoom (f->view, 4.0);
  fw_graph_view_select_candidate (f->view, last);
  g_assert_cmpuint (notes, ==, 1);
  g_assert_cmpuint (fw_graph_view_get_selected_candidate (f->view), ==, last);
  fw_graph_view_select_candidate (f->view, last);
  g_assert_cmpuint (notes, ==, 1);

  /* Framed: every box of the candidate is on screen. */
  fw_graph_view_get_visible_area (f->view, &x0, &y0, &x1, &y1);
  for (guint i = 0; i < cand->nodes->len; i++)
    {
      guint b = fw_layout_find_node (f->layout, g_ptr_array_index (cand->nodes, i));
      const FwLayoutBox *box;

      if (b == G_MAXUINT)
        continue;
      box = fw_layout_get_box (f->layout, b);
      g_assert_cmpfloat (box->x, >=, x0);
      g_assert_cmpfloat (box->y, >=, y0);
      g_assert_cmpfloat (box->x + box->w, <=, x1);
      g_assert_cmpfloat (box->y + box->h, <=, y1);
    }
}

static void
test_screenshot (Fixture *f, gconstpointer data)
{
  GtkWidget *widget = GTK_WIDGET (f->view);
  int w, h;
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_BUILT, "graph-view-transformer.png", NULL);
  GskRenderer *renderer;
  gsize coloured = 0;

  fw_graph_view_select_candidate (f->view, 0);
  fw_graph_view_set_zoom (f->view, 0.9);
  gtk_test_widget_wait_for_draw (widget);
  w = gtk_widget_get_width (widget);
  h = gtk_widget_get_height (widget);
  paintable = gtk_widget_paintable_new (widget);
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("frame written to %s", path);

  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  for (gsize i = 0; i < (gsize) w * h; i++)
    if (pixels[4 * i] < 0xf0 || pixels[4 * i + 1] < 0xf0 || pixels[4 * i + 2] < 0xf0)
      coloured++;
  g_assert_cmpuint (coloured, >, (gsize) w * h / 50);
}

static guint
count_node_boxes (FwLayout *layout)
{
  guint n = 0;

  for (guint i = 0; i < fw_layout_get_n_boxes (layout); i++)
    n += fw_layout_get_box (layout, i)->kind == FW_LAYOUT_BOX_NODE;
  return n;
}

/* The box of the collapsed scope, G_MAXUINT when it is not drawn as one box. */
static guint
find_scope_box (FwLayout *layout, const char *scope)
{
  for (guint i = 0; i < fw_layout_get_n_boxes (layout); i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      if (box->kind == FW_LAYOUT_BOX_SCOPE && strcmp (box->scope, scope) == 0)
        return i;
    }
  return G_MAXUINT;
}

static gboolean
has_subscopes (FwLayout *layout, const char *scope)
{
  g_autoptr(GPtrArray) scopes = fw_layout_list_scopes (layout);
  g_autofree char *prefix = g_strconcat (scope, "/", NULL);

  for (guint i = 0; i < scopes->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (scopes, i), prefix))
      return TRUE;
  return FALSE;
}

/* Fits the view, finds a collapsed scope under parent ("" for any) that holds no scopes of its own when leaf
 * is set, whose centre is on screen and clear of the minimap in the bottom-right corner, and double-clicks
 * it; returns it once the view's layout has been computed again with that scope open. */
static char *
double_click_scope (FwGraphView *view, FwLayout *layout, const char *parent, gboolean leaf)
{
  int w = gtk_widget_get_width (GTK_WIDGET (view)), h = gtk_widget_get_height (GTK_WIDGET (view));
  guint scope_box = G_MAXUINT;
  gdouble wx = 0, wy = 0;
  char *scope;
  gint64 deadline;

  fw_graph_view_zoom_to_fit (view);
  for (guint i = 0; i < fw_layout_get_n_boxes (layout) && scope_box == G_MAXUINT; i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      if (box->kind != FW_LAYOUT_BOX_SCOPE || box->n_nodes < 2 || !g_str_has_prefix (box->scope, parent) ||
          (leaf && has_subscopes (layout, box->scope)))
        continue;
      to_widget (view, box->x + box->w / 2, box->y + box->h / 2, &wx, &wy);
      if (wx < 0 || wy < 0 || wx >= w || wy >= h || (wx > w - 200 && wy > h - 200))
        continue;
      scope_box = i;
    }
  g_assert_cmpuint (scope_box, !=, G_MAXUINT);
  scope = g_strdup (fw_layout_get_box (layout, scope_box)->scope);
  g_assert_false (fw_layout_get_expanded (layout, scope));

  /* A single click selects; only the double-click opens. */
  fw_graph_view_click (view, 1, wx, wy);
  g_assert_false (fw_layout_get_expanded (layout, scope));
  fw_graph_view_click (view, 2, wx, wy);
  g_assert_true (fw_layout_get_expanded (layout, scope));

  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (find_scope_box (layout, scope) != G_MAXUINT)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
  return scope;
}

/* Four layers with every scope collapsed: a double-click on a layer's box opens it, showing its parts as
 * boxes; a double-click on one of those (layer norm: no scopes inside) draws its nodes. Each time the view
 * lays the graph out again off the main thread and then draws the new boxes in place of the old one. */
static void
test_double_click_opens_scope (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_stack (4, 8, 16, 2, FALSE);
  g_autofree char *layer = NULL;
  g_autofree char *layer_prefix = NULL;
  g_autofree char *part = NULL;
  FwLayoutOptions options;
  FwLayout *layout;
  GtkWidget *window;
  FwGraphView *view;
  FwNode *inside = NULL;
  guint boxes_before, nodes_before;

  fw_layout_options_init (&options);
  options.collapse_threshold = 1;
  options.collapsed_target = 1;
  layout = fw_layout_new (fw_model_get_graph (model), &options);
  g_assert_true (fw_layout_compute (layout, NULL, &error));
  g_assert_no_error (error);

  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  view = FW_GRAPH_VIEW (fw_graph_view_new ());
  g_object_ref_sink (view);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  fw_graph_view_set_layout (view, layout);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
  g_assert_cmpuint (count_node_boxes (layout), ==, 0);

  /* A layer: its box gives way to more boxes, its parts. */
  boxes_before = fw_layout_get_n_boxes (layout);
  layer = double_click_scope (view, layout, "", FALSE);
  g_assert_true (fw_layout_get_expanded (layout, layer));
  g_assert_cmpuint (fw_layout_get_n_boxes (layout), >, boxes_before);

  /* A part of that layer with no scopes inside: its nodes are drawn, each in its own box. */
  layer_prefix = g_strconcat (layer, "/", NULL);
  nodes_before = count_node_boxes (layout);
  part = double_click_scope (view, layout, layer_prefix, TRUE);
  g_assert_true (fw_layout_get_expanded (layout, part));
  g_assert_cmpuint (count_node_boxes (layout), >, nodes_before);
  for (guint i = 0; i < fw_layout_get_n_boxes (layout); i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      if (box->kind == FW_LAYOUT_BOX_NODE && strcmp (box->scope, part) == 0)
        {
          inside = box->node;
          break;
        }
    }
  g_assert_nonnull (inside);
  g_assert_cmpint (fw_layout_get_box (layout, fw_layout_find_node (layout, inside))->kind, ==, FW_LAYOUT_BOX_NODE);

  /* The view shows the new drawing: fitting spans the new bounds, or, too tall to read whole, shows part
   * of them at a readable zoom. */
  fw_graph_view_zoom_to_fit (view);
  {
    gdouble w, h, x0, y0, x1, y1;

    fw_layout_get_bounds (layout, &w, &h);
    fw_graph_view_get_visible_area (view, &x0, &y0, &x1, &y1);
    g_assert_cmpfloat (x1, >=, w - 1e-6);
    g_assert_true (y1 >= h - 1e-6 || fw_graph_view_get_zoom (view) >= FW_GRAPH_READABLE_ZOOM);
    g_assert_cmpfloat (y0, >=, -1e-6);
  }

  gtk_window_set_child (GTK_WINDOW (window), NULL);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (view);
  g_assert_finalize_object (layout);
}

/* Hovering a node that no fusion holds shows the refusal that kept it out, code first; a fused node names
 * its candidate. */
static void
test_hover_refused (Fixture *f, gconstpointer data)
{
  const FwNode *refused = NULL, *fused = NULL;
  FwGraph *graph = fw_model_get_graph (f->model);
  const FwNode *nodes[2];
  const char *expect[2] = { "FW-NF-", "Fused in candidate #" };

  for (guint i = 0; i < fw_graph_get_n_nodes (graph); i++)
    {
      const FwNode *node = fw_graph_get_node (graph, i);
      g_autoptr(GPtrArray) refusals = fw_plan_refusals_of_node (f->plan, node);

      if (fw_layout_find_node (f->layout, node) == G_MAXUINT)
        continue;
      if (fw_plan_fused_candidate_of (f->plan, node) != G_MAXUINT)
        fused = fused ? fused : node;
      else if (refusals->len > 0)
        refused = refused ? refused : node;
    }
  g_assert_nonnull (refused);
  g_assert_nonnull (fused);
  nodes[0] = refused;
  nodes[1] = fused;
  for (guint k = 0; k < 2; k++)
    {
      const FwLayoutBox *box = fw_layout_get_box (f->layout, fw_layout_find_node (f->layout, nodes[k]));
      const char *tooltip;
      gdouble wx, wy;

      g_assert_true (fw_graph_view_search (f->view, fw_node_get_name (nodes[k]), TRUE));
      to_widget (f->view, box->x + box->w / 2, box->y + box->h / 2, &wx, &wy);
      fw_graph_view_hover (f->view, wx, wy);
      tooltip = gtk_widget_get_tooltip_text (GTK_WIDGET (f->view));
      g_assert_nonnull (tooltip);
      g_test_message ("%s", tooltip);
      g_assert_nonnull (strstr (tooltip, fw_node_get_op_type (nodes[k])));
      g_assert_nonnull (strstr (tooltip, expect[k]));
      /* Away from every box the tooltip goes. */
      fw_graph_view_hover (f->view, -100, -100);
      g_assert_null (gtk_widget_get_tooltip_text (GTK_WIDGET (f->view)));
    }
}

/* Overlays: each colours node boxes by categories with a legend; fused and refused nodes fall where they
 * should; a frame draws with the legend; back to the op class, no legend. */
static void
test_overlays (Fixture *f, gconstpointer data)
{
  FwGraph *graph = fw_model_get_graph (f->model);
  guint fused_box = G_MAXUINT, refused_box = G_MAXUINT;
  const struct { FwGraphOverlay overlay; guint min_categories; } checks[] = {
    { FW_GRAPH_OVERLAY_FUSION, 5 }, { FW_GRAPH_OVERLAY_REFUSAL, 2 }, { FW_GRAPH_OVERLAY_SAVING, 5 },
    { FW_GRAPH_OVERLAY_MEASURED, 6 }, { FW_GRAPH_OVERLAY_VERIFICATION, 5 },
    /* A plan the view borrows has no project, so no scopes: everything "in no scope". */
    { FW_GRAPH_OVERLAY_SUPERKERNEL, 1 },
  };
  guint notes = 0;

  for (guint i = 0; i < fw_graph_get_n_nodes (graph); i++)
    {
      const FwNode *node = fw_graph_get_node (graph, i);
      g_autoptr(GPtrArray) refusals = fw_plan_refusals_of_node (f->plan, node);
      guint b = fw_layout_find_node (f->layout, node);

      if (b == G_MAXUINT)
        continue;
      if (fw_plan_fused_candidate_of (f->plan, node) != G_MAXUINT)
        fused_box = fused_box != G_MAXUINT ? fused_box : b;
      else if (refusals->len > 0)
        refused_box = refused_box != G_MAXUINT ? refused_box : b;
    }
  g_assert_cmpuint (fused_box, !=, G_MAXUINT);
  g_assert_cmpuint (refused_box, !=, G_MAXUINT);
  g_signal_connect (f->view, "notify::overlay", G_CALLBACK (count_notify), &notes);
  g_assert_cmpint (fw_graph_view_get_overlay (f->view), ==, FW_GRAPH_OVERLAY_OP_CLASS);
  g_assert_cmpuint (fw_graph_view_get_legend (f->view)->n_categories, ==, 0);

  for (guint k = 0; k < G_N_ELEMENTS (checks); k++)
    {
      const FwGraphLegend *legend;

      g_object_set (f->view, "overlay", checks[k].overlay, NULL);
      legend = fw_graph_view_get_legend (f->view);
      g_assert_cmpuint (legend->n_categories, >=, checks[k].min_categories);
      g_assert_cmpuint (fw_graph_view_get_box_category (f->view, fused_box), >, 0);
      g_assert_cmpuint (fw_graph_view_get_box_category (f->view, refused_box), >, 0);
      gtk_test_widget_wait_for_draw (GTK_WIDGET (f->view));
    }
  g_assert_cmpuint (notes, ==, G_N_ELEMENTS (checks));

  fw_graph_view_set_overlay (f->view, FW_GRAPH_OVERLAY_FUSION);
  g_assert_cmpstr (fw_graph_view_get_legend (f->view)->labels[fw_graph_view_get_box_category (f->view, fused_box) - 1],
                   ==, "In a proposed fusion");
  g_assert_cmpstr (fw_graph_view_get_legend (f->view)->labels[fw_graph_view_get_box_category (f->view, refused_box) - 1],
                   ==, "Refused");
  fw_graph_view_set_overlay (f->view, FW_GRAPH_OVERLAY_REFUSAL);
  {
    const FwNode *node = fw_layout_get_box (f->layout, refused_box)->node;
    g_autoptr(GPtrArray) refusals = fw_plan_refusals_of_node (f->plan, node);
    const char *label = fw_graph_view_get_legend (f->view)->labels[fw_graph_view_get_box_category (f->view, refused_box) - 1];
    const FwRefusal *first = g_ptr_array_index (refusals, 0);

    /* Its own code, or the bucket of the rarer ones. */
    g_assert_true (g_str_has_prefix (label, fw_reason_code_string (first->code)) ||
                   strcmp (label, "Other refusal codes") == 0);
  }
  fw_graph_view_set_overlay (f->view, FW_GRAPH_OVERLAY_OP_CLASS);
  g_assert_cmpuint (fw_graph_view_get_legend (f->view)->n_categories, ==, 0);
  g_assert_cmpuint (fw_graph_view_get_box_category (f->view, fused_box), ==, 0);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/views/graph-view/properties", test_properties);
  ADD ("/views/graph-view/project", test_project);
  ADD ("/views/graph-view/zoom", test_zoom_to_fit);
  ADD ("/views/graph-view/zoom-unallocated", test_zoom_to_fit_unallocated);
  ADD ("/views/graph-view/search", test_search);
  ADD ("/views/graph-view/click-node", test_click_node);
  ADD ("/views/graph-view/click-hull", test_click_hull);
  ADD ("/views/graph-view/select-candidate", test_select_candidate);
  ADD ("/views/graph-view/screenshot", test_screenshot);
  ADD ("/views/graph-view/hover-refused", test_hover_refused);
  ADD ("/views/graph-view/overlays", test_overlays);
#undef ADD
  g_test_add_func ("/views/graph-view/double-click-opens-scope", test_double_click_opens_scope);
  return g_test_run ();
}
