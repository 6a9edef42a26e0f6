/* test-pictures.c: the roofline and summary views over one transformer layer's project in a window on a
 * virtual display: property round-trips, a click on a candidate's marker, redrawing after a veto, frames
 * written as PNG files to the build folder, and no leak when the window goes. */
#include "config.h"

#include <gtk/gtk.h>
#include <math.h>

#include "fw-roofline-view.h"
#include "fw-summary-view.h"
#include "fw-test-models.h"
#include "report/fw-render.h"

typedef struct
{
  FwModel        *model;
  FwProfile      *profile;
  FwRuleSet      *rules;
  FwProject      *project;
  GtkWidget      *window;
  FwRooflineView *roofline;
  FwSummaryView  *summary;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  GtkWidget *box;

  f->model = fw_test_transformer_block (64, 128, 4, FALSE);
  f->profile = fw_test_profile_910b ();
  f->rules = fw_test_builtin_rules ();
  g_assert_true (fw_test_infer (f->model, NULL, NULL, &error));
  g_assert_no_error (error);
  f->project = fw_project_new (f->model, f->profile, f->rules, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_project_get_plan (f->project)->candidates->len, >, 2);

  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 800, 960);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  f->roofline = FW_ROOFLINE_VIEW (fw_roofline_view_new ());
  f->summary = FW_SUMMARY_VIEW (fw_summary_view_new ());
  g_object_ref_sink (f->roofline);
  g_object_ref_sink (f->summary);
  gtk_widget_set_vexpand (GTK_WIDGET (f->roofline), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->roofline));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (f->summary));
  gtk_window_set_child (GTK_WINDOW (f->window), box);
  fw_roofline_view_set_project (f->roofline, f->project);
  fw_summary_view_set_project (f->summary, f->project);
  gtk_window_present (GTK_WINDOW (f->window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->roofline));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->roofline)), >, 300);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (f->roofline)), >, 200);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_assert_finalize_object (f->roofline);
  g_assert_finalize_object (f->summary);
  g_assert_finalize_object (f->project);
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
record_candidate (FwRooflineView *view, guint candidate, guint *out)
{
  *out = candidate;
}

static void
test_properties (Fixture *f, gconstpointer data)
{
  g_autoptr(FwProject) project = NULL;
  guint selected = 0, notes = 0, summary_notes = 0;

  g_object_get (f->roofline, "project", &project, "selected-candidate", &selected, NULL);
  g_assert_true (project == f->project);
  g_assert_cmpuint (selected, ==, G_MAXUINT);
  g_clear_object (&project);
  g_object_get (f->summary, "project", &project, NULL);
  g_assert_true (project == f->project);
  g_clear_object (&project);

  g_signal_connect (f->roofline, "notify::selected-candidate", G_CALLBACK (count_notify), &notes);
  g_object_set (f->roofline, "selected-candidate", 2u, NULL);
  g_assert_cmpuint (fw_roofline_view_get_selected_candidate (f->roofline), ==, 2);
  g_object_set (f->roofline, "selected-candidate", 2u, NULL);
  g_assert_cmpuint (notes, ==, 1);
  fw_roofline_view_set_selected_candidate (f->roofline, G_MAXUINT);
  g_object_get (f->roofline, "selected-candidate", &selected, NULL);
  g_assert_cmpuint (selected, ==, G_MAXUINT);
  g_assert_cmpuint (notes, ==, 2);

  /* Without a project nothing is drawn; with it back, the same figures. */
  g_assert_nonnull (fw_roofline_view_get_data (f->roofline));
  g_assert_nonnull (fw_summary_view_get_data (f->summary));
  g_signal_connect (f->summary, "notify::project", G_CALLBACK (count_notify), &summary_notes);
  g_object_set (f->roofline, "project", NULL, NULL);
  g_object_set (f->summary, "project", NULL, NULL);
  g_assert_null (fw_roofline_view_get_project (f->roofline));
  g_assert_null (fw_summary_view_get_project (f->summary));
  g_assert_null (fw_roofline_view_get_data (f->roofline));
  g_assert_null (fw_summary_view_get_data (f->summary));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->roofline));
  g_object_set (f->roofline, "project", f->project, NULL);
  g_object_set (f->summary, "project", f->project, NULL);
  g_assert_cmpuint (summary_notes, ==, 2);
  g_assert_true (fw_roofline_view_get_project (f->roofline) == f->project);
  g_assert_cmpuint (fw_roofline_view_get_data (f->roofline)->points->len, ==,
                    fw_project_get_plan (f->project)->candidates->len);
}

/* The first candidate whose fused marker a click at its centre finds, and where it is. */
static guint
clickable_candidate (Fixture *f, gdouble *x, gdouble *y)
{
  const FwRooflineData *data = fw_roofline_view_get_data (f->roofline);
  int w = gtk_widget_get_width (GTK_WIDGET (f->roofline)), h = gtk_widget_get_height (GTK_WIDGET (f->roofline));

  for (guint i = 0; i < data->points->len; i++)
    {
      const FwRooflinePoint *p = &g_array_index (data->points, FwRooflinePoint, i);

      if (fw_roofline_locate (data, w, h, p->index, TRUE, x, y) && fw_roofline_hit (data, w, h, *x, *y) == p->index)
        return p->index;
    }
  g_assert_not_reached ();
  return G_MAXUINT;
}

static void
test_click (Fixture *f, gconstpointer data)
{
  guint clicked = G_MAXUINT, candidate;
  gdouble x, y;

  g_signal_connect (f->roofline, "candidate-selected", G_CALLBACK (record_candidate), &clicked);
  candidate = clickable_candidate (f, &x, &y);
  fw_roofline_view_click (f->roofline, x + 1, y - 1);
  g_assert_cmpuint (clicked, ==, candidate);
  g_assert_cmpuint (fw_roofline_view_get_selected_candidate (f->roofline), ==, candidate);

  /* Empty space selects nothing and keeps the selection. */
  clicked = G_MAXUINT;
  fw_roofline_view_click (f->roofline, 2, 2);
  g_assert_cmpuint (clicked, ==, G_MAXUINT);
  g_assert_cmpuint (fw_roofline_view_get_selected_candidate (f->roofline), ==, candidate);

  /* Selecting through the property does not emit the signal. */
  fw_roofline_view_set_selected_candidate (f->roofline, 0);
  g_assert_cmpuint (clicked, ==, G_MAXUINT);
}

static void
test_plan_changed (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  const FwRooflineData *before = fw_summary_view_get_data (f->summary);
  FwPlanTotals proposed = before->columns[FW_SUMMARY_PROPOSED];
  gdouble decisions_time = before->columns[FW_SUMMARY_DECISIONS].time_s;
  const FwRooflineData *roofline, *summary;
  guint veto = G_MAXUINT;
  FwPlan *plan = fw_project_get_plan (f->project);

  for (guint i = 0; i < plan->candidates->len && veto == G_MAXUINT; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (c->status == FW_CANDIDATE_PROPOSED)
        veto = c->index;
    }
  g_assert_true (fw_project_veto (f->project, veto, &error));
  g_assert_no_error (error);
  roofline = fw_roofline_view_get_data (f->roofline);
  summary = fw_summary_view_get_data (f->summary);
  g_assert_cmpint (fw_roofline_data_find (roofline, veto)->status, ==, FW_CANDIDATE_VETOED);
  g_assert_cmpuint (roofline->points->len, ==, plan->candidates->len);
  g_assert_cmpuint (summary->columns[FW_SUMMARY_PROPOSED].launches, ==, proposed.launches);
  g_assert_cmpfloat (summary->columns[FW_SUMMARY_PROPOSED].time_s, ==, proposed.time_s);
  g_assert_cmpfloat (summary->columns[FW_SUMMARY_DECISIONS].time_s, >, decisions_time);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->roofline));

  g_assert_true (fw_project_undo (f->project));
  summary = fw_summary_view_get_data (f->summary);
  g_assert_cmpfloat (summary->columns[FW_SUMMARY_DECISIONS].time_s, ==, decisions_time);
  g_assert_cmpint (fw_roofline_data_find (fw_roofline_view_get_data (f->roofline), veto)->status, ==,
                   FW_CANDIDATE_PROPOSED);
}

/* One frame of widget as a PNG in the build folder; returns the pixels near colour (r, g, b). */
static gsize
save_frame (GtkWidget *widget, const char *name, gdouble r, gdouble g, gdouble b)
{
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_BUILT, name, NULL);
  gsize matches = 0;

  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("frame written to %s", path);

  /* Downloaded as premultiplied B, G, R, A bytes (cairo's order on little-endian). */
  pixels = g_malloc ((gsize) w * h * 4);
  gdk_texture_download (texture, pixels, (gsize) w * 4);
  for (gsize i = 0; i < (gsize) w * h; i++)
    {
      const guchar *px = pixels + 4 * i;
      if (px[3] > 0xe0 && fabs (px[2] - r * 255) < 12 && fabs (px[1] - g * 255) < 12 && fabs (px[0] - b * 255) < 12)
        matches++;
    }
  return matches;
}

static void
test_screenshot (Fixture *f, gconstpointer data)
{
  gdouble r, g, b, x, y;
  guint candidate = clickable_candidate (f, &x, &y);

  fw_roofline_view_set_selected_candidate (f->roofline, candidate);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (f->roofline));
  /* The fused markers of proposed candidates are filled in the graph's hull colour for them. */
  fw_render_hull_color (FW_CANDIDATE_PROPOSED, &r, &g, &b);
  g_assert_cmpuint (save_frame (GTK_WIDGET (f->roofline), "roofline-view.png", r, g, b), >, 40);
  /* The proposed plan's bars are the same colour. */
  g_assert_cmpuint (save_frame (GTK_WIDGET (f->summary), "summary-view.png", r, g, b), >, 1000);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/views/pictures/properties", test_properties);
  ADD ("/views/pictures/click", test_click);
  ADD ("/views/pictures/plan-changed", test_plan_changed);
  ADD ("/views/pictures/screenshot", test_screenshot);
#undef ADD
  return g_test_run ();
}
