/* The graph layout and its pictures: same input, same coordinates; boxes never overlap; edges run downwards
 * through dummies; large graphs start with their scopes collapsed; compute can be cancelled; SVG and PNG. */
#include "config.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "layout/fw-layout.h"
#include "report/fw-render.h"

static FwLayout *
layout_for (FwModel *model, guint collapse_threshold)
{
  g_autoptr(GError) error = NULL;
  FwLayoutOptions options;
  FwLayout *layout;

  fw_layout_options_init (&options);
  options.collapse_threshold = collapse_threshold;
  layout = fw_layout_new (fw_model_get_graph (model), &options);
  g_assert_true (fw_layout_compute (layout, NULL, &error));
  g_assert_no_error (error);
  return layout;
}

/* x → n0 → n1 → … → n(len-1), and n0 also feeds the last node (with fan, every node after n1): one edge
 * across len − 1 layers, or edges across every number of layers. */
static FwModel *
skip_model (guint len, gboolean fan)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (8) };
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, &error));
  for (guint i = 0; i < len; i++)
    {
      g_autofree char *in = i == 0 ? g_strdup ("x") : g_strdup_printf ("v%u", i - 1);
      g_autofree char *out = g_strdup_printf ("v%u", i);
      g_autofree char *name = g_strdup_printf ("/n%u", i);
      const char *ins[2] = { in, "v0" };
      const char *outs[1] = { out };
      gboolean last = i + 1 == len || (fan && i > 1);

      g_assert_nonnull (fw_graph_add_node (g, last ? "Add" : "Relu", "", name, last ? 2 : 1, ins, 1, outs,
                                           &error));
    }
  {
    g_autofree char *out = g_strdup_printf ("v%u", len - 1);
    g_assert_true (fw_graph_add_output (g, out, &error));
  }
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  return model;
}

static guint
count_drawn (FwModel *model)
{
  FwGraph *g = fw_model_get_graph (model);
  guint n = 0;

  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    n += strcmp (fw_node_get_op_type (fw_graph_get_node (g, i)), "Constant") != 0;
  return n;
}

static void
assert_same_result (FwLayout *a, FwLayout *b)
{
  gdouble wa, ha, wb, hb;

  g_assert_cmpuint (fw_layout_get_n_boxes (a), ==, fw_layout_get_n_boxes (b));
  g_assert_cmpuint (fw_layout_get_n_edges (a), ==, fw_layout_get_n_edges (b));
  for (guint i = 0; i < fw_layout_get_n_boxes (a); i++)
    {
      const FwLayoutBox *x = fw_layout_get_box (a, i), *y = fw_layout_get_box (b, i);
      g_assert_cmpfloat (x->x, ==, y->x);
      g_assert_cmpfloat (x->y, ==, y->y);
      g_assert_cmpfloat (x->w, ==, y->w);
      g_assert_cmpstr (x->label, ==, y->label);
    }
  for (guint i = 0; i < fw_layout_get_n_edges (a); i++)
    {
      const FwLayoutEdge *x = fw_layout_get_edge (a, i), *y = fw_layout_get_edge (b, i);
      g_assert_cmpuint (x->n_points, ==, y->n_points);
      g_assert_cmpmem (x->points, x->n_points * sizeof (FwLayoutPoint), y->points,
                       y->n_points * sizeof (FwLayoutPoint));
    }
  fw_layout_get_bounds (a, &wa, &ha);
  fw_layout_get_bounds (b, &wb, &hb);
  g_assert_cmpfloat (wa, ==, wb);
  g_assert_cmpfloat (ha, ==, hb);
}

static void
test_determinism (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_stack (3, 8, 16, 2, TRUE);
  g_autoptr(FwModel) again = fw_test_transformer_stack (3, 8, 16, 2, TRUE);
  g_autoptr(FwLayout) a = layout_for (model, G_MAXUINT);
  g_autoptr(FwLayout) b = layout_for (model, G_MAXUINT);
  g_autoptr(FwLayout) c = layout_for (again, G_MAXUINT);
  g_autoptr(GError) error = NULL;

  g_assert_cmpuint (fw_layout_get_n_boxes (a), ==, count_drawn (model));
  assert_same_result (a, b);
  assert_same_result (a, c);
  /* Computing again on the same object changes nothing either. */
  g_assert_true (fw_layout_compute (b, NULL, &error));
  assert_same_result (a, b);
}

static gboolean
boxes_overlap (const FwLayoutBox *p, const FwLayoutBox *q)
{
  return p->x < q->x + q->w && q->x < p->x + p->w && p->y < q->y + q->h && q->y < p->y + p->h;
}

static void
assert_no_overlap_all_pairs (FwLayout *layout)
{
  guint n = fw_layout_get_n_boxes (layout);

  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      g_assert_false (boxes_overlap (fw_layout_get_box (layout, i), fw_layout_get_box (layout, j)));
}

static int
compare_box_x (const void *a, const void *b)
{
  const FwLayoutBox *p = *(const FwLayoutBox * const *) a, *q = *(const FwLayoutBox * const *) b;

  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return 0;
}

/* Sweep along x: each box is checked against those still open, which are few in a layered drawing. */
static void
assert_no_overlap_sweep (FwLayout *layout)
{
  guint n = fw_layout_get_n_boxes (layout);
  g_autofree const FwLayoutBox **sorted = g_new (const FwLayoutBox *, n);
  g_autoptr(GPtrArray) open = g_ptr_array_new ();
  guint64 checks = 0;

  for (guint i = 0; i < n; i++)
    sorted[i] = fw_layout_get_box (layout, i);
  qsort (sorted, n, sizeof *sorted, compare_box_x);
  for (guint i = 0; i < n; i++)
    {
      const FwLayoutBox *b = sorted[i];

      for (guint k = open->len; k-- > 0;)
        {
          const FwLayoutBox *o = g_ptr_array_index (open, k);
          if (o->x + o->w <= b->x)
            g_ptr_array_remove_index_fast (open, k);
          else
            {
              g_assert_false (boxes_overlap (o, b));
              checks++;
            }
        }
      g_ptr_array_add (open, (gpointer) b);
    }
  g_assert_cmpuint (checks, >, 0);
}

static void
assert_edges_downward (FwLayout *layout)
{
  for (guint i = 0; i < fw_layout_get_n_edges (layout); i++)
    {
      const FwLayoutEdge *e = fw_layout_get_edge (layout, i);
      const FwLayoutBox *upper = fw_layout_get_box (layout, e->upper);
      const FwLayoutBox *lower = fw_layout_get_box (layout, e->lower);

      g_assert_cmpuint (upper->layer, <, lower->layer);
      /* Straight when the dummy budget ran out. */
      if (e->n_points != 2)
        g_assert_cmpuint (e->n_points, ==, lower->layer - upper->layer + 1);
      g_assert_cmpfloat (e->points[0].y, ==, upper->y + upper->h);
      g_assert_cmpfloat (e->points[e->n_points - 1].y, ==, lower->y);
      g_assert_cmpfloat (e->points[0].x, ==, upper->x + upper->w / 2);
      g_assert_cmpfloat (e->points[e->n_points - 1].x, ==, lower->x + lower->w / 2);
      for (guint k = 1; k < e->n_points; k++)
        g_assert_cmpfloat (e->points[k].y, >, e->points[k - 1].y);
    }
}

static void
test_no_overlap (void)
{
  g_autoptr(FwModel) conv = fw_test_conv_block ();
  g_autoptr(FwModel) block = fw_test_transformer_block (8, 16, 2, TRUE);
  g_autoptr(FwModel) stack = fw_test_transformer_stack (40, 8, 16, 2, TRUE);
  g_autoptr(FwLayout) a = layout_for (conv, G_MAXUINT);
  g_autoptr(FwLayout) b = layout_for (block, G_MAXUINT);
  g_autoptr(FwLayout) c = layout_for (stack, G_MAXUINT);

  assert_no_overlap_all_pairs (a);
  assert_no_overlap_all_pairs (b);
  g_assert_cmpuint (fw_layout_get_n_boxes (c), >, 1000);
  assert_no_overlap_sweep (c);
}

static void
test_edges_downward (void)
{
  g_autoptr(FwModel) block = fw_test_transformer_block (8, 16, 2, TRUE);
  g_autoptr(FwModel) stack = fw_test_transformer_stack (40, 8, 16, 2, TRUE);
  g_autoptr(FwLayout) a = layout_for (block, G_MAXUINT);
  g_autoptr(FwLayout) b = layout_for (stack, 0);

  g_assert_cmpuint (fw_layout_get_n_edges (a), >, fw_layout_get_n_boxes (a) - 1);
  assert_edges_downward (a);
  assert_edges_downward (b);
}

static void
test_long_edges (void)
{
  g_autoptr(FwModel) model = skip_model (6, FALSE);
  g_autoptr(FwLayout) layout = layout_for (model, G_MAXUINT);
  FwGraph *g = fw_model_get_graph (model);
  guint first = fw_layout_find_node (layout, fw_graph_get_node (g, 0));
  guint last = fw_layout_find_node (layout, fw_graph_get_node (g, 5));
  const FwLayoutEdge *skip = NULL;

  g_assert_cmpuint (fw_layout_get_n_layers (layout), ==, 6);
  g_assert_cmpuint (fw_layout_get_n_edges (layout), ==, 6);
  for (guint i = 0; i < fw_layout_get_n_edges (layout); i++)
    {
      const FwLayoutEdge *e = fw_layout_get_edge (layout, i);
      if (e->upper == first && e->lower == last)
        skip = e;
    }
  g_assert_nonnull (skip);
  g_assert_false (skip->reversed);
  /* Across five layers: four dummies, each point beside the chain, not through its boxes. */
  g_assert_cmpuint (fw_layout_get_n_dummies (layout), ==, 4);
  g_assert_cmpuint (skip->n_points, ==, 6);
  for (guint k = 1; k + 1 < skip->n_points; k++)
    g_assert_cmpuint (fw_layout_hit_test (layout, skip->points[k].x, skip->points[k].y), ==, G_MAXUINT);
  assert_edges_downward (layout);
  assert_no_overlap_all_pairs (layout);
}

/* One node feeding each of 3,000 in a chain would need 4.5 million dummies: the longest edges go straight. */
static void
test_dummy_budget (void)
{
  g_autoptr(FwModel) model = skip_model (3000, TRUE);
  g_autoptr(FwLayout) layout = layout_for (model, G_MAXUINT);
  guint straight = 0, routed = 0;

  g_assert_cmpuint (fw_layout_get_n_layers (layout), ==, 3000);
  g_assert_cmpuint (fw_layout_get_n_dummies (layout), <=, 16 * (3000 + 6000) + 65536);
  for (guint i = 0; i < fw_layout_get_n_edges (layout); i++)
    {
      const FwLayoutEdge *e = fw_layout_get_edge (layout, i);
      guint span = fw_layout_get_box (layout, e->lower)->layer - fw_layout_get_box (layout, e->upper)->layer;

      if (span > 1)
        {
          straight += e->n_points == 2;
          routed += e->n_points == span + 1;
        }
    }
  g_assert_cmpuint (straight, >, 0);
  g_assert_cmpuint (routed, >, 0);
  assert_edges_downward (layout);
  assert_no_overlap_sweep (layout);
}

static void
test_collapsed_scopes (void)
{
  g_autoptr(FwModel) one = fw_test_transformer_block (8, 16, 2, TRUE);
  guint per_layer = count_drawn (one);
  guint n_layers = (2000 + per_layer - 1) / per_layer;
  g_autoptr(FwModel) model = fw_test_transformer_stack (n_layers, 8, 16, 2, TRUE);
  guint drawn = count_drawn (model);
  g_autoptr(FwLayout) layout = layout_for (model, 0);
  g_autoptr(GError) error = NULL;
  g_autofree char *scope = NULL;
  guint boxes_before, inside = 0, total = 0, scope_boxes = 0;

  g_assert_cmpuint (drawn, >=, 2000);
  boxes_before = fw_layout_get_n_boxes (layout);
  g_assert_cmpuint (boxes_before, <, drawn / 4);
  for (guint i = 0; i < boxes_before; i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      total += box->n_nodes;
      if (box->kind == FW_LAYOUT_BOX_SCOPE)
        {
          scope_boxes++;
          g_assert_null (box->node);
          g_assert_false (fw_layout_get_expanded (layout, box->scope));
          if (scope == NULL)
            {
              scope = g_strdup (box->scope);
              inside = box->n_nodes;
            }
        }
    }
  g_assert_cmpuint (total, ==, drawn);
  g_assert_cmpuint (scope_boxes, >, 0);
  g_assert_nonnull (scope);
  g_assert_cmpuint (inside, >, 1);
  /* A node inside the collapsed scope is found on the scope's box. */
  for (guint i = 0; i < fw_graph_get_n_nodes (fw_model_get_graph (model)); i++)
    {
      FwNode *node = fw_graph_get_node (fw_model_get_graph (model), i);
      if (g_str_has_prefix (fw_node_get_scope (node), scope) && strcmp (fw_node_get_op_type (node), "Constant"))
        {
          const FwLayoutBox *box = fw_layout_get_box (layout, fw_layout_find_node (layout, node));
          g_assert_cmpstr (box->scope, ==, scope);
          break;
        }
    }
  assert_edges_downward (layout);
  assert_no_overlap_sweep (layout);

  g_assert_false (fw_layout_set_expanded (layout, "no/such/scope", TRUE));
  g_assert_true (fw_layout_set_expanded (layout, scope, TRUE));
  g_assert_true (fw_layout_get_expanded (layout, scope));
  g_assert_true (fw_layout_compute (layout, NULL, &error));
  g_assert_cmpuint (fw_layout_get_n_boxes (layout), >, boxes_before);
  total = 0;
  for (guint i = 0; i < fw_layout_get_n_boxes (layout); i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);
      total += box->n_nodes;
      g_assert_false (box->kind == FW_LAYOUT_BOX_SCOPE && strcmp (box->scope, scope) == 0);
    }
  g_assert_cmpuint (total, ==, drawn);
  assert_edges_downward (layout);
  assert_no_overlap_sweep (layout);

  /* Collapsing it again gives back the first drawing. */
  g_assert_true (fw_layout_set_expanded (layout, scope, FALSE));
  g_assert_true (fw_layout_compute (layout, NULL, &error));
  g_assert_cmpuint (fw_layout_get_n_boxes (layout), ==, boxes_before);

  /* A small graph starts with everything open. */
  {
    g_autoptr(FwLayout) small = layout_for (one, 0);
    g_assert_cmpuint (fw_layout_get_n_boxes (small), ==, per_layer);
  }
}

static void
test_hit_test (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, TRUE);
  g_autoptr(FwLayout) layout = layout_for (model, G_MAXUINT);
  gdouble width, height;

  for (guint i = 0; i < fw_layout_get_n_boxes (layout); i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      g_assert_cmpuint (fw_layout_hit_test (layout, box->x + box->w / 2, box->y + box->h / 2), ==, i);
      g_assert_cmpuint (fw_layout_hit_test (layout, box->x + 0.5, box->y + 0.5), ==, i);
      g_assert_cmpuint (fw_layout_hit_test (layout, box->x - 1, box->y + box->h / 2), !=, i);
      g_assert_cmpuint (fw_layout_hit_test (layout, box->x + 1, box->y + box->h + 1), ==, G_MAXUINT);
      g_assert_cmpuint (fw_layout_find_node (layout, box->node), ==, i);
    }
  fw_layout_get_bounds (layout, &width, &height);
  g_assert_cmpuint (fw_layout_hit_test (layout, -5, -5), ==, G_MAXUINT);
  g_assert_cmpuint (fw_layout_hit_test (layout, width + 10, height + 10), ==, G_MAXUINT);
}

static void
test_cancel (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, TRUE);
  g_autoptr(FwLayout) layout = layout_for (model, G_MAXUINT);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  guint n_boxes = fw_layout_get_n_boxes (layout);

  g_cancellable_cancel (cancellable);
  g_assert_false (fw_layout_compute (layout, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  /* The last good drawing stays. */
  g_assert_cmpuint (fw_layout_get_n_boxes (layout), ==, n_boxes);
}

static void
on_computed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **out = user_data;
  *out = g_object_ref (result);
}

static void
on_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  guint *count = user_data;
  (*count)++;
}

static void
test_async (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_stack (4, 8, 16, 2, TRUE);
  g_autoptr(FwLayout) layout = NULL;
  g_autoptr(FwLayout) sync = layout_for (model, G_MAXUINT);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  FwLayoutOptions options;
  guint notified = 0;

  fw_layout_options_init (&options);
  options.collapse_threshold = G_MAXUINT;
  layout = fw_layout_new (fw_model_get_graph (model), &options);
  g_signal_connect (layout, "notify::fraction", G_CALLBACK (on_notify), &notified);
  fw_layout_compute_async (layout, NULL, on_computed, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (fw_layout_compute_finish (layout, result, &error));
  g_assert_no_error (error);
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (notified, >, 0);
  g_assert_cmpfloat (fw_layout_get_fraction (layout), ==, 1.0);
  assert_same_result (layout, sync);

  /* Cancelled before it starts: an error, and the drawing stays. */
  g_clear_object (&result);
  g_cancellable_cancel (cancellable);
  fw_layout_compute_async (layout, cancellable, on_computed, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (fw_layout_compute_finish (layout, result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  assert_same_result (layout, sync);
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static guint
count_occurrences (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

/* How cairo's SVG surface writes a stroke colour. */
static char *
svg_stroke (FwCandidateStatus status)
{
  gdouble r, g, b;

  fw_render_hull_color (status, &r, &g, &b);
  return g_strdup_printf ("stroke:rgb(%g%%,%g%%,%g%%)", r * 100, g * 100, b * 100);
}

static void
test_render (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwLayout) layout = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *svg = g_build_filename (dir, "graph.svg", NULL);
  g_autofree char *bare = g_build_filename (dir, "bare.SVG", NULL);
  g_autofree char *png = g_build_filename (dir, "graph.png", NULL);
  g_autofree char *bad = g_build_filename (dir, "graph.pdf", NULL);
  g_autofree char *text = NULL, *bare_text = NULL, *bytes = NULL;
  gsize len;
  FwCandidateStatus looks[4] = { FW_CANDIDATE_PROPOSED, FW_CANDIDATE_ACCEPTED, FW_CANDIDATE_VETOED,
                                 FW_CANDIDATE_REFUSED };

  FwPlanOptions options;

  fw_plan_options_init (&options);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  plan = fw_plan_new (model, profile, rules, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (plan->candidates->len, >=, 4);
  /* One candidate in each look. */
  for (guint i = 0; i < 4; i++)
    ((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status = looks[i];
  for (guint i = 4; i < plan->candidates->len; i++)
    ((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status = FW_CANDIDATE_PROPOSED;
  layout = layout_for (model, G_MAXUINT);

  g_assert_true (fw_render_graph (layout, plan, svg, &error));
  g_assert_no_error (error);
  g_assert_true (fw_render_graph (layout, NULL, bare, &error));
  g_assert_true (g_file_get_contents (svg, &text, &len, &error));
  g_assert_true (g_file_get_contents (bare, &bare_text, NULL, &error));
  g_assert_true (g_str_has_prefix (text, "<?xml") || g_str_has_prefix (text, "<svg"));
  g_assert_nonnull (strstr (text, "<svg"));
  /* A hull is a path of its own: fill and outline per candidate. */
  g_assert_cmpuint (count_occurrences (text, "<path"), >=,
                    count_occurrences (bare_text, "<path") + plan->candidates->len);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *stroke = svg_stroke (looks[i]);
      guint expected = looks[i] == FW_CANDIDATE_PROPOSED ? plan->candidates->len - 3 : 1;

      g_assert_cmpuint (count_occurrences (text, stroke), ==, expected);
      g_assert_cmpuint (count_occurrences (bare_text, stroke), ==, 0);
    }

  g_assert_true (fw_render_graph (layout, plan, png, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (png, &bytes, &len, &error));
  g_assert_cmpuint (len, >, 8);
  g_assert_cmpmem (bytes, 8, "\x89PNG\r\n\x1a\n", 8);
  {
    cairo_surface_t *image = cairo_image_surface_create_from_png (png);
    gdouble width, height;

    g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
    fw_layout_get_bounds (layout, &width, &height);
    g_assert_cmpint (cairo_image_surface_get_width (image), ==, (int) ceil (width));
    g_assert_cmpint (cairo_image_surface_get_height (image), ==, (int) ceil (height));
    cairo_surface_destroy (image);
  }

  g_assert_false (fw_render_graph (layout, plan, bad, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  fw_test_remove_dir (dir);
}

/* A drawing wider than a PNG may be is scaled down, not refused. */
static void
test_render_huge_png (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_stack (60, 8, 16, 2, TRUE);
  g_autoptr(FwLayout) layout = layout_for (model, G_MAXUINT);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *png = g_build_filename (dir, "huge.png", NULL);
  cairo_surface_t *image;
  gdouble width, height;

  fw_layout_get_bounds (layout, &width, &height);
  g_assert_cmpfloat (height, >, 16384);
  g_assert_true (fw_render_graph (layout, NULL, png, &error));
  g_assert_no_error (error);
  image = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_height (image), <=, 16384);
  g_assert_cmpint (cairo_image_surface_get_width (image), <=, 16384);
  cairo_surface_destroy (image);
  fw_test_remove_dir (dir);
}

/* x → MatMul(x, Identity(w)) → Add(·, Identity(Identity(b))) → Relu(Identity(·)): with fold_weight_copies
 * the three copies of weights are not drawn, the copy of an activation is. */
static void
test_fold_weight_copies (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (2), FW_DIM_STATIC (2) };
  gint64 shape[2] = { 2, 2 };
  float values[4] = { 1, 2, 3, 4 };
  g_autoptr(FwTensor) w = fw_tensor_new_float (2, shape, values);
  g_autoptr(FwTensor) b = fw_tensor_new_float (2, shape, values);
  g_autoptr(GError) error = NULL;
  struct { const char *op, *name, *in0, *in1, *out; } nodes[] = {
    { "Identity", "/w_copy", "w", NULL, "w1" },
    { "Identity", "/b_copy", "b", NULL, "b1" },
    { "Identity", "/b_copy2", "b1", NULL, "b2" },
    { "MatMul", "/mm", "x", "w1", "m" },
    { "Add", "/add", "m", "b2", "a" },
    { "Identity", "/a_copy", "a", NULL, "a1" },
    { "Relu", "/relu", "a1", NULL, "y" },
  };
  FwLayoutOptions options;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, &error));
  g_assert_nonnull (fw_graph_add_initializer (g, "w", w, &error));
  g_assert_nonnull (fw_graph_add_initializer (g, "b", b, &error));
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    {
      const char *ins[2] = { nodes[i].in0, nodes[i].in1 };
      const char *outs[1] = { nodes[i].out };

      g_assert_nonnull (fw_graph_add_node (g, nodes[i].op, "", nodes[i].name, nodes[i].in1 ? 2 : 1, ins, 1, outs,
                                           &error));
    }
  g_assert_true (fw_graph_add_output (g, "y", &error));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);

  for (guint fold = 0; fold < 2; fold++)
    {
      g_autoptr(FwLayout) layout = NULL;
      guint n_identity = 0;

      fw_layout_options_init (&options);
      options.fold_weight_copies = fold;
      layout = fw_layout_new (g, &options);
      g_assert_true (fw_layout_compute (layout, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (fw_layout_get_n_boxes (layout), ==, fold ? 4 : 7);
      for (guint i = 0; i < fw_layout_get_n_boxes (layout); i++)
        n_identity += strcmp (fw_layout_get_box (layout, i)->label, "Identity") == 0;
      g_assert_cmpuint (n_identity, ==, fold ? 1 : 4);
      /* A folded node has no box; its consumer keeps its own. */
      g_assert_cmpuint (fw_layout_find_node (layout, fw_graph_get_node (g, 0)), ==, fold ? G_MAXUINT : 0);
      g_assert_cmpuint (fw_layout_find_node (layout, fw_graph_get_node (g, 3)), !=, G_MAXUINT);
    }
}

/* scope_override: the nodes given a scope of their own are drawn as one collapsed box there. */
static void
test_scope_override (void)
{
  g_autoptr(FwModel) model = skip_model (6, FALSE);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GHashTable) override = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(FwLayout) layout = NULL;
  g_autoptr(GError) error = NULL;
  FwLayoutOptions options;
  const FwLayoutBox *box;
  guint b;

  g_hash_table_insert (override, fw_graph_get_node (g, 1), (gpointer) "fused_0_chain");
  g_hash_table_insert (override, fw_graph_get_node (g, 2), (gpointer) "fused_0_chain");
  fw_layout_options_init (&options);
  options.scope_override = override;
  layout = fw_layout_new (g, &options);
  g_assert_true (fw_layout_compute (layout, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_layout_get_n_boxes (layout), ==, 5);
  b = fw_layout_find_node (layout, fw_graph_get_node (g, 1));
  g_assert_cmpuint (b, ==, fw_layout_find_node (layout, fw_graph_get_node (g, 2)));
  box = fw_layout_get_box (layout, b);
  g_assert_cmpint (box->kind, ==, FW_LAYOUT_BOX_SCOPE);
  g_assert_cmpstr (box->label, ==, "fused_0_chain");
  g_assert_cmpuint (box->n_nodes, ==, 2);
  /* It opens like any scope. */
  g_assert_true (fw_layout_set_expanded (layout, "fused_0_chain", TRUE));
  g_assert_true (fw_layout_compute (layout, NULL, &error));
  g_assert_cmpuint (fw_layout_get_n_boxes (layout), ==, 6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/layout/determinism", test_determinism);
  g_test_add_func ("/core/layout/no-overlap", test_no_overlap);
  g_test_add_func ("/core/layout/edges-downward", test_edges_downward);
  g_test_add_func ("/core/layout/long-edges", test_long_edges);
  g_test_add_func ("/core/layout/dummy-budget", test_dummy_budget);
  g_test_add_func ("/core/layout/collapsed-scopes", test_collapsed_scopes);
  g_test_add_func ("/core/layout/hit-test", test_hit_test);
  g_test_add_func ("/core/layout/cancel", test_cancel);
  g_test_add_func ("/core/layout/async", test_async);
  g_test_add_func ("/core/layout/render", test_render);
  g_test_add_func ("/core/layout/render-huge-png", test_render_huge_png);
  g_test_add_func ("/core/layout/fold-weight-copies", test_fold_weight_copies);
  g_test_add_func ("/core/layout/scope-override", test_scope_override);
  return g_test_run ();
}
