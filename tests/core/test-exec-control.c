/* test-exec-control.c: the If, Loop and Scan reference kernels, with their subgraphs built by hand. */
#include "config.h"

#include "fw-test-op.h"

/* ---- If, Loop ---- */

static FwNode *
add_node (FwGraph *g, const char *op, guint n_in, const char *const *in, guint n_out, const char *const *out)
{
  g_autoptr(GError) error = NULL;
  FwNode *node = fw_graph_add_node (g, op, "", op, n_in, in, n_out, out, &error);

  g_assert_no_error (error);
  return node;
}

static void
test_if (void)
{
  for (int branch = 0; branch < 2; branch++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      FwGraph *then_g = fw_graph_new (g), *else_g = fw_graph_new (g);
      FwDim d3 = FW_DIM_STATIC (3);
      g_autoptr(FwTensor) two = fw_tensor_new_float (0, NULL, (const float[]) { 2 });
      g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
      g_autoptr(GError) error = NULL;
      FwArray *in[2], *out[1] = { NULL };
      FwNode *node;

      g_assert_nonnull (fw_graph_add_input (g, "cond", FW_DTYPE_BOOL, 0, NULL, NULL));
      g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, &d3, NULL));
      /* then: x * 2 (reads the outer x); else: x passed straight through. */
      g_assert_nonnull (fw_graph_add_initializer (then_g, "two", two, NULL));
      add_node (then_g, "Mul", 2, (const char *[]) { "x", "two" }, 1, (const char *[]) { "t" });
      g_assert_true (fw_graph_add_output (then_g, "t", NULL));
      add_node (else_g, "Neg", 1, (const char *[]) { "x" }, 1, (const char *[]) { "e" });
      g_assert_true (fw_graph_add_output (else_g, "e", NULL));
      node = add_node (g, "If", 1, (const char *[]) { "cond" }, 1, (const char *[]) { "y" });
      fw_node_set_attr_graph (node, "then_branch", then_g);
      fw_node_set_attr_graph (node, "else_branch", else_g);
      g_assert_true (fw_graph_add_output (g, "y", NULL));
      g_assert_true (fw_graph_link (g, &error));
      g_assert_no_error (error);
      g_assert_true (fw_test_infer (model, NULL, NULL, &error));
      g_assert_no_error (error);
      in[0] = mk (FW_DTYPE_BOOL, 0, NULL, VALS (branch == 0));
      in[1] = mk (FW_DTYPE_FLOAT, 1, DIMS (3), VALS (1, 2, 3));
      if (fw_kernel_lookup ("", "Mul") == NULL || fw_kernel_lookup ("", "Neg") == NULL)
        {
          g_test_skip ("no Mul/Neg kernels yet");
          fw_array_unref (in[0]);
          fw_array_unref (in[1]);
          return;
        }
      fw_exec_run_reference (ctx, g, in, 2, out, NULL, &error);
      g_assert_no_error (error);
      if (branch == 0)
        check (out[0], 1, DIMS (3), VALS (2, 4, 6));
      else
        check (out[0], 1, DIMS (3), VALS (-1, -2, -3));
      fw_array_unref (out[0]);
      fw_array_unref (in[0]);
      fw_array_unref (in[1]);
    }
}

/* Loop with trip count M and condition: carried sum += i (via Cast-free int64 Add), scan output i * ... */
static FwGraph *
loop_body (FwGraph *g, gboolean stop_at_2)
{
  FwGraph *body = fw_graph_new (g);
  FwDim d1 = FW_DIM_STATIC (1);
  g_autoptr(FwTensor) two = fw_tensor_new_int64 (0, NULL, (const gint64[]) { 2 });

  g_assert_nonnull (fw_graph_add_input (body, "i", FW_DTYPE_INT64, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "c_in", FW_DTYPE_BOOL, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "acc_in", FW_DTYPE_INT64, 1, &d1, NULL));
  g_assert_nonnull (fw_graph_add_initializer (body, "two", two, NULL));
  /* acc = acc_in + i + base (base is an outer value); scan = Unsqueeze-free copy of acc via Identity. */
  add_node (body, "Add", 2, (const char *[]) { "acc_in", "i" }, 1, (const char *[]) { "acc_i" });
  add_node (body, "Add", 2, (const char *[]) { "acc_i", "base" }, 1, (const char *[]) { "acc_out" });
  add_node (body, "Identity", 1, (const char *[]) { "acc_out" }, 1, (const char *[]) { "scan" });
  if (stop_at_2)
    add_node (body, "Less", 2, (const char *[]) { "i", "two" }, 1, (const char *[]) { "c_out" });
  else
    add_node (body, "Identity", 1, (const char *[]) { "c_in" }, 1, (const char *[]) { "c_out" });
  g_assert_true (fw_graph_add_output (body, "c_out", NULL));
  g_assert_true (fw_graph_add_output (body, "acc_out", NULL));
  g_assert_true (fw_graph_add_output (body, "scan", NULL));
  return body;
}

static gboolean
run_loop (gint64 trip, gboolean stop_at_2, FwArray **out, GError **error)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d1 = FW_DIM_STATIC (1);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  FwArray *in[3];
  FwNode *node;
  gboolean ok;

  g_assert_nonnull (fw_graph_add_input (g, "M", FW_DTYPE_INT64, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "acc0", FW_DTYPE_INT64, 1, &d1, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "base", FW_DTYPE_INT64, 0, NULL, NULL));
  node = add_node (g, "Loop", 3, (const char *[]) { "M", "", "acc0" }, 2, (const char *[]) { "acc", "scans" });
  fw_node_set_attr_graph (node, "body", loop_body (g, stop_at_2));
  g_assert_true (fw_graph_add_output (g, "acc", NULL));
  g_assert_true (fw_graph_add_output (g, "scans", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  in[0] = scalar_i (trip);
  in[1] = ints (1, VALS (100));
  in[2] = scalar_i (10);
  ok = fw_exec_run_reference (ctx, g, in, 3, out, NULL, error);
  for (guint i = 0; i < 3; i++)
    fw_array_unref (in[i]);
  return ok;
}

static gboolean
have_kernels (const char *const *ops)
{
  for (guint i = 0; ops[i]; i++)
    if (fw_kernel_lookup ("", ops[i]) == NULL)
      {
        g_test_skip ("elementwise kernels are not there yet");
        return FALSE;
      }
  return TRUE;
}

static void
test_loop (void)
{
  static const char *const needed[] = { "Add", "Identity", "Less", NULL };
  FwArray *out[2] = { NULL, NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (needed))
    return;
  /* M = 4: acc = 100 + Σ (i + 10) for i < 4 = 146; scans 110, 121, 133, 146. */
  run_loop (4, FALSE, out, &error);
  g_assert_no_error (error);
  check (out[0], 1, DIMS (1), VALS (146));
  check (out[1], 2, DIMS (4, 1), VALS (110, 121, 133, 146));
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);

  /* The body's condition stops it after i = 2 (3 iterations). */
  run_loop (100, TRUE, out, &error);
  g_assert_no_error (error);
  check (out[0], 1, DIMS (1), VALS (133));
  check (out[1], 2, DIMS (3, 1), VALS (110, 121, 133));
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);

  /* Zero iterations: the initial value and an empty scan. */
  run_loop (0, FALSE, out, &error);
  g_assert_no_error (error);
  check (out[0], 1, DIMS (1), VALS (100));
  g_assert_cmpint (out[1]->dims[0], ==, 0);
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);
}

static void
test_loop_cap (void)
{
  static const char *const needed[] = { "Add", "Identity", NULL };
  FwArray *out[2] = { NULL, NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (needed))
    return;
  if (!g_test_slow ())
    {
      g_test_skip ("runs a million iterations; -m slow");
      return;
    }
  g_assert_false (run_loop (G_MAXINT64, FALSE, out, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
}

/* ---- Scan ---- */

/* The Scan page's cumulative sum: state sum (shape [2]), scan input x with its steps along scan_axis;
 * body: sum_out = sum_in + next, scan_out = Identity (sum_out). in_dir/out_dir/out_axis as the attributes. */
static gboolean
run_scan (const FwDim *x_dims, gint64 in_axis, gint64 in_dir, gint64 out_axis, gint64 out_dir, FwArray *x,
          FwArray **out, GError **error)
{
  g_autoptr(FwModel) model = fw_test_model_new (16);
  FwGraph *g = fw_model_get_graph (model), *body = fw_graph_new (g);
  FwDim d2 = FW_DIM_STATIC (2);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  g_autoptr(GError) local = NULL;
  FwArray *in[2];
  FwNode *node;
  gboolean ok;

  g_assert_nonnull (fw_graph_add_input (g, "init", FW_DTYPE_FLOAT, 1, &d2, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, x_dims, NULL));
  /* The body's inputs are left untyped: inference gives them the state's and one slice's shape. */
  g_assert_nonnull (fw_graph_add_input (body, "sum_in", FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "next", FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL, NULL));
  add_node (body, "Add", 2, (const char *[]) { "sum_in", "next" }, 1, (const char *[]) { "sum_out" });
  add_node (body, "Identity", 1, (const char *[]) { "sum_out" }, 1, (const char *[]) { "scan_out" });
  g_assert_true (fw_graph_add_output (body, "sum_out", NULL));
  g_assert_true (fw_graph_add_output (body, "scan_out", NULL));
  node = add_node (g, "Scan", 2, (const char *[]) { "init", "x" }, 2, (const char *[]) { "y", "z" });
  fw_node_set_attr_graph (node, "body", body);
  fw_node_set_attr_int (node, "num_scan_inputs", 1);
  fw_node_set_attr_ints (node, "scan_input_axes", 1, &in_axis);
  fw_node_set_attr_ints (node, "scan_input_directions", 1, &in_dir);
  fw_node_set_attr_ints (node, "scan_output_axes", 1, &out_axis);
  fw_node_set_attr_ints (node, "scan_output_directions", 1, &out_dir);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_add_output (g, "z", NULL));
  g_assert_true (fw_graph_link (g, &local));
  g_assert_no_error (local);
  g_assert_true (fw_test_infer (model, NULL, NULL, &local));
  g_assert_no_error (local);
  /* Inference: the final state has the state's shape, the scan output 3 steps along its axis. */
  g_assert_true (fw_value_is_static (node->outputs[0]));
  g_assert_cmpint (node->outputs[0]->rank, ==, 1);
  g_assert_true (fw_value_is_static (node->outputs[1]));
  g_assert_cmpint (node->outputs[1]->rank, ==, 2);
  g_assert_cmpint (node->outputs[1]->dims[out_axis].value, ==, 3);
  g_assert_cmpint (node->outputs[1]->dims[1 - out_axis].value, ==, 2);
  in[0] = mk (FW_DTYPE_FLOAT, 1, DIMS (2), VALS (0, 0));
  in[1] = x;
  ok = fw_exec_run_reference (ctx, g, in, 2, out, NULL, error);
  fw_array_unref (in[0]);
  fw_array_unref (in[1]);
  return ok;
}

static void
test_scan (void)
{
  static const char *const needed[] = { "Add", "Identity", NULL };
  FwDim rows[2] = { FW_DIM_STATIC (3), FW_DIM_STATIC (2) }, cols[2] = { FW_DIM_STATIC (2), FW_DIM_STATIC (3) };
  FwArray *out[2] = { NULL, NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (needed))
    return;
  /* The page's example: x = [[1, 2], [3, 4], [5, 6]] scanned over rows. */
  g_assert_true (run_scan (rows, 0, 0, 0, 0, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 2), VALS (1, 2, 3, 4, 5, 6)), out,
                           &error));
  g_assert_no_error (error);
  check (out[0], 1, DIMS (2), VALS (9, 12));
  check (out[1], 2, DIMS (3, 2), VALS (1, 2, 4, 6, 9, 12));
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);

  /* The same values as columns (axis 1), read last column first and the stack written in reverse along
     axis 1: steps (5, 6), (3, 4), (1, 2) give sums (5, 6), (8, 10), (9, 12), stored from the end. */
  g_assert_true (run_scan (cols, 1, 1, 1, 1, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), VALS (1, 3, 5, 2, 4, 6)), out,
                           &error));
  g_assert_no_error (error);
  check (out[0], 1, DIMS (2), VALS (9, 12));
  check (out[1], 2, DIMS (2, 3), VALS (9, 8, 5, 12, 10, 6));
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);
}

/* Bad attributes name the node and what is wrong. */
static void
test_scan_bad (void)
{
  static const char *const needed[] = { "Add", "Identity", NULL };
  FwDim rows[2] = { FW_DIM_STATIC (3), FW_DIM_STATIC (2) };
  FwArray *out[2] = { NULL, NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (needed))
    return;
  g_assert_false (run_scan (rows, 0, 2, 0, 0, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 2), VALS (1, 2, 3, 4, 5, 6)), out,
                            &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "scan_input_directions"));
  g_assert_nonnull (strstr (error->message, "Scan"));
}

/* Opset 8's Scan (sequence_lens first, a batch axis) is another operator: refused by name, not misread. */
static void
test_scan_opset8 (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (8);
  FwGraph *g = fw_model_get_graph (model), *body = fw_graph_new (g);
  FwDim dims[2] = { FW_DIM_STATIC (3), FW_DIM_STATIC (2) };
  g_autoptr(GError) error = NULL;
  FwNode *node;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "xi", FW_DTYPE_FLOAT, 1, dims + 1, NULL));
  add_node (body, "Identity", 1, (const char *[]) { "xi" }, 1, (const char *[]) { "yi" });
  g_assert_true (fw_graph_add_output (body, "yi", NULL));
  node = add_node (g, "Scan", 2, (const char *[]) { "", "x" }, 1, (const char *[]) { "y" });
  fw_node_set_attr_graph (node, "body", body);
  fw_node_set_attr_int (node, "num_scan_inputs", 1);
  node->opset = 8; /* as the reader sets it from the model's opset import */
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_false (fw_test_infer (model, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "opset 8"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/control/if", test_if);
  g_test_add_func ("/core/exec/control/loop/basic", test_loop);
  g_test_add_func ("/core/exec/control/loop/cap", test_loop_cap);
  g_test_add_func ("/core/exec/control/scan/basic", test_scan);
  g_test_add_func ("/core/exec/control/scan/bad-direction", test_scan_bad);
  g_test_add_func ("/core/exec/control/scan/opset8", test_scan_opset8);
  return g_test_run ();
}
