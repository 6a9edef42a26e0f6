/* Sessions and the project: a session round-trips, replaying it gives the same plan, undo and redo notify,
 * decisions autosave (a burst of them in one write from a worker, flushed on dispose), pattern-level
 * decisions undo and redo, and bad files (truncated, wrong types, unknown keys, another model) are refused
 * with their place. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"
#include "session/fw-project.h"
#include "session/fw-project-private.h"
#include "session/fw-session.h"

static FwProfile *profile;
static FwRuleSet *rules;

static FwModel *
block (gint64 seq)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_transformer_block (seq, 64, 4, FALSE);

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  return model;
}

static FwProject *
project_of (FwModel *model)
{
  g_autoptr(GError) error = NULL;
  FwProject *project = fw_project_new (model, profile, rules, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (project);
  return project;
}

/* Statuses and node names of every candidate, as one string. */
static char *
plan_state (const FwPlan *plan)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_string_append_printf (s, "#%u %s %s:", i, c->pattern, fw_candidate_status_name (c->status));
      for (guint k = 0; k < c->nodes->len; k++)
        g_string_append_printf (s, " %s", ((FwNode *) g_ptr_array_index (c->nodes, k))->name);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

static guint
first_with_status (FwProject *project, FwCandidateStatus status)
{
  FwPlan *plan = fw_project_get_plan (project);

  for (guint i = 0; i < plan->candidates->len; i++)
    if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == status)
      return i;
  g_assert_not_reached ();
  return G_MAXUINT;
}

static guint
second_proposed (FwProject *project)
{
  FwPlan *plan = fw_project_get_plan (project);
  gboolean seen = FALSE;

  for (guint i = 0; i < plan->candidates->len; i++)
    if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_PROPOSED)
      {
        if (seen)
          return i;
        seen = TRUE;
      }
  g_assert_not_reached ();
  return G_MAXUINT;
}

static void
count_signal (gpointer counter)
{
  (*(guint *) counter)++;
}

/* Each row says where its candidate sits: the name scope its nodes share, cut at whole components, so the
 * same pattern in two layers reads apart. */
static void
test_items_location (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_stack (12, 16, 64, 4, FALSE);
  FwProject *project;
  GListModel *items;
  gboolean seen[12] = { FALSE };

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  project = project_of (model);
  items = fw_project_get_candidates (project);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, i);
      const char *where = fw_candidate_item_get_location (item);
      guint layer;
      char rest[2] = "";

      g_assert_true (g_str_has_prefix (where, "layers."));
      /* "layers.1" is never taken for the common scope of layers.1 and layers.10. */
      g_assert_cmpint (sscanf (where, "layers.%u%1s", &layer, rest), >=, 1);
      g_assert_cmpuint (layer, <, 12);
      g_assert_true (rest[0] == '\0' || rest[0] == '/');
      seen[layer] = TRUE;
      /* Every node of the candidate is inside that scope. */
      {
        const FwCandidate *c = g_ptr_array_index (fw_project_get_plan (project)->candidates,
                                                  fw_candidate_item_get_index (item));
        for (guint k = 0; k < c->nodes->len; k++)
          g_assert_true (g_str_has_prefix (fw_node_get_scope (g_ptr_array_index (c->nodes, k)), where));
      }
    }
  for (guint l = 0; l < 12; l++)
    g_assert_true (seen[l]);
  g_object_unref (project);
}

static void
test_items_follow_plan (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  GListModel *items = fw_project_get_candidates (project);
  FwPlan *plan = fw_project_get_plan (project);
  g_autoptr(FwCandidateItem) item = NULL;
  g_autoptr(GError) error = NULL;
  guint n_before = g_list_model_get_n_items (items), added = 0, status_notes = 0, veto;

  g_assert_cmpuint (n_before, ==, plan->candidates->len);
  g_assert_cmpuint (n_before, >, 1);
  veto = first_with_status (project, FW_CANDIDATE_PROPOSED);
  item = g_list_model_get_item (items, veto);
  g_assert_cmpuint (fw_candidate_item_get_index (item), ==, veto);
  g_assert_cmpstr (fw_candidate_item_get_status (item), ==, "proposed");
  g_assert_cmpuint (fw_candidate_item_get_n_nodes (item), >, 1);
  g_assert_true (isnan (fw_candidate_item_get_measured_saved_us (item)));
  g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "");
  g_assert_nonnull (strstr (fw_candidate_item_get_search_text (item), "proposed"));

  g_signal_connect_swapped (items, "items-changed", G_CALLBACK (count_signal), &added);
  g_signal_connect_swapped (item, "notify::status", G_CALLBACK (count_signal), &status_notes);
  g_assert_true (fw_project_veto (project, veto, &error));
  g_assert_no_error (error);
  /* The same item changed in place; what re-planning found was appended. */
  g_assert_cmpstr (fw_candidate_item_get_status (item), ==, "vetoed");
  g_assert_cmpuint (status_notes, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, plan->candidates->len);
  if (plan->candidates->len > n_before)
    g_assert_cmpuint (added, ==, 1);

  fw_project_set_measured (project, veto, 12.5);
  fw_project_set_verification (project, veto, "pass");
  g_assert_cmpfloat (fw_candidate_item_get_measured_saved_us (item), ==, 12.5);
  g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "pass");
  fw_project_set_measured (project, veto, NAN);
  g_assert_true (isnan (fw_candidate_item_get_measured_saved_us (item)));

  /* A bad index is an error, and changes nothing. */
  g_assert_false (fw_project_accept (project, 99999, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_signal_handlers_disconnect_by_data (items, &added);
  g_signal_handlers_disconnect_by_data (item, &status_notes);
  g_clear_object (&item);
  g_assert_finalize_object (project);
}

static void
test_undo_redo_notify (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  g_autoptr(GError) error = NULL;
  guint undo_notes = 0, redo_notes = 0, changes = 0;
  g_autofree char *initial = plan_state (fw_project_get_plan (project));
  g_autofree char *decided = NULL;

  g_signal_connect_swapped (project, "notify::can-undo", G_CALLBACK (count_signal), &undo_notes);
  g_signal_connect_swapped (project, "notify::can-redo", G_CALLBACK (count_signal), &redo_notes);
  g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (count_signal), &changes);
  g_assert_false (fw_project_can_undo (project));
  g_assert_false (fw_project_undo (project));

  g_assert_true (fw_project_accept (project, first_with_status (project, FW_CANDIDATE_PROPOSED), &error));
  g_assert_true (fw_project_can_undo (project));
  g_assert_cmpuint (undo_notes, ==, 1);
  g_assert_cmpuint (changes, ==, 1);
  /* A second decision leaves can-undo as it was: no notification. */
  g_assert_true (fw_project_veto (project, second_proposed (project), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (undo_notes, ==, 1);
  decided = plan_state (fw_project_get_plan (project));

  g_assert_true (fw_project_undo (project));
  g_assert_true (fw_project_can_redo (project));
  g_assert_cmpuint (redo_notes, ==, 1);
  g_assert_true (fw_project_undo (project));
  g_assert_false (fw_project_can_undo (project));
  g_assert_cmpuint (undo_notes, ==, 2);
  {
    g_autofree char *now = plan_state (fw_project_get_plan (project));
    g_assert_cmpstr (now, ==, initial);
  }
  g_assert_cmpuint (g_list_model_get_n_items (fw_project_get_candidates (project)), ==,
                    fw_project_get_plan (project)->candidates->len);
  g_assert_true (fw_project_redo (project));
  g_assert_true (fw_project_redo (project));
  g_assert_false (fw_project_can_redo (project));
  g_assert_cmpuint (redo_notes, ==, 2);
  g_assert_cmpuint (changes, ==, 6);
  {
    g_autofree char *now = plan_state (fw_project_get_plan (project));
    g_assert_cmpstr (now, ==, decided);
  }
  g_signal_handlers_disconnect_by_data (project, &undo_notes);
  g_signal_handlers_disconnect_by_data (project, &redo_notes);
  g_signal_handlers_disconnect_by_data (project, &changes);
  g_assert_finalize_object (project);
}

static void
test_autosave_and_replay (void)
{
  g_autoptr(FwModel) model = block (16);
  g_autoptr(FwModel) again_model = block (16);
  FwProject *project = project_of (model);
  FwProject *again = project_of (again_model);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "block.fwsession", NULL);
  g_autofree char *state = NULL;
  g_autofree char *restored = NULL;
  const char *binds[] = { "seq=16", "batch=2", NULL };
  guint veto;

  fw_project_set_bindings (project, binds);
  fw_project_set_session_path (project, path);
  g_assert_cmpstr (fw_project_get_session_path (project), ==, path);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  veto = first_with_status (project, FW_CANDIDATE_PROPOSED);
  g_assert_true (fw_project_veto (project, veto, &error));
  g_assert_no_error (error);
  /* Decisions are written a moment later, together. */
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (fw_project_accept (project, second_proposed (project), &error));
  fw_project_flush_session (project);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  state = plan_state (fw_project_get_plan (project));

  g_assert_true (fw_project_restore_session (again, path, &error));
  g_assert_no_error (error);
  restored = plan_state (fw_project_get_plan (again));
  g_assert_cmpstr (restored, ==, state);
  g_assert_true (fw_project_can_undo (again));
  g_assert_cmpuint (g_list_model_get_n_items (fw_project_get_candidates (again)), ==,
                    fw_project_get_plan (again)->candidates->len);

  /* The file as written reads back into the same text. */
  {
    g_autoptr(FwSession) session = fw_session_load (path, &error);
    g_autofree char *text = NULL;
    g_autofree char *written = NULL;
    FwSessionDecision *d;

    g_assert_no_error (error);
    g_assert_cmpuint (session->decisions->len, ==, 2);
    d = g_ptr_array_index (session->decisions, 0);
    g_assert_cmpint (d->action, ==, FW_DECISION_VETO);
    g_assert_cmpuint (d->candidate, ==, veto);
    g_assert_nonnull (d->nodes);
    g_assert_cmpstr (session->profile, ==, "ascend-910b");
    g_assert_cmpint (session->strategy, ==, FW_STRATEGY_BALANCED);
    g_assert_cmpstr (session->bindings[0], ==, "batch=2");
    g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
    text = fw_session_to_string (session);
    g_assert_cmpstr (text, ==, written);
  }
  fw_test_remove_dir (dir);
  g_assert_finalize_object (project);
  g_assert_finalize_object (again);
}

/* Candidate numbers may differ between runs (another planner version, another veto order); names do not. */
static void
test_replay_by_names (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  FwPlan *plan = fw_project_get_plan (project);
  g_autoptr(FwSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint accept = first_with_status (project, FW_CANDIDATE_PROPOSED);
  guint n_nodes = ((FwCandidate *) g_ptr_array_index (plan->candidates, accept))->nodes->len;
  GString *doc = g_string_new (NULL);

  g_string_append_printf (doc, "version: 1\nmodel:\n  fingerprint: \"%s\"\ndecisions:\n"
                          "  - action: accept\n    candidate: 4000\n    why: \"by names\"\n    nodes:\n",
                          fw_plan_get_fingerprint (plan));
  for (gint k = n_nodes - 1; k >= 0; k--)
    g_string_append_printf (doc, "      - \"%s\"\n",
                            ((FwNode *) g_ptr_array_index (((FwCandidate *) g_ptr_array_index (plan->candidates,
                                                                                                 accept))->nodes,
                                                           k))->name);
  g_string_append (doc, "  - action: veto\n    nodes: [\"no such node\"]\n");
  text = g_string_free (doc, FALSE);
  session = fw_session_load_data ("names.fwsession", text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_true (fw_session_check_model (session, plan, &error));
  g_assert_cmpuint (fw_session_apply (session, plan), ==, 1);
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (plan->candidates, accept))->status, ==,
                   FW_CANDIDATE_ACCEPTED);
  g_assert_cmpint (((FwDecision *) g_ptr_array_index (plan->decisions, 1))->outcome, ==,
                   FW_DECISION_MATCHED_NOTHING);
  g_assert_cmpstr (((FwDecision *) g_ptr_array_index (plan->decisions, 0))->source, ==, "names.fwsession:5");
  g_assert_finalize_object (project);
}

static void
expect_bad (const char *text, gint code, const char *place, const char *words)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwSession) session = fw_session_load_data ("bad.fwsession", text, strlen (text), &error);

  g_assert_null (session);
  g_assert_error (error, FW_ERROR, code);
  if (place != NULL)
    g_assert_true (g_str_has_prefix (error->message, place));
  if (words != NULL && strstr (error->message, words) == NULL)
    g_error ("“%s” does not say “%s”", error->message, words);
}

#define FP "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void
test_bad_files (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *other = g_build_filename (dir, "other.fwsession", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.fwsession", NULL);

  /* Truncated in the middle of a flow sequence: not YAML. */
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecisions: [{action: veto, nodes: [a",
              FW_ERROR_PARSE, "bad.fwsession:", NULL);
  expect_bad ("", FW_ERROR_INVALID, "bad.fwsession:", "empty");
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\n", FW_ERROR_INVALID, "bad.fwsession:1:1",
              "decisions");
  expect_bad ("version: 2\nmodel: {fingerprint: \"" FP "\"}\ndecisions: []\n", FW_ERROR_INVALID,
              "bad.fwsession:1:10", NULL);
  /* Wrong types. */
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecisions: {}\n", FW_ERROR_INVALID,
              "bad.fwsession:3:12", NULL);
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecisions:\n  - action: veto\n    nodes: a\n",
              FW_ERROR_INVALID, "bad.fwsession:5:12", NULL);
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecisions:\n  - {action: veto, candidate: -1, "
              "nodes: [a]}\n", FW_ERROR_INVALID, "bad.fwsession:4:", NULL);
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\nbindings: {batch: many}\ndecisions: []\n",
              FW_ERROR_INVALID, "bad.fwsession:3:", NULL);
  expect_bad ("version: 1\nmodel: {fingerprint: \"12\"}\ndecisions: []\n", FW_ERROR_INVALID, "bad.fwsession:2:",
              "64 hexadecimal");
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecisions:\n  - action: merge\n    nodes: [a]\n",
              FW_ERROR_INVALID, "bad.fwsession:4:13", "merge");
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecisions:\n  - action: veto\n",
              FW_ERROR_INVALID, "bad.fwsession:4:5", "nodes");
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\nstrategy: greedy\ndecisions: []\n",
              FW_ERROR_INVALID, "bad.fwsession:3:", "greedy");
  /* Unknown keys, with a suggestion. */
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecision: []\n", FW_ERROR_INVALID,
              "bad.fwsession:3:1", "did you mean “decisions”");
  expect_bad ("version: 1\nmodel: {fingerprint: \"" FP "\"}\ndecisions:\n  - {action: veto, node: [a]}\n",
              FW_ERROR_INVALID, "bad.fwsession:4:", "did you mean “nodes”");

  /* Another model's session is a usage error, and changes nothing. */
  g_assert_true (g_file_set_contents (other, "version: 1\nmodel: {path: other.onnx, fingerprint: \"" FP "\"}\n"
                                      "decisions: []\n", -1, NULL));
  g_assert_false (fw_project_restore_session (project, other, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "other.onnx"));
  g_clear_error (&error);
  g_assert_false (fw_project_restore_session (project, missing, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_false (fw_project_can_undo (project));
  fw_test_remove_dir (dir);
  g_assert_finalize_object (project);
}

static void
test_hostile_strings (void)
{
  g_autoptr(FwSession) session = fw_session_new ();
  g_autoptr(FwSession) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  FwSessionDecision *d = g_new0 (FwSessionDecision, 1);

  session->model_fingerprint = g_strdup (FP);
  session->model_path = g_strdup ("a \"quoted\"\n\\path: #x");
  d->action = FW_DECISION_ACCEPT;
  d->candidate = 3;
  d->nodes = g_strsplit ("a: b|- c|\t\"d\"|{e}", "|", -1);
  d->why = g_strdup ("\xe2\x80\xa8 line separator");
  g_ptr_array_add (session->decisions, d);
  text = fw_session_to_string (session);
  back = fw_session_load_data ("hostile.fwsession", text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->model_path, ==, session->model_path);
  d = g_ptr_array_index (back->decisions, 0);
  g_assert_cmpstrv (d->nodes, ((FwSessionDecision *) g_ptr_array_index (session->decisions, 0))->nodes);
  g_assert_cmpstr (d->why, ==, "\xe2\x80\xa8 line separator");
}

/* What the project's session file should hold now. */
static char *
expected_session (FwProject *project)
{
  g_autoptr(FwSession) session = fw_session_from_plan (fw_project_get_plan (project),
                                                       fw_model_get_path (fw_project_get_model (project)),
                                                       fw_project_get_bindings (project));
  return fw_session_to_string (session);
}

static char *
read_file (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
iterate_until_writes (FwProject *project, guint n)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (fw_project_get_n_session_writes (project) < n && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  fw_project_flush_session (project);
}

/* Thirty decisions in a row (a held-down key) are one write, of the last state; disposing writes what is
 * still pending. */
static void
test_autosave_coalesces (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "burst.fwsession", NULL);
  g_autofree char *last = NULL, *on_disk = NULL;
  guint a = first_with_status (project, FW_CANDIDATE_PROPOSED);
  guint b = second_proposed (project);

  fw_project_set_session_path (project, path);
  for (guint i = 0; i < 10; i++)
    {
      g_assert_true (fw_project_accept (project, a, &error));
      g_assert_true (fw_project_undo (project));
      g_assert_true (fw_project_redo (project));
    }
  g_assert_no_error (error);
  /* Nothing was written on the main thread while deciding. */
  g_assert_cmpuint (fw_project_get_n_session_writes (project), ==, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  iterate_until_writes (project, 1);
  g_assert_cmpuint (fw_project_get_n_session_writes (project), ==, 1);
  last = expected_session (project);
  on_disk = read_file (path);
  g_assert_cmpstr (on_disk, ==, last);
  /* No timer is left behind: a moment later it is still one write. */
  g_usleep ((FW_PROJECT_AUTOSAVE_DELAY_MS + 50) * 1000);
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (fw_project_get_n_session_writes (project), ==, 1);

  /* A decision still waiting for its timer reaches the disk when the project goes. */
  g_assert_true (fw_project_veto (project, b, &error));
  g_clear_pointer (&last, g_free);
  g_clear_pointer (&on_disk, g_free);
  last = expected_session (project);
  g_assert_finalize_object (project);
  on_disk = read_file (path);
  g_assert_cmpstr (on_disk, ==, last);
  fw_test_remove_dir (dir);
}

/* An explicit save supersedes a pending autosave: the file ends with its state and no older one lands after. */
static void
test_save_supersedes_autosave (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "explicit.fwsession", NULL);
  g_autofree char *last = NULL, *on_disk = NULL;

  fw_project_set_session_path (project, path);
  g_assert_true (fw_project_accept (project, first_with_status (project, FW_CANDIDATE_PROPOSED), &error));
  g_assert_true (fw_project_save_session (project, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_project_get_n_session_writes (project), ==, 1);
  g_usleep ((FW_PROJECT_AUTOSAVE_DELAY_MS + 50) * 1000);
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  fw_project_flush_session (project);
  g_assert_cmpuint (fw_project_get_n_session_writes (project), ==, 1);
  last = expected_session (project);
  on_disk = read_file (path);
  g_assert_cmpstr (on_disk, ==, last);
  g_assert_finalize_object (project);
  fw_test_remove_dir (dir);
}

static void
on_autosave_failed (FwProject *project, const GError *error, gpointer user_data)
{
  GError **out = user_data;

  g_assert_null (*out);
  *out = g_error_copy (error);
}

/* A write the worker could not do is reported in the main thread; the decision stands. */
static void
test_autosave_failure (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) failed = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "no-such-folder", "x.fwsession", NULL);
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  guint veto = first_with_status (project, FW_CANDIDATE_PROPOSED);

  g_signal_connect (project, "autosave-failed", G_CALLBACK (on_autosave_failed), &failed);
  fw_project_set_session_path (project, path);
  g_assert_true (fw_project_veto (project, veto, &error));
  while (failed == NULL && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_error (failed, FW_ERROR, FW_ERROR_IO);
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (fw_project_get_plan (project)->candidates, veto))->status,
                   ==, FW_CANDIDATE_VETOED);
  g_signal_handlers_disconnect_by_data (project, &failed);
  g_assert_finalize_object (project);
  fw_test_remove_dir (dir);
}

/* A pattern-level decision through the project: every candidate of the pattern, undone and redone, recorded
 * in the session as a pattern, refused while busy. */
static void
test_pattern_decisions (void)
{
  g_autoptr(FwModel) model = block (16);
  FwProject *project = project_of (model);
  FwPlan *plan = fw_project_get_plan (project);
  g_autoptr(GError) error = NULL;
  g_autofree char *initial = plan_state (plan);
  g_autofree char *decided = NULL;
  g_autofree char *pattern = NULL;
  g_autoptr(FwSession) session = NULL;
  FwSessionDecision *d;
  guint changes = 0, n_matching = 0;

  pattern = g_strdup (((FwCandidate *) g_ptr_array_index (plan->candidates,
                                                          first_with_status (project,
                                                                             FW_CANDIDATE_PROPOSED)))->pattern);
  g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (count_signal), &changes);
  g_assert_true (fw_project_decide_pattern (project, FW_DECISION_VETO, pattern, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changes, ==, 1);
  plan = fw_project_get_plan (project);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (fw_project_get_candidates (project), i);

      if (g_strcmp0 (c->pattern, pattern) != 0)
        continue;
      n_matching++;
      g_assert_cmpint (c->status, ==, FW_CANDIDATE_VETOED);
      g_assert_cmpstr (fw_candidate_item_get_status (item), ==, "vetoed");
    }
  g_assert_cmpuint (n_matching, >, 0);
  decided = plan_state (plan);
  session = fw_session_from_plan (plan, NULL, NULL);
  g_assert_cmpuint (session->decisions->len, ==, 1);
  d = g_ptr_array_index (session->decisions, 0);
  g_assert_cmpstr (d->pattern, ==, pattern);
  g_assert_null (d->nodes);

  g_assert_true (fw_project_can_undo (project));
  g_assert_true (fw_project_undo (project));
  {
    g_autofree char *now = plan_state (fw_project_get_plan (project));
    g_assert_cmpstr (now, ==, initial);
  }
  g_assert_true (fw_project_redo (project));
  {
    g_autofree char *now = plan_state (fw_project_get_plan (project));
    g_assert_cmpstr (now, ==, decided);
  }
  g_assert_cmpuint (changes, ==, 3);

  fw_project_set_busy (project, TRUE);
  g_assert_false (fw_project_decide_pattern (project, FW_DECISION_ACCEPT, pattern, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  fw_project_set_busy (project, FALSE);
  g_signal_handlers_disconnect_by_data (project, &changes);
  g_assert_finalize_object (project);
}

static void
test_session_path_for (void)
{
  g_autofree char *a = fw_project_session_path_for ("/m/bert.onnx");
  g_autofree char *b = fw_project_session_path_for ("/m/bert.model");

  g_assert_cmpstr (a, ==, "/m/bert.fwsession");
  g_assert_cmpstr (b, ==, "/m/bert.model.fwsession");
}

int
main (int argc, char **argv)
{
  int status;
  g_autoptr(GError) error = NULL;

  g_test_init (&argc, &argv, NULL);
  profile = fw_profile_load_builtin ("ascend-910b", &error);
  g_assert_no_error (error);
  rules = fw_rule_set_new ();
  g_assert_true (fw_rule_set_load_builtin (rules, &error));
  g_test_add_func ("/core/session/items-location", test_items_location);
  g_test_add_func ("/core/session/items-follow-plan", test_items_follow_plan);
  g_test_add_func ("/core/session/undo-redo-notify", test_undo_redo_notify);
  g_test_add_func ("/core/session/autosave-and-replay", test_autosave_and_replay);
  g_test_add_func ("/core/session/autosave-coalesces", test_autosave_coalesces);
  g_test_add_func ("/core/session/save-supersedes-autosave", test_save_supersedes_autosave);
  g_test_add_func ("/core/session/autosave-failure", test_autosave_failure);
  g_test_add_func ("/core/session/pattern-decisions", test_pattern_decisions);
  g_test_add_func ("/core/session/replay-by-names", test_replay_by_names);
  g_test_add_func ("/core/session/bad-files", test_bad_files);
  g_test_add_func ("/core/session/hostile-strings", test_hostile_strings);
  g_test_add_func ("/core/session/path-for", test_session_path_for);
  status = g_test_run ();
  fw_rule_set_free (rules);
  fw_profile_unref (profile);
  return status;
}
