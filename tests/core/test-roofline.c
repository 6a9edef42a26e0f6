/* test-roofline.c: the pictures' numbers (fw-roofline.h): each candidate's intensity and throughput against
 * its cost estimate and against figures worked out by hand, the roof, the three summary columns before and
 * after a veto, the hit test, and the charts as SVG and PNG files. */
#include "config.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan-private.h"
#include "report/fw-render.h"
#include "report/fw-roofline.h"

#define WIDTH  800.0
#define HEIGHT 560.0

static void
assert_close (gdouble a, gdouble b)
{
  g_assert_cmpfloat_with_epsilon (a, b, 1e-9 * MAX (fabs (a), fabs (b)) + 1e-300);
}

static FwPlan *
plan_for (FwModel *model, FwProfile *profile, FwRuleSet *rules)
{
  g_autoptr(GError) error = NULL;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  plan = fw_plan_new (model, profile, rules, NULL, &error);
  g_assert_no_error (error);
  return plan;
}

/* x → Add(x, 1) → Relu → Add(·, 1) → Relu on 64 floats: one elementwise chain of four nodes. */
static void
test_hand_computed (void)
{
  g_autoptr(FwModel) model = fw_test_long_chain (4);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, NULL);
  g_autoptr(FwRooflineData) data = fw_roofline_data_new (plan);
  const FwRooflinePoint *p;
  gdouble bw = profile->hbm_bytes_per_s, overhead = profile->launch_overhead_s + profile->sync_overhead_s;
  gdouble rate = profile->vector_flops_per_s / 2;   /* float32 on an NPU runs at half the fp16 rate */
  gdouble time_before, time_after;

  g_assert_cmpuint (plan->candidates->len, ==, 1);
  g_assert_cmpuint (data->points->len, ==, 1);
  p = fw_roofline_data_find (data, 0);
  g_assert_nonnull (p);
  g_assert_cmpuint (p->n_nodes, ==, 4);
  g_assert_cmpint (p->status, ==, FW_CANDIDATE_PROPOSED);
  /* One FLOP per element per node. */
  assert_close (p->flops, 4 * 64);
  /* Unfused: each Add reads 256 B and the 4-byte scalar, each node writes 256 B. */
  assert_close (p->bytes_before, 2 * (256 + 4 + 256) + 2 * (256 + 256));
  /* Fused: x and the scalar once, y once. */
  assert_close (p->bytes_after, 256 + 4 + 256);
  assert_close (p->intensity_before, 256.0 / 2056);
  assert_close (p->intensity_after, 256.0 / 516);
  /* Each kernel as long as its slowest pipeline plus launch and sync. */
  time_before = 2 * (MAX (MAX (260 / bw, 64 / rate), 256 / bw) + overhead) +
                2 * (MAX (MAX (256 / bw, 64 / rate), 256 / bw) + overhead);
  time_after = MAX (MAX (260 / bw, 256 / rate), 256 / bw) + overhead;
  assert_close (p->time_before_s, time_before);
  assert_close (p->time_after_s, time_after);
  assert_close (p->achieved_before, 256 / time_before);
  assert_close (p->achieved_after, 256 / time_after);
  /* Far left of the ridge: both on the bandwidth slope. */
  assert_close (p->attainable_before, 256.0 / 2056 * bw);
  assert_close (p->attainable_after, 256.0 / 516 * bw);
  g_assert_true (p->plotted);
  g_assert_cmpuint (data->n_unplotted, ==, 0);
  g_assert_null (fw_roofline_data_find (data, 1));
}

/* Every candidate of a transformer layer: the point is its cost estimate, divided as the header says. */
static void
test_points (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules);
  g_autoptr(FwRooflineData) data = fw_roofline_data_new (plan);
  guint plotted = 0;

  g_assert_cmpuint (plan->candidates->len, >, 2);
  g_assert_cmpuint (data->points->len, ==, plan->candidates->len);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      const FwRooflinePoint *p = fw_roofline_data_find (data, c->index);
      gdouble before = fw_candidate_get_cost (c)->bytes_read_before + fw_candidate_get_cost (c)->bytes_written_before;
      gdouble after = fw_candidate_get_cost (c)->bytes_read_after + fw_candidate_get_cost (c)->bytes_written_after;
      g_autofree char *text = NULL;
      g_autofree char *number = g_strdup_printf ("#%u ", c->index);

      g_assert_nonnull (p);
      g_assert_cmpuint (p->index, ==, c->index);
      g_assert_cmpstr (p->pattern, ==, c->pattern);
      g_assert_cmpint (p->status, ==, c->status);
      g_assert_cmpuint (p->n_nodes, ==, c->nodes->len);
      assert_close (p->flops, fw_candidate_get_cost (c)->flops);
      assert_close (p->bytes_before, before);
      assert_close (p->bytes_after, after);
      assert_close (p->intensity_before, before > 0 ? fw_candidate_get_cost (c)->flops / before : 0);
      assert_close (p->intensity_after, after > 0 ? fw_candidate_get_cost (c)->flops / after : 0);
      assert_close (p->achieved_before, fw_candidate_get_cost (c)->flops / fw_candidate_get_cost (c)->time_before_s);
      assert_close (p->achieved_after, fw_candidate_get_cost (c)->flops / fw_candidate_get_cost (c)->time_after_s);
      assert_close (p->attainable_before, MIN (data->peak_flops_per_s, p->intensity_before * data->hbm_bytes_per_s));
      assert_close (p->attainable_after, MIN (data->peak_flops_per_s, p->intensity_after * data->hbm_bytes_per_s));
      /* Fusion never adds HBM traffic: the arrow points right (or stays). */
      g_assert_cmpfloat (p->bytes_after, <=, p->bytes_before);
      g_assert_cmpint (p->plotted, ==, fw_candidate_get_cost (c)->flops > 0 && after > 0);
      if (p->plotted)
        {
          plotted++;
          g_assert_cmpfloat (p->intensity_before, >=, data->x_min);
          g_assert_cmpfloat (p->intensity_after, <=, data->x_max);
          g_assert_cmpfloat (p->achieved_before, >=, data->y_min);
          g_assert_cmpfloat (p->achieved_after, <=, data->y_max);
        }
      text = fw_roofline_point_describe (p);
      g_assert_true (g_str_has_prefix (text, number));
      g_assert_nonnull (strstr (text, c->pattern));
    }
  g_assert_cmpuint (plotted + data->n_unplotted, ==, data->points->len);
  g_assert_cmpuint (plotted, >, 0);
}

static void
assert_decade (gdouble v)
{
  assert_close (pow (10, round (log10 (v))), v);
}

static void
test_roof (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, NULL);
  g_autoptr(FwRooflineData) data = fw_roofline_data_new (plan);
  gdouble peak = MAX (profile->cube_flops_per_s, profile->vector_flops_per_s);
  gdouble ridge = peak / profile->hbm_bytes_per_s;

  g_assert_cmpstr (data->profile, ==, "ascend-910b");
  assert_close (data->peak_flops_per_s, peak);
  assert_close (data->peak_flops_per_s, 354e12);
  assert_close (data->vector_flops_per_s, profile->vector_flops_per_s);
  assert_close (data->hbm_bytes_per_s, profile->hbm_bytes_per_s);
  assert_close (data->ridge_intensity, ridge);
  assert_close (data->ridge_intensity, 354e12 / 1.6e12);
  /* The roof: the bandwidth slope left of the ridge, flat at the peak right of it. */
  assert_close (fw_roofline_attainable (data, ridge / 10), peak / 10);
  assert_close (fw_roofline_attainable (data, 2.0), 2.0 * 1.6e12);
  assert_close (fw_roofline_attainable (data, ridge), peak);
  assert_close (fw_roofline_attainable (data, ridge * 10), peak);
  assert_close (fw_roofline_attainable (data, 1e6), peak);
  /* The axes: whole decades, the ridge a decade from either side, room above the peak. */
  assert_decade (data->x_min);
  assert_decade (data->x_max);
  assert_decade (data->y_min);
  assert_decade (data->y_max);
  g_assert_cmpfloat (data->x_min, <=, ridge / 10);
  g_assert_cmpfloat (data->x_max, >=, ridge * 10);
  g_assert_cmpfloat (data->y_max, >=, 2 * peak);
  g_assert_cmpfloat (data->y_min, <, data->y_max);
}

static gboolean
same_totals (const FwPlanTotals *a, const FwPlanTotals *b)
{
  return a->launches == b->launches && a->bytes_read == b->bytes_read && a->bytes_written == b->bytes_written &&
         a->time_s == b->time_s && a->flops == b->flops;
}

static void
test_summary (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules);
  g_autoptr(FwRooflineData) first = fw_roofline_data_new (plan);
  g_autoptr(FwRooflineData) vetoed = NULL;
  g_autoptr(FwRooflineData) undone = NULL;
  FwGraph *graph = fw_model_get_graph (model);
  const FwPlanTotals *original = &first->columns[FW_SUMMARY_ORIGINAL];
  const FwPlanTotals *proposed = &first->columns[FW_SUMMARY_PROPOSED];
  guint runs = 0, launches_saved = 0, veto = G_MAXUINT;
  gdouble time_saved = 0;

  /* Original: every node that runs is a kernel of its own. */
  for (guint i = 0; i < graph->nodes->len; i++)
    if (fw_node_runs (g_ptr_array_index (graph->nodes, i)))
      runs++;
  g_assert_cmpuint (original->launches, ==, runs);
  g_assert_true (same_totals (original, &plan->before));

  /* Proposed: the original less what every proposed candidate saves; nothing decided yet, so the plan now
   * is the proposal. */
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (c->status != FW_CANDIDATE_PROPOSED)
        continue;
      launches_saved += fw_candidate_get_cost (c)->launches_before - fw_candidate_get_cost (c)->launches_after;
      time_saved += fw_candidate_get_cost (c)->time_before_s - fw_candidate_get_cost (c)->time_after_s;
      if (veto == G_MAXUINT && fw_candidate_get_cost (c)->launches_before > 1)
        veto = c->index;
    }
  g_assert_cmpuint (launches_saved, >, 0);
  g_assert_cmpuint (proposed->launches, ==, original->launches - launches_saved);
  g_assert_cmpfloat_with_epsilon (proposed->time_s, original->time_s - time_saved, 1e-12);
  g_assert_cmpfloat (proposed->bytes_read + proposed->bytes_written, <,
                     original->bytes_read + original->bytes_written);
  g_assert_true (same_totals (&first->columns[FW_SUMMARY_DECISIONS], proposed));

  /* A veto changes the decisions column only. */
  g_assert_cmpuint (veto, !=, G_MAXUINT);
  g_assert_true (fw_plan_veto (plan, veto, NULL, NULL, &error));
  g_assert_no_error (error);
  vetoed = fw_roofline_data_new (plan);
  g_assert_true (same_totals (&vetoed->columns[FW_SUMMARY_ORIGINAL], original));
  g_assert_true (same_totals (&vetoed->columns[FW_SUMMARY_PROPOSED], proposed));
  g_assert_false (same_totals (&vetoed->columns[FW_SUMMARY_DECISIONS], proposed));
  g_assert_cmpfloat (vetoed->columns[FW_SUMMARY_DECISIONS].time_s, >, proposed->time_s);
  g_assert_cmpint (fw_roofline_data_find (vetoed, veto)->status, ==, FW_CANDIDATE_VETOED);
  g_assert_cmpuint (vetoed->points->len, ==, plan->candidates->len);

  /* Undo plans afresh: the proposal is the same, and the decisions are back to it. */
  g_assert_true (fw_plan_undo (plan));
  undone = fw_roofline_data_new (plan);
  g_assert_true (same_totals (&undone->columns[FW_SUMMARY_PROPOSED], proposed));
  g_assert_true (same_totals (&undone->columns[FW_SUMMARY_DECISIONS], proposed));
}

static void
test_hit (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules);
  g_autoptr(FwRooflineData) data = fw_roofline_data_new (plan);
  guint checked = 0;

  for (guint i = 0; i < data->points->len; i++)
    {
      const FwRooflinePoint *p = &g_array_index (data->points, FwRooflinePoint, i);

      for (guint k = 0; k < 2; k++)
        {
          gdouble x, y, hx, hy, hx2, hy2;
          guint hit;

          if (!fw_roofline_locate (data, WIDTH, HEIGHT, p->index, k == 1, &x, &y))
            {
              g_assert_false (p->plotted);
              continue;
            }
          g_assert_cmpfloat (x, >=, 0);
          g_assert_cmpfloat (x, <=, WIDTH);
          g_assert_cmpfloat (y, >=, 0);
          g_assert_cmpfloat (y, <=, HEIGHT);
          /* On the marker and a few pixels off it: this candidate, or one drawn on the same spot. */
          hit = fw_roofline_hit (data, WIDTH, HEIGHT, x + 2, y - 2);
          g_assert_cmpuint (hit, !=, G_MAXUINT);
          if (hit != p->index)
            {
              g_assert_true (fw_roofline_locate (data, WIDTH, HEIGHT, hit, FALSE, &hx, &hy));
              g_assert_true (fw_roofline_locate (data, WIDTH, HEIGHT, hit, TRUE, &hx2, &hy2));
              g_assert_cmpfloat (MIN (hypot (hx - x - 2, hy - y + 2), hypot (hx2 - x - 2, hy2 - y + 2)), <=,
                                 hypot (2, 2) + 1e-9);
            }
          checked++;
        }
    }
  g_assert_cmpuint (checked, >, 0);
  /* Outside the plot, and in its empty top-right corner (a decade above the peak). */
  g_assert_cmpuint (fw_roofline_hit (data, WIDTH, HEIGHT, 2, 2), ==, G_MAXUINT);
  g_assert_cmpuint (fw_roofline_hit (data, WIDTH, HEIGHT, WIDTH - 25, 40), ==, G_MAXUINT);
  g_assert_false (fw_roofline_locate (data, WIDTH, HEIGHT, 10000, TRUE, &(gdouble) { 0 }, &(gdouble) { 0 }));
}

/* Drawing into an image: every look and size leaves cairo without error, the highlight changes pixels. */
static void
test_draw (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules);
  g_autoptr(FwRooflineData) data = fw_roofline_data_new (plan);
  static const int sizes[][2] = { { 800, 560 }, { 300, 200 }, { 40, 30 }, { 1, 1 } };
  g_autofree guchar *plain = NULL;

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint look = 0; look < 4; look++)
      {
        cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, sizes[s][0], sizes[s][1]);
        cairo_t *cr = cairo_create (surface);
        FwChartOptions options;

        fw_chart_options_init (&options);
        options.dark = look & 1;
        options.highlight = look & 2 ? 0 : G_MAXUINT;
        fw_roofline_draw (cr, sizes[s][0], sizes[s][1], data, &options);
        g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
        fw_summary_draw (cr, sizes[s][0], sizes[s][1], data, &options);
        g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
        cairo_destroy (cr);
        cairo_surface_destroy (surface);
      }

  /* The highlighted candidate is drawn differently. */
  for (guint look = 0; look < 2; look++)
    {
      cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 800, 560);
      cairo_t *cr = cairo_create (surface);
      FwChartOptions options;
      gsize size;

      fw_chart_options_init (&options);
      options.highlight = look == 0 ? G_MAXUINT : fw_roofline_data_find (data, 0)->plotted ? 0 : G_MAXUINT;
      fw_roofline_draw (cr, 800, 560, data, &options);
      cairo_surface_flush (surface);
      size = (gsize) cairo_image_surface_get_stride (surface) * 560;
      if (look == 0)
        plain = g_memdup2 (cairo_image_surface_get_data (surface), size);
      else if (options.highlight != G_MAXUINT)
        g_assert_true (memcmp (plain, cairo_image_surface_get_data (surface), size) != 0);
      cairo_destroy (cr);
      cairo_surface_destroy (surface);
    }
}

/* A plan with fusion off: no points, the roof alone. */
static void
test_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwRooflineData) data = NULL;
  FwPlanOptions options;
  cairo_surface_t *surface;
  cairo_t *cr;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  fw_plan_options_init (&options);
  options.enabled = FALSE;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  data = fw_roofline_data_new (plan);
  g_assert_cmpuint (data->points->len, ==, 0);
  g_assert_true (same_totals (&data->columns[FW_SUMMARY_ORIGINAL], &data->columns[FW_SUMMARY_PROPOSED]));
  g_assert_true (same_totals (&data->columns[FW_SUMMARY_ORIGINAL], &data->columns[FW_SUMMARY_DECISIONS]));
  g_assert_cmpfloat (data->x_min, <, data->ridge_intensity);
  g_assert_cmpfloat (data->x_max, >, data->ridge_intensity);
  g_assert_cmpfloat (data->y_min, <, data->peak_flops_per_s);
  g_assert_cmpuint (fw_roofline_hit (data, WIDTH, HEIGHT, WIDTH / 2, HEIGHT / 2), ==, G_MAXUINT);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 400, 300);
  cr = cairo_create (surface);
  fw_roofline_draw (cr, 400, 300, data, NULL);
  fw_summary_draw (cr, 400, 300, data, NULL);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

static guint
count_occurrences (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (text, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
assert_png (const char *path, int width, int height)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *bytes = NULL;
  gsize len;
  cairo_surface_t *image;

  g_assert_true (g_file_get_contents (path, &bytes, &len, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (len, >, 8);
  g_assert_cmpmem (bytes, 8, "\x89PNG\r\n\x1a\n", 8);
  image = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (image), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (image), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (image), ==, height);
  cairo_surface_destroy (image);
}

static void
test_render (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *svg = g_build_filename (dir, "roofline.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "roofline.PNG", NULL);
  g_autofree char *summary_svg = g_build_filename (dir, "summary.svg", NULL);
  g_autofree char *summary_png = g_build_filename (dir, "summary.png", NULL);
  g_autofree char *pdf = g_build_filename (dir, "roofline.pdf", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "roofline.svg", NULL);
  g_autofree char *kept = g_build_filename (dir, "kept.pdf", NULL);
  g_autofree char *text = NULL, *after = NULL;
  g_autofree char *proposed_stroke = NULL, *vetoed_stroke = NULL;
  gdouble r, g, b;

  g_assert_true (fw_render_roofline (plan, svg, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &text, NULL, &error));
  g_assert_true (g_str_has_prefix (text, "<?xml") || g_str_has_prefix (text, "<svg"));
  g_assert_nonnull (strstr (text, "<svg"));
  g_assert_nonnull (strstr (text, "</svg>"));
  g_assert_nonnull (strstr (text, "width=\"800\""));
  /* The graph's hull colour for proposed candidates marks them here too; none is vetoed yet. */
  fw_render_hull_color (FW_CANDIDATE_PROPOSED, &r, &g, &b);
  proposed_stroke = g_strdup_printf ("rgb(%g%%,%g%%,%g%%)", r * 100, g * 100, b * 100);
  fw_render_hull_color (FW_CANDIDATE_VETOED, &r, &g, &b);
  vetoed_stroke = g_strdup_printf ("rgb(%g%%,%g%%,%g%%)", r * 100, g * 100, b * 100);
  g_assert_cmpuint (count_occurrences (text, proposed_stroke), >, 0);
  {
    guint vetoed_before = count_occurrences (text, vetoed_stroke);

    g_assert_true (fw_plan_veto (plan, 0, NULL, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (fw_render_roofline (plan, svg, &error));
    g_assert_true (g_file_get_contents (svg, &after, NULL, &error));
    g_assert_cmpuint (count_occurrences (after, vetoed_stroke), >, vetoed_before);
  }

  g_assert_true (fw_render_roofline (plan, png, &error));
  g_assert_no_error (error);
  assert_png (png, 800, 560);
  g_assert_true (fw_render_summary (plan, summary_svg, &error));
  g_assert_no_error (error);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (summary_svg, &text, NULL, &error));
  g_assert_nonnull (strstr (text, "<svg"));
  g_assert_true (fw_render_summary (plan, summary_png, &error));
  g_assert_no_error (error);
  assert_png (summary_png, 760, 420);

  /* Not a picture format: a usage error naming the file, and no file. */
  g_assert_false (fw_render_roofline (plan, pdf, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, pdf));
  g_assert_false (g_file_test (pdf, G_FILE_TEST_EXISTS));
  g_clear_error (&error);
  /* A folder that does not exist: an I/O error naming the path. */
  g_assert_false (fw_render_roofline (plan, missing, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);
  g_assert_false (fw_render_summary (plan, missing, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);
  /* A failed render leaves what was at the path. */
  g_assert_true (g_file_set_contents (kept, "kept", -1, &error));
  g_assert_false (fw_render_summary (plan, kept, &error));
  g_clear_error (&error);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (kept, &text, NULL, &error));
  g_assert_cmpstr (text, ==, "kept");
  fw_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/report/roofline/hand-computed", test_hand_computed);
  g_test_add_func ("/core/report/roofline/points", test_points);
  g_test_add_func ("/core/report/roofline/roof", test_roof);
  g_test_add_func ("/core/report/roofline/summary", test_summary);
  g_test_add_func ("/core/report/roofline/hit", test_hit);
  g_test_add_func ("/core/report/roofline/draw", test_draw);
  g_test_add_func ("/core/report/roofline/empty", test_empty);
  g_test_add_func ("/core/report/roofline/render", test_render);
  return g_test_run ();
}
