/* fuzz-graph.c: the graph grammar of fuzz-graph.h, shared by fuzz-planner and fuzz-exec. */
#include "config.h"

#include <string.h>

#include "fuzz-graph.h"
#include "graph/fw-model-private.h"
#include "shape/fw-shape-infer.h"

#define MAX_VALUES 96

guint
fuzz_input_next (FuzzInput *in)
{
  return in->p < in->end ? *in->p++ : 0;
}

static guint
next (FuzzInput *in)
{
  return fuzz_input_next (in);
}

typedef enum {
  ARGS_UNARY,       /* x */
  ARGS_BINARY,      /* x, y */
  ARGS_RESHAPE,     /* x, int64 shape constant */
  ARGS_AXES_INPUT,  /* x, int64 axes constant (Unsqueeze, Squeeze, ReduceSum at opset 13+) */
  ARGS_GATHER,      /* x, int64 indices constant; axis */
  ARGS_CONCAT,      /* 2–3 values; axis */
  ARGS_TRANSPOSE,   /* x; perm */
  ARGS_REDUCE,      /* x; axes, keepdims attributes */
  ARGS_AXIS,        /* x; axis (Softmax, LogSoftmax, Flatten) */
  ARGS_CAST,        /* x; to */
  ARGS_CONV,        /* x, weight constant [cout, cin, k, k]; pads, strides */
  ARGS_LAYERNORM,   /* x, scale, bias; axis */
  ARGS_WHERE,       /* cond, x, y */
  ARGS_SPLIT2,      /* x; axis; two outputs */
} ArgsKind;

typedef struct
{
  const char *op;
  ArgsKind    args;
} OpSpec;

static const OpSpec ops[] = {
  { "Add", ARGS_BINARY },         { "Mul", ARGS_BINARY },        { "Sub", ARGS_BINARY },
  { "Div", ARGS_BINARY },         { "Pow", ARGS_BINARY },        { "MatMul", ARGS_BINARY },
  { "Relu", ARGS_UNARY },         { "Sigmoid", ARGS_UNARY },     { "Exp", ARGS_UNARY },
  { "Tanh", ARGS_UNARY },         { "Erf", ARGS_UNARY },         { "Sqrt", ARGS_UNARY },
  { "Neg", ARGS_UNARY },          { "Identity", ARGS_UNARY },    { "Shape", ARGS_UNARY },
  { "Reshape", ARGS_RESHAPE },    { "Unsqueeze", ARGS_AXES_INPUT }, { "Squeeze", ARGS_AXES_INPUT },
  { "Gather", ARGS_GATHER },      { "Concat", ARGS_CONCAT },     { "Transpose", ARGS_TRANSPOSE },
  { "ReduceMean", ARGS_REDUCE },  { "ReduceMax", ARGS_REDUCE },  { "ReduceSum", ARGS_AXES_INPUT },
  { "Softmax", ARGS_AXIS },       { "LogSoftmax", ARGS_AXIS },   { "Flatten", ARGS_AXIS },
  { "Cast", ARGS_CAST },          { "Conv", ARGS_CONV },         { "LayerNormalization", ARGS_LAYERNORM },
  { "Where", ARGS_WHERE },        { "Split", ARGS_SPLIT2 },      { "Gelu", ARGS_UNARY },
};

static const gint64 small_dims[] = { 1, 2, 3, 4, 8, 16 };
static const char *symbols[] = { "batch", "seq" };

typedef struct
{
  FwGraph   *graph;
  GPtrArray *values;    /* char*: names that exist, in creation order */
  guint      n_names;
} Builder;

static const char *
new_name (Builder *b, const char *prefix)
{
  g_autofree char *name = g_strdup_printf ("%s%u", prefix, b->n_names++);
  return fw_graph_intern (b->graph, name);
}

static const char *
pick (Builder *b, FuzzInput *in)
{
  return g_ptr_array_index (b->values, next (in) % b->values->len);
}

static void
add_value (Builder *b, const char *name)
{
  if (b->values->len < MAX_VALUES)
    g_ptr_array_add (b->values, (gpointer) name);
}

/* An int64 vector constant of 1–4 values in [-2, 13]. */
static const char *
int_constant (Builder *b, FuzzInput *in)
{
  guint n = 1 + next (in) % 4;
  gint64 values[4], dims[1] = { n };
  g_autoptr(FwTensor) tensor = NULL;
  const char *name = new_name (b, "k");

  for (guint i = 0; i < n; i++)
    values[i] = (gint64) (next (in) % 16) - 2;
  tensor = fw_tensor_new_int64 (1, dims, values);
  return fw_graph_add_initializer (b->graph, name, tensor, NULL) ? name : NULL;
}

/* A float constant of rank 0–3 with small dims (one byte each, unless fixed_dims gives them). */
static const char *
float_constant (Builder *b, FuzzInput *in, guint rank, const gint64 *fixed_dims)
{
  gint64 dims[4], n = 1;
  g_autofree float *values = NULL;
  g_autoptr(FwTensor) tensor = NULL;
  const char *name = new_name (b, "c");

  for (guint i = 0; i < rank; i++)
    {
      dims[i] = fixed_dims ? fixed_dims[i] : small_dims[next (in) % G_N_ELEMENTS (small_dims)];
      n *= dims[i];
    }
  values = g_new (float, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = (float) ((gint) (i * 7 % 13) - 6) / 4.0f;
  tensor = fw_tensor_new_float (rank, dims, values);
  return fw_graph_add_initializer (b->graph, name, tensor, NULL) ? name : NULL;
}

static gint64
axis (FuzzInput *in)
{
  return (gint64) (next (in) % 9) - 4;
}

static void
add_input (Builder *b, FuzzInput *in)
{
  guint rank = next (in) % 5;
  guint kind = next (in);
  FwDim dims[4];
  const char *name = new_name (b, "x");
  FwDType dtype = kind % 8 == 7 ? FW_DTYPE_FLOAT16 : kind % 8 == 6 ? FW_DTYPE_INT64 : FW_DTYPE_FLOAT;

  for (guint i = 0; i < rank; i++)
    {
      guint d = next (in);
      if (d % 11 == 10)
        dims[i] = (FwDim) { -1, symbols[(d / 11) % G_N_ELEMENTS (symbols)] };
      else
        dims[i] = FW_DIM_STATIC (small_dims[d % G_N_ELEMENTS (small_dims)]);
    }
  if (fw_graph_add_input (b->graph, name, dtype, (gint) rank, dims, NULL))
    add_value (b, name);
}

static void
add_op (Builder *b, FuzzInput *in, guint index)
{
  const OpSpec *spec = &ops[next (in) % G_N_ELEMENTS (ops)];
  const char *ins[3] = { NULL, NULL, NULL };
  const char *outs[2] = { new_name (b, "v"), NULL };
  guint n_ins = 1, n_outs = 1;
  g_autofree char *node_name = g_strdup_printf ("/block%u/%s_%u", index / 8, spec->op, index);
  FwNode *node;

  ins[0] = pick (b, in);
  switch (spec->args)
    {
    case ARGS_UNARY:
    case ARGS_TRANSPOSE:
    case ARGS_REDUCE:
    case ARGS_AXIS:
    case ARGS_CAST:
      break;
    case ARGS_BINARY:
      ins[1] = pick (b, in);
      n_ins = 2;
      break;
    case ARGS_RESHAPE:
    case ARGS_AXES_INPUT:
    case ARGS_GATHER:
      ins[1] = int_constant (b, in);
      n_ins = ins[1] ? 2 : 1;
      break;
    case ARGS_CONCAT:
      ins[1] = pick (b, in);
      n_ins = 2 + next (in) % 2;
      if (n_ins == 3)
        ins[2] = pick (b, in);
      break;
    case ARGS_CONV:
      {
        gint64 w_dims[4];

        /* One byte each, in this order: kernel size, output channels, input channels. */
        w_dims[2] = w_dims[3] = 1 + 2 * (next (in) % 2);
        w_dims[0] = small_dims[next (in) % 5];
        w_dims[1] = small_dims[next (in) % 4];
        ins[1] = float_constant (b, in, 4, w_dims);
        n_ins = ins[1] ? 2 : 1;
        break;
      }
    case ARGS_LAYERNORM:
      {
        gint64 d[1] = { small_dims[next (in) % G_N_ELEMENTS (small_dims)] };
        ins[1] = float_constant (b, in, 1, d);
        ins[2] = float_constant (b, in, 1, d);
        n_ins = ins[1] && ins[2] ? 3 : 1;
        break;
      }
    case ARGS_WHERE:
      ins[1] = pick (b, in);
      ins[2] = pick (b, in);
      n_ins = 3;
      break;
    case ARGS_SPLIT2:
      outs[1] = new_name (b, "v");
      n_outs = 2;
      break;
    default:
      g_assert_not_reached ();
    }
  node = fw_graph_add_node (b->graph, spec->op, "", node_name, n_ins, ins, n_outs, outs, NULL);
  if (node == NULL)
    return;
  switch (spec->args)
    {
    case ARGS_GATHER:
    case ARGS_CONCAT:
    case ARGS_AXIS:
    case ARGS_LAYERNORM:
    case ARGS_SPLIT2:
      fw_node_set_attr_int (node, "axis", axis (in));
      break;
    case ARGS_TRANSPOSE:
      {
        guint rank = next (in) % 5;
        gint64 perm[4] = { 0, 1, 2, 3 };
        /* A permutation of 0…rank-1, or now and then not one. */
        for (guint i = rank; i > 1; i--)
          {
            guint j = next (in) % i;
            gint64 t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
          }
        if (rank > 0 && next (in) % 16 == 0)
          perm[0] = axis (in);
        fw_node_set_attr_ints (node, "perm", rank, perm);
        break;
      }
    case ARGS_REDUCE:
      {
        guint n = next (in) % 3;
        gint64 axes[2];

        axes[0] = axis (in);
        axes[1] = axis (in);
        if (n > 0)
          fw_node_set_attr_ints (node, "axes", n, axes);
        fw_node_set_attr_int (node, "keepdims", next (in) % 2);
        break;
      }
    case ARGS_CAST:
      {
        static const gint64 to[] = { FW_DTYPE_FLOAT, FW_DTYPE_FLOAT16, FW_DTYPE_INT64, FW_DTYPE_BOOL };
        fw_node_set_attr_int (node, "to", to[next (in) % G_N_ELEMENTS (to)]);
        break;
      }
    case ARGS_CONV:
      {
        gint64 pads[4], strides[2];
        gint64 p = next (in) % 2, s = 1 + next (in) % 2;
        for (guint i = 0; i < 4; i++)
          pads[i] = p;
        strides[0] = strides[1] = s;
        fw_node_set_attr_ints (node, "pads", 4, pads);
        fw_node_set_attr_ints (node, "strides", 2, strides);
        break;
      }
    default:
      break;
    }
  for (guint i = 0; i < n_outs; i++)
    add_value (b, outs[i]);
}

FwModel *
fuzz_graph_build (FuzzInput *in, guint output_choice, GHashTable *bindings)
{
  g_autoptr(FwModel) model = fw_model_new ();
  g_autoptr(GPtrArray) values = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  Builder b;
  guint n_inputs, n_nodes = 0;
  FwInferOptions infer_options = { 0 };
  FwInferReport report;
  gboolean inferred;

  fw_model_set_ir_version (model, 8);
  fw_model_set_opset_version (model, "", 17);
  b.graph = fw_model_get_graph (model);
  b.values = values;
  b.n_names = 0;

  n_inputs = 1 + next (in) % 3;
  for (guint i = 0; i < n_inputs; i++)
    add_input (&b, in);
  if (values->len == 0)
    return NULL;
  while (in->p < in->end && n_nodes < FUZZ_GRAPH_MAX_NODES)
    {
      guint what = next (in) % 8;
      if (what == 0)
        {
          /* A float constant any node may read. */
          const char *c = float_constant (&b, in, next (in) % 4, NULL);
          if (c)
            add_value (&b, c);
        }
      else
        add_op (&b, in, n_nodes++);
    }
  /* The last value is an output; so is one more, chosen by the caller's byte. */
  if (!fw_graph_add_output (b.graph, g_ptr_array_index (values, values->len - 1), NULL))
    return NULL;
  if (values->len > 1 && output_choice % 4 == 0)
    fw_graph_add_output (b.graph, g_ptr_array_index (values, output_choice % (values->len - 1)), NULL);
  if (!fw_graph_link (b.graph, &error))
    return NULL;

  infer_options.bindings = bindings;
  fw_infer_report_init (&report);
  inferred = fw_shape_infer_graph (b.graph, &infer_options, &report, &error);
  fw_infer_report_clear (&report);
  return inferred ? g_steal_pointer (&model) : NULL;
}

void
fuzz_graph_planner_setup (const char *target, FwProfile **profile, FwRuleSet **rules)
{
  g_autoptr(GError) error = NULL;

  *profile = fw_profile_load_builtin ("ascend-910b", &error);
  if (*profile == NULL)
    g_error ("%s: %s", target, error->message);
  *rules = fw_rule_set_new ();
  if (!fw_rule_set_load_builtin (*rules, &error))
    g_error ("%s: %s", target, error->message);
}
