/* test-inspector.c: the inspector on one transformer layer: a node's heading, attributes and initializer
 * statistics; a candidate's heading, the reason codes of the refusals near it, its generated source in C and
 * C++ source views where GtkSourceView is built in, and its Verification section following the project's
 * check results. The sources come from the project (a check's) or are generated in a worker behind a
 * placeholder, once per candidate and plan revision. */
#include "config.h"

#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "fw-inspector.h"
#include "fw-test-models.h"
#include "codegen/host/fw-superkernel.h"
#include "session/fw-kernel-sources.h"

static void
drain (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

/* Everything the inspector shows as text, labels and text views alike. */
static void
collect_text (GtkWidget *widget, GString *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  else if (GTK_IS_TEXT_VIEW (widget))
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
      GtkTextIter start, end;
      g_autofree char *text = NULL;

      gtk_text_buffer_get_bounds (buffer, &start, &end);
      text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
      g_string_append_printf (out, "%s\n", text);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_text (child, out);
}

static char *
shown (GtkWidget *inspector)
{
  GString *out = g_string_new (NULL);

  collect_text (inspector, out);
  return g_string_free (out, FALSE);
}

/* Until the shown candidate's sources are in (the worker's result comes back through the main loop). */
static void
wait_for_sources (GtkWidget *inspector)
{
  while (fw_inspector_get_generating (FW_INSPECTOR (inspector)))
    g_main_context_iteration (NULL, TRUE);
}

/* A worker lets go of its task (and so of the project) just after the callback has run. */
static void
wait_for_last_ref (gpointer object)
{
  while (g_atomic_int_get (&G_OBJECT (object)->ref_count) > 1)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
count (gpointer counter)
{
  (*(guint *) counter)++;
}

/* The language ids of the source views shown, where their buffers have languages (GtkSourceView), each
 * followed by a '+' when the buffer has a style scheme. Read through properties so this test builds whether
 * or not the views were built with GtkSourceView. */
static void
collect_languages (GtkWidget *widget, GString *out)
{
  if (GTK_IS_TEXT_VIEW (widget))
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));

      if (g_object_class_find_property (G_OBJECT_GET_CLASS (buffer), "language") != NULL)
        {
          g_autoptr(GObject) language = NULL;
          g_autoptr(GObject) scheme = NULL;
          g_autofree char *id = NULL;

          g_object_get (buffer, "language", &language, "style-scheme", &scheme, NULL);
          if (language != NULL)
            g_object_get (language, "id", &id, NULL);
          g_string_append_printf (out, "%s%s ", id ? id : "(none)", scheme ? "+" : "");
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_languages (child, out);
}

/* One transformer layer's project and an inspector on it, in a window on show. */
typedef struct
{
  FwModel   *model;
  FwProfile *profile;
  FwRuleSet *rules;
  FwProject *project;
  GtkWidget *window;
  GtkWidget *inspector;
} Bench;

static void
bench_open (Bench *b)
{
  g_autoptr(GError) error = NULL;

  b->model = fw_test_transformer_block (16, 64, 4, FALSE);
  b->profile = fw_test_profile_910b ();
  b->rules = fw_test_builtin_rules ();
  g_assert_true (fw_test_infer (b->model, NULL, NULL, &error));
  b->project = fw_project_new (b->model, b->profile, b->rules, NULL, &error);
  g_assert_no_error (error);
  b->inspector = g_object_ref (fw_inspector_new ());
  b->window = gtk_window_new ();
  /* The keyboard focus outside the inspector, as in the window (the list has it): GTK 4.8 moving the focus
   * on from a focused label the inspector removed sometimes trips over a widget that is gone. */
  {
    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
    GtkWidget *entry = gtk_entry_new ();

    gtk_box_append (GTK_BOX (box), entry);
    gtk_box_append (GTK_BOX (box), b->inspector);
    gtk_window_set_child (GTK_WINDOW (b->window), box);
    gtk_window_set_focus (GTK_WINDOW (b->window), entry);
  }
  g_object_set (b->inspector, "project", b->project, NULL);
  gtk_window_present (GTK_WINDOW (b->window));
  drain ();
}

static void
bench_close (Bench *b)
{
  gtk_window_destroy (GTK_WINDOW (b->window));
  drain ();
  fw_inspector_set_project (FW_INSPECTOR (b->inspector), NULL);
  wait_for_last_ref (b->project);
  g_assert_finalize_object (b->inspector);
  g_assert_finalize_object (b->project);
  fw_rule_set_free (b->rules);
  fw_profile_unref (b->profile);
  g_assert_finalize_object (b->model);
}

static GtkWidget *
find_actionable (GtkWidget *widget, const char *action)
{
  if (GTK_IS_ACTIONABLE (widget) &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_actionable (child, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_menu_button (GtkWidget *widget)
{
  if (GTK_IS_MENU_BUTTON (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_menu_button (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The Whole Pattern menu targets win.accept-pattern / win.veto-pattern with the pattern, and its labels show
 * the pattern as it is (an underscore escaped, not taken as a mnemonic). */
static void
check_pattern_menu (GtkWidget *inspector, const char *pattern)
{
  GtkWidget *button = find_menu_button (inspector);
  GMenuModel *menu;
  static const char *actions[] = { "win.accept-pattern", "win.veto-pattern" };

  g_test_message ("pattern menu for %s", pattern);
  g_assert_nonnull (button);
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 2);
  for (gint i = 0; i < 2; i++)
    {
      g_autofree char *label = NULL, *action = NULL, *target = NULL;
      g_auto(GStrv) parts = NULL;
      g_autofree char *unescaped = NULL, *expected = NULL;

      g_assert_true (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label));
      g_assert_true (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &action));
      g_assert_true (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_TARGET, "s", &target));
      g_assert_cmpstr (action, ==, actions[i]);
      g_assert_cmpstr (target, ==, pattern);
      parts = g_strsplit (label, "__", -1);
      unescaped = g_strjoinv ("_", parts);
      expected = i == 0 ? g_strdup_printf ("Accept Every “%s”", pattern) : g_strdup_printf ("Veto Every “%s”", pattern);
      g_assert_cmpstr (unescaped, ==, expected);
      if (strchr (pattern, '_') != NULL)
        g_assert_nonnull (strstr (label, "__"));
    }
}

static void
test_inspector (void)
{
  g_autoptr(GError) error = NULL;
  Bench bench;
  FwProject *project;
  FwPlan *plan;
  GtkWidget *inspector;
  FwNode *matmul = NULL;
  guint title_notes = 0, project_notes = 0, vetoed = G_MAXUINT;
  FwGraph *graph;

  bench_open (&bench);
  project = bench.project;
  inspector = bench.inspector;
  plan = fw_project_get_plan (project);
  graph = fw_model_get_graph (bench.model);
  g_assert_cmpstr (fw_inspector_get_title (FW_INSPECTOR (inspector)), ==, "");
  g_assert_cmpstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), ==, "");

  /* "project" round-trips and notifies once per change, not when set to what it is. */
  {
    g_autoptr(FwProject) got = NULL;

    g_object_get (inspector, "project", &got, NULL);
    g_assert_true (got == project);
  }
  g_signal_connect_swapped (inspector, "notify::project", G_CALLBACK (count), &project_notes);
  g_object_set (inspector, "project", project, NULL);
  g_assert_cmpuint (project_notes, ==, 0);
  g_object_set (inspector, "project", NULL, NULL);
  {
    g_autoptr(FwProject) got = NULL;

    g_object_get (inspector, "project", &got, NULL);
    g_assert_null (got);
  }
  g_object_set (inspector, "project", project, NULL);
  g_assert_cmpuint (project_notes, ==, 2);
  g_signal_handlers_disconnect_by_data (inspector, &project_notes);

  /* A node with a weight: its heading, shapes and the weight's statistics. */
  for (guint i = 0; i < fw_graph_get_n_nodes (graph) && matmul == NULL; i++)
    {
      FwNode *node = fw_graph_get_node (graph, i);
      if (strcmp (fw_node_get_op_type (node), "MatMul") == 0)
        matmul = node;
    }
  g_assert_nonnull (matmul);
  g_signal_connect_swapped (inspector, "notify::title", G_CALLBACK (count), &title_notes);
  fw_inspector_show_node (FW_INSPECTOR (inspector), matmul);
  g_assert_cmpuint (title_notes, ==, 1);
  {
    g_autofree char *title = NULL;
    g_autofree char *text = shown (inspector);

    g_object_get (inspector, "title", &title, NULL);
    g_assert_true (g_str_has_prefix (title, "MatMul "));
    g_assert_nonnull (strstr (title, fw_node_get_name (matmul)));
    g_assert_nonnull (strstr (text, "float32"));
    g_assert_nonnull (strstr (text, "mean"));
  }
  /* Its kernel's SuperKernel scope (the encoder layer is one run of kernels) and the barrier before it. */
  {
    g_autofree char *text = shown (inspector);
    const FwSkPlan *sk = fw_project_get_superkernel_plan (project);
    guint scope = 0, kernel = 0;

    g_assert_nonnull (sk);
    g_assert_cmpint (fw_sk_plan_locate (sk, matmul, &scope, &kernel, NULL), ==, FW_SK_PLACE_SCOPE);
    g_assert_nonnull (strstr (text, "SuperKernel"));
    g_assert_nonnull (strstr (text, "In sk_000: kernel "));
    g_assert_nonnull (strstr (text, "The scope ends: the model ended"));
    if (kernel > 0)
      g_assert_nonnull (strstr (text, "Barrier before it: "));
  }

  /* A vetoed candidate: its heading and FW-NF-012 among the refusals near it. */
  /* A candidate both targets make a kernel of (the Ascend one refuses a fused attention, FW-TG-003). */
  for (guint i = 0; i < plan->candidates->len && vetoed == G_MAXUINT; i++)
    if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_PROPOSED &&
        fw_kernel_spec_get_attention (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->spec) == NULL)
      vetoed = i;
  g_assert_true (fw_project_veto (project, vetoed, &error));
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), vetoed);
  {
    g_autofree char *text = shown (inspector);
    g_autofree char *prefix = g_strdup_printf ("#%u", vetoed);

    g_assert_nonnull (strstr (fw_inspector_get_title (FW_INSPECTOR (inspector)), prefix));
    g_assert_nonnull (strstr (text, "FW-NF-012"));
    g_assert_nonnull (strstr (text, "UB"));
    g_assert_nonnull (strstr (text, "Not verified yet"));
  }
  g_assert_nonnull (strstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), "Not verified yet"));
  wait_for_sources (inspector);

  /* The host source is C and the Ascend source C++, each with a style scheme, when GtkSourceView is in. */
  {
    g_autoptr(GString) languages = g_string_new (NULL);

    collect_languages (inspector, languages);
    if (g_type_from_name ("GtkSourceView") != 0)
      {
        g_assert_nonnull (strstr (languages->str, "c+ "));
        g_assert_nonnull (strstr (languages->str, "cpp+ "));
      }
    else
      g_assert_cmpstr (languages->str, ==, "");
  }

  /* A check's result and detail for the shown candidate show at once; another candidate's do not. */
  {
    const char *detail = "max |fused - unfused| 3.1e-07 against tolerance rel=1e-4 abs=1e-5\nkernel 12.5 us";
    guint other = vetoed == 0 ? 1 : 0;

    fw_project_set_check_detail (project, other, "someone else's detail");
    g_assert_null (strstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), "someone else"));
    fw_project_set_check_detail (project, vetoed, detail);
    g_assert_nonnull (strstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), detail));
    g_assert_null (strstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), "Not verified yet"));
    fw_project_set_verification (project, vetoed, "fail");
    g_assert_nonnull (strstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), "failed"));
    fw_project_set_measured (project, vetoed, 4.25);
    g_assert_nonnull (strstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), "4.25"));
    {
      g_autofree char *text = shown (inspector);

      g_assert_nonnull (strstr (text, "Verification"));
      g_assert_nonnull (strstr (text, detail));
    }
    fw_project_set_check_detail (project, vetoed, NULL);
    fw_project_set_verification (project, vetoed, NULL);
    fw_project_set_measured (project, vetoed, NAN);
    g_assert_nonnull (strstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), "Not verified yet"));
  }
  fw_inspector_clear (FW_INSPECTOR (inspector));
  g_assert_cmpstr (fw_inspector_get_title (FW_INSPECTOR (inspector)), ==, "");
  g_assert_cmpstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), ==, "");
  /* Cleared, a check no longer reaches the inspector. */
  fw_project_set_check_detail (project, vetoed, "after clear");
  g_assert_cmpstr (fw_inspector_get_verification_text (FW_INSPECTOR (inspector)), ==, "");
  g_assert_cmpuint (title_notes, ==, 3);
  g_signal_handlers_disconnect_by_data (inspector, &title_notes);

  /* A decision on the candidate on show, and its undo, change the status it shows. */
  {
    guint proposed = G_MAXUINT;

    /* One whose pattern has an underscore, for the menu's labels. */
    for (guint i = 0; i < plan->candidates->len && proposed == G_MAXUINT; i++)
      {
        const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

        if (c->status == FW_CANDIDATE_PROPOSED && strchr (c->pattern, '_') != NULL)
          proposed = i;
      }
    g_assert_cmpuint (proposed, !=, G_MAXUINT);
    fw_inspector_show_candidate (FW_INSPECTOR (inspector), proposed);
    {
      g_autofree char *text = shown (inspector);
      g_assert_nonnull (strstr (text, "Status: proposed"));
    }
    g_assert_true (fw_project_accept (project, proposed, &error));
    g_assert_no_error (error);
    {
      g_autofree char *text = shown (inspector);
      g_assert_nonnull (strstr (text, "Status: accepted"));
      g_assert_null (strstr (text, "Status: proposed"));
    }
    g_assert_true (fw_project_undo (project));
    {
      g_autofree char *text = shown (inspector);
      g_assert_nonnull (strstr (text, "Status: proposed"));
    }
    /* A vetoed candidate cannot be accepted: its Accept button says so by being insensitive. */
    g_assert_true (fw_project_veto (project, proposed, &error));
    g_assert_false (gtk_widget_get_sensitive (find_actionable (inspector, "win.accept")));
    g_assert_true (fw_project_undo (project));
    g_assert_true (gtk_widget_get_sensitive (find_actionable (inspector, "win.accept")));
    check_pattern_menu (inspector, ((FwCandidate *) g_ptr_array_index (plan->candidates, proposed))->pattern);
    wait_for_sources (inspector);
  }

  bench_close (&bench);
}

static guint
nth_fused (FwPlan *plan, guint n)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_PROPOSED && n-- == 0)
      return i;
  g_assert_not_reached ();
}

static void
test_sources (void)
{
  g_autoptr(GError) error = NULL;
  Bench bench;
  FwProject *project;
  FwPlan *plan;
  GtkWidget *inspector;
  guint a, b, c, d;
  g_autofree char *host_a = NULL;

  bench_open (&bench);
  project = bench.project;
  inspector = bench.inspector;
  plan = fw_project_get_plan (project);
  a = nth_fused (plan, 0);
  b = nth_fused (plan, 1);
  c = nth_fused (plan, 2);
  d = nth_fused (plan, 3);
  {
    g_autoptr(FwSuperKernel) host = fw_superkernel_generate (plan, g_ptr_array_index (plan->candidates, a), &error);

    g_assert_no_error (error);
    host_a = g_strdup (fw_kernel_source_get_main (fw_superkernel_get_kernel_source (host)));
  }

  /* Selecting shows a placeholder at once; the sources replace it when the worker is done. */
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), a);
  g_assert_true (fw_inspector_get_generating (FW_INSPECTOR (inspector)));
  g_assert_cmpuint (fw_inspector_get_n_generated (FW_INSPECTOR (inspector)), ==, 1);
  {
    g_autofree char *text = shown (inspector);

    g_assert_nonnull (strstr (text, "Generating…"));
    g_assert_null (strstr (text, host_a));
  }
  wait_for_sources (inspector);
  {
    g_autofree char *text = shown (inspector);

    g_assert_null (strstr (text, "Generating…"));
    g_assert_nonnull (strstr (text, "Host SuperKernel (C)"));
    g_assert_nonnull (strstr (text, "Ascend C kernel"));
    g_assert_nonnull (strstr (text, host_a));
  }
  g_assert_nonnull (fw_project_get_kernel_sources (project, a));

  /* Selecting it again, however often, generates nothing: the project keeps the sources. */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *text = NULL;

      fw_inspector_show_candidate (FW_INSPECTOR (inspector), a);
      g_assert_false (fw_inspector_get_generating (FW_INSPECTOR (inspector)));
      text = shown (inspector);
      g_assert_nonnull (strstr (text, host_a));
    }
  g_assert_cmpuint (fw_inspector_get_n_generated (FW_INSPECTOR (inspector)), ==, 1);

  /* Moving on while b is generated: b's sources are not shown under c's heading, but kept. */
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), b);
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), c);
  g_assert_cmpuint (fw_inspector_get_n_generated (FW_INSPECTOR (inspector)), ==, 3);
  wait_for_sources (inspector);
  while (fw_project_get_kernel_sources (project, b) == NULL)
    g_main_context_iteration (NULL, TRUE);
  {
    g_autofree char *text = shown (inspector);
    g_autofree char *prefix = g_strdup_printf ("#%u", c);
    const char *host_b = fw_kernel_sources_get_source (fw_project_get_kernel_sources (project, b), FW_TARGET_HOST);
    const char *host_c = fw_kernel_sources_get_source (fw_project_get_kernel_sources (project, c), FW_TARGET_HOST);

    g_assert_nonnull (strstr (fw_inspector_get_title (FW_INSPECTOR (inspector)), prefix));
    g_assert_nonnull (strstr (text, host_c));
    g_assert_cmpstr (host_b, !=, host_c);
    g_assert_null (strstr (text, host_b));
  }
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), b);
  g_assert_false (fw_inspector_get_generating (FW_INSPECTOR (inspector)));
  g_assert_cmpuint (fw_inspector_get_n_generated (FW_INSPECTOR (inspector)), ==, 3);

  /* After a decision the kept sources are of another plan, so a's are generated again; a decision while
   * that runs waits for the worker and makes its result stale: generated once more, for the plan as it is. */
  g_assert_true (fw_project_accept (project, b, &error));
  g_assert_no_error (error);
  g_assert_null (fw_project_get_kernel_sources (project, a));
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), a);
  g_assert_true (fw_inspector_get_generating (FW_INSPECTOR (inspector)));
  g_assert_cmpuint (fw_inspector_get_n_generated (FW_INSPECTOR (inspector)), ==, 4);
  g_assert_true (fw_project_accept (project, c, &error));
  g_assert_no_error (error);
  wait_for_sources (inspector);
  g_assert_cmpuint (fw_inspector_get_n_generated (FW_INSPECTOR (inspector)), ==, 5);
  {
    g_autofree char *text = shown (inspector);

    g_assert_nonnull (strstr (text, host_a));
    g_assert_null (strstr (text, "Generating…"));
  }
  g_assert_nonnull (fw_project_get_kernel_sources (project, a));

  /* What a check put into the project is shown as it is, with nothing generated. */
  {
    g_autoptr(FwKernelSources) checked = fw_kernel_sources_new (fw_project_get_revision (project));

    fw_kernel_sources_set (checked, FW_TARGET_HOST, "/* the check's host source */", NULL);
    fw_kernel_sources_set (checked, FW_TARGET_ASCEND, NULL, "the check's Ascend error");

    fw_project_set_kernel_sources (project, b, checked);
    fw_inspector_show_candidate (FW_INSPECTOR (inspector), b);
    g_assert_false (fw_inspector_get_generating (FW_INSPECTOR (inspector)));
    {
      g_autofree char *text = shown (inspector);

      g_assert_nonnull (strstr (text, "/* the check's host source */"));
      g_assert_nonnull (strstr (text, "the check's Ascend error"));
    }
    g_assert_cmpuint (fw_inspector_get_n_generated (FW_INSPECTOR (inspector)), ==, 5);
  }

  /* The twin's findings on the Ascend kernel: its lines are highlighted (a mark past the end is dropped). */
  {
    g_autoptr(FwKernelSources) checked = fw_kernel_sources_new (fw_project_get_revision (project));
    g_autofree char *marked = NULL;

    fw_kernel_sources_set (checked, FW_TARGET_HOST, "int host;\n", NULL);
    fw_kernel_sources_set (checked, FW_TARGET_ASCEND, "// one\n// two\n// three\n// four\n", NULL);
    fw_kernel_sources_add_mark (checked, FW_TARGET_ASCEND, 2, "FW-TWIN-UNALIGNED: DataCopy to UB offset 40");
    fw_kernel_sources_add_mark (checked, FW_TARGET_ASCEND, 4, "FW-TWIN-MISSING-WAIT: V reads what MTE2 wrote");
    fw_kernel_sources_add_mark (checked, FW_TARGET_ASCEND, 99, "past the end");
    fw_project_set_kernel_sources (project, c, checked);
    fw_inspector_show_candidate (FW_INSPECTOR (inspector), c);
    marked = fw_inspector_get_marked_lines (FW_INSPECTOR (inspector));
    g_assert_cmpstr (marked, ==, "2 4");
    fw_inspector_show_candidate (FW_INSPECTOR (inspector), b);
    g_free (marked);
    marked = fw_inspector_get_marked_lines (FW_INSPECTOR (inspector));
    g_assert_cmpstr (marked, ==, "");
  }

  /* Cleared while generating: nothing arrives afterwards. */
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), d);
  g_assert_true (fw_inspector_get_generating (FW_INSPECTOR (inspector)));
  fw_inspector_clear (FW_INSPECTOR (inspector));
  g_assert_false (fw_inspector_get_generating (FW_INSPECTOR (inspector)));
  while (fw_project_get_kernel_sources (project, d) == NULL)
    g_main_context_iteration (NULL, TRUE);
  {
    g_autofree char *text = shown (inspector);

    g_assert_nonnull (strstr (text, "Select a node or a candidate"));
    g_assert_null (strstr (text, "Host SuperKernel"));
  }

  bench_close (&bench);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/views/inspector/node-and-candidate", test_inspector);
  g_test_add_func ("/views/inspector/sources", test_sources);
  return g_test_run ();
}
