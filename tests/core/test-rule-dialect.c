/* test-rule-dialect.c: rule files in the graph-autofusion articles' dialect (top-level `fusion_rules:`):
 * the file the articles show, converted and planned with; the conditions that hold and those that do not,
 * reported per candidate; and the errors bad files get. */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"
#include "plan/fw-plan-private.h"
#include "report/fw-plan-report.h"
#include "rules/fw-rules.h"

/* Exactly the file the articles show. */
static const char articles[] =
  "fusion_rules: [{name: matmul_bias_relu, pattern: [MatMul, BiasAdd, ReLU], strategy: \"compute_bound\n"
  "  memory_bound pairing\", conditions: [{matmul_m_dim_ge: 128}, {bias_dtype_eq: float16}]}, {name:\n"
  "  layernorm_gelu, pattern: [LayerNorm, GELU], strategy: sequential_fuse, conditions: [{\n"
  "  norm_hidden_dim_ge: 64}]}]\n";

static FwRuleSet *
articles_set (void)
{
  g_autoptr(GError) error = NULL;
  FwRuleSet *set = fw_rule_set_new ();

  g_assert_true (fw_rule_set_load_builtin (set, &error));
  g_assert_no_error (error);
  g_assert_true (fw_rule_set_load_data (set, "articles.yaml", articles, strlen (articles), &error));
  g_assert_no_error (error);
  return set;
}

static void
initializer (FwGraph *g, const char *name, FwDType dtype, guint rank, const gint64 *dims, float value)
{
  gint64 n = 1;
  g_autoptr(FwTensor) t = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  if (dtype == FW_DTYPE_FLOAT16)
    {
      g_autofree guint16 *h = g_new (guint16, n);
      g_autoptr(GBytes) bytes = NULL;
      /* 0.5 and 0.25 exactly, the only values these tests need. */
      for (gint64 i = 0; i < n; i++)
        h[i] = value == 0.5f ? 0x3800 : 0x3400;
      bytes = g_bytes_new (h, sizeof (guint16) * n);
      t = fw_tensor_new (FW_DTYPE_FLOAT16, rank, dims, bytes);
    }
  else
    {
      g_autofree float *f = g_new (float, n);
      for (gint64 i = 0; i < n; i++)
        f[i] = value;
      t = fw_tensor_new_float (rank, dims, f);
    }
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
add (FwGraph *g, const char *op, const char *name, const char *out, const char *a, const char *b,
     const char *c)
{
  const char *ins[3] = { a, b, c };
  const char *outs[1] = { out };
  guint n = c ? 3 : b ? 2 : 1;

  g_assert_nonnull (fw_graph_add_node (g, op, "", name, n, ins, 1, outs, NULL));
}

static FwModel *
finish (FwModel *model, const char *out)
{
  g_autoptr(GError) error = NULL;
  FwGraph *g = fw_model_get_graph (model);

  g_assert_true (fw_graph_add_output (g, out, NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

/* x [rows, 64] → MatMul [64, 32] → Add bias [32] → Relu, in dtype. */
static FwModel *
mlp (FwDType dtype, gint64 rows)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim x[2] = { FW_DIM_STATIC (rows), FW_DIM_STATIC (64) };
  gint64 w[2] = { 64, 32 }, b[1] = { 32 };

  g_assert_nonnull (fw_graph_add_input (g, "x", dtype, 2, x, NULL));
  initializer (g, "w", dtype, 2, w, 0.25f);
  initializer (g, "b", dtype, 1, b, 0.5f);
  add (g, "MatMul", "/mlp/MatMul", "h", "x", "w", NULL);
  add (g, "Add", "/mlp/Add", "hb", "h", "b", NULL);
  add (g, "Relu", "/mlp/Relu", "y", "hb", NULL, NULL);
  return finish (model, "y");
}

/* x [8, hidden] → LayerNormalization → GELU in its erf form (Div, Erf, Add, Mul, Mul). */
static FwModel *
layernorm_gelu (gint64 hidden)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim x[2] = { FW_DIM_STATIC (8), FW_DIM_STATIC (hidden) };
  gint64 h[1] = { hidden };

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, x, NULL));
  initializer (g, "gamma", FW_DTYPE_FLOAT, 1, h, 0.5f);
  initializer (g, "beta", FW_DTYPE_FLOAT, 1, h, 0.25f);
  initializer (g, "sqrt2", FW_DTYPE_FLOAT, 0, NULL, 1.4142135f);
  initializer (g, "one", FW_DTYPE_FLOAT, 0, NULL, 1.0f);
  initializer (g, "half", FW_DTYPE_FLOAT, 0, NULL, 0.5f);
  add (g, "LayerNormalization", "/ln", "n", "x", "gamma", "beta");
  add (g, "Div", "/gelu/Div", "d", "n", "sqrt2", NULL);
  add (g, "Erf", "/gelu/Erf", "e", "d", NULL, NULL);
  add (g, "Add", "/gelu/Add", "a", "e", "one", NULL);
  add (g, "Mul", "/gelu/Mul", "m", "n", "a", NULL);
  add (g, "Mul", "/gelu/Mul_1", "y", "m", "half", NULL);
  return finish (model, "y");
}

/* The report's entry for the candidate holding the node named `name`. */
static JsonObject *
candidate_with (JsonNode *report, const char *name)
{
  JsonArray *cands = json_object_get_array_member (json_object_get_object_member (json_node_get_object (report), "plan"),
                                                   "candidates");

  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *c = json_array_get_object_element (cands, i);
      JsonArray *nodes = json_object_get_array_member (c, "nodes");
      for (guint n = 0; n < json_array_get_length (nodes); n++)
        if (strcmp (json_array_get_string_element (nodes, n), name) == 0)
          return c;
    }
  g_assert_not_reached ();
  return NULL;
}

static JsonNode *
plan_report (FwModel *model, FwRuleSet *set)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  FwPlanOptions options;
  JsonNode *report;

  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, set, &options, &error);
  g_assert_no_error (error);
  json_builder_begin_object (b);
  json_builder_end_object (b);
  report = json_builder_get_root (b);
  fw_plan_report_add (report, plan);
  return report;
}

/* The articles' file names the candidates it matches when its conditions hold. */
static void
test_articles_hold (void)
{
  g_autoptr(FwRuleSet) set = articles_set ();
  g_autoptr(FwModel) a = mlp (FW_DTYPE_FLOAT16, 256);
  g_autoptr(FwModel) b = layernorm_gelu (128);
  g_autoptr(JsonNode) ra = plan_report (a, set);
  g_autoptr(JsonNode) rb = plan_report (b, set);
  JsonObject *c;
  const FwRule *rule = fw_rule_set_lookup (set, "matmul_bias_relu");

  /* The file's rule replaces the shipped one of the same name. */
  g_assert_cmpstr (rule->file, ==, "articles.yaml");
  g_assert_cmpint (rule->strategy, ==, FW_RULE_STRATEGY_COMPUTE_MEMORY_PAIRING);
  g_assert_cmpint (fw_rule_set_lookup (set, "layernorm_gelu")->strategy, ==, FW_RULE_STRATEGY_SEQUENTIAL);
  c = candidate_with (ra, "/mlp/Relu");
  g_assert_cmpstr (json_object_get_string_member (c, "pattern"), ==, "matmul_bias_relu");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (c, "rules_not_met")), ==, 0);
  c = candidate_with (rb, "/gelu/Erf");
  g_assert_cmpstr (json_object_get_string_member (c, "pattern"), ==, "layernorm_gelu");
}

/* Where a condition does not hold, another rule (or none) names the candidate and the report says which
 * condition of which rule failed. */
static void
test_articles_unmet (void)
{
  g_autoptr(FwRuleSet) set = articles_set ();
  g_autoptr(FwModel) fp32 = mlp (FW_DTYPE_FLOAT, 256);
  g_autoptr(FwModel) small = mlp (FW_DTYPE_FLOAT16, 64);
  g_autoptr(FwModel) narrow = layernorm_gelu (32);
  g_autoptr(JsonNode) r32 = plan_report (fp32, set);
  g_autoptr(JsonNode) rsmall = plan_report (small, set);
  g_autoptr(JsonNode) rnarrow = plan_report (narrow, set);
  JsonObject *c, *miss;
  JsonArray *misses;

  c = candidate_with (r32, "/mlp/Relu");
  g_assert_cmpstr (json_object_get_string_member (c, "pattern"), !=, "matmul_bias_relu");
  misses = json_object_get_array_member (c, "rules_not_met");
  g_assert_cmpuint (json_array_get_length (misses), ==, 1);
  miss = json_array_get_object_element (misses, 0);
  g_assert_cmpstr (json_object_get_string_member (miss, "rule"), ==, "matmul_bias_relu");
  g_assert_cmpstr (json_object_get_string_member (miss, "file"), ==, "articles.yaml");
  g_assert_cmpstr (json_object_get_string_member (miss, "condition"), ==, "the bias dtype is float32, not float16");

  c = candidate_with (rsmall, "/mlp/Relu");
  miss = json_array_get_object_element (json_object_get_array_member (c, "rules_not_met"), 0);
  g_assert_cmpstr (json_object_get_string_member (miss, "condition"), ==, "M is 64, below 128");

  c = candidate_with (rnarrow, "/gelu/Erf");
  g_assert_cmpstr (json_object_get_string_member (c, "pattern"), !=, "layernorm_gelu");
  miss = json_array_get_object_element (json_object_get_array_member (c, "rules_not_met"), 0);
  g_assert_cmpstr (json_object_get_string_member (miss, "rule"), ==, "layernorm_gelu");
  g_assert_cmpstr (json_object_get_string_member (miss, "condition"), ==, "hidden is 32, below 64");
}

/* The conversion, as --convert-rules prints it, reads back as the same rules. */
static void
test_convert (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "articles.yaml", NULL);
  g_autofree char *text = NULL;
  g_autoptr(FwRuleSet) set = fw_rule_set_new ();
  const FwRule *rule;
  g_autofree char *pattern = NULL;

  g_assert_true (g_file_set_contents (path, articles, -1, NULL));
  text = fw_rule_convert_file (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "version: 1\n"));
  g_assert_nonnull (strstr (text, "pattern: [MatMul, Add, Relu]"));
  g_assert_nonnull (strstr (text, "when: {min_dim: {M: 128}, operand_dtype: {bias: float16}}"));
  g_assert_nonnull (strstr (text, "when: {min_dim: {hidden: 64}}"));
  g_assert_true (fw_rule_set_load_builtin (set, &error));
  g_assert_true (fw_rule_set_load_data (set, "converted.yaml", text, strlen (text), &error));
  g_assert_no_error (error);
  rule = fw_rule_set_lookup (set, "layernorm_gelu");
  g_assert_cmpstr (rule->file, ==, "converted.yaml");
  pattern = fw_rule_format_pattern (rule);
  g_assert_cmpstr (pattern, ==, "[{op: LayerNormalization, or: layernorm_decomposed}, {op: Gelu, or: [erf_gelu, "
                                "com.microsoft:Gelu, com.microsoft:FastGelu]}]");
  g_assert_cmpint (rule->priority, ==, 100);
  /* A file in our own format is not converted. */
  g_assert_true (g_file_set_contents (path, "version: 1\nrules: []\n", -1, NULL));
  g_clear_pointer (&text, g_free);
  text = fw_rule_convert_file (path, &error);
  g_assert_null (text);
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  fw_test_remove_dir (dir);
}

typedef struct
{
  const char *yaml;
  const char *expect; /* a substring of the message, place first */
} BadCase;

static const BadCase bad_cases[] = {
  { "fusion_rules:\n  - name: a\n    pattern: [MatMul, BiasAdd, Relux]\n",
    "bad.yaml:3:32: unknown op “Relux” in a fusion_rules pattern (did you mean “Relu”? known: BiasAdd, " },
  { "fusion_rules:\n  - name: a\n    pattern: [MatMul]\n    conditions: [{matmul_q_dim_ge: 3}]\n",
    "bad.yaml:4:19: unknown condition “matmul_q_dim_ge” (known: matmul_m|n|k_dim_ge" },
  { "fusion_rules:\n  - name: a\n    pattern: [MatMul]\n    conditions: [{bias_dtype_eq: float17}]\n",
    "bad.yaml:4:34: unknown dtype “float17”" },
  { "fusion_rules:\n  - name: a\n    pattern: [MatMul]\n    conditions: [{matmul_m_dim_ge: many}]\n",
    "bad.yaml:4:36: “many” is not a whole number" },
  { "fusion_rules:\n  - name: a\n    pattern: [MatMul]\n    strategy: fast\n",
    "bad.yaml:4:15: unknown strategy “fast”" },
  { "fusion_rules:\n  - name: a\n    pattern: [MatMul]\n    stratgy: sequential\n", "bad.yaml:4:5: unknown key “stratgy” (did you mean “strategy”?)" },
  { "fusion_rules:\n  - name: a\n    pattern: []\n", "bad.yaml:3:14: rule “a” has an empty pattern" },
  { "fusion_rules:\n  - pattern: [MatMul]\n", "bad.yaml:2:5: a rule without a “name”" },
  { "fusion_rules:\n  - {name: a, pattern: [Relu]}\n  - {name: a, pattern: [Relu]}\n",
    "bad.yaml:3:12: a second rule named “a”" },
  { "fusion_rules: {name: a}\n", "bad.yaml:1:15: “fusion_rules” must be a list" },
  { "fusion_rules: []\nversion: 1\n", "bad.yaml:2:1: unknown key “version” (allowed: fusion_rules)" },
};

static void
test_errors (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwRuleSet) set = fw_rule_set_new ();
      const char *yaml = bad_cases[i].yaml;

      g_assert_false (fw_rule_set_load_data (set, "bad.yaml", yaml, strlen (yaml), &error));
      g_assert_nonnull (error);
      if (!g_str_has_prefix (error->message, bad_cases[i].expect))
        g_error ("case %u: “%s” does not start with “%s”", i, error->message, bad_cases[i].expect);
      /* A failed load changes nothing. */
      g_assert_cmpuint (fw_rule_set_get_n_rules (set), ==, 0);
    }
}

/* The other forms a condition takes: upper bounds, exact dims, other operands, fp16 spellings. */
static void
test_conditions (void)
{
  static const char yaml[] =
    "fusion_rules:\n"
    "  - name: small_mm\n"
    "    pattern: [MatMul, BiasAdd, ReLU]\n"
    "    conditions: [{matmul_m_dim_le: 128}, {matmul_n_dim_eq: 32}, {matmul_k_dim_gt: 63},\n"
    "                 {weight_dtype_eq: fp16}, {input_dtype_eq: half}, {output_elements_dim_lt: 100000}]\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(FwRuleSet) set = fw_rule_set_new ();
  g_autoptr(FwModel) fits = mlp (FW_DTYPE_FLOAT16, 128);
  g_autoptr(FwModel) big = mlp (FW_DTYPE_FLOAT16, 256);
  g_autoptr(JsonNode) rfits = NULL, rbig = NULL;
  JsonObject *c, *miss;

  g_assert_true (fw_rule_set_load_builtin (set, &error));
  g_assert_true (fw_rule_set_load_data (set, "c.yaml", yaml, strlen (yaml), &error));
  g_assert_no_error (error);
  rfits = plan_report (fits, set);
  rbig = plan_report (big, set);
  c = candidate_with (rfits, "/mlp/Relu");
  g_assert_cmpstr (json_object_get_string_member (c, "pattern"), ==, "small_mm");
  c = candidate_with (rbig, "/mlp/Relu");
  miss = json_array_get_object_element (json_object_get_array_member (c, "rules_not_met"), 0);
  g_assert_cmpstr (json_object_get_string_member (miss, "condition"), ==, "M is 256, above 128");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/rules/dialect/articles-hold", test_articles_hold);
  g_test_add_func ("/core/rules/dialect/articles-unmet", test_articles_unmet);
  g_test_add_func ("/core/rules/dialect/convert", test_convert);
  g_test_add_func ("/core/rules/dialect/errors", test_errors);
  g_test_add_func ("/core/rules/dialect/conditions", test_conditions);
  return g_test_run ();
}
