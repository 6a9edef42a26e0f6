/* The fused-model export: one fusion.workbench node per proposed or accepted group, its body a model-local
 * function holding the original nodes; vetoed groups stay unfused; our reader loads the result; the input
 * model is never overwritten; no candidates, no change. */
#include "config.h"

#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "export/fw-fused-model.h"
#include "onnx/fw-onnx-rewrite.h"
#include "onnx/fw-pb.h"
#include "onnx/fw-onnx-fields.h"
#include "plan/fw-decisions.h"

static FwPlan *
plan_for (FwModel *model, gboolean enabled)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.enabled = enabled;
  plan = fw_plan_new (model, profile, rules, &options, &error);
  g_assert_no_error (error);
  /* The plan keeps a pointer to the rules; they live as long as the test program. */
  g_object_set_data_full (G_OBJECT (model), "test-rules", rules, (GDestroyNotify) fw_rule_set_free);
  return plan;
}

static gboolean
is_fused (const FwCandidate *c)
{
  return c->status == FW_CANDIDATE_PROPOSED || c->status == FW_CANDIDATE_ACCEPTED;
}

/* One FunctionProto, decoded enough to check it. */
typedef struct
{
  char      *name;
  char      *domain;
  GPtrArray *inputs;
  GPtrArray *outputs;
  GPtrArray *node_names;
  GPtrArray *node_ops;
  guint      n_opsets;
} Function;

static void
function_free (gpointer data)
{
  Function *f = data;

  g_free (f->name);
  g_free (f->domain);
  g_ptr_array_unref (f->inputs);
  g_ptr_array_unref (f->outputs);
  g_ptr_array_unref (f->node_names);
  g_ptr_array_unref (f->node_ops);
  g_free (f);
}

static char *
field_string (const FwPbField *f)
{
  return g_strndup ((const char *) f->data, f->len);
}

static void
decode_node (const guint8 *data, gsize len, Function *fn)
{
  FwPbReader r;
  FwPbField f;
  const char *message;
  gsize offset;
  char *name = g_strdup ("");
  char *op = NULL;

  fw_pb_reader_init (&r, data, data, len);
  while (fw_pb_next (&r, &f, &message, &offset) == FW_PB_OK)
    {
      if (f.field == NODE_NAME)
        {
          g_free (name);
          name = field_string (&f);
        }
      else if (f.field == NODE_OP_TYPE)
        op = field_string (&f);
    }
  g_assert_nonnull (op);
  g_ptr_array_add (fn->node_names, name);
  g_ptr_array_add (fn->node_ops, op);
}

/* The model's functions (ModelProto field 25), which our reader keeps as encoded bytes. */
static GHashTable *
functions_of (FwModel *model)
{
  GHashTable *by_name = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, function_free);

  for (guint i = 0; i < model->raw_fields->len; i++)
    {
      FwRawField *raw = &g_array_index (model->raw_fields, FwRawField, i);
      gsize len;
      const guint8 *data = g_bytes_get_data (raw->bytes, &len);
      FwPbReader outer, r;
      FwPbField top, f;
      const char *message;
      gsize offset;
      Function *fn;

      if (raw->field != MODEL_FUNCTIONS)
        continue;
      fw_pb_reader_init (&outer, data, data, len);
      g_assert_cmpint (fw_pb_next (&outer, &top, &message, &offset), ==, FW_PB_OK);
      g_assert_cmpuint (top.field, ==, MODEL_FUNCTIONS);
      fn = g_new0 (Function, 1);
      fn->inputs = g_ptr_array_new_with_free_func (g_free);
      fn->outputs = g_ptr_array_new_with_free_func (g_free);
      fn->node_names = g_ptr_array_new_with_free_func (g_free);
      fn->node_ops = g_ptr_array_new_with_free_func (g_free);
      fw_pb_reader_init (&r, data, top.data, top.len);
      while (fw_pb_next (&r, &f, &message, &offset) == FW_PB_OK)
        switch (f.field)
          {
          case FUNCTION_NAME:
            fn->name = field_string (&f);
            break;
          case FUNCTION_DOMAIN:
            fn->domain = field_string (&f);
            break;
          case FUNCTION_INPUT:
            g_ptr_array_add (fn->inputs, field_string (&f));
            break;
          case FUNCTION_OUTPUT:
            g_ptr_array_add (fn->outputs, field_string (&f));
            break;
          case FUNCTION_NODE:
            decode_node (f.data, f.len, fn);
            break;
          case FUNCTION_OPSET_IMPORT:
            fn->n_opsets++;
            break;
          default:
            break;
          }
      g_assert_nonnull (fn->name);
      g_assert_false (g_hash_table_contains (by_name, fn->name));
      g_hash_table_insert (by_name, fn->name, fn);
    }
  return by_name;
}

static FwNode *
node_named (FwGraph *graph, const char *name)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      if (strcmp (node->name, name) == 0)
        return node;
    }
  return NULL;
}

/* Everything the export promises, checked against the plan: returns the number of fused nodes. */
static guint
check_export (FwPlan *plan, GBytes *bytes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) back = fw_onnx_load_bytes (bytes, "fused.onnx", NULL, NULL, &error);
  g_autoptr(GHashTable) functions = NULL;
  FwGraph *orig = fw_model_get_graph (plan->model);
  FwGraph *graph;
  guint n_groups = 0, n_grouped = 0, n_fused_nodes = 0;
  g_autoptr(GHashTable) grouped = g_hash_table_new (NULL, NULL);

  g_assert_no_error (error);
  g_assert_nonnull (back);
  graph = fw_model_get_graph (back);
  functions = functions_of (back);

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (!is_fused (c))
        continue;
      n_groups++;
      n_grouped += c->nodes->len;
      for (guint k = 0; k < c->nodes->len; k++)
        g_hash_table_add (grouped, g_ptr_array_index (c->nodes, k));
    }
  g_assert_cmpuint (g_hash_table_size (grouped), ==, n_grouped);
  g_assert_cmpuint (graph->nodes->len, ==, orig->nodes->len - n_grouped + n_groups);
  g_assert_cmpuint (g_hash_table_size (functions), ==, n_groups);
  g_assert_cmpint (fw_model_get_opset_version (back, FW_ONNX_FUSED_DOMAIN), ==, n_groups ? 1 : 0);
  g_assert_cmpint (fw_model_get_opset_version (back, ""), ==, fw_model_get_opset_version (plan->model, ""));
  if (n_groups > 0)
    g_assert_cmpint (fw_model_get_ir_version (back), >=, 8);

  /* Every node outside the groups is still there, as it was. */
  for (guint i = 0; i < orig->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (orig->nodes, i);
      FwNode *copy = node_named (graph, node->name);

      if (g_hash_table_contains (grouped, node))
        g_assert_null (copy);
      else
        {
          g_assert_nonnull (copy);
          g_assert_cmpstr (copy->op_type, ==, node->op_type);
          g_assert_cmpuint (copy->n_inputs, <=, node->n_inputs);
        }
    }

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      Function *fn;
      const char *tail;
      guint64 index;
      const FwCandidate *c;

      if (strcmp (node->domain, FW_ONNX_FUSED_DOMAIN) != 0)
        continue;
      n_fused_nodes++;
      g_assert_true (g_str_has_prefix (node->op_type, "Fused_"));
      g_assert_nonnull (node->doc_string);
      g_assert_nonnull (strstr (node->doc_string, "Unified Buffer"));
      tail = strrchr (node->op_type, '_') + 1;
      g_assert_true (g_ascii_string_to_unsigned (tail, 10, 0, G_MAXUINT, &index, NULL));
      g_assert_cmpuint (index, <, plan->candidates->len);
      c = g_ptr_array_index (plan->candidates, index);
      g_assert_true (is_fused (c));
      g_assert_nonnull (strstr (node->doc_string, c->pattern));

      fn = g_hash_table_lookup (functions, node->op_type);
      g_assert_nonnull (fn);
      g_assert_cmpstr (fn->domain, ==, FW_ONNX_FUSED_DOMAIN);
      g_assert_cmpuint (fn->n_opsets, ==, plan->model->opsets->len);
      /* The body is the group, in its order, under the original names. */
      g_assert_cmpuint (fn->node_names->len, ==, c->nodes->len);
      for (guint k = 0; k < c->nodes->len; k++)
        {
          FwNode *member = g_ptr_array_index (c->nodes, k);
          g_assert_cmpstr (g_ptr_array_index (fn->node_names, k), ==, member->name);
          g_assert_cmpstr (g_ptr_array_index (fn->node_ops, k), ==, member->op_type);
        }
      /* The node's inputs and outputs are the function's, by name. */
      g_assert_cmpuint (fn->inputs->len, ==, node->n_inputs);
      for (guint k = 0; k < node->n_inputs; k++)
        g_assert_cmpstr (g_ptr_array_index (fn->inputs, k), ==, node->inputs[k]->name);
      g_assert_cmpuint (fn->outputs->len, ==, node->n_outputs);
      g_assert_cmpuint (node->n_outputs, >, 0);
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *out = fw_graph_lookup_value (orig, node->outputs[k]->name);
          g_assert_cmpstr (g_ptr_array_index (fn->outputs, k), ==, node->outputs[k]->name);
          g_assert_nonnull (out);
          g_assert_true (g_hash_table_contains (grouped, out->producer));
        }
    }
  g_assert_cmpuint (n_fused_nodes, ==, n_groups);

  /* Read back and written again: the same bytes, functions and all. */
  {
    g_autoptr(GBytes) again = fw_onnx_serialize (back, FW_ONNX_WRITE_DEFAULT, &error);
    g_assert_no_error (error);
    g_assert_true (g_bytes_equal (bytes, again));
  }
  return n_groups;
}

/* Runs onnx.checker.check_model(full_check=True) on path; FALSE (and the test skipped) when no python3
 * with the onnx package is found. */
static gboolean
run_onnx_checker (const char *path)
{
  const char *candidates[] = { g_getenv ("FW_PYTHON"), "/usr/bin/python3", "python3" };
  const char *script = "import sys, onnx\n"
                       "m = onnx.load(sys.argv[1])\n"
                       "onnx.checker.check_model(m, full_check=True)\n";

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *python = NULL;
      g_autofree char *err = NULL;
      gint status;

      if (candidates[i] == NULL || (python = g_find_program_in_path (candidates[i])) == NULL)
        continue;
      {
        const char *probe[] = { python, "-c", "import onnx", NULL };
        if (!g_spawn_sync (NULL, (char **) probe, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                           NULL, NULL, NULL, NULL, &status, NULL) ||
            !g_spawn_check_wait_status (status, NULL))
          continue;
      }
      {
        const char *argv[] = { python, "-c", script, path, NULL };
        g_autoptr(GError) error = NULL;

        g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                                     &err, &status, NULL));
        if (!g_spawn_check_wait_status (status, &error))
          g_printerr ("onnx.checker refused %s: %s\n%s", path, error->message, err);
        g_assert_no_error (error);
      }
      return TRUE;
    }
  g_test_skip ("no python3 with the onnx package");
  return FALSE;
}

static void
export_and_check (FwModel *model, guint min_groups)
{
  g_autoptr(FwPlan) plan = plan_for (model, TRUE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = fw_fused_model_serialize (plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_autoptr(GBytes) twice = fw_fused_model_serialize (plan, FW_ONNX_WRITE_DEFAULT, NULL);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "fused.onnx", NULL);
  g_autoptr(FwModel) from_file = NULL;
  FwGraph *graph = fw_model_get_graph (model);

  /* ONNX's checker wants a graph name, which the models built in memory lack; the export keeps what the
   * model has, so give them one. */
  if (graph->name == NULL || graph->name[0] == '\0')
    graph->name = fw_graph_intern (graph, "test");
  g_assert_no_error (error);
  g_assert_cmpuint (check_export (plan, bytes), >=, min_groups);
  /* Deterministic. */
  g_assert_true (g_bytes_equal (bytes, twice));

  /* To a file, weights outside: the reader still loads it, and ONNX's own checker accepts it. */
  g_assert_true (fw_fused_model_write (plan, path, FW_ONNX_WRITE_EXTERNAL_DATA, &error));
  g_assert_no_error (error);
  from_file = fw_onnx_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (from_file, NULL, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&from_file);
  run_onnx_checker (path);
  fw_test_remove_dir (dir);
}

static void
test_fused_transformer (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 4, FALSE);

  export_and_check (model, 3);
}

static void
test_fused_conv (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();

  export_and_check (model, 2);
}

static void
test_fused_chain (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (6, 256, FALSE);

  export_and_check (model, 1);
}

/* A vetoed candidate is not fused: its nodes stay plain nodes unless re-planning found a smaller group. */
static void
test_fused_vetoed (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 4, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model, TRUE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FwModel) back = NULL;
  const FwCandidate *vetoed = NULL;
  guint plain = 0;

  for (guint i = 0; i < plan->candidates->len && vetoed == NULL; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (is_fused (c) && c->nodes->len >= 2)
        vetoed = c;
    }
  g_assert_nonnull (vetoed);
  g_assert_true (fw_plan_veto (plan, vetoed->index, "test", "not this one", &error));
  g_assert_no_error (error);
  g_assert_cmpint (vetoed->status, ==, FW_CANDIDATE_VETOED);

  bytes = fw_fused_model_serialize (plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_no_error (error);
  check_export (plan, bytes);
  back = fw_onnx_load_bytes (bytes, "fused.onnx", NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < vetoed->nodes->len; k++)
    if (node_named (fw_model_get_graph (back), ((FwNode *) g_ptr_array_index (vetoed->nodes, k))->name))
      plain++;
  g_assert_cmpuint (plain, >, 0);
  for (guint i = 0; i < fw_model_get_graph (back)->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (fw_model_get_graph (back)->nodes, i);
      g_autofree char *suffix = g_strdup_printf ("_%u", vetoed->index);
      if (strcmp (node->domain, FW_ONNX_FUSED_DOMAIN) == 0)
        g_assert_false (g_str_has_suffix (node->op_type, suffix));
    }
}

/* No candidates: the same bytes as the plain writer, IR version and opsets untouched. */
static void
test_fused_none (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 4, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) fused = NULL;
  g_autoptr(GBytes) plain = NULL;

  g_assert_cmpuint (plan->candidates->len, ==, 0);
  fused = fw_fused_model_serialize (plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_no_error (error);
  plain = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (fused, plain));
  g_clear_pointer (&fused, g_bytes_unref);
  g_clear_pointer (&plain, g_bytes_unref);
  fused = fw_fused_model_serialize (plan, FW_ONNX_WRITE_INFERRED_SHAPES, &error);
  plain = fw_onnx_serialize (model, FW_ONNX_WRITE_INFERRED_SHAPES, &error);
  g_assert_true (g_bytes_equal (fused, plain));
}

/* Every candidate vetoed (and nothing re-planned fused): the model as it was too. */
static void
test_fused_all_vetoed (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autoptr(FwPlan) plan = plan_for (model, TRUE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) fused = NULL;
  g_autoptr(GBytes) plain = NULL;
  gboolean any;

  do
    {
      any = FALSE;
      for (guint i = 0; i < plan->candidates->len; i++)
        {
          const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
          if (is_fused (c))
            {
              g_assert_true (fw_plan_veto (plan, c->index, NULL, NULL, &error));
              g_assert_no_error (error);
              any = TRUE;
              break;
            }
        }
    }
  while (any);
  fused = fw_fused_model_serialize (plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_no_error (error);
  plain = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_true (g_bytes_equal (fused, plain));
}

static void
test_fused_refuses_input (void)
{
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autoptr(FwModel) built = fw_test_conv_block ();
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gsize len_before, len_after;

  g_assert_true (fw_onnx_write (built, path, FW_ONNX_WRITE_DEFAULT, NULL));
  g_assert_true (g_file_get_contents (path, &before, &len_before, NULL));
  model = fw_onnx_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  plan = plan_for (model, TRUE);
  g_assert_cmpuint (plan->candidates->len, >, 0);

  g_assert_false (fw_fused_model_write (plan, path, FW_ONNX_WRITE_DEFAULT, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_clear_error (&error);
  g_assert_false (fw_fused_model_write (plan, path, FW_ONNX_WRITE_EXTERNAL_DATA, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_true (g_file_get_contents (path, &after, &len_after, NULL));
  g_assert_cmpmem (before, len_before, after, len_after);
  g_clear_pointer (&plan, fw_plan_free);
  g_clear_object (&model);
  fw_test_remove_dir (dir);
}

/* A graph built by hand and a plan built by hand, to pin down what the planner's groups rarely show: a
 * group whose first node comes before something it reads (written after it), an intermediate read outside
 * the group (a second output), an intermediate that stays inside (no value_info in the main graph), and
 * a group an outside path leaves and re-enters (refused, not written). */
static FwModel *
hand_model (gboolean cyclic)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (4) };
  g_autoptr(GError) error = NULL;
  struct { const char *op, *name, *a, *b, *out; } nodes[] = {
    { "Relu", "/g/A", "x", NULL, "a" },
    { "Tanh", "/g/T", "a", NULL, "t" },
    { "Sigmoid", "/D", "a", NULL, "d" },
    { "Neg", "/B", cyclic ? "a" : "y", NULL, "b" },
    { "Add", "/g/C", "t", "b", "c" },
    { "Add", "/E", "c", "d", "e" },
  };

  fw_model_set_ir_version (model, 7);
  g->name = fw_graph_intern (g, "hand");
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "y", FW_DTYPE_FLOAT, 1, dims, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    {
      const char *ins[2] = { nodes[i].a, nodes[i].b };
      g_assert_nonnull (fw_graph_add_node (g, nodes[i].op, "", nodes[i].name, nodes[i].b ? 2 : 1, ins, 1,
                                           &nodes[i].out, NULL));
    }
  g_assert_true (fw_graph_add_output (g, "e", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static void
test_fused_order (void)
{
  g_autoptr(FwModel) model = hand_model (FALSE);
  FwGraph *g = fw_model_get_graph (model);
  FwCandidate c = { 0 };
  FwPlan plan = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FwModel) back = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "hand.onnx", NULL);
  const char *want[] = { "/B", "/g/Fused_hand_made_0", "/D", "/E" };
  FwGraph *bg;
  FwNode *fused;

  c.pattern = (char *) "hand-made";
  c.kind = (char *) "elementwise_chain";
  c.status = FW_CANDIDATE_ACCEPTED;
  c.nodes = g_ptr_array_new ();
  g_ptr_array_add (c.nodes, fw_graph_get_node (g, 0));
  g_ptr_array_add (c.nodes, fw_graph_get_node (g, 1));
  g_ptr_array_add (c.nodes, fw_graph_get_node (g, 4));
  plan.model = model;
  plan.candidates = g_ptr_array_new ();
  g_ptr_array_add (plan.candidates, &c);

  bytes = fw_fused_model_serialize (&plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_no_error (error);
  check_export (&plan, bytes);
  g_clear_pointer (&bytes, g_bytes_unref);
  /* With value_info for every known shape, as the batch export can write it. */
  bytes = fw_fused_model_serialize (&plan, FW_ONNX_WRITE_INFERRED_SHAPES, &error);
  g_assert_no_error (error);
  back = fw_onnx_load_bytes (bytes, "hand.onnx", NULL, NULL, &error);
  g_assert_no_error (error);
  bg = fw_model_get_graph (back);
  g_assert_cmpint (fw_model_get_ir_version (back), ==, 8);
  g_assert_cmpuint (bg->nodes->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpstr (((FwNode *) g_ptr_array_index (bg->nodes, i))->name, ==, want[i]);
  fused = g_ptr_array_index (bg->nodes, 1);
  g_assert_cmpuint (fused->n_inputs, ==, 2);
  g_assert_cmpstr (fused->inputs[0]->name, ==, "x");
  g_assert_cmpstr (fused->inputs[1]->name, ==, "b");
  g_assert_cmpuint (fused->n_outputs, ==, 2);
  g_assert_cmpstr (fused->outputs[0]->name, ==, "a");
  g_assert_cmpstr (fused->outputs[1]->name, ==, "c");
  /* t lives only in the function: no value_info for it in the main graph. */
  g_assert_true (fw_graph_lookup_value (bg, "t") == NULL || !fw_graph_lookup_value (bg, "t")->has_value_info);
  g_assert_true (fw_graph_lookup_value (bg, "d")->has_value_info);

  g_assert_true (fw_fused_model_write (&plan, path, FW_ONNX_WRITE_DEFAULT, &error));
  g_assert_no_error (error);
  run_onnx_checker (path);
  fw_test_remove_dir (dir);
  g_ptr_array_unref (c.nodes);
  g_ptr_array_unref (plan.candidates);
}

static void
test_fused_cycle (void)
{
  g_autoptr(FwModel) model = hand_model (TRUE);
  FwGraph *g = fw_model_get_graph (model);
  FwCandidate c = { 0 };
  FwPlan plan = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  c.pattern = (char *) "cycle";
  c.status = FW_CANDIDATE_PROPOSED;
  c.nodes = g_ptr_array_new ();
  g_ptr_array_add (c.nodes, fw_graph_get_node (g, 0));
  g_ptr_array_add (c.nodes, fw_graph_get_node (g, 1));
  g_ptr_array_add (c.nodes, fw_graph_get_node (g, 4));
  plan.model = model;
  plan.candidates = g_ptr_array_new ();
  g_ptr_array_add (plan.candidates, &c);
  bytes = fw_fused_model_serialize (&plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_null (bytes);
  g_assert_error (error, FW_ERROR, FW_ERROR_INTERNAL);
  g_ptr_array_unref (c.nodes);
  g_ptr_array_unref (plan.candidates);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/export/fused/transformer", test_fused_transformer);
  g_test_add_func ("/core/export/fused/conv", test_fused_conv);
  g_test_add_func ("/core/export/fused/chain", test_fused_chain);
  g_test_add_func ("/core/export/fused/vetoed", test_fused_vetoed);
  g_test_add_func ("/core/export/fused/all-vetoed", test_fused_all_vetoed);
  g_test_add_func ("/core/export/fused/no-candidates", test_fused_none);
  g_test_add_func ("/core/export/fused/refuses-input", test_fused_refuses_input);
  g_test_add_func ("/core/export/fused/order", test_fused_order);
  g_test_add_func ("/core/export/fused/cycle", test_fused_cycle);
  return g_test_run ();
}
