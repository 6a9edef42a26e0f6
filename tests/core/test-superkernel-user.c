/* SuperKernel scopes the user chooses (core/plan/fw-superkernel-decisions.c): decisions in the plan's log,
 * undone and redone, saved in sessions and read back, and read from and written to a whitelist's
 * `superkernel_scopes:` with the place of every error. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "plan/fw-superkernel-plan.h"
#include "session/fw-project.h"
#include "session/fw-session.h"

#define add fw_test_add_node

/* Six single-op kernels in a row: /enc/r0, /enc/r1, /other/n, /enc/r2, /enc/r3, /encoder/r4. */
static FwModel *
chain_model (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (4096) };
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL));
  add (g, "Relu", "/enc/r0", "x", NULL, "t0");
  add (g, "Exp", "/enc/r1", "t0", NULL, "t1");
  add (g, "Neg", "/other/n", "t1", NULL, "t2");
  add (g, "Relu", "/enc/r2", "t2", NULL, "t3");
  add (g, "Exp", "/enc/r3", "t3", NULL, "t4");
  add (g, "Relu", "/encoder/r4", "t4", NULL, "y");
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static FwPlan *
plan_of (FwModel *model, FwProfile *profile)
{
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  FwPlan *plan;

  fw_plan_options_init (&options);
  options.max_fusion_size = 1;   /* every op its own kernel */
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  fw_plan_options_clear (&options);
  return plan;
}

static FwNode *
node_named (FwGraph *g, const char *name)
{
  for (guint i = 0; i < g->nodes->len; i++)
    if (g_strcmp0 (((FwNode *) g_ptr_array_index (g->nodes, i))->name, name) == 0)
      return g_ptr_array_index (g->nodes, i);
  g_assert_not_reached ();
  return NULL;
}

static guint
n_user_scopes (FwPlan *plan)
{
  g_autoptr(GPtrArray) scopes = fw_plan_get_user_scopes (plan);
  return scopes->len;
}

static FwSkPlan *
scopes_of (FwPlan *plan)
{
  g_autoptr(GError) error = NULL;
  FwSkPlan *sk = fw_sk_plan_build (plan, NULL, &error);

  g_assert_no_error (error);
  return sk;
}

static const char * const range_nodes[] = { "/other/n", "/enc/r2", "/enc/r3", NULL };

/* A range of kernels made one scope: only it is a scope then; undo gives the automatic scopes back, redo
 * the range again; removing it is a decision too. Bad decisions are refused and logged nowhere. */
static void
test_decide_undo (void)
{
  g_autoptr(FwModel) model = chain_model ();
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlan *plan = plan_of (model, profile);
  g_autoptr(FwSkUserScope) range = fw_sk_user_scope_new ("mine", NULL, range_nodes);
  g_autoptr(FwSkUserScope) empty = fw_sk_user_scope_new ("nothing", NULL, NULL);
  g_autoptr(GError) error = NULL;
  FwSkPlan *sk;
  const FwSkScope *scope;
  guint n_decisions;

  /* A range given from its last kernel to its first: the kernels between, in execution order. */
  {
    FwGraph *g = fw_model_get_graph (model);
    guint n = 0;
    g_auto(GStrv) names = fw_sk_plan_range_nodes (plan, node_named (g, "/enc/r3"),
                                                  node_named (g, "/other/n"), &n, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (n, ==, 3);
    g_assert_cmpstrv (names, range_nodes);
  }
  sk = scopes_of (plan);
  g_assert_cmpuint (sk->scopes->len, ==, 1);   /* automatic: the whole chain */
  g_assert_cmpuint (((FwSkScope *) g_ptr_array_index (sk->scopes, 0))->user, ==, G_MAXUINT);
  fw_sk_plan_free (sk);

  g_assert_true (fw_plan_make_superkernel (plan, range, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_user_scopes (plan), ==, 1);
  sk = scopes_of (plan);
  g_assert_cmpuint (sk->scopes->len, ==, 1);
  scope = g_ptr_array_index (sk->scopes, 0);
  g_assert_cmpstr (scope->name, ==, "mine");
  g_assert_cmpuint (scope->user, ==, 0);
  g_assert_cmpuint (scope->kernels->len, ==, 3);
  g_assert_cmpstr (g_array_index (scope->kernels, FwSkKernel, 0).node->name, ==, "/other/n");
  g_assert_cmpuint (sk->user_scopes->len, ==, 1);
  fw_sk_plan_free (sk);

  /* Refused: the same name again, no nodes or prefix, removing what is not there. */
  n_decisions = plan->decisions->len;
  g_assert_false (fw_plan_make_superkernel (plan, range, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "“mine” already"));
  g_clear_error (&error);
  g_assert_false (fw_plan_make_superkernel (plan, empty, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_false (fw_plan_remove_superkernel (plan, "theirs", &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_cmpuint (plan->decisions->len, ==, n_decisions);

  g_assert_true (fw_plan_undo (plan));
  g_assert_cmpuint (n_user_scopes (plan), ==, 0);
  sk = scopes_of (plan);
  g_assert_cmpuint (sk->scopes->len, ==, 1);
  g_assert_cmpstr (((FwSkScope *) g_ptr_array_index (sk->scopes, 0))->name, ==, "sk_000");
  fw_sk_plan_free (sk);
  g_assert_true (fw_plan_redo (plan));
  g_assert_cmpuint (n_user_scopes (plan), ==, 1);

  g_assert_true (fw_plan_remove_superkernel (plan, "mine", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_user_scopes (plan), ==, 0);
  g_assert_true (fw_plan_undo (plan));
  g_assert_cmpuint (n_user_scopes (plan), ==, 1);
  fw_plan_free (plan);
}

/* A session holds the scopes made and the one removed; another plan of the model replays to the same. */
static void
test_session_round_trip (void)
{
  g_autoptr(FwModel) model = chain_model ();
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlan *plan = plan_of (model, profile), *again = plan_of (model, profile);
  g_autoptr(FwSkUserScope) range = fw_sk_user_scope_new ("mine", NULL, range_nodes);
  g_autoptr(FwSkUserScope) prefix = fw_sk_user_scope_new ("/enc", "/enc", NULL);
  g_autoptr(FwSkUserScope) gone = fw_sk_user_scope_new ("gone", "/encoder", NULL);
  g_autoptr(FwSession) session = NULL, loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) scopes = NULL;
  g_autofree char *text = NULL, *text_again = NULL;

  prefix->why = g_strdup ("one layer, one launch");
  g_assert_true (fw_plan_make_superkernel (plan, prefix, NULL));
  g_assert_true (fw_plan_make_superkernel (plan, gone, NULL));
  g_assert_true (fw_plan_make_superkernel (plan, range, NULL));
  g_assert_true (fw_plan_remove_superkernel (plan, "gone", NULL));
  session = fw_session_from_plan (plan, "chain.onnx", NULL);
  text = fw_session_to_string (session);
  g_assert_nonnull (strstr (text, "  - action: superkernel\n    superkernel:\n      name: \"/enc\"\n"
                                  "      scope: \"/enc\"\n      why: \"one layer, one launch\"\n"));
  g_assert_nonnull (strstr (text, "  - action: superkernel_remove\n    superkernel:\n      name: \"gone\"\n"));

  loaded = fw_session_load_data ("chain.fwsession", text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_true (fw_session_check_model (loaded, again, &error));
  g_assert_cmpuint (fw_session_apply (loaded, again), ==, 4);
  scopes = fw_plan_get_user_scopes (again);
  g_assert_cmpuint (scopes->len, ==, 2);
  g_assert_cmpstr (((FwSkUserScope *) g_ptr_array_index (scopes, 0))->prefix, ==, "/enc");
  g_assert_cmpstr (((FwSkUserScope *) g_ptr_array_index (scopes, 0))->why, ==, "one layer, one launch");
  g_assert_cmpstr (((FwSkUserScope *) g_ptr_array_index (scopes, 0))->source, ==, "chain.fwsession:9");
  g_assert_cmpstr (((FwSkUserScope *) g_ptr_array_index (scopes, 1))->nodes[2], ==, "/enc/r3");
  /* Written again, the replayed plan gives the same file. */
  g_clear_pointer (&session, fw_session_free);
  session = fw_session_from_plan (again, "chain.onnx", NULL);
  text_again = fw_session_to_string (session);
  g_assert_cmpstr (text_again, ==, text);
  /* Undo in the replayed plan takes the last scope away, as in the first. */
  g_assert_true (fw_plan_undo (again));
  g_clear_pointer (&scopes, g_ptr_array_unref);
  scopes = fw_plan_get_user_scopes (again);
  g_assert_cmpuint (scopes->len, ==, 3);
  fw_plan_free (plan);
  fw_plan_free (again);
}

/* Through the project: a scope made there is in its SuperKernel plan, autosaved, restored into another
 * project, and undone. */
static void
test_project (void)
{
  g_autoptr(FwModel) model = chain_model ();
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwProject) project = NULL, other = NULL;
  g_autoptr(FwSkUserScope) prefix = fw_sk_user_scope_new ("/enc", "/enc", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("fw-sk-user-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "chain.fwsession", NULL);
  FwPlanOptions options;
  const FwSkPlan *sk;

  fw_plan_options_init (&options);
  options.max_fusion_size = 1;
  project = fw_project_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  fw_project_set_session_path (project, path);
  g_assert_true (fw_project_make_superkernel (project, prefix, &error));
  g_assert_no_error (error);
  sk = fw_project_get_superkernel_plan (project);
  g_assert_cmpuint (sk->scopes->len, ==, 2);   /* /enc, split by /other/n: /enc and /enc#2 */
  g_assert_cmpstr (((FwSkScope *) g_ptr_array_index (sk->scopes, 1))->name, ==, "/enc#2");
  g_assert_true (fw_project_can_undo (project));
  fw_project_flush_session (project);

  other = fw_project_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  g_assert_true (fw_project_restore_session (other, path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_project_get_superkernel_plan (other)->user_scopes->len, ==, 1);

  g_assert_true (fw_project_undo (project));
  sk = fw_project_get_superkernel_plan (project);
  g_assert_cmpuint (sk->user_scopes->len, ==, 0);
  g_assert_cmpstr (((FwSkScope *) g_ptr_array_index (sk->scopes, 0))->name, ==, "sk_000");
  fw_plan_options_clear (&options);
  g_clear_object (&project);
  g_clear_object (&other);
  g_unlink (path);
  g_rmdir (dir);
}

static const char whitelist_text[] =
  "version: 1\n"
  "entries: []\n"
  "superkernel_scopes:\n"
  "  - /enc\n"
  "  - scope: /encoder\n"
  "    name: tail\n"
  "    why: measured\n"
  "  - name: middle\n"
  "    nodes: [/other/n, /enc/r2]\n";

/* `superkernel_scopes:` read in its three forms, applied as decisions with FILE:LINE, and written back by
 * the whitelist export. */
static void
test_whitelist (void)
{
  g_autoptr(FwModel) model = chain_model ();
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlan *plan = plan_of (model, profile);
  g_autoptr(FwWhitelist) w = NULL, out = NULL, back = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) scopes = NULL;
  g_autofree char *text = NULL;
  const FwSkUserScope *s;

  w = fw_whitelist_load_data ("team.fusion.yaml", whitelist_text, strlen (whitelist_text), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (w->superkernel_scopes->len, ==, 3);
  s = g_ptr_array_index (w->superkernel_scopes, 0);
  g_assert_cmpstr (s->name, ==, "/enc");
  g_assert_cmpstr (s->prefix, ==, "/enc");
  g_assert_cmpuint (s->line, ==, 4);
  s = g_ptr_array_index (w->superkernel_scopes, 1);
  g_assert_cmpstr (s->name, ==, "tail");
  g_assert_cmpstr (s->why, ==, "measured");
  s = g_ptr_array_index (w->superkernel_scopes, 2);
  g_assert_null (s->prefix);
  g_assert_cmpstr (s->nodes[1], ==, "/enc/r2");

  fw_plan_apply_whitelist (plan, w);
  scopes = fw_plan_get_user_scopes (plan);
  g_assert_cmpuint (scopes->len, ==, 3);
  g_assert_cmpstr (((FwSkUserScope *) g_ptr_array_index (scopes, 1))->source, ==, "team.fusion.yaml:5");
  /* Applied twice, the names exist: nothing more. */
  fw_plan_apply_whitelist (plan, w);
  g_clear_pointer (&scopes, g_ptr_array_unref);
  scopes = fw_plan_get_user_scopes (plan);
  g_assert_cmpuint (scopes->len, ==, 3);

  out = fw_whitelist_from_plan (plan, "chain.onnx");
  text = fw_whitelist_to_string (out);
  g_assert_nonnull (strstr (text, "superkernel_scopes:\n  - name: \"/enc\"\n    scope: \"/enc\"\n"));
  g_assert_nonnull (strstr (text, "  - name: \"middle\"\n    nodes:\n      - \"/other/n\"\n      - \"/enc/r2\"\n"));
  back = fw_whitelist_load_data ("out.fusion.yaml", text, strlen (text), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->superkernel_scopes->len, ==, 3);
  g_assert_cmpstr (((FwSkUserScope *) g_ptr_array_index (back->superkernel_scopes, 1))->prefix, ==, "/encoder");
  fw_plan_free (plan);
}

/* Each bad `superkernel_scopes:` names the file, the line and column, and what was wrong. */
static void
test_whitelist_errors (void)
{
  static const struct { const char *yaml; const char *place; const char *message; } cases[] = {
    { "superkernel_scopes: /enc\n", "bad.yaml:3:21:", "“superkernel_scopes”" },
    { "superkernel_scopes:\n  - \"\"\n", "bad.yaml:4:5:", "an empty name scope" },
    { "superkernel_scopes:\n  - [a, b]\n", "bad.yaml:4:5:", "a SuperKernel scope" },
    { "superkernel_scopes:\n  - {name: x}\n", "bad.yaml:4:5:", "exactly one of “scope”" },
    { "superkernel_scopes:\n  - {scope: /a, nodes: [b]}\n", "bad.yaml:4:5:", "exactly one of “scope”" },
    { "superkernel_scopes:\n  - {nodes: [a, b]}\n", "bad.yaml:4:5:", "needs a “name”" },
    { "superkernel_scopes:\n  - {name: x, nodes: []}\n", "bad.yaml:4:", "nodes" },
    { "superkernel_scopes:\n  - {scope: /a, nmae: x}\n", "bad.yaml:4:", "name" },
    { "superkernel_scopes:\n  - /a\n  - {scope: /b, name: /a}\n", "bad.yaml:5:5:", "the first is on line 4" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strconcat ("version: 1\nentries: []\n", cases[i].yaml, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(FwWhitelist) w = fw_whitelist_load_data ("bad.yaml", text, strlen (text), &error);

      g_assert_null (w);
      g_assert_nonnull (error);
      if (!g_str_has_prefix (error->message, cases[i].place) || strstr (error->message, cases[i].message) == NULL)
        g_error ("case %u: %s", i, error->message);
    }
}

/* A session's SuperKernel decision without its scope is refused at its place. */
static void
test_session_errors (void)
{
  static const char text[] =
    "version: 1\nmodel:\n  fingerprint: \"0000000000000000000000000000000000000000000000000000000000000000\"\n"
    "decisions:\n  - action: superkernel\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FwSession) s = fw_session_load_data ("bad.fwsession", text, strlen (text), &error);

  g_assert_null (s);
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "bad.fwsession:5:"));
  g_assert_nonnull (strstr (error->message, "superkernel:"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/superkernel/user/decide-undo", test_decide_undo);
  g_test_add_func ("/core/plan/superkernel/user/session", test_session_round_trip);
  g_test_add_func ("/core/plan/superkernel/user/project", test_project);
  g_test_add_func ("/core/plan/superkernel/user/whitelist", test_whitelist);
  g_test_add_func ("/core/plan/superkernel/user/whitelist-errors", test_whitelist_errors);
  g_test_add_func ("/core/plan/superkernel/user/session-errors", test_session_errors);
  return g_test_run ();
}
