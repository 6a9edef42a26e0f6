/* Whitelists: export and import, pattern- and node-level matching, fingerprints, what matched nothing,
 * bad files with their place, hostile node names. */
#include "config.h"

#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "graph/fw-fingerprint.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"
#include "plan/fw-plan-private.h"
#include "report/fw-model-report.h"
#include "report/fw-plan-report.h"

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

static FwPlan *
plan_of (FwModel *model)
{
  g_autoptr(GError) error = NULL;
  FwPlan *plan = fw_plan_new (model, profile, rules, NULL, &error);

  g_assert_no_error (error);
  return plan;
}

/* Statuses and node names of every candidate, as one string. An exported plan comes back with its proposed
 * candidates accepted, so the two read the same here. */
static char *
plan_state (const FwPlan *plan)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_string_append_printf (s, "#%u %s %s:", i, c->pattern,
                              fw_candidate_status_name (c->status == FW_CANDIDATE_PROPOSED ? FW_CANDIDATE_ACCEPTED
                                                                                           : c->status));
      for (guint k = 0; k < c->nodes->len; k++)
        g_string_append_printf (s, " %s", ((FwNode *) g_ptr_array_index (c->nodes, k))->name);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

static FwCandidate *
find_pattern (FwPlan *plan, const char *pattern)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (strcmp (c->pattern, pattern) == 0 && c->status == FW_CANDIDATE_PROPOSED)
        return c;
    }
  return NULL;
}

static FwWhitelist *
load_text (const char *text, GError **error)
{
  return fw_whitelist_load_data ("wl.fusion.yaml", text, strlen (text), error);
}

static void
test_roundtrip (void)
{
  g_autoptr(FwModel) model = block (128);
  g_autoptr(FwPlan) plan = plan_of (model);
  g_autoptr(FwPlan) again = plan_of (model);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwWhitelist) out = NULL;
  g_autoptr(FwWhitelist) in = NULL;
  g_autofree char *text = NULL, *text2 = NULL, *state = NULL, *state2 = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "block.fusion.yaml", NULL);
  FwCandidate *gelu = find_pattern (plan, "matmul_bias_gelu");

  g_assert_nonnull (gelu);
  g_assert_true (fw_plan_veto (plan, gelu->index, "bob", "precision \"drift\"\n2 lines", &error));
  g_assert_true (fw_plan_decide_pattern (plan, FW_DECISION_ACCEPT, "layernorm", "alice", "1.4x", &error));
  g_assert_no_error (error);
  out = fw_whitelist_from_plan (plan, "block.onnx");
  g_assert_cmpstr (out->model_fingerprint, ==, fw_plan_get_fingerprint (plan));
  g_assert_true (fw_whitelist_save (out, path, &error));
  g_assert_no_error (error);
  text = fw_whitelist_to_string (out);
  in = fw_whitelist_load (path, &error);
  g_assert_no_error (error);
  text2 = fw_whitelist_to_string (in);
  g_assert_cmpstr (text, ==, text2);
  g_assert_cmpuint (in->entries->len, ==, out->entries->len);
  g_assert_nonnull (((FwWhitelistEntry *) g_ptr_array_index (in->entries, 0))->pattern);

  /* Applied to a fresh plan of the same model, it gives the same plan. */
  fw_plan_apply_whitelist (again, in);
  state = plan_state (plan);
  state2 = plan_state (again);
  g_assert_cmpstr (state, ==, state2);
  g_assert_false (fw_plan_whitelist_rejected (again));
  fw_test_remove_dir (dir);
}

static void
test_pattern_any_model (void)
{
  g_autoptr(FwModel) model = block (32);
  g_autoptr(FwPlan) plan = plan_of (model);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwWhitelist) w = load_text ("version: 1\n"
                                        "model: {file: other.onnx, fingerprint: "
                                        "0000000000000000000000000000000000000000000000000000000000000000}\n"
                                        "entries:\n"
                                        "  - pattern: layernorm\n"
                                        "    decision: veto\n"
                                        "    who: alice\n", &error);
  FwDecision *d;

  g_assert_no_error (error);
  fw_plan_apply_whitelist (plan, w);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (strcmp (c->pattern, "layernorm") == 0)
        g_assert_cmpint (c->status, ==, FW_CANDIDATE_VETOED);
    }
  d = g_ptr_array_index (plan->decisions, 0);
  g_assert_cmpint (d->outcome, ==, FW_DECISION_APPLIED);
  g_assert_cmpstr (d->source, ==, "wl.fusion.yaml:4");
  g_assert_true (d->whitelist);
}

static void
test_node_level (void)
{
  g_autoptr(FwModel) model = block (128);
  g_autoptr(FwPlan) plan = plan_of (model);
  g_autoptr(GError) error = NULL;
  FwCandidate *gelu = find_pattern (plan, "matmul_bias_gelu");
  GString *text = g_string_new ("version: 1\nentries:\n");
  g_autoptr(FwWhitelist) w = NULL;
  g_autofree char *fp = fw_model_fingerprint (model);
  g_autofree char *json = NULL;
  guint gelu_index = gelu->index;

  /* The same nodes, reversed (order does not matter), for another model, then for this one; then names
   * that match nothing, accepted. */
  for (int pass = 0; pass < 2; pass++)
    {
      g_string_append (text, "  - nodes: [");
      for (guint k = gelu->nodes->len; k > 0; k--)
        g_string_append_printf (text, "\"%s\"%s", ((FwNode *) g_ptr_array_index (gelu->nodes, k - 1))->name,
                                k > 1 ? ", " : "");
      g_string_append_printf (text, "]\n    fingerprint: %s\n    decision: veto\n",
                              pass == 0 ? "ABCDEF0000000000000000000000000000000000000000000000000000000000" : fp);
    }
  g_string_append_printf (text, "  - nodes: [/nope/a, /nope/b]\n    fingerprint: %s\n    decision: accept\n", fp);
  w = load_text (text->str, &error);
  g_string_free (text, TRUE);
  g_assert_no_error (error);
  g_assert_cmpstr (((FwWhitelistEntry *) g_ptr_array_index (w->entries, 0))->fingerprint, ==,
                   "abcdef0000000000000000000000000000000000000000000000000000000000");
  fw_plan_apply_whitelist (plan, w);
  g_assert_cmpint (((FwDecision *) g_ptr_array_index (plan->decisions, 0))->outcome, ==, FW_DECISION_OTHER_MODEL);
  g_assert_cmpint (((FwDecision *) g_ptr_array_index (plan->decisions, 1))->outcome, ==, FW_DECISION_APPLIED);
  g_assert_cmpint (((FwDecision *) g_ptr_array_index (plan->decisions, 2))->outcome, ==,
                   FW_DECISION_MATCHED_NOTHING);
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (plan->candidates, gelu_index))->status, ==,
                   FW_CANDIDATE_VETOED);
  g_assert_true (fw_plan_whitelist_rejected (plan));

  {
    FwInferReport infer;
    g_autoptr(JsonNode) report = NULL;
    JsonObject *wl;
    fw_infer_report_init (&infer);
    report = fw_model_report_build (model, &infer, NULL, NULL);
    fw_plan_report_add (report, plan);
    json = fw_model_report_format (report, FW_REPORT_JSON);
    wl = json_object_get_object_member (json_object_get_object_member (json_node_get_object (report), "plan"),
                                        "whitelist");
    g_assert_cmpint (json_object_get_int_member (wl, "entries"), ==, 3);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (wl, "other_model")), ==, 1);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (wl, "applied")), ==, 1);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (wl, "matched_nothing")), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_node_get_object (report), "model"),
                                                    "fingerprint"), ==, fp);
    fw_infer_report_clear (&infer);
  }
  g_assert_nonnull (strstr (json, "\"outcome\" : \"other_model\""));
}

/* Refusals are made by hand here (the small models have none to spare): one for no benefit, which an
 * accept overrides, one for UB, which it does not. */
static void
test_accept_refused (void)
{
  g_autoptr(FwModel) model = block (16);
  g_autoptr(FwPlan) plan = plan_of (model);
  g_autoptr(GError) error = NULL;
  GString *text = g_string_new ("version: 1\nentries:\n");
  g_autoptr(FwWhitelist) w = NULL;
  g_autofree char *fp = fw_model_fingerprint (model);
  FwCandidate *a = g_ptr_array_index (plan->candidates, 0), *b = g_ptr_array_index (plan->candidates, 1);
  FwDecision *d;

  a->status = FW_CANDIDATE_REFUSED;
  fw_plan_refuse (plan, FW_NF_NO_BENEFIT, a->index, NULL, g_strdup ("test"));
  b->status = FW_CANDIDATE_REFUSED;
  fw_plan_refuse (plan, FW_NF_UB, b->index, NULL, g_strdup ("test"));
  for (int pass = 0; pass < 2; pass++)
    {
      FwCandidate *c = pass ? b : a;
      g_string_append (text, "  - nodes:\n");
      for (guint k = 0; k < c->nodes->len; k++)
        g_string_append_printf (text, "      - \"%s\"\n", ((FwNode *) g_ptr_array_index (c->nodes, k))->name);
      g_string_append_printf (text, "    fingerprint: %s\n    decision: accept\n", fp);
    }
  w = load_text (text->str, &error);
  g_string_free (text, TRUE);
  g_assert_no_error (error);
  fw_plan_apply_whitelist (plan, w);
  d = g_ptr_array_index (plan->decisions, 0);
  g_assert_cmpint (d->outcome, ==, FW_DECISION_APPLIED);
  g_assert_cmpint (a->status, ==, FW_CANDIDATE_ACCEPTED);
  d = g_ptr_array_index (plan->decisions, 1);
  g_assert_cmpint (d->outcome, ==, FW_DECISION_REFUSED);
  g_assert_cmpuint (d->refused->len, ==, 1);
  g_assert_cmpint (b->status, ==, FW_CANDIDATE_REFUSED);
  g_assert_true (fw_plan_whitelist_rejected (plan));
}

static void
test_bad_input (void)
{
  static const char fp[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  static const struct { const char *text; const char *where; } cases[] = {
    { "version: 1\nentries: [\n", "wl.fusion.yaml:" },
    { "", "wl.fusion.yaml:1:1" },
    { "- 1\n", "wl.fusion.yaml:1:1" },
    { "entries: []\n", "wl.fusion.yaml:1:1" },
    { "version: 2\nentries: []\n", "wl.fusion.yaml:1:10" },
    { "version: 1\nentries: []\nextra: 1\n", "wl.fusion.yaml:3:1" },
    { "version: 1\n", "wl.fusion.yaml:1:1" },
    { "version: 1\nentries: {a: 1}\n", "wl.fusion.yaml:2:10" },
    { "version: 1\nentries:\n  - pattern: x\n    decision: maybe\n", "wl.fusion.yaml:4:15" },
    { "version: 1\nentries:\n  - pattern: x\n", "wl.fusion.yaml:3:5" },
    { "version: 1\nentries:\n  - pattern: x\n    decison: veto\n", "wl.fusion.yaml:4:5" },
    { "version: 1\nentries:\n  - nodes: [a]\n    decision: veto\n", "wl.fusion.yaml:3:5" },
    { "version: 1\nentries:\n  - nodes: []\n    fingerprint: 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n    decision: veto\n",
      "wl.fusion.yaml:3:12" },
    { "version: 1\nentries:\n  - nodes: a\n    decision: veto\n", "wl.fusion.yaml:3:12" },
    { "version: 1\nentries:\n  - nodes: [[a]]\n    decision: veto\n", "wl.fusion.yaml:3:13" },
    { "version: 1\nentries:\n  - pattern: x\n    nodes: [a]\n    decision: veto\n", "wl.fusion.yaml:3:5" },
    { "version: 1\nentries:\n  - pattern: x\n    decision: veto\n    fingerprint: abc\n", "wl.fusion.yaml:5:18" },
    { "version: 1\nmodel: {fingerprint: xyz}\nentries: []\n", "wl.fusion.yaml:2:22" },
    { "version: 1\nmodel: {file: a, size: 3}\nentries: []\n", "wl.fusion.yaml:2:" },
    { "version: 1\nentries:\n  - pattern: &a x\n    decision: *a\n", "wl.fusion.yaml:" },
    { "version: 1\nentries:\n  - pattern: [x]\n    decision: veto\n", "wl.fusion.yaml:3:14" },
    { "version: 1\nentries:\n  - pattern: x\n    decision: veto\n    who: [a]\n", "wl.fusion.yaml:5:10" },
  };

  (void) fp;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwWhitelist) w = load_text (cases[i].text, &error);

      g_test_message ("case %u: %s", i, error ? error->message : "(no error)");
      g_assert_null (w);
      g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
      g_assert_true (g_str_has_prefix (error->message, cases[i].where));
      /* Always FILE:LINE:COL. */
      {
        g_auto(GStrv) parts = g_strsplit (error->message, ":", 4);
        g_assert_cmpuint (g_strv_length (parts), >=, 4);
        g_assert_cmpint (g_ascii_strtoll (parts[1], NULL, 10), >=, 1);
        g_assert_cmpint (g_ascii_strtoll (parts[2], NULL, 10), >=, 1);
      }
    }
}

static void
test_hostile_names (void)
{
  static const char *names[] = {
    "/layers.0/linear1/MatMul", "a:b # not a comment", "quote \" and 'single'", "back\\slash",
    "tab\there", "new\nline", "ünïcödé 名前", "- dash", "{brace}: [x]", "  spaces  ", "~", "null", "123",
    "line\xe2\x80\xa8sep", "\x01\x7f", "*star &amp", "%percent", "@at`tick",
  };
  g_autoptr(FwModel) model = fw_test_elementwise_chain (G_N_ELEMENTS (names), 4096, FALSE);
  FwGraph *graph = fw_model_get_graph (model);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwPlan) again = NULL;
  g_autoptr(FwWhitelist) out = NULL;
  g_autoptr(FwWhitelist) in = NULL;
  g_autofree char *text = NULL, *text2 = NULL, *s1 = NULL, *s2 = NULL;
  FwDecision *d;

  for (guint i = 0; i < graph->nodes->len && i < G_N_ELEMENTS (names); i++)
    ((FwNode *) g_ptr_array_index (graph->nodes, i))->name = fw_graph_intern (graph, names[i]);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  plan = plan_of (model);
  g_assert_cmpuint (plan->candidates->len, >=, 1);
  g_assert_true (fw_plan_veto (plan, 0, "名前", "why: \"because\"", &error));
  g_assert_no_error (error);
  out = fw_whitelist_from_plan (plan, "chain #1.onnx");
  text = fw_whitelist_to_string (out);
  in = load_text (text, &error);
  g_assert_no_error (error);
  text2 = fw_whitelist_to_string (in);
  g_assert_cmpstr (text, ==, text2);
  for (guint i = 0; i < out->entries->len; i++)
    {
      FwWhitelistEntry *a = g_ptr_array_index (out->entries, i), *b = g_ptr_array_index (in->entries, i);
      g_assert_cmpuint (g_strv_length (a->nodes), ==, g_strv_length (b->nodes));
      for (guint k = 0; a->nodes[k]; k++)
        g_assert_cmpstr (a->nodes[k], ==, b->nodes[k]);
      g_assert_cmpstr (a->who, ==, b->who);
      g_assert_cmpstr (a->why, ==, b->why);
    }
  g_assert_cmpstr (in->model_file, ==, "chain #1.onnx");

  again = plan_of (model);
  fw_plan_apply_whitelist (again, in);
  d = g_ptr_array_index (again->decisions, 0);
  g_assert_cmpint (d->action, ==, FW_DECISION_VETO);
  g_assert_cmpint (d->outcome, ==, FW_DECISION_APPLIED);
  s1 = plan_state (plan);
  s2 = plan_state (again);
  g_assert_cmpstr (s1, ==, s2);
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
  g_test_add_func ("/core/plan/whitelist/roundtrip", test_roundtrip);
  g_test_add_func ("/core/plan/whitelist/pattern-any-model", test_pattern_any_model);
  g_test_add_func ("/core/plan/whitelist/node-level", test_node_level);
  g_test_add_func ("/core/plan/whitelist/accept-refused", test_accept_refused);
  g_test_add_func ("/core/plan/whitelist/bad-input", test_bad_input);
  g_test_add_func ("/core/plan/whitelist/hostile-names", test_hostile_names);
  status = g_test_run ();
  fw_rule_set_free (rules);
  fw_profile_unref (profile);
  return status;
}
