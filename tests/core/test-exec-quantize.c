/* test-exec-quantize.c: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul and
 * QLinearConv on the ONNX specification's own examples, rounding ties, saturation at both ends, per-axis
 * parameters with a negative axis, blocked parameters (opset 21), int4 and uint4 (opset 21) in all three
 * forms, and the refusals (4-bit types below opset 21, float8, a scale of the wrong length). Integer results
 * are compared exactly, with their dtype. */
#include "config.h"

#include "fw-test-op.h"

static FwArray *
scalar (FwDType dtype, double v)
{
  return mk (dtype, 0, NULL, &v);
}

static void
check_exact (const FwArray *a, FwDType dtype, guint rank, const gint64 *dims, const double *values)
{
  g_assert_cmpstr (fw_dtype_name (a->dtype), ==, fw_dtype_name (dtype));
  g_assert_cmpuint (a->rank, ==, rank);
  for (guint d = 0; d < rank; d++)
    g_assert_cmpint (a->dims[d], ==, dims[d]);
  for (gint64 i = 0; i < a->n_elements; i++)
    if (fw_array_get_double (a, i) != values[i])
      g_error ("element %" G_GINT64_FORMAT " is %.9g, expected %.9g", i, fw_array_get_double (a, i), values[i]);
}

/* What shape inference decided for output slot: the kernels' dtype, a static shape of that rank. */
static void
check_inferred (Op *c, guint slot, FwDType dtype, gint rank)
{
  const FwValue *v = op_node (c)->outputs[slot];

  g_assert_cmpstr (fw_dtype_name (v->dtype), ==, fw_dtype_name (dtype));
  g_assert_cmpint (v->rank, ==, rank);
  g_assert_true (fw_value_is_static (v));
}

/* ---- QuantizeLinear ---- */

static void
test_quantize_uint8 (void)
{
  g_autoptr(Op) c = op_new (13, "QuantizeLinear", 1);

  /* The specification's example: 3 / 2 = 1.5 rounds to 2, 1000 and -1000 saturate. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (6), VALS (0, 2, 3, 1000, -254, -1000)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 2));
  op_const (c, scalar (FW_DTYPE_UINT8, 128));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_UINT8, 1, DIMS (6), VALS (128, 129, 130, 255, 1, 0));
}

static void
test_quantize_int8_ties (void)
{
  g_autoptr(Op) c = op_new (13, "QuantizeLinear", 1);

  /* Halves round to even: 0.5 → 0, 1.5 → 2, 2.5 → 2, and the same below zero; then saturation at -128
   * and 127. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (10), VALS (1, 3, 5, -1, -3, -5, 7, 300, -300, -257)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 2));
  op_const (c, scalar (FW_DTYPE_INT8, 0));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_INT8, 1, DIMS (10), VALS (0, 2, 2, 0, -2, -2, 4, 127, -128, -128));
}

static void
test_quantize_int8_zero_point (void)
{
  g_autoptr(Op) c = op_new (13, "QuantizeLinear", 1);

  /* The specification's int8 example. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (6), VALS (0, 2, 3, 1000, -254, -1000)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 2));
  op_const (c, scalar (FW_DTYPE_INT8, 24));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_INT8, 1, DIMS (6), VALS (24, 25, 26, 127, -103, -128));
}

static void
test_quantize_int16 (void)
{
  g_autoptr(Op) c = op_new (21, "QuantizeLinear", 1);

  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (5), VALS (0, 5, -7, 100000, -100000)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 2));
  op_const (c, scalar (FW_DTYPE_INT16, -100));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_INT16, 1, DIMS (5), VALS (-100, -98, -104, 32767, -32768));
  check_inferred (c, 0, FW_DTYPE_INT16, 1);
}

static void
test_quantize_default_uint8 (void)
{
  g_autoptr(Op) c = op_new (13, "QuantizeLinear", 1);

  /* No zero point: uint8, zero point 0, negatives saturate to 0. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (3), VALS (-1, 0.75, 600)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.5));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_UINT8, 1, DIMS (3), VALS (0, 2, 255));
  check_inferred (c, 0, FW_DTYPE_UINT8, 1);
}

static void
test_quantize_axis (void)
{
  g_autoptr(Op) c = op_new (13, "QuantizeLinear", 1);

  /* The specification's per-axis example, with axis -3 for axis 1 of a rank-4 input. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 4, DIMS (1, 3, 3, 2),
                 VALS (-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, -485, -960, -270, -375, -470)));
  op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (3), VALS (2, 4, 5)));
  op_const (c, mk (FW_DTYPE_UINT8, 1, DIMS (3), VALS (84, 24, 196)));
  fw_node_set_attr_int (op_node (c), "axis", -3);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_UINT8, 4, DIMS (1, 3, 3, 2),
               VALS (3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102));
}

static void
test_quantize_blocked (void)
{
  g_autoptr(Op) c = op_new (21, "QuantizeLinear", 1);

  /* The specification's blocked example: blocks of 2 along axis 1. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 4), VALS (6, 12, 50, 5, 1, 8, 4, 5, 0, 20, 10, 4)));
  op_const (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 2), VALS (1.5, 2.5, 3, 4.9, 5.1, 6.9)));
  op_const (c, mk (FW_DTYPE_UINT8, 2, DIMS (3, 2), VALS (0, 1, 1, 0, 2, 3)));
  fw_node_set_attr_int (op_node (c), "axis", 1);
  fw_node_set_attr_int (op_node (c), "block_size", 2);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_UINT8, 2, DIMS (3, 4), VALS (4, 8, 21, 3, 1, 4, 1, 1, 2, 6, 4, 4));
}

/* ---- int4 and uint4 (opset 21) ---- */

static void
test_quantize_int4_ties_saturation (void)
{
  g_autoptr(Op) c = op_new (21, "QuantizeLinear", 1);

  /* x / 2: halves to even (0.5 → 0, 1.5 → 2, 2.5 → 2, 6.5 → 6, the same below zero), then [-8, 7]: 7.5
   * and 50 saturate to 7, -7.5, -8.5 and -50 to -8. No zero point: output_dtype says int4. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (13), VALS (1, 3, 5, 13, -1, -3, -5, -13, 15, 100, -15, -17, -100)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 2));
  fw_node_set_attr_int (op_node (c), "output_dtype", FW_DTYPE_INT4);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_INT4, 1, DIMS (13), VALS (0, 2, 2, 6, 0, -2, -2, -6, 7, 7, -8, -8, -8));
  check_inferred (c, 0, FW_DTYPE_INT4, 1);
}

static void
test_quantize_int4_zero_point (void)
{
  g_autoptr(Op) c = op_new (21, "QuantizeLinear", 1);

  /* Zero point -3: round(x / 0.5) - 3 within [-8, 7], the tie 2.5 → 2 before the shift. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (6), VALS (0, 1.25, -1, 4.5, 5, -5)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.5));
  op_const (c, scalar (FW_DTYPE_INT4, -3));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_INT4, 1, DIMS (6), VALS (-3, -1, -5, 6, 7, -8));
  check_inferred (c, 0, FW_DTYPE_INT4, 1);
}

static void
test_quantize_uint4_axis (void)
{
  g_autoptr(Op) c = op_new (21, "QuantizeLinear", 1);

  /* One scale and zero point per column (axis -1): uint4 saturates at 0 and 15, 1.5 → 2 and 0.5 → 0. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 3), VALS (0.5, 3, -2, 1.5, 100, 2.5, -100, -3.5, 10)));
  op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (3), VALS (1, 2, 0.5)));
  op_const (c, mk (FW_DTYPE_UINT4, 1, DIMS (3), VALS (0, 8, 15)));
  fw_node_set_attr_int (op_node (c), "axis", -1);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_UINT4, 2, DIMS (3, 3), VALS (0, 10, 11, 2, 15, 15, 0, 6, 15));
}

static void
test_quantize_int4_blocked (void)
{
  g_autoptr(Op) c = op_new (21, "QuantizeLinear", 1);

  /* [2, 6] in blocks of 4 along axis 1, the second block partial (2 columns): scale and zero point [2, 2]. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 6), VALS (1, 2, 3, 40, 1, -1, -4, -5, 0, 6, 9, -9)));
  op_const (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 2), VALS (2, 0.5, 1, 3)));
  op_const (c, mk (FW_DTYPE_INT4, 2, DIMS (2, 2), VALS (0, 1, -2, 0)));
  fw_node_set_attr_int (op_node (c), "axis", 1);
  fw_node_set_attr_int (op_node (c), "block_size", 4);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_INT4, 2, DIMS (2, 6), VALS (0, 1, 2, 7, 3, -1, -6, -7, -2, 4, 3, -3));
}

static void
test_dequantize_int4 (void)
{
  g_autoptr(Op) c = op_new (21, "DequantizeLinear", 1);

  /* Both ends of int4 and an odd count, (x − (−2)) × 0.5. */
  op_const (c, mk (FW_DTYPE_INT4, 1, DIMS (5), VALS (-8, -1, 0, 7, 3)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.5));
  op_const (c, scalar (FW_DTYPE_INT4, -2));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_FLOAT, 1, DIMS (5), VALS (-3, 0.5, 1, 4.5, 2.5));
  check_inferred (c, 0, FW_DTYPE_FLOAT, 1);
}

static void
test_dequantize_uint4_axis (void)
{
  g_autoptr(Op) c = op_new (21, "DequantizeLinear", 1);

  /* Per row (axis 0): 0 and 15 against zero points 0, 8 and 15. */
  op_dyn (c, mk (FW_DTYPE_UINT4, 2, DIMS (3, 2), VALS (0, 15, 8, 15, 0, 15)));
  op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (3), VALS (1, 0.25, 2)));
  op_const (c, mk (FW_DTYPE_UINT4, 1, DIMS (3), VALS (0, 8, 15)));
  fw_node_set_attr_int (op_node (c), "axis", 0);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_FLOAT, 2, DIMS (3, 2), VALS (0, 15, 0, 1.75, -30, 0));
}

static void
test_dequantize_int4_blocked (void)
{
  g_autoptr(Op) c = op_new (21, "DequantizeLinear", 1);

  /* int4 [5, 2] in blocks of 2 along axis 0 (K, as weights of a MatMul are), the last block one row:
   * scale and zero point [3, 2]. */
  op_const (c, mk (FW_DTYPE_INT4, 2, DIMS (5, 2), VALS (-8, 7, 1, -1, 2, 3, -4, 5, 6, -7)));
  op_const (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 2), VALS (1, 0.5, 2, 0.25, 4, 8)));
  op_const (c, mk (FW_DTYPE_INT4, 2, DIMS (3, 2), VALS (0, -1, 1, 2, -8, 7)));
  fw_node_set_attr_int (op_node (c), "axis", 0);
  fw_node_set_attr_int (op_node (c), "block_size", 2);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_FLOAT, 2, DIMS (5, 2), VALS (-8, 4, 1, 0, 2, 0.25, -10, 0.75, 56, -112));
}

/* Below opset 21 a 4-bit type is refused by name, by shape inference and by the kernel run on its own. */
static void
check_4bit_refused (Op *c, FwDType dtype)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  g_autofree char *want = g_strdup_printf ("dtype %s needs opset 21", fw_dtype_name (dtype));
  FwNode *node = op_node (c);

  g_assert_true (fw_graph_link (c->g, NULL));
  g_assert_false (fw_test_infer (c->model, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, want));
  g_clear_error (&error);
  g_assert_false (fw_exec_run_node (ctx, node, (FwArray *const *) c->arrays->pdata, c->out, &error));
  g_assert_nonnull (strstr (error->message, want));
}

static void
test_quantize_refusals (void)
{
  /* The model's QuantizeLinear (opset 19) has no 4-bit output. */
  FwDType refused[] = { FW_DTYPE_INT4, FW_DTYPE_UINT4 };

  for (guint k = 0; k < G_N_ELEMENTS (refused); k++)
    {
      g_autoptr(Op) c = op_new (19, "QuantizeLinear", 1);

      op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), VALS (1, 2)));
      op_const (c, scalar (FW_DTYPE_FLOAT, 1));
      fw_node_set_attr_int (op_node (c), "output_dtype", refused[k]);
      check_4bit_refused (c, refused[k]);
    }
  {
    g_autoptr(Op) c = op_new (13, "DequantizeLinear", 1);

    op_dyn (c, mk (FW_DTYPE_INT4, 1, DIMS (2), VALS (1, 2)));
    op_const (c, scalar (FW_DTYPE_FLOAT, 1));
    check_4bit_refused (c, FW_DTYPE_INT4);
  }
  {
    /* float8 outputs are refused, not guessed. */
    g_autoptr(Op) c = op_new (21, "QuantizeLinear", 1);

    op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), VALS (1, 2)));
    op_const (c, scalar (FW_DTYPE_FLOAT, 1));
    fw_node_set_attr_int (op_node (c), "output_dtype", FW_DTYPE_FLOAT8E4M3FN);
    op_fails (c);
  }
  {
    /* A per-axis scale of the wrong length. */
    g_autoptr(Op) c = op_new (13, "QuantizeLinear", 1);

    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), NULL));
    op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), VALS (1, 2)));
    op_const (c, mk (FW_DTYPE_UINT8, 1, DIMS (2), VALS (0, 0)));
    op_fails (c);
  }
}

/* ---- DequantizeLinear ---- */

static void
test_dequantize (void)
{
  g_autoptr(Op) c = op_new (13, "DequantizeLinear", 1);

  /* The specification's example. */
  op_dyn (c, mk (FW_DTYPE_UINT8, 1, DIMS (4), VALS (0, 3, 128, 255)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 2));
  op_const (c, scalar (FW_DTYPE_UINT8, 128));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_FLOAT, 1, DIMS (4), VALS (-256, -250, 0, 254));
  check_inferred (c, 0, FW_DTYPE_FLOAT, 1);
}

static void
test_dequantize_axis (void)
{
  g_autoptr(Op) c = op_new (13, "DequantizeLinear", 1);

  /* The per-axis example backwards, axis -3. */
  op_dyn (c, mk (FW_DTYPE_UINT8, 4, DIMS (1, 3, 3, 2),
                 VALS (3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102)));
  op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (3), VALS (2, 4, 5)));
  op_const (c, mk (FW_DTYPE_UINT8, 1, DIMS (3), VALS (84, 24, 196)));
  fw_node_set_attr_int (op_node (c), "axis", -3);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_FLOAT, 4, DIMS (1, 3, 3, 2),
               VALS (-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, -485, -960, -270, -375, -470));
}

static void
test_dequantize_blocked (void)
{
  g_autoptr(Op) c = op_new (21, "DequantizeLinear", 1);

  /* int8 [4, 3] in blocks of 2 along axis 0: scale and zero point [2, 3]. */
  op_dyn (c, mk (FW_DTYPE_INT8, 2, DIMS (4, 3), VALS (-1, 2, 3, 4, -5, 6, 7, 8, -9, 10, 11, 12)));
  op_const (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), VALS (0.5, 1, 2, 0.25, 4, 8)));
  op_const (c, mk (FW_DTYPE_INT8, 2, DIMS (2, 3), VALS (0, 1, -1, 2, 0, 3)));
  fw_node_set_attr_int (op_node (c), "axis", 0);
  fw_node_set_attr_int (op_node (c), "block_size", 2);
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_FLOAT, 2, DIMS (4, 3), VALS (-0.5, 1, 8, 2, -6, 14, 1.25, 32, -96, 2, 44, 72));
}

static void
test_dequantize_int32 (void)
{
  g_autoptr(Op) c = op_new (13, "DequantizeLinear", 1);

  /* A bias quantised to int32 at scale 1/4. */
  op_dyn (c, mk (FW_DTYPE_INT32, 1, DIMS (3), VALS (-8, 0, 1000003)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.25));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_FLOAT, 1, DIMS (3), VALS (-2, 0, 250000.75));
}

/* ---- DynamicQuantizeLinear ---- */

static void
test_dynamic_quantize (void)
{
  g_autoptr(Op) c = op_new (11, "DynamicQuantizeLinear", 3);

  /* The specification's example: scale (2 − (−3)) / 255, zero point round(3 / scale) = 153. */
  op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (6), VALS (0, 2, -3, -2.5, 1.34, 0.5)));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_UINT8, 1, DIMS (6), VALS (153, 255, 0, 26, 221, 179));
  check_exact (c->out[1], FW_DTYPE_FLOAT, 0, NULL, VALS ((float) (5.0f / 255.0f)));
  check_exact (c->out[2], FW_DTYPE_UINT8, 0, NULL, VALS (153));
  check_inferred (c, 0, FW_DTYPE_UINT8, 1);
  check_inferred (c, 1, FW_DTYPE_FLOAT, 0);
  check_inferred (c, 2, FW_DTYPE_UINT8, 0);
}

/* ---- QLinearMatMul, QLinearConv ---- */

static void
test_qlinear_matmul (void)
{
  g_autoptr(Op) c = op_new (10, "QLinearMatMul", 1);

  /* The specification's example. */
  op_dyn (c, mk (FW_DTYPE_UINT8, 2, DIMS (2, 4), VALS (208, 236, 0, 238, 3, 214, 255, 29)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.0066));
  op_const (c, scalar (FW_DTYPE_UINT8, 113));
  op_const (c, mk (FW_DTYPE_UINT8, 2, DIMS (4, 3), VALS (152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.00705));
  op_const (c, scalar (FW_DTYPE_UINT8, 114));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.0107));
  op_const (c, scalar (FW_DTYPE_UINT8, 118));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_UINT8, 2, DIMS (2, 3), VALS (168, 115, 255, 1, 66, 151));
  check_inferred (c, 0, FW_DTYPE_UINT8, 2);
}

static void
test_qlinear_conv (void)
{
  g_autoptr(Op) c = op_new (10, "QLinearConv", 1);

  /* x [1,1,3,3] uint8 (zero point 2), w [2,1,2,2] int8 with one scale per output channel, int32 bias;
   * y = round(float(acc + bias) × 0.5 × w_scale[c] / 0.2) + 5 in int8 (numpy, as ONNX Runtime computes). */
  op_dyn (c, mk (FW_DTYPE_UINT8, 4, DIMS (1, 1, 3, 3), VALS (1, 2, 3, 4, 5, 6, 7, 8, 9)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.5));
  op_const (c, scalar (FW_DTYPE_UINT8, 2));
  op_const (c, mk (FW_DTYPE_INT8, 4, DIMS (2, 1, 2, 2), VALS (1, -1, 2, 0, 3, 1, -2, -1)));
  op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), VALS (0.25, 0.125)));
  op_const (c, mk (FW_DTYPE_INT8, 1, DIMS (2), VALS (0, 0)));
  op_const (c, scalar (FW_DTYPE_FLOAT, 0.2));
  op_const (c, scalar (FW_DTYPE_INT8, 5));
  op_const (c, mk (FW_DTYPE_INT32, 1, DIMS (2), VALS (10, -20)));
  op_ok (c);
  check_exact (c->out[0], FW_DTYPE_INT8, 4, DIMS (1, 2, 2, 2), VALS (13, 14, 17, 18, -4, -4, -3, -3));
  check_inferred (c, 0, FW_DTYPE_INT8, 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/quantize/uint8", test_quantize_uint8);
  g_test_add_func ("/core/exec/quantize/int8-ties", test_quantize_int8_ties);
  g_test_add_func ("/core/exec/quantize/int8-zero-point", test_quantize_int8_zero_point);
  g_test_add_func ("/core/exec/quantize/int16", test_quantize_int16);
  g_test_add_func ("/core/exec/quantize/default-uint8", test_quantize_default_uint8);
  g_test_add_func ("/core/exec/quantize/axis", test_quantize_axis);
  g_test_add_func ("/core/exec/quantize/blocked", test_quantize_blocked);
  g_test_add_func ("/core/exec/quantize/int4-ties-saturation", test_quantize_int4_ties_saturation);
  g_test_add_func ("/core/exec/quantize/int4-zero-point", test_quantize_int4_zero_point);
  g_test_add_func ("/core/exec/quantize/uint4-axis", test_quantize_uint4_axis);
  g_test_add_func ("/core/exec/quantize/int4-blocked", test_quantize_int4_blocked);
  g_test_add_func ("/core/exec/quantize/refusals", test_quantize_refusals);
  g_test_add_func ("/core/exec/dequantize/uint8", test_dequantize);
  g_test_add_func ("/core/exec/dequantize/axis", test_dequantize_axis);
  g_test_add_func ("/core/exec/dequantize/blocked", test_dequantize_blocked);
  g_test_add_func ("/core/exec/dequantize/int32", test_dequantize_int32);
  g_test_add_func ("/core/exec/dequantize/int4", test_dequantize_int4);
  g_test_add_func ("/core/exec/dequantize/uint4-axis", test_dequantize_uint4_axis);
  g_test_add_func ("/core/exec/dequantize/int4-blocked", test_dequantize_int4_blocked);
  g_test_add_func ("/core/exec/quantize/dynamic", test_dynamic_quantize);
  g_test_add_func ("/core/exec/quantize/qlinear-matmul", test_qlinear_matmul);
  g_test_add_func ("/core/exec/quantize/qlinear-conv", test_qlinear_conv);
  return g_test_run ();
}
