/* test-window-sees.c: what a person sees in the window, checked in pictures of it. Real models (vit_b_16 and
 * swin_t from $FW_REAL_MODELS_DIR or the real suite's cache, else the bundled example, said so in the log)
 * open to a canvas that is not blank, at a zoom where labels are drawn; the banner for unbound symbolic dims
 * is on screen and goes once they are bound; under LANGUAGE=zh_CN (run as test-window-sees-zh) the list,
 * the inspector, the banners and the export dialog hold no English word but op types, pattern and node
 * names. Screenshots stay in the build folder (tests/gui/screenshots). */
#include "config.h"

#include <locale.h>
#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "fw-compare-window.h"
#include "fw-export-dialog.h"
#include "fw-graph-framing.h"
#include "fw-settings.h"
#include "fw-test-models.h"
#include "fw-window-test-support.h"

/* Share of the canvas's pixels that must be ink: a column of specks or an empty corner is far below. */
#define MIN_INK_SHARE 0.02

static char *tmp_dir;
static char *shots_dir;
static GRegex *file_names;

static char *
example_path (void)
{
  return g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
}

/* NAME.onnx from $FW_REAL_MODELS_DIR or the real suite's export cache; NULL when neither holds it. */
static char *
real_model_path (const char *name)
{
  const char *dirs[] = { g_getenv ("FW_REAL_MODELS_DIR"), g_getenv ("FW_MODEL_CACHE") };
  g_autofree char *file = g_strconcat (name, ".onnx", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = dirs[i] != NULL && dirs[i][0] != '\0' ? g_build_filename (dirs[i], file, NULL) : NULL;

      if (path != NULL && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return NULL;
}

/* A copy of the example in a scratch folder: opening again (the banner) saves a session beside the model,
 * never into the source tree. */
static GFile *
scratch_copy (const char *source, const char *name)
{
  g_autofree char *dir = g_build_filename (tmp_dir, name, NULL);
  g_autofree char *base = g_path_get_basename (source);
  g_autofree char *path = g_build_filename (dir, base, NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (path, contents, length, &error));
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static FwWindow *
open_window (FwApplication *app, GFile *file)
{
  FwWindow *window = fw_window_new (ADW_APPLICATION (app));

  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  /* The first frames: the canvas frames the start of the graph once it has a size. */
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window->graph_view));
  fw_window_test_iterate (300);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window->graph_view)));
  return window;
}

static void
save_shot (GtkWidget *widget, const char *name)
{
  g_autofree char *file = g_strconcat (name, ".png", NULL);
  g_autofree char *path = g_build_filename (shots_dir, file, NULL);

  fw_window_test_save_png (widget, path);
  g_test_message ("screenshot: %s", path);
}

static guint
first_proposed (FwPlan *plan)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_PROPOSED)
      return i;
  return G_MAXUINT;
}

/* The proposed candidate with the most nodes, the first of them: the group worth a picture. */
static guint
largest_proposed (FwPlan *plan)
{
  guint best = G_MAXUINT;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (c->status == FW_CANDIDATE_PROPOSED &&
          (best == G_MAXUINT || c->nodes->len > ((FwCandidate *) g_ptr_array_index (plan->candidates, best))->nodes->len))
        best = i;
    }
  return best;
}

static void
wait_inspector (FwWindow *window)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (fw_inspector_get_generating (window->inspector))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* The first frame on a model: inked, labelled, readable; then with its first proposed group selected. */
static void
test_open_model (gconstpointer data)
{
  const char *name = data;
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *path = real_model_path (name);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GdkTexture) canvas = NULL;
  g_autofree char *shot = NULL;
  FwWindow *window;
  FwPlan *plan;
  gdouble ink;
  guint candidate;

  if (path == NULL)
    {
      /* Not exported here (the real suite exports them on its first run): the bundled example stands in,
       * so the checks still run. */
      g_test_message ("%s.onnx is in neither $FW_REAL_MODELS_DIR nor the real suite's cache: "
                      "checking the bundled example instead", name);
      path = example_path ();
    }
  g_test_message ("model: %s", path);
  /* Opened where it is: nothing here decides, closes or reopens, so no session is written beside it. */
  file = g_file_new_for_path (path);
  fw_window_test_register (app);
  window = open_window (app, file);

  g_assert_cmpint (fw_graph_view_get_detail (window->graph_view), ==, FW_GRAPH_DETAIL_LABELS);
  g_assert_cmpfloat (fw_graph_view_get_zoom (window->graph_view), >=, FW_GRAPH_READABLE_ZOOM);
  /* Static inputs (the example's batch is bound by the preferences' default): no banner, though exporters
   * name dims of intermediate values. */
  g_assert_false (gtk_revealer_get_reveal_child (window->dims_revealer));
  canvas = fw_window_test_render (GTK_WIDGET (window->graph_view));
  ink = fw_window_test_ink_share (canvas);
  g_test_message ("%s: %.1f %% of the canvas is ink at zoom %.2f", name, ink * 100,
                  fw_graph_view_get_zoom (window->graph_view));
  g_assert_cmpfloat (ink, >=, MIN_INK_SHARE);
  shot = g_strconcat (name, "-open", NULL);
  save_shot (GTK_WIDGET (window), shot);

  plan = fw_project_get_plan (fw_window_get_project (window));
  candidate = largest_proposed (plan);
  g_assert_cmpuint (candidate, !=, G_MAXUINT);
  fw_candidate_list_select (window->candidate_list, candidate);
  wait_inspector (window);
  fw_window_test_iterate (300);
  g_assert_cmpint (fw_graph_view_get_detail (window->graph_view), ==, FW_GRAPH_DETAIL_LABELS);
  g_clear_pointer (&shot, g_free);
  shot = g_strconcat (name, "-selected", NULL);
  save_shot (GTK_WIDGET (window), shot);

  /* The header's overlay switcher colours the canvas by refusal code, with a legend. */
  gtk_drop_down_set_selected (window->overlay_dropdown, FW_GRAPH_OVERLAY_REFUSAL);
  g_assert_cmpint (fw_graph_view_get_overlay (window->graph_view), ==, FW_GRAPH_OVERLAY_REFUSAL);
  g_assert_cmpuint (fw_graph_view_get_legend (window->graph_view)->n_categories, >, 0);
  fw_graph_view_zoom_to_fit (window->graph_view);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window->graph_view));
  g_clear_pointer (&shot, g_free);
  shot = g_strconcat (name, "-refusal-overlay", NULL);
  save_shot (GTK_WIDGET (window), shot);
  /* SuperKernel scopes: the scopes in turn in their colours, named in the legend. */
  gtk_drop_down_set_selected (window->overlay_dropdown, FW_GRAPH_OVERLAY_SUPERKERNEL);
  g_assert_cmpint (fw_graph_view_get_overlay (window->graph_view), ==, FW_GRAPH_OVERLAY_SUPERKERNEL);
  g_assert_true (g_str_has_prefix (fw_graph_view_get_legend (window->graph_view)->labels[0], "SuperKernel sk_000"));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window->graph_view));
  g_clear_pointer (&shot, g_free);
  shot = g_strconcat (name, "-superkernel-overlay", NULL);
  save_shot (GTK_WIDGET (window), shot);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Runs the main loop until the revealer's transition has ended revealed (or hidden). */
static void
wait_revealed (GtkRevealer *revealer, gboolean revealed)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (gtk_revealer_get_child_revealed (revealer) != revealed)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  fw_window_test_iterate (100);
}

/* The banner for unbound dims is on screen (revealed, mapped, with height) and gone after binding. */
static void
test_banner (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autoptr(GSettings) settings = fw_settings_new ();
  g_autofree char *source = example_path ();
  g_autoptr(GFile) file = scratch_copy (source, "banner");
  const char *none[] = { NULL };
  GtkEditable *entry;
  FwWindow *window;

  g_assert_true (g_settings_set_strv (settings, "bindings", none));
  fw_window_test_register (app);
  window = open_window (app, file);
  g_assert_true (gtk_revealer_get_reveal_child (window->dims_revealer));
  wait_revealed (window->dims_revealer, TRUE);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window->dims_label)));
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (window->dims_revealer)), >, 10);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (window->empty_plan_label)));
  save_shot (GTK_WIDGET (window), "banner");

  entry = fw_window_dims_get_entry (window, "batch");
  g_assert_nonnull (entry);
  gtk_editable_set_text (entry, "8");
  g_assert_true (fw_window_dims_apply (window));
  fw_window_test_wait_loaded (window);
  g_assert_false (gtk_revealer_get_reveal_child (window->dims_revealer));
  wait_revealed (window->dims_revealer, FALSE);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (window->dims_revealer)), ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->empty_plan_label)));
  save_shot (GTK_WIDGET (window), "banner-bound");
  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings, "bindings");
}

/* ---- Chinese ---- */

/* Words that are names, not English: formats, units, the chip's parts, the program's own terms. */
static const char * const technical[] = {
  "ONNX", "UB", "HBM", "FW", "NF", "TG", "SuperKernel", "SuperKernels", "Ascend", "CANN", "NPU", "JSON", "YAML",
  "Markdown", "CMake", "GELU", "Model", "Explorer", "AUTOFUSION", "ENABLE", "onnx", "fusion", "yaml", "json", "md", "fwsession",
  "workbench", "float", "int", "bool", "double", "float16", "bfloat16", "µs", "ms", "MiB", "KiB", "GiB",
  NULL
};

static void
add_words_of (GHashTable *allowed, const char *text)
{
  g_auto(GStrv) parts = g_regex_split_simple ("[^A-Za-z]+", text != NULL ? text : "", 0, 0);

  for (guint i = 0; parts[i] != NULL; i++)
    if (parts[i][0] != '\0')
      g_hash_table_add (allowed, g_ascii_strdown (parts[i], -1));
}

/* Op types, node, value and pattern names of the shown model, the model's file name, the technical terms. */
static GHashTable *
allowed_words (FwWindow *window)
{
  GHashTable *allowed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  FwProject *project = fw_window_get_project (window);
  FwGraph *graph = fw_model_get_graph (fw_project_get_model (project));
  FwPlan *plan = fw_project_get_plan (project);

  for (guint i = 0; technical[i] != NULL; i++)
    add_words_of (allowed, technical[i]);
  add_words_of (allowed, window->model_path);
  for (guint i = 0; i < fw_graph_get_n_nodes (graph); i++)
    {
      FwNode *node = fw_graph_get_node (graph, i);

      add_words_of (allowed, fw_node_get_op_type (node));
      add_words_of (allowed, fw_node_get_name (node));
      for (guint k = 0; k < fw_node_get_n_outputs (node); k++)
        if (fw_node_get_output (node, k) != NULL)
          add_words_of (allowed, fw_value_get_name (fw_node_get_output (node, k)));
      for (guint k = 0; k < fw_node_get_n_inputs (node); k++)
        if (fw_node_get_input (node, k) != NULL)
          add_words_of (allowed, fw_value_get_name (fw_node_get_input (node, k)));
    }
  for (guint i = 0; i < plan->candidates->len; i++)
    add_words_of (allowed, ((FwCandidate *) g_ptr_array_index (plan->candidates, i))->pattern);
  /* SuperKernel scope names ("sk_000") are identifiers, as pattern names are. */
  {
    const FwSkPlan *sk = fw_project_get_superkernel_plan (project);

    for (guint i = 0; sk != NULL && i < sk->scopes->len; i++)
      add_words_of (allowed, ((FwSkScope *) g_ptr_array_index (sk->scopes, i))->name);
  }
  for (guint i = 0; window->symbols != NULL && window->symbols[i] != NULL; i++)
    add_words_of (allowed, window->symbols[i]);
  return allowed;
}

/* Every word of a label or button under widget (code views excepted: generated C is C) that is neither
 * allowed nor a dtype-like token, appended to found as "word (in “text”)". */
static void
collect_english (GtkWidget *widget, GHashTable *allowed, GString *found)
{
  const char *text = NULL;

  if (!gtk_widget_get_visible (widget) || GTK_IS_TEXT_VIEW (widget) || GTK_IS_EDITABLE (widget))
    return;
  if (GTK_IS_LABEL (widget))
    text = gtk_label_get_text (GTK_LABEL (widget));
  if (text != NULL)
    {
      /* File names and paths are names: "kernels/", "manifest.json", "/tmp/…/x-export". */
      g_autofree char *names_out = g_regex_replace_literal (file_names, text, -1, 0, " ", 0, NULL);
      g_auto(GStrv) parts = g_regex_split_simple ("[^A-Za-z]+", names_out != NULL ? names_out : text, 0, 0);

      for (guint i = 0; parts[i] != NULL; i++)
        {
          g_autofree char *word = g_ascii_strdown (parts[i], -1);

          /* One letter: a dim or a unit (x, B). */
          if (strlen (word) < 2 || g_hash_table_contains (allowed, word))
            continue;
          g_string_append_printf (found, "  %s (in “%s”)\n", parts[i], text);
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_english (child, allowed, found);
}

static void
assert_chinese (GtkWidget *widget, GHashTable *allowed, const char *where)
{
  g_autoptr(GString) found = g_string_new (NULL);

  collect_english (widget, allowed, found);
  if (found->len > 0)
    g_test_message ("English in %s:\n%s", where, found->str);
  g_assert_cmpuint (found->len, ==, 0);
}

static void
test_chinese (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autoptr(GSettings) settings = fw_settings_new ();
  g_autofree char *source = example_path ();
  g_autoptr(GFile) file = scratch_copy (source, "chinese");
  g_autoptr(GHashTable) allowed = NULL;
  const char *none[] = { NULL };
  GtkWindow *dialog;
  FwWindow *window;
  guint candidate;

  /* The translation is the build's, bound in main; a word that stayed English is what this looks for. */
  g_assert_cmpstr (_("proposed"), !=, "proposed");
  g_assert_true (g_settings_set_strv (settings, "bindings", none));
  fw_window_test_register (app);
  window = open_window (app, file);
  allowed = allowed_words (window);
  g_assert_true (gtk_revealer_get_reveal_child (window->dims_revealer));
  assert_chinese (GTK_WIDGET (window->dims_revealer), allowed, "the banner");
  assert_chinese (GTK_WIDGET (window->empty_plan_label), allowed, "the empty plan's reason");

  gtk_editable_set_text (fw_window_dims_get_entry (window, "batch"), "8");
  g_assert_true (fw_window_dims_apply (window));
  fw_window_test_wait_loaded (window);
  /* The new plan's pattern names. */
  g_clear_pointer (&allowed, g_hash_table_unref);
  allowed = allowed_words (window);
  candidate = first_proposed (fw_project_get_plan (fw_window_get_project (window)));
  g_assert_cmpuint (candidate, !=, G_MAXUINT);
  fw_candidate_list_select (window->candidate_list, candidate);
  wait_inspector (window);
  fw_window_test_iterate (300);
  assert_chinese (GTK_WIDGET (window->candidate_list), allowed, "the candidate list");
  assert_chinese (GTK_WIDGET (window->inspector), allowed, "the inspector");
  gtk_drop_down_set_selected (window->overlay_dropdown, FW_GRAPH_OVERLAY_REFUSAL);
  assert_chinese (GTK_WIDGET (window->overlay_dropdown), allowed, "the overlay switcher");
  for (guint i = 0; i < fw_graph_view_get_legend (window->graph_view)->n_categories; i++)
    {
      GtkWidget *label = gtk_label_new (fw_graph_view_get_legend (window->graph_view)->labels[i]);

      g_object_ref_sink (label);
      assert_chinese (label, allowed, "the overlay's legend");
      g_object_unref (label);
    }
  save_shot (GTK_WIDGET (window), "chinese");
  /* A node: its attributes, shapes and the initializer statistics of its weights. */
  {
    FwPlan *plan = fw_project_get_plan (fw_window_get_project (window));
    const FwCandidate *c = g_ptr_array_index (plan->candidates, candidate);

    fw_inspector_show_node (window->inspector, g_ptr_array_index (c->nodes, 0));
    fw_window_test_iterate (100);
    assert_chinese (GTK_WIDGET (window->inspector), allowed, "the inspector on a node");
  }

  /* The comparison with another strategy, once filled. */
  {
    FwCompareWindow *compare = fw_compare_window_new (window, FW_STRATEGY_AGGRESSIVE);
    gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

    gtk_window_present (GTK_WINDOW (compare));
    while (!fw_compare_window_get_ready (compare))
      {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        g_main_context_iteration (NULL, FALSE);
        g_usleep (1000);
      }
    fw_window_test_iterate (100);
    /* The other plan's pattern names are names too. */
    for (guint i = 0; i < fw_compare_window_get_other_plan (compare)->candidates->len; i++)
      add_words_of (allowed, ((FwCandidate *) g_ptr_array_index (fw_compare_window_get_other_plan (compare)->candidates,
                                                                  i))->pattern);
    assert_chinese (GTK_WIDGET (compare), allowed, "the comparison");
    gtk_window_destroy (GTK_WINDOW (compare));
  }

  dialog = fw_window_show_export (window);
  g_assert_nonnull (dialog);
  fw_window_test_iterate (200);
  assert_chinese (GTK_WIDGET (dialog), allowed, "the export dialog");
  gtk_window_destroy (dialog);
  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings, "bindings");
}

int
main (int argc, char **argv)
{
  const char *language = g_getenv ("LANGUAGE");
  int ret;

  tmp_dir = g_dir_make_tmp ("fw-test-window-sees-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", tmp_dir, TRUE);
  g_setenv ("XDG_CACHE_HOME", tmp_dir, TRUE);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  /* gtk_test_init keeps the C locale, where gettext ignores LANGUAGE; C.UTF-8 (the tests' LC_ALL) honours it. */
  setlocale (LC_ALL, "");
  /* The translations this build made (po/), not an installed copy. */
  if (g_getenv ("FW_LOCALE_DIR") != NULL)
    bindtextdomain (GETTEXT_PACKAGE, g_getenv ("FW_LOCALE_DIR"));
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  shots_dir = g_test_build_filename (G_TEST_BUILT, "screenshots", NULL);
  file_names = g_regex_new ("[A-Za-z0-9_~+-]*[./][A-Za-z0-9_./~+-]*", 0, 0, NULL);
  g_assert_cmpint (g_mkdir_with_parents (shots_dir, 0755), ==, 0);

  if (language != NULL && g_str_has_prefix (language, "zh"))
    g_test_add_func ("/sees/chinese", test_chinese);
  else
    {
      g_test_add_data_func ("/sees/open/vit_b_16", "vit_b_16", test_open_model);
      g_test_add_data_func ("/sees/open/swin_t", "swin_t", test_open_model);
      g_test_add_func ("/sees/banner", test_banner);
    }
  ret = g_test_run ();
  fw_test_remove_dir (tmp_dir);
  g_free (tmp_dir);
  g_free (shots_dir);
  g_regex_unref (file_names);
  return ret;
}
