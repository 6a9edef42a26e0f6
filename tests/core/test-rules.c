/* test-rules.c: fusion rule sets: the shipped rules, matching on small graphs, priorities, `when`,
 * forbid, overrides, and every validation error with its place. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "rules/fw-rules.h"

static const char * const seed_names[] = {
  "matmul_bias_relu", "matmul_bias_gelu", "conv_bn_relu", "layernorm", "softmax", "attention_scores",
  "hardswish", "elementwise_chain", "elementwise_reduce",
};

/* Graphs */

static gboolean
is_binary (const char *op)
{
  static const char * const binary[] = { "Add", "Sub", "Mul", "Div", "Pow", "MatMul", "Gemm", NULL };
  return g_strv_contains (binary, op);
}

static void
add_const (FwGraph *g, const char *name, guint rank, const gint64 *dims)
{
  gint64 n = 1;
  g_autofree float *values = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  values = g_new0 (float, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = 0.5f;
  t = fw_tensor_new_float (rank, dims, values);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

/* x → ops[0] → ops[1] → … on x: dims (float32 unless dtype given). Binary ops take a scalar constant, MatMul
 * and Gemm a [last, last] weight. "dom:Op" makes a node of another domain. Shapes are inferred. */
static FwModel *
chain_model (const char * const *ops, guint rank, const FwDim *dims, FwDType dtype)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autofree char *prev = g_strdup ("x");
  gint64 last = dims[rank - 1].value;
  gint64 w_dims[2] = { last, last };
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (fw_graph_add_input (g, "x", dtype, (gint) rank, dims, NULL));
  add_const (g, "c", 0, NULL);
  add_const (g, "w", 2, w_dims);
  for (guint i = 0; ops[i]; i++)
    {
      g_autofree char *out = g_strdup_printf ("t%u", i);
      g_autofree char *name = g_strdup_printf ("/n%u", i);
      g_auto(GStrv) parts = g_strsplit (ops[i], ":", 2);
      const char *op = parts[1] ? parts[1] : parts[0];
      const char *domain = parts[1] ? parts[0] : "";
      const char *second = strcmp (op, "MatMul") == 0 || strcmp (op, "Gemm") == 0 ? "w" : "c";
      const char *ins[2] = { prev, second };
      const char *outs[1] = { out };
      FwNode *node = fw_graph_add_node (g, op, domain, name, is_binary (op) ? 2 : 1, ins, 1, outs, NULL);

      g_assert_nonnull (node);
      if (g_str_has_prefix (op, "Reduce"))
        {
          gint64 axes[1] = { -1 };
          fw_node_set_attr_ints (node, "axes", 1, axes);
        }
      g_free (prev);
      prev = g_strdup (out);
    }
  g_assert_true (fw_graph_add_output (g, prev, NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  fw_test_infer (model, NULL, NULL, NULL); /* unknown ops stay unknown; that is fine here */
  return model;
}

static FwModel *
chain_2d (const char * const *ops, gint64 rows, gint64 cols)
{
  FwDim dims[2] = { FW_DIM_STATIC (rows), FW_DIM_STATIC (cols) };
  return chain_model (ops, 2, dims, FW_DTYPE_FLOAT);
}

static FwNode **
nodes_of (FwModel *model, guint *n)
{
  return fw_graph_get_order (fw_model_get_graph (model), n);
}

static const char *
match_name (const FwRuleSet *set, FwModel *model)
{
  guint n;
  FwNode **nodes = nodes_of (model, &n);
  const FwRule *rule = fw_rule_set_match (set, nodes, n);
  return rule ? rule->name : NULL;
}

static const char *
match_ops (const FwRuleSet *set, const char * const *ops)
{
  /* The models live as long as the test binary: the returned name belongs to the set, not the model. */
  g_autoptr(FwModel) model = chain_2d (ops, 4, 8);
  return match_name (set, model);
}

/* Conv → BatchNormalization → act on [1, 3, 16, 16] with 8 output channels. */
static FwModel *
conv_model (const char *act)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[4] = { FW_DIM_STATIC (1), FW_DIM_STATIC (3), FW_DIM_STATIC (16), FW_DIM_STATIC (16) };
  gint64 w_dims[4] = { 8, 3, 3, 3 }, c_dims[1] = { 8 }, pads[4] = { 1, 1, 1, 1 };
  const char *conv_in[2] = { "x", "w" }, *conv_out[1] = { "y0" };
  const char *bn_in[5] = { "y0", "s", "b", "m", "v" }, *bn_out[1] = { "y1" };
  const char *act_in[1] = { "y1" }, *act_out[1] = { "y2" };
  g_autoptr(GError) error = NULL;
  FwNode *conv;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 4, dims, NULL));
  add_const (g, "w", 4, w_dims);
  add_const (g, "s", 1, c_dims);
  add_const (g, "b", 1, c_dims);
  add_const (g, "m", 1, c_dims);
  add_const (g, "v", 1, c_dims);
  conv = fw_graph_add_node (g, "Conv", "", "/conv", 2, conv_in, 1, conv_out, NULL);
  fw_node_set_attr_ints (conv, "pads", 4, pads);
  g_assert_nonnull (fw_graph_add_node (g, "BatchNormalization", "", "/bn", 5, bn_in, 1, bn_out, NULL));
  g_assert_nonnull (fw_graph_add_node (g, act, "", "/act", 1, act_in, 1, act_out, NULL));
  g_assert_true (fw_graph_add_output (g, "y2", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static FwRuleSet *
builtin (void)
{
  FwRuleSet *set = fw_rule_set_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_rule_set_load_builtin (set, &error));
  g_assert_no_error (error);
  return set;
}

static FwRuleSet *
set_from (const char *yaml)
{
  FwRuleSet *set = fw_rule_set_new ();
  g_autoptr(GError) error = NULL;

  if (!fw_rule_set_load_data (set, "t.yaml", yaml, strlen (yaml), &error))
    g_error ("rules do not load: %s", error->message);
  return set;
}

/* Tests */

static void
test_builtin (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  const FwRule *gelu;
  g_autofree char *text = NULL;
  guint lo, hi;

  for (guint k = 0; k < G_N_ELEMENTS (seed_names); k++)
    {
      const FwRule *rule = fw_rule_set_lookup (set, seed_names[k]);
      g_assert_nonnull (rule);
      g_assert_false (rule->is_subpattern);
      g_assert_true (rule->enabled);
      g_assert_true (rule->action == FW_RULE_PREFER);
      g_assert_nonnull (fw_rule_get_description (rule));
      g_assert_true (g_str_has_prefix (rule->file, "resource:///org/fusionworkbench/rules/"));
      g_assert_cmpuint (rule->line, >, 0);
    }
  g_assert_cmpuint (fw_rule_set_get_n_rules (set), >=, G_N_ELEMENTS (seed_names));
  for (guint k = 0; k < fw_rule_set_get_n_rules (set); k++)
    g_assert_nonnull (fw_rule_set_get_rule (set, k)->name);
  gelu = fw_rule_set_lookup (set, "matmul_bias_gelu");
  g_assert_true (gelu->strategy == FW_RULE_STRATEGY_COMPUTE_MEMORY_PAIRING);
  g_assert_cmpstr (fw_rule_strategy_name (gelu->strategy), ==, "compute_memory_pairing");
  text = fw_rule_format_pattern (gelu);
  g_assert_cmpstr (text, ==, "[MatMul, Add, {op: Gelu, or: [erf_gelu, com.microsoft:Gelu]}]");
  fw_rule_get_length_range (gelu, &lo, &hi);
  g_assert_cmpuint (lo, ==, 3);
  g_assert_cmpuint (hi, ==, 7);
  g_assert_true (fw_rule_set_lookup (set, "erf_gelu")->is_subpattern);
  g_assert_null (fw_rule_set_lookup (set, "no_such_rule"));
}

static void
test_match_gelu (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  const char *erf[] = { "MatMul", "Add", "Div", "Erf", "Add", "Mul", "Mul", NULL };
  const char *one[] = { "MatMul", "Add", "Gelu", NULL };
  const char *ms[] = { "MatMul", "Add", "com.microsoft:Gelu", NULL };
  const char *short_erf[] = { "MatMul", "Add", "Div", "Erf", "Add", "Mul", NULL };
  const char *relu[] = { "MatMul", "Add", "Relu", NULL };

  g_assert_cmpstr (match_ops (set, erf), ==, "matmul_bias_gelu");
  g_assert_cmpstr (match_ops (set, one), ==, "matmul_bias_gelu");
  g_assert_cmpstr (match_ops (set, ms), ==, "matmul_bias_gelu");
  g_assert_null (match_ops (set, short_erf));
  g_assert_cmpstr (match_ops (set, relu), ==, "matmul_bias_relu");
}

static void
test_match_layernorm (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  const char *ln[] = { "ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt", "Div", "Mul", "Add", NULL };
  const char *ln_mul[] = { "ReduceMean", "Sub", "Mul", "ReduceMean", "Add", "Sqrt", "Div", "Mul", "Add", NULL };
  const char *ln_cut[] = { "ReduceMean", "Sub", "Pow", "ReduceMean", "Add", "Sqrt", "Div", "Mul", NULL };

  g_assert_cmpstr (match_ops (set, ln), ==, "layernorm");
  g_assert_cmpstr (match_ops (set, ln_mul), ==, "layernorm");
  g_assert_null (match_ops (set, ln_cut));
}

static void
test_match_conv (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  g_autoptr(FwModel) relu = conv_model ("Relu");
  g_autoptr(FwModel) clip = conv_model ("Clip");
  g_autoptr(FwModel) sigmoid = conv_model ("Sigmoid");

  g_assert_cmpstr (match_name (set, relu), ==, "conv_bn_relu");
  g_assert_cmpstr (match_name (set, clip), ==, "conv_bn_relu");
  g_assert_null (match_name (set, sigmoid));
}

static void
test_match_seeds (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  const char *attn[] = { "MatMul", "Div", "Add", "Softmax", NULL };
  const char *attn_mul[] = { "MatMul", "Mul", "Add", "ReduceMax", "Sub", "Exp", "ReduceSum", "Div", NULL };
  const char *softmax[] = { "ReduceMax", "Sub", "Exp", "ReduceSum", "Div", NULL };
  const char *hswish[] = { "HardSigmoid", "Mul", NULL };
  const char *hswish_clip[] = { "Add", "Clip", "Mul", "Div", NULL };
  const char *chain[] = { "Add", "Relu", "Mul", "Sigmoid", NULL };
  const char *single[] = { "Relu", NULL };
  const char *ew_reduce[] = { "Mul", "Exp", "ReduceSum", "Sqrt", NULL };
  const char *reduce_epi[] = { "ReduceSum", "Sqrt", "Mul", "Add", NULL };
  const char *reduce_long_epi[] = { "ReduceSum", "Sqrt", "Mul", "Add", "Relu", NULL };
  const char *two_reduce[] = { "Mul", "ReduceSum", "Add", "ReduceSum", NULL };
  const char *injective[] = { "Add", "Transpose", "Mul", NULL };

  g_assert_cmpstr (match_ops (set, attn), ==, "attention_scores");
  g_assert_cmpstr (match_ops (set, attn_mul), ==, "attention_scores");
  g_assert_cmpstr (match_ops (set, softmax), ==, "softmax");
  g_assert_cmpstr (match_ops (set, hswish), ==, "hardswish");
  g_assert_cmpstr (match_ops (set, hswish_clip), ==, "hardswish");
  g_assert_cmpstr (match_ops (set, chain), ==, "elementwise_chain");
  g_assert_null (match_ops (set, single));
  g_assert_cmpstr (match_ops (set, ew_reduce), ==, "elementwise_reduce");
  g_assert_cmpstr (match_ops (set, reduce_epi), ==, "elementwise_reduce");
  g_assert_null (match_ops (set, reduce_long_epi));
  g_assert_null (match_ops (set, two_reduce));
  g_assert_null (match_ops (set, injective));
}

static void
test_match_long (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  g_autoptr(FwModel) m64 = fw_test_long_chain (64);
  g_autoptr(FwModel) m65 = fw_test_long_chain (65);
  guint n;
  FwNode **nodes;

  g_assert_true (fw_test_infer (m64, NULL, NULL, NULL));
  g_assert_cmpstr (match_name (set, m64), ==, "elementwise_chain");
  g_assert_null (match_name (set, m65));
  nodes = nodes_of (m64, &n);
  g_assert_null (fw_rule_set_match (set, nodes, 0));
  g_assert_null (fw_rule_set_forbids (set, nodes, n)); /* the shipped set forbids nothing */
}

static void
test_classes (void)
{
  g_autoptr(FwRuleSet) set = set_from (
    "version: 1\n"
    "patterns:\n"
    "  act: [{or: [Relu, Sigmoid, Tanh]}]\n"
    "rules:\n"
    "  - name: producer_epilogue\n"
    "    pattern: [class:out-fusable, {class: broadcast, repeat: [0, 2]}, act]\n"
    "  - name: norm_then_move\n"
    "    pattern: [class:reduce, {op: class:injective, repeat: 2}]\n"
    "  - name: custom_domain\n"
    "    pattern: [\"com.example:Fancy\", Relu]\n");
  const char *a[] = { "MatMul", "Relu", NULL };
  const char *b[] = { "Gemm", "Add", "Mul", "Tanh", NULL };
  const char *c[] = { "Gemm", "Add", "Mul", "Sub", "Tanh", NULL };
  const char *d[] = { "Softmax", "Transpose", "Reshape", NULL };
  const char *e[] = { "Softmax", "Transpose", NULL };
  const char *f[] = { "com.example:Fancy", "Relu", NULL };
  const char *g[] = { "com.other:Fancy", "Relu", NULL };

  g_assert_cmpstr (match_ops (set, a), ==, "producer_epilogue");
  g_assert_cmpstr (match_ops (set, b), ==, "producer_epilogue");
  g_assert_null (match_ops (set, c));
  g_assert_cmpstr (match_ops (set, d), ==, "norm_then_move");
  g_assert_null (match_ops (set, e));
  g_assert_cmpstr (match_ops (set, f), ==, "custom_domain");
  g_assert_null (match_ops (set, g));
}

static void
test_priority (void)
{
  g_autoptr(FwRuleSet) set = set_from (
    "version: 1\n"
    "rules:\n"
    "  - {name: exact, pattern: [Add, Relu], priority: 1}\n"
    "  - {name: by_class, pattern: [class:broadcast, class:elementwise], priority: 5}\n"
    "  - {name: zz_tie_long, pattern: [Mul, {op: Sigmoid, repeat: [1, 2]}], priority: 6}\n"
    "  - {name: aa_tie_short, pattern: [{op: Mul, repeat: [0, 2]}, Sigmoid], priority: 6}\n"
    "  - {name: b_same, pattern: [Sub, Exp], priority: 7}\n"
    "  - {name: a_same, pattern: [Sub, Exp], priority: 7}\n"
    "  - {name: off, pattern: [Transpose, Exp], priority: 100, enabled: false}\n"
    "  - {name: low, pattern: [Transpose, Exp], priority: -5}\n");
  const char *add_relu[] = { "Add", "Relu", NULL };
  const char *mul_sig[] = { "Mul", "Sigmoid", NULL };
  const char *sub_exp[] = { "Sub", "Exp", NULL };
  const char *div_exp[] = { "Transpose", "Exp", NULL };

  g_assert_cmpstr (match_ops (set, add_relu), ==, "by_class");  /* higher priority wins */
  g_assert_cmpstr (match_ops (set, mul_sig), ==, "zz_tie_long"); /* equal priority: longer shortest... */
  g_assert_cmpstr (match_ops (set, sub_exp), ==, "a_same");      /* ...then name */
  g_assert_cmpstr (match_ops (set, div_exp), ==, "low");         /* disabled rules never match */
  g_assert_false (fw_rule_set_lookup (set, "off")->enabled);
}

static void
test_when (void)
{
  g_autoptr(FwRuleSet) set = set_from (
    "version: 1\n"
    "rules:\n"
    "  - name: big_matmul\n"
    "    pattern: [MatMul, Relu]\n"
    "    when: {min_dim: {M: 128, K: 16}, dtype: [float16, float32]}\n"
    "  - name: half_only\n"
    "    pattern: [Add, Relu]\n"
    "    when: {dtype: float16}\n"
    "  - name: wide_conv\n"
    "    pattern: [Conv, BatchNormalization, Relu]\n"
    "    when: {min_dim: {C: 8, H: 16, W: 16, elements: 2048}}\n"
    "  - name: huge_conv\n"
    "    pattern: [Conv, BatchNormalization, Relu]\n"
    "    when: {min_dim: {C: 9}}\n");
  const char *mm[] = { "MatMul", "Relu", NULL };
  const char *add[] = { "Add", "Relu", NULL };
  FwDim batched[3] = { FW_DIM_STATIC (2), FW_DIM_STATIC (64), FW_DIM_STATIC (16) };
  FwDim symbolic[3] = { { -1, "batch" }, FW_DIM_STATIC (64), FW_DIM_STATIC (16) };
  FwDim narrow[2] = { FW_DIM_STATIC (256), FW_DIM_STATIC (8) };
  FwDim half[2] = { FW_DIM_STATIC (4), FW_DIM_STATIC (8) };
  g_autoptr(FwModel) small = chain_2d (mm, 64, 16);
  g_autoptr(FwModel) large = chain_2d (mm, 128, 16);
  g_autoptr(FwModel) batch = chain_model (mm, 3, batched, FW_DTYPE_FLOAT);
  g_autoptr(FwModel) sym = chain_model (mm, 3, symbolic, FW_DTYPE_FLOAT);
  g_autoptr(FwModel) thin = chain_model (mm, 2, narrow, FW_DTYPE_FLOAT);
  g_autoptr(FwModel) f16 = chain_model (add, 2, half, FW_DTYPE_FLOAT16);
  g_autoptr(FwModel) f32 = chain_model (add, 2, half, FW_DTYPE_FLOAT);
  g_autoptr(FwModel) conv = conv_model ("Relu");
  const FwRule *big = fw_rule_set_lookup (set, "big_matmul");

  g_assert_cmpint (*(gint64 *) g_hash_table_lookup (big->min_dim, "M"), ==, 128);
  g_assert_cmpuint (big->dtype_mask, ==, (1u << FW_DTYPE_FLOAT16) | (1u << FW_DTYPE_FLOAT));
  g_assert_null (match_name (set, small));                     /* M = 64 */
  g_assert_cmpstr (match_name (set, large), ==, "big_matmul"); /* M = 128 */
  g_assert_cmpstr (match_name (set, batch), ==, "big_matmul"); /* M = 2 × 64: batch dims fold into M */
  g_assert_null (match_name (set, sym));                       /* M unknown: not met */
  g_assert_null (match_name (set, thin));                      /* K = 8 */
  g_assert_cmpstr (match_name (set, f16), ==, "half_only");
  g_assert_null (match_name (set, f32));
  g_assert_cmpstr (match_name (set, conv), ==, "wide_conv");   /* [1, 8, 16, 16]: 2048 elements */
}

static void
test_forbid (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  g_autoptr(GError) error = NULL;
  const char *yaml =
    "version: 1\n"
    "rules:\n"
    "  - name: no_softmax\n"
    "    action: forbid\n"
    "    pattern: [Softmax]\n"
    "  - name: no_exp_then_reduce\n"
    "    action: forbid\n"
    "    pattern: [Exp, class:reduce]\n"
    "  - name: no_big_sigmoid\n"
    "    action: forbid\n"
    "    pattern: [Sigmoid]\n"
    "    when: {min_dim: {elements: 1000}}\n";
  const char *attn[] = { "MatMul", "Div", "Add", "Softmax", NULL };
  const char *decomposed[] = { "ReduceMax", "Sub", "Exp", "ReduceSum", "Div", NULL };
  const char *exp_late[] = { "Exp", "Add", "ReduceSum", NULL };
  const char *sig[] = { "Add", "Sigmoid", "Mul", NULL };
  g_autoptr(FwModel) m1 = NULL, m2 = NULL, m3 = NULL, small = NULL, large = NULL, chain = NULL;
  g_autoptr(FwModel) odd = NULL;
  g_autofree FwNode **mixed = NULL;
  FwNode **nodes, **odd_nodes;
  guint n, n_odd;
  const FwRule *rule;

  g_assert_true (fw_rule_set_load_data (set, "team.yaml", yaml, strlen (yaml), &error));
  g_assert_no_error (error);
  m1 = chain_2d (attn, 4, 8);
  nodes = nodes_of (m1, &n);
  rule = fw_rule_set_forbids (set, nodes, n);
  g_assert_nonnull (rule);
  g_assert_cmpstr (rule->name, ==, "no_softmax");
  g_assert_true (rule->action == FW_RULE_FORBID);
  g_assert_cmpstr (fw_rule_set_match (set, nodes, n)->name, ==, "attention_scores"); /* match ignores forbids */
  g_assert_cmpstr (fw_rule_set_forbids (set, nodes + 3, 1)->name, ==, "no_softmax");
  g_assert_null (fw_rule_set_forbids (set, nodes, 3));

  m2 = chain_2d (decomposed, 4, 8);
  nodes = nodes_of (m2, &n);
  g_assert_cmpstr (fw_rule_set_forbids (set, nodes, n)->name, ==, "no_exp_then_reduce");
  m3 = chain_2d (exp_late, 4, 8);
  nodes = nodes_of (m3, &n);
  g_assert_null (fw_rule_set_forbids (set, nodes, n)); /* not contiguous */

  small = chain_2d (sig, 4, 8);
  large = chain_2d (sig, 40, 40);
  nodes = nodes_of (small, &n);
  g_assert_null (fw_rule_set_forbids (set, nodes, n));
  nodes = nodes_of (large, &n);
  g_assert_cmpstr (fw_rule_set_forbids (set, nodes, n)->name, ==, "no_big_sigmoid");

  /* A long candidate (the matcher works in windows of 127 nodes): the run is found anywhere. */
  chain = fw_test_long_chain (300);
  nodes = nodes_of (chain, &n);
  g_assert_cmpuint (n, ==, 300);
  g_assert_null (fw_rule_set_forbids (set, nodes, n));
  odd = chain_2d (decomposed, 4, 8);
  odd_nodes = nodes_of (odd, &n_odd);
  mixed = g_memdup2 (nodes, n * sizeof (FwNode *));
  for (guint at = 0; at + 1 < n; at += 37)
    {
      memcpy (mixed, nodes, n * sizeof (FwNode *));
      mixed[at] = odd_nodes[2];     /* Exp */
      mixed[at + 1] = odd_nodes[3]; /* ReduceSum */
      rule = fw_rule_set_forbids (set, mixed, n);
      g_assert_nonnull (rule);
      g_assert_cmpstr (rule->name, ==, "no_exp_then_reduce");
    }
  memcpy (mixed, nodes, n * sizeof (FwNode *));
  mixed[n - 1] = odd_nodes[2]; /* Exp at the very end: no reduce after it */
  g_assert_null (fw_rule_set_forbids (set, mixed, n));
  mixed[n - 2] = odd_nodes[2];
  mixed[n - 1] = odd_nodes[3];
  g_assert_nonnull (fw_rule_set_forbids (set, mixed, n));
}

static void
write_file (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
}

static void
test_override (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *file_b = g_build_filename (dir, "20-b.yaml", NULL);
  g_autoptr(GError) error = NULL;
  const char *erf[] = { "MatMul", "Add", "Div", "Erf", "Add", "Mul", "Mul", NULL };
  const char *tanh_gelu[] = { "MatMul", "Add", "Tanh", "Mul", NULL };
  const char *relu[] = { "MatMul", "Add", "Relu", NULL };
  const FwRule *rule;
  guint n_before = fw_rule_set_get_n_rules (set);

  /* 10-a disables matmul_bias_relu; 20-b (later in name order) redefines erf_gelu, which the shipped
   * matmul_bias_gelu uses, and raises the priority of softmax. Other files in the folder are ignored. */
  write_file (dir, "10-a.yaml",
              "version: 1\n"
              "rules:\n"
              "  - {name: matmul_bias_relu, pattern: [MatMul, Add, Relu], enabled: false}\n"
              "  - {name: softmax, pattern: [Softmax], priority: 1}\n");
  write_file (dir, "20-b.yaml",
              "version: 1\n"
              "patterns:\n"
              "  erf_gelu: [Tanh, Mul]\n"
              "rules:\n"
              "  - {name: softmax, pattern: [Softmax], priority: 77}\n");
  write_file (dir, "notes.txt", "not: [rules\n");
  g_assert_true (fw_rule_set_load_path (set, dir, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_rule_set_get_n_rules (set), ==, n_before);
  rule = fw_rule_set_lookup (set, "softmax");
  g_assert_cmpint (rule->priority, ==, 77);
  g_assert_cmpstr (rule->file, ==, file_b);
  g_assert_cmpuint (rule->line, ==, 5);
  g_assert_false (fw_rule_set_lookup (set, "matmul_bias_relu")->enabled);
  g_assert_null (match_ops (set, relu));
  g_assert_null (match_ops (set, erf));
  g_assert_cmpstr (match_ops (set, tanh_gelu), ==, "matmul_bias_gelu");

  /* A single file, loaded after: a new rule is added at the end. */
  g_assert_true (fw_rule_set_load_path (set, file_b, &error));
  write_file (dir, "30-c.yaml", "version: 1\nrules:\n  - {name: extra, pattern: [Relu, Relu]}\n");
  {
    g_autofree char *file_c = g_build_filename (dir, "30-c.yaml", NULL);
    g_assert_true (fw_rule_set_load_path (set, file_c, &error));
    g_assert_no_error (error);
  }
  g_assert_cmpuint (fw_rule_set_get_n_rules (set), ==, n_before + 1);
  g_assert_cmpstr (fw_rule_set_get_rule (set, n_before)->name, ==, "extra");
  fw_test_remove_dir (dir);
}

static void
test_load_errors_io (void)
{
  g_autoptr(FwRuleSet) set = fw_rule_set_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();

  g_assert_false (fw_rule_set_load_path (set, "/nonexistent/rules.yaml", &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_clear_error (&error);
  /* An empty folder is an empty rule set; an empty file is a mistake (a truncated copy, a wrong path). */
  g_assert_true (fw_rule_set_load_path (set, dir, &error));
  g_assert_no_error (error);
  g_assert_false (fw_rule_set_load_data (set, "empty.yaml", "", 0, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_true (g_str_has_prefix (error->message, "empty.yaml:1:1: "));
  g_clear_error (&error);
  /* A second document is refused, not ignored. */
  g_assert_false (fw_rule_set_load_data (set, "two.yaml", "version: 1\n---\nrules: 3\n", 23, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "second YAML document"));
  g_clear_error (&error);
  g_assert_cmpuint (fw_rule_set_get_n_rules (set), ==, 0);
  g_assert_null (fw_rule_set_match (set, NULL, 0));
  /* Malformed YAML. */
  g_assert_false (fw_rule_set_load_data (set, "bad.yaml", "rules: [\n", 9, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_true (g_str_has_prefix (error->message, "bad.yaml:"));
  fw_test_remove_dir (dir);
}

typedef struct
{
  const char *yaml;
  const char *where;    /* "t.yaml:LINE:COL: " */
  const char *message;  /* a part of the message: the offending name */
  const char *also;     /* another part (a suggestion), or NULL */
} BadCase;

#define V "version: 1\n"

static const BadCase bad_cases[] = {
  /* unknown keys, with suggestions */
  { V "rule:\n  - {name: a, pattern: [Relu]}\n", "t.yaml:2:1: ", "unknown key “rule”", "did you mean “rules”" },
  { V "rules:\n  - {name: a, pattern: [Relu], priorty: 3}\n", "t.yaml:3:32: ", "“priorty”", "“priority”" },
  { V "rules:\n  - {name: a, pattern: [{op: Relu, repeats: 2}]}\n", "t.yaml:3:36: ", "“repeats”",
    "“repeat”" },
  { V "rules:\n  - {name: a, pattern: [Relu], when: {min_dims: {M: 1}}}\n", "t.yaml:3:39: ", "“min_dims”",
    "“min_dim”" },
  { V "rules:\n  - {name: a, pattern: [MatMul], when: {min_dim: {Q: 1}}}\n", "t.yaml:3:51: ", "“Q”", NULL },
  { V "rules:\n  - {name: a, pattern: [MatMul], when: {max_dim: {hiden: 1}}}\n", "t.yaml:3:51: ", "“hiden”",
    "“hidden”" },
  { V "rules:\n  - {name: a, pattern: [MatMul], when: {operand_dtype: {biass: float16}}}\n", "t.yaml:3:57: ",
    "“biass”", "“bias”" },
  { V "rules:\n  - {name: a, pattern: [MatMul], when: {operand_dtype: {bias: float17}}}\n", "t.yaml:3:63: ",
    "unknown dtype “float17”", NULL },
  /* missing and empty parts */
  { V "rules:\n  - pattern: [Relu]\n", "t.yaml:3:5: ", "needs a “name”", NULL },
  { V "rules:\n  - name: lonely\n    priority: 3\n", "t.yaml:3:5: ", "“lonely” has no “pattern”", NULL },
  { V "rules:\n  - name: hollow\n    pattern: []\n", "t.yaml:4:14: ", "“hollow” has an empty pattern", NULL },
  { V "patterns:\n  nothing: []\n", "t.yaml:3:12: ", "“nothing” has an empty pattern", NULL },
  { V "rules:\n  - {name: a, pattern: [{repeat: 2}]}\n", "t.yaml:3:25: ", "needs “op”, “class” or “or”", NULL },
  { V "rules:\n  - {name: opt, pattern: [{op: Relu, repeat: [0, 2]}]}\n", "t.yaml:3:26: ",
    "“opt” can match no node", NULL },
  /* unknown op types, classes and sub-patterns */
  { V "rules:\n  - {name: a, pattern: [MatMul, Gelux]}\n", "t.yaml:3:33: ", "unknown op type or sub-pattern “Gelux”",
    "did you mean “Gelu”" },
  { V "rules:\n  - {name: a, pattern: [matmul, Add]}\n", "t.yaml:3:25: ", "“matmul”", "did you mean “MatMul”" },
  { V "rules:\n  - {name: a, pattern: [\"ai.onnx:Relux\"]}\n", "t.yaml:3:25: ", "unknown op type “Relux”",
    "“Relu”" },
  { V "rules:\n  - {name: a, pattern: [class:elementwize]}\n", "t.yaml:3:25: ", "unknown op class “elementwize”",
    "“elementwise”" },
  { V "rules:\n  - {name: a, pattern: [{class: everything}]}\n", "t.yaml:3:33: ", "unknown op class “everything”",
    "one of elementwise" },
  { V "patterns:\n  erf_gelu: [Div, Erf, Add, Mul, Mul]\nrules:\n  - {name: a, pattern: [MatMul, {op: Gelu, or: erf_gleu}]}\n",
    "t.yaml:5:48: ", "“erf_gleu”", "did you mean “erf_gelu”" },
  { V "rules:\n  - {name: r1, pattern: [Relu]}\n  - {name: r2, pattern: [r1, Relu]}\n", "t.yaml:4:26: ",
    "“r1” is a rule, not a sub-pattern", NULL },
  { V "patterns:\n  Softmax: [Exp]\n", "t.yaml:3:3: ", "“Softmax” is an op type", NULL },
  /* cycles and depth */
  { V "patterns:\n  a: [Relu, b]\n  b: [Exp, {op: Relu, or: a}]\n", "t.yaml:4:27: ", "cycle: a → b → a", NULL },
  { V "patterns:\n  self: [Relu, self]\n", "t.yaml:3:16: ", "cycle: self → self", NULL },
  { V "rules:\n  - {name: x, pattern: [p0]}\n"
      "patterns:\n  p0: [p1]\n  p1: [p2]\n  p2: [p3]\n  p3: [p4]\n  p4: [p5]\n  p5: [p6]\n  p6: [p7]\n"
      "  p7: [p8]\n  p8: [p9]\n  p9: [p10]\n  p10: [p11]\n  p11: [p12]\n  p12: [p13]\n  p13: [p14]\n"
      "  p14: [p15]\n  p15: [p16]\n  p16: [p17]\n  p17: [Relu]\n",
    "t.yaml:20:9: ", "nest more than 16 deep", "p0 → p1 → p2" },
  { V "patterns:\n  a0: [a1, a1]\n  a1: [a2, a2]\n  a2: [a3, a3]\n  a3: [a4, a4]\n  a4: [a5, a5]\n"
      "  a5: [a6, a6]\n  a6: [Relu, Relu]\n", "t.yaml:3:7: ", "“a0” can expand to more than 64 nodes", NULL },
  { V "patterns:\n  a: [{or: [b, b, b, b, b, b, b, b]}]\n  b: [{or: [c, c, c, c, c, c, c, c]}]\n"
      "  c: [{or: [d, d, d, d, d, d, d, d]}]\n  d: [Relu, {op: Relu, repeat: [0, 8]}]\n", "t.yaml:3:6: ",
    "“a” is too complex", NULL },
  { V "rules:\n  - {name: long, pattern: [{op: Add, repeat: 40}, {op: Relu, repeat: [1, 40]}]}\n", "t.yaml:3:27: ",
    "“long” can expand to more than 64 nodes", NULL },
  /* duplicates */
  { V "rules:\n  - {name: twice, pattern: [Relu]}\n  - {name: twice, pattern: [Exp]}\n", "t.yaml:4:12: ",
    "“twice” is already defined on line 3", NULL },
  { V "patterns:\n  both: [Relu]\nrules:\n  - {name: both, pattern: [Exp]}\n", "t.yaml:5:12: ",
    "“both” is already defined on line 3", NULL },
  /* bad values and types */
  { V "rules:\n  - {name: a, pattern: [Relu], strategy: fastest}\n", "t.yaml:3:42: ", "unknown strategy “fastest”",
    "one of compute_memory_pairing" },
  { V "rules:\n  - {name: a, pattern: [Relu], strategy: sequental}\n", "t.yaml:3:42: ", "“sequental”",
    "did you mean “sequential”" },
  { V "rules:\n  - {name: a, pattern: [Relu], action: deny}\n", "t.yaml:3:40: ", "unknown action “deny”", "forbid" },
  { V "rules:\n  - {name: a, pattern: [Relu], priority: high}\n", "t.yaml:3:42: ", "“high” is not a whole number",
    NULL },
  { V "rules:\n  - {name: a, pattern: [Relu], priority: [1]}\n", "t.yaml:3:42: ", "must be a scalar", NULL },
  { V "rules:\n  - {name: a, pattern: [Relu], enabled: maybe}\n", "t.yaml:3:41: ", "“maybe” is not true or false",
    NULL },
  { V "rules:\n  - {name: a, pattern: [Relu], when: {dtype: [float16, floot32]}}\n", "t.yaml:3:56: ",
    "unknown dtype “floot32”", "“float32”" },
  { V "rules:\n  - {name: a, pattern: Relu}\n", "t.yaml:3:24: ", "pattern of “a” must be a list", NULL },
  { V "rules:\n  - {name: a, pattern: [[Relu]]}\n", "t.yaml:3:25: ", "a pattern item must be", NULL },
  { V "rules:\n  - {name: a, pattern: [{op: Relu, repeat: [3, 2]}]}\n", "t.yaml:3:44: ", "repeat [3, 2]", NULL },
  { V "rules:\n  - {name: a, pattern: [{op: Relu, repeat: 65}]}\n", "t.yaml:3:44: ", "65 is out of range", NULL },
  { V "rules: {name: a}\n", "t.yaml:2:8: ", "“rules” must be a list", NULL },
  /* versions */
  { "version: 2\nrules: []\n", "t.yaml:1:10: ", "version 2 is not supported", NULL },
  { "rules: []\n", "t.yaml:1:1: ", "“version” is missing", NULL },
};

static void
test_errors (void)
{
  guint failures = 0;

  for (guint k = 0; k < G_N_ELEMENTS (bad_cases); k++)
    {
      const BadCase *bad = &bad_cases[k];
      g_autoptr(FwRuleSet) set = builtin ();
      g_autoptr(GError) error = NULL;
      guint n_before = fw_rule_set_get_n_rules (set);
      const char *attn[] = { "MatMul", "Div", "Add", "Softmax", NULL };

      g_test_message ("case %u: %s", k, bad->yaml);
      g_assert_false (fw_rule_set_load_data (set, "t.yaml", bad->yaml, strlen (bad->yaml), &error));
      g_assert_nonnull (error);
      g_assert_true (error->domain == FW_ERROR);
      g_assert_true (error->code == FW_ERROR_PARSE || error->code == FW_ERROR_INVALID);
      g_test_message ("→ %s", error->message);
      if (!g_str_has_prefix (error->message, bad->where) || strstr (error->message, bad->message) == NULL
          || (bad->also && strstr (error->message, bad->also) == NULL))
        {
          g_printerr ("case %u: got “%s”, want “%s…%s…%s”\n", k, error->message, bad->where, bad->message,
                      bad->also ? bad->also : "");
          failures++;
        }
      /* A refused file leaves the set as it was. */
      g_assert_cmpuint (fw_rule_set_get_n_rules (set), ==, n_before);
      g_assert_cmpstr (match_ops (set, attn), ==, "attention_scores");
    }
  g_assert_cmpuint (failures, ==, 0);
}

static void
test_errors_later_file (void)
{
  /* A later file whose sub-pattern breaks an earlier rule is refused, naming where. */
  g_autoptr(FwRuleSet) set = builtin ();
  g_autoptr(GError) error = NULL;
  const char *cyc = "version: 1\npatterns:\n  erf_gelu: [Div, erf_gelu_2]\n  erf_gelu_2: [Erf, erf_gelu]\n";
  const char *grow = "version: 1\npatterns:\n  erf_gelu: [{op: Mul, repeat: 63}]\n";
  guint lo, hi;

  g_assert_false (fw_rule_set_load_data (set, "team.yaml", cyc, strlen (cyc), &error));
  g_assert_nonnull (strstr (error->message, "erf_gelu → erf_gelu_2 → erf_gelu"));
  g_assert_true (g_str_has_prefix (error->message, "team.yaml:"));
  g_clear_error (&error);
  g_assert_false (fw_rule_set_load_data (set, "team.yaml", grow, strlen (grow), &error));
  g_assert_true (g_str_has_prefix (error->message, "resource:///org/fusionworkbench/rules/seed-patterns.yaml:"));
  g_assert_nonnull (strstr (error->message, "“matmul_bias_gelu” can expand to more than 64 nodes"));
  fw_rule_get_length_range (fw_rule_set_lookup (set, "matmul_bias_gelu"), &lo, &hi);
  g_assert_cmpuint (hi, ==, 7);
}

static void
test_speed (void)
{
  g_autoptr(FwRuleSet) set = builtin ();
  g_autoptr(FwModel) block = fw_test_transformer_block (16, 32, 2, FALSE);
  guint n, hits = 0, calls = 0;
  FwNode **nodes;
  gint64 t0;
  double seconds;

  g_assert_true (fw_test_infer (block, NULL, NULL, NULL));
  nodes = nodes_of (block, &n);
  t0 = g_get_monotonic_time ();
  /* Every contiguous window of up to 12 nodes of the block's order, as candidates. */
  while (calls < 100000)
    for (guint s = 0; s < n && calls < 100000; s++)
      for (guint len = 1; len <= 12 && s + len <= n && calls < 100000; len++, calls++)
        {
          hits += fw_rule_set_match (set, nodes + s, len) != NULL;
          hits += fw_rule_set_forbids (set, nodes + s, len) != NULL;
        }
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  g_test_message ("%u candidates in %.3f s, %u matches", calls, seconds, hits);
  g_assert_cmpuint (hits, >, 0);
  g_assert_cmpfloat (seconds, <, 10.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/rules/load/builtin", test_builtin);
  g_test_add_func ("/core/rules/load/io", test_load_errors_io);
  g_test_add_func ("/core/rules/load/override", test_override);
  g_test_add_func ("/core/rules/match/gelu-subpattern", test_match_gelu);
  g_test_add_func ("/core/rules/match/layernorm", test_match_layernorm);
  g_test_add_func ("/core/rules/match/conv-bn-relu", test_match_conv);
  g_test_add_func ("/core/rules/match/seeds", test_match_seeds);
  g_test_add_func ("/core/rules/match/max-length", test_match_long);
  g_test_add_func ("/core/rules/match/classes", test_classes);
  g_test_add_func ("/core/rules/match/priority", test_priority);
  g_test_add_func ("/core/rules/match/when", test_when);
  g_test_add_func ("/core/rules/forbid", test_forbid);
  g_test_add_func ("/core/rules/errors/each", test_errors);
  g_test_add_func ("/core/rules/errors/later-file", test_errors_later_file);
  g_test_add_func ("/core/rules/speed", test_speed);
  return g_test_run ();
}
