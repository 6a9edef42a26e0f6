/* fw-rule-dialect.c: the rule files the graph-autofusion articles show (top-level `fusion_rules:`), read
 * beside our own format by converting them into it (rules/README.md, "The articles' dialect").
 *
 * A dialect file names ops the way CANN and TensorFlow do (BiasAdd, ReLU, LayerNorm, GELU, Conv2D), says its
 * strategy in words ("compute_bound memory_bound pairing", sequential_fuse) and gates rules with conditions
 * such as `matmul_m_dim_ge: 128` or `bias_dtype_eq: float16`. Each is mapped to a pattern item, a strategy
 * or a `when` clause of ours; whatever cannot be mapped is an error at its line and column that lists what
 * is known. The converted text is then read by the ordinary parser, so both formats mean exactly the
 * same once loaded, and `fusion-workbench --convert-rules` prints it. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "graph/fw-dtype.h"
#include "rules/fw-rules-private.h"

/* A dialect op name and the pattern item it becomes. Sub-pattern names are the shipped set's
 * (rules/seed-patterns.yaml) or the helpers below, which a converted file defines itself. */
typedef struct
{
  const char *name;
  const char *item;
} DialectOp;

static const DialectOp dialect_ops[] = {
  { "BiasAdd", "Add" },
  { "Add", "Add" }, { "AddV2", "Add" }, { "Sub", "Sub" }, { "Mul", "Mul" }, { "RealDiv", "Div" }, { "Div", "Div" },
  { "ReLU", "Relu" }, { "Relu", "Relu" }, { "ReLU6", "Clip" }, { "Relu6", "Clip" },
  { "GELU", "{op: Gelu, or: [erf_gelu, \"com.microsoft:Gelu\", \"com.microsoft:FastGelu\"]}" },
  { "Gelu", "{op: Gelu, or: [erf_gelu, \"com.microsoft:Gelu\", \"com.microsoft:FastGelu\"]}" },
  { "FastGelu", "\"com.microsoft:FastGelu\"" },
  { "LayerNorm", "{op: LayerNormalization, or: layernorm_decomposed}" },
  { "LayerNormalization", "{op: LayerNormalization, or: layernorm_decomposed}" },
  { "Softmax", "{op: Softmax, or: softmax_decomposed}" },
  { "SoftmaxV2", "{op: Softmax, or: softmax_decomposed}" },
  { "BatchNorm", "BatchNormalization" }, { "FusedBatchNorm", "BatchNormalization" },
  { "FusedBatchNormV3", "BatchNormalization" }, { "BNInference", "BatchNormalization" },
  { "BatchNormalization", "BatchNormalization" },
  { "Conv2D", "Conv" }, { "Conv3D", "Conv" }, { "DepthwiseConv2D", "Conv" }, { "DepthwiseConv2dNative", "Conv" },
  { "Conv", "Conv" }, { "Conv2DBackpropInput", "ConvTranspose" }, { "Conv2DTranspose", "ConvTranspose" },
  { "MatMul", "MatMul" }, { "MatMulV2", "MatMul" }, { "BatchMatMul", "MatMul" }, { "BatchMatMulV2", "MatMul" },
  { "FullyConnected", "{op: Gemm, or: MatMul}" }, { "Gemm", "Gemm" },
  { "Sigmoid", "Sigmoid" }, { "Tanh", "Tanh" }, { "Exp", "Exp" }, { "Log", "Log" }, { "Sqrt", "Sqrt" },
  { "Rsqrt", "dialect_rsqrt" }, { "Reciprocal", "Reciprocal" }, { "Square", "dialect_square" },
  { "Pow", "Pow" }, { "Neg", "Neg" }, { "Abs", "Abs" }, { "Erf", "Erf" }, { "Cast", "Cast" },
  { "Maximum", "Max" }, { "Minimum", "Min" },
  { "Swish", "dialect_swish" }, { "SiLU", "dialect_swish" }, { "Silu", "dialect_swish" },
  { "HardSwish", "{op: HardSwish, or: [hardswish_decomposed, hardswish_clip]}" },
  { "Mean", "ReduceMean" }, { "ReduceMean", "ReduceMean" }, { "Sum", "ReduceSum" }, { "ReduceSum", "ReduceSum" },
  { "Max", "ReduceMax" }, { "ReduceMax", "ReduceMax" },
  { "Transpose", "Transpose" }, { "Reshape", "Reshape" }, { "ConcatV2", "Concat" }, { "Concat", "Concat" },
  { "Slice", "Slice" }, { "StridedSlice", "Slice" }, { "GatherV2", "Gather" }, { "Gather", "Gather" },
};

/* The helpers' definitions, written into a converted file that uses them. */
static const DialectOp dialect_helpers[] = {
  { "dialect_rsqrt", "[Sqrt, Reciprocal]" },
  { "dialect_square", "[{op: Mul, or: Pow}]" },
  { "dialect_swish", "[Sigmoid, Mul]" },
};

/* Strategy words (lower case, split at spaces, underscores and dashes) and ours. */
typedef struct
{
  const char *const words[3];
  const char *strategy;
} DialectStrategy;

static const DialectStrategy dialect_strategies[] = {
  { { "compute", "memory", NULL }, "compute_memory_pairing" },
  { { "pairing", NULL }, "compute_memory_pairing" },
  { { "epilogue", NULL }, "compute_memory_pairing" },
  { { "sequential", NULL }, "sequential" },
  { { "elementwise", NULL }, "elementwise_chain" },
  { { "vector", NULL }, "elementwise_chain" },
  { { "reduce", NULL }, "reduce_epilogue" },
  { { "reduction", NULL }, "reduce_epilogue" },
  { { "any", NULL }, NULL },
  { { "auto", NULL }, NULL },
};

/* Condition subjects: `<subject>_<dim>_dim_<ge|le|eq|gt|lt>` and `<operand>_dtype_eq`. */
typedef struct
{
  const char *subject;
  const char *dims[4];  /* our dim keys (lower case as written in the condition) */
} DialectSubject;

static const DialectSubject dialect_subjects[] = {
  { "matmul", { "m", "n", "k", NULL } }, { "gemm", { "m", "n", "k", NULL } },
  { "batchmatmul", { "m", "n", "k", NULL } },
  { "conv", { "c", "h", "w", NULL } }, { "conv2d", { "c", "h", "w", NULL } },
  { "norm", { "hidden", NULL } }, { "layernorm", { "hidden", NULL } }, { "rmsnorm", { "hidden", NULL } },
  { "output", { "elements", NULL } },
};

static const char *const dialect_operands[][2] = {
  { "bias", "bias" }, { "weight", "weight" }, { "filter", "weight" }, { "input", "input" }, { "x", "input" },
  { "output", "output" }, { "y", "output" },
};

static const char *const rule_keys[] = { "name", "description", "pattern", "strategy", "conditions", "priority",
                                         "enabled", NULL };
static const char *const top_keys[] = { "fusion_rules", NULL };

/* Converted rules outrank every shipped one (the highest is 30): a user who writes a rule file expects
 * its names on the candidates it matches. */
#define DIALECT_PRIORITY 100

gboolean
fw_rule_dialect_detect (const FwYamlDocument *doc)
{
  return doc->root != NULL && doc->root->kind == FW_YAML_MAPPING && fw_yaml_get (doc->root, "fusion_rules") != NULL;
}

static char *
known_ops (void)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (dialect_ops); i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", dialect_ops[i].name);
  return g_string_free (s, FALSE);
}

/* The pattern item for a dialect op name: the table's, else an ONNX op type of the registry as itself. */
static gboolean
convert_op (const FwYamlDocument *doc, const FwYamlNode *node, GString *out, GHashTable *helpers, GError **error)
{
  const char *name;
  g_autofree char *known = NULL;

  if (!fw_yaml_get_string (doc, node, &name, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (dialect_ops); i++)
    if (strcmp (dialect_ops[i].name, name) == 0)
      {
        g_string_append (out, dialect_ops[i].item);
        if (g_str_has_prefix (dialect_ops[i].item, "dialect_"))
          g_hash_table_add (helpers, (gpointer) dialect_ops[i].item);
        return TRUE;
      }
  if (fw_op_lookup ("", name) != NULL)
    {
      g_string_append (out, name);
      return TRUE;
    }
  known = known_ops ();
  {
    const char *names[G_N_ELEMENTS (dialect_ops)];
    const char *close;
    for (guint i = 0; i < G_N_ELEMENTS (dialect_ops); i++)
      names[i] = dialect_ops[i].name;
    close = fw_rule_closest (name, names, G_N_ELEMENTS (names));
    if (close == NULL)
      close = fw_rule_suggest_op (name, NULL);
    if (close != NULL)
      return fw_yaml_error (error, doc, node, _("unknown op “%s” in a fusion_rules pattern (did you mean “%s”? known: "
                                                "%s, or any ONNX op type)"), name, close, known);
  }
  return fw_yaml_error (error, doc, node, _("unknown op “%s” in a fusion_rules pattern (known: %s, or any ONNX op "
                                            "type)"), name, known);
}

static gboolean
convert_strategy (const FwYamlDocument *doc, const FwYamlNode *node, const char **out, GError **error)
{
  const char *text;
  g_autofree char *lower = NULL;
  g_auto(GStrv) words = NULL;

  if (!fw_yaml_get_string (doc, node, &text, error))
    return FALSE;
  lower = g_ascii_strdown (text, -1);
  g_strdelimit (lower, "_-+/,", ' ');
  words = g_strsplit (lower, " ", -1);
  for (guint i = 0; i < G_N_ELEMENTS (dialect_strategies); i++)
    {
      gboolean all = TRUE;
      for (guint w = 0; all && dialect_strategies[i].words[w] != NULL; w++)
        all = g_strv_contains ((const char *const *) words, dialect_strategies[i].words[w]);
      if (all)
        {
          *out = dialect_strategies[i].strategy;
          return TRUE;
        }
    }
  return fw_yaml_error (error, doc, node,
                        _("unknown strategy “%s” (known words: compute and memory or pairing or epilogue, sequential, "
                          "elementwise or vector, reduce or reduction, any or auto)"), text);
}

/* Our spelling of a dtype the articles may write as fp16, fp32, bf16 or half. */
static gboolean
convert_dtype (const FwYamlDocument *doc, const FwYamlNode *node, const char **out, GError **error)
{
  static const char *const aliases[][2] = {
    { "fp16", "float16" }, { "half", "float16" }, { "fp32", "float32" }, { "bf16", "bfloat16" },
    { "fp64", "float64" }, { "dt_float16", "float16" }, { "dt_float", "float32" }, { "dt_bf16", "bfloat16" },
  };
  const char *text;
  FwDType dtype;

  if (!fw_yaml_get_string (doc, node, &text, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_ascii_strcasecmp (text, aliases[i][0]) == 0)
      text = aliases[i][1];
  if (!fw_dtype_from_name (text, &dtype))
    return fw_yaml_error (error, doc, node, _("unknown dtype “%s” (float16, float32, bfloat16, int8, … or fp16, fp32, "
                                              "bf16)"), text);
  *out = fw_dtype_name (dtype);
  return TRUE;
}

typedef struct
{
  GString *min_dim, *max_dim, *dim, *operand_dtype;
} When;

static void
when_add (GString *s, const char *key, const char *value)
{
  g_string_append_printf (s, "%s%s: %s", s->len ? ", " : "", key, value);
}

/* One `key: value` condition into the when clause. */
static gboolean
convert_condition (const FwYamlDocument *doc, const FwYamlNode *key, const FwYamlNode *value, When *w,
                   GError **error)
{
  const char *k = key->scalar;
  g_auto(GStrv) parts = g_strsplit (k, "_", -1);
  guint n = g_strv_length (parts);

  if (n == 3 && strcmp (parts[1], "dtype") == 0 && strcmp (parts[2], "eq") == 0)
    {
      const char *dtype = NULL;
      for (guint i = 0; i < G_N_ELEMENTS (dialect_operands); i++)
        if (strcmp (parts[0], dialect_operands[i][0]) == 0)
          {
            if (!convert_dtype (doc, value, &dtype, error))
              return FALSE;
            when_add (w->operand_dtype, dialect_operands[i][1], dtype);
            return TRUE;
          }
    }
  if (n == 4 && strcmp (parts[2], "dim") == 0)
    {
      const char *cmp = parts[3];
      gint64 v;
      for (guint i = 0; i < G_N_ELEMENTS (dialect_subjects); i++)
        {
          if (strcmp (parts[0], dialect_subjects[i].subject) != 0)
            continue;
          for (guint d = 0; dialect_subjects[i].dims[d] != NULL; d++)
            {
              g_autofree char *our = NULL, *num = NULL;
              if (strcmp (parts[1], dialect_subjects[i].dims[d]) != 0)
                continue;
              if (!fw_yaml_get_int (doc, value, 0, G_MAXINT64 - 1, &v, error))
                return FALSE;
              our = strlen (parts[1]) == 1 ? g_ascii_strup (parts[1], -1) : g_strdup (parts[1]);
              if (strcmp (cmp, "gt") == 0)
                v++;
              else if (strcmp (cmp, "lt") == 0 && v == 0)
                return fw_yaml_error (error, doc, value, _("“%s: 0” can never hold"), k);
              else if (strcmp (cmp, "lt") == 0)
                v--;
              num = g_strdup_printf ("%" G_GINT64_FORMAT, v);
              if (strcmp (cmp, "ge") == 0 || strcmp (cmp, "gt") == 0)
                when_add (w->min_dim, our, num);
              else if (strcmp (cmp, "le") == 0 || strcmp (cmp, "lt") == 0)
                when_add (w->max_dim, our, num);
              else if (strcmp (cmp, "eq") == 0)
                when_add (w->dim, our, num);
              else
                break;
              return TRUE;
            }
        }
    }
  return fw_yaml_error (error, doc, key,
                        _("unknown condition “%s” (known: matmul_m|n|k_dim_ge|gt|le|lt|eq, conv2d_c|h|w_dim_…, "
                          "norm_hidden_dim_…, output_elements_dim_…, bias|weight|input|output_dtype_eq)"), k);
}

static gboolean
convert_conditions (const FwYamlDocument *doc, const FwYamlNode *node, GString *out, GError **error)
{
  When w = { g_string_new (NULL), g_string_new (NULL), g_string_new (NULL), g_string_new (NULL) };
  g_autoptr(GString) when = g_string_new (NULL);
  gboolean ok = TRUE;
  GPtrArray *maps = NULL;
  g_autoptr(GPtrArray) one = g_ptr_array_new ();

  /* A list of one-key mappings, as the articles write it, or one mapping. */
  if (node->kind == FW_YAML_MAPPING)
    {
      g_ptr_array_add (one, (gpointer) node);
      maps = one;
    }
  else if (fw_yaml_expect (doc, node, FW_YAML_SEQUENCE, "“conditions”", error))
    maps = node->items;
  else
    ok = FALSE;
  for (guint i = 0; ok && i < maps->len; i++)
    {
      const FwYamlNode *m = g_ptr_array_index (maps, i);
      ok = fw_yaml_expect (doc, m, FW_YAML_MAPPING, _("a condition"), error);
      for (guint k = 0; ok && k + 1 < m->items->len; k += 2)
        ok = convert_condition (doc, g_ptr_array_index (m->items, k), g_ptr_array_index (m->items, k + 1), &w, error);
    }
  if (ok && w.min_dim->len)
    g_string_append_printf (when, "min_dim: {%s}", w.min_dim->str);
  if (ok && w.max_dim->len)
    g_string_append_printf (when, "%smax_dim: {%s}", when->len ? ", " : "", w.max_dim->str);
  if (ok && w.dim->len)
    g_string_append_printf (when, "%sdim: {%s}", when->len ? ", " : "", w.dim->str);
  if (ok && w.operand_dtype->len)
    g_string_append_printf (when, "%soperand_dtype: {%s}", when->len ? ", " : "", w.operand_dtype->str);
  if (ok && when->len)
    g_string_append_printf (out, "    when: {%s}\n", when->str);
  g_string_free (w.min_dim, TRUE);
  g_string_free (w.max_dim, TRUE);
  g_string_free (w.dim, TRUE);
  g_string_free (w.operand_dtype, TRUE);
  return ok;
}

/* YAML double-quoted text. */
static void
append_quoted (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (out, '\\');
      if (*p == '\n')
        g_string_append (out, "\\n");
      else
        g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static gboolean
convert_rule (const FwYamlDocument *doc, const FwYamlNode *rule, GString *out, GHashTable *helpers,
              GHashTable *names, GError **error)
{
  const FwYamlNode *v, *pattern;
  const char *name, *text, *strategy = NULL;
  gint64 priority = DIALECT_PRIORITY;
  gboolean enabled = TRUE;

  if (!fw_yaml_expect (doc, rule, FW_YAML_MAPPING, _("a rule"), error) || !fw_yaml_check_keys (doc, rule, rule_keys, error))
    return FALSE;
  if ((v = fw_yaml_get (rule, "name")) == NULL)
    return fw_yaml_error (error, doc, rule, _("a rule without a “name”"));
  if (!fw_yaml_get_string (doc, v, &name, error))
    return FALSE;
  if (!g_hash_table_add (names, (gpointer) name))
    return fw_yaml_error (error, doc, v, _("a second rule named “%s”"), name);
  if ((pattern = fw_yaml_get (rule, "pattern")) == NULL)
    return fw_yaml_error (error, doc, rule, _("rule “%s” has no “pattern”"), name);
  if (!fw_yaml_expect (doc, pattern, FW_YAML_SEQUENCE, "“pattern”", error))
    return FALSE;
  if (pattern->items->len == 0)
    return fw_yaml_error (error, doc, pattern, _("rule “%s” has an empty pattern"), name);
  g_string_append (out, "  - name: ");
  append_quoted (out, name);
  g_string_append_printf (out, "    # line %u\n", rule->line);
  if ((v = fw_yaml_get (rule, "description")) != NULL)
    {
      if (!fw_yaml_get_string (doc, v, &text, error))
        return FALSE;
      g_string_append (out, "    description: ");
      append_quoted (out, text);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, "    pattern: [");
  for (guint i = 0; i < pattern->items->len; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      if (!convert_op (doc, g_ptr_array_index (pattern->items, i), out, helpers, error))
        return FALSE;
    }
  g_string_append (out, "]\n");
  if ((v = fw_yaml_get (rule, "strategy")) != NULL && !convert_strategy (doc, v, &strategy, error))
    return FALSE;
  if (strategy != NULL)
    g_string_append_printf (out, "    strategy: %s\n", strategy);
  if ((v = fw_yaml_get (rule, "priority")) != NULL && !fw_yaml_get_int (doc, v, -1000000, 1000000, &priority, error))
    return FALSE;
  g_string_append_printf (out, "    priority: %" G_GINT64_FORMAT "\n", priority);
  if ((v = fw_yaml_get (rule, "enabled")) != NULL && !fw_yaml_get_bool (doc, v, &enabled, error))
    return FALSE;
  if (!enabled)
    g_string_append (out, "    enabled: false\n");
  if ((v = fw_yaml_get (rule, "conditions")) != NULL && !convert_conditions (doc, v, out, error))
    return FALSE;
  return TRUE;
}

char *
fw_rule_dialect_convert (const FwYamlDocument *doc, GError **error)
{
  g_autoptr(GString) rules = g_string_new (NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GHashTable) helpers = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  const FwYamlNode *list;

  g_return_val_if_fail (fw_rule_dialect_detect (doc), NULL);
  if (!fw_yaml_check_keys (doc, doc->root, top_keys, error))
    return NULL;
  list = fw_yaml_get (doc->root, "fusion_rules");
  if (!fw_yaml_expect (doc, list, FW_YAML_SEQUENCE, "“fusion_rules”", error))
    return NULL;
  for (guint i = 0; i < list->items->len; i++)
    if (!convert_rule (doc, g_ptr_array_index (list->items, i), rules, helpers, names, error))
      return NULL;
  g_string_append_printf (out, "# Converted from %s (the graph-autofusion articles' fusion_rules dialect).\n"
                               "# Each rule's \"line\" comment is where it is written there. Converted rules have "
                               "priority %d unless they give one.\nversion: 1\n", doc->filename, DIALECT_PRIORITY);
  if (g_hash_table_size (helpers) > 0)
    {
      g_string_append (out, "patterns:\n");
      for (guint i = 0; i < G_N_ELEMENTS (dialect_helpers); i++)
        if (g_hash_table_contains (helpers, dialect_helpers[i].name))
          g_string_append_printf (out, "  %s: %s\n", dialect_helpers[i].name, dialect_helpers[i].item);
    }
  g_string_append (out, "rules:\n");
  g_string_append (out, rules->str);
  return g_string_free (g_steal_pointer (&out), FALSE);
}
