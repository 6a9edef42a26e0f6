/* test-exec-resize.c: the Resize and Upsample reference kernel; the expectations come from a port of
 * ONNX's reference implementation (interpolate_nd). */
#include "config.h"

#include "fw-test-op.h"

/* ---- Resize, Upsample ---- */

static const double x24[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

/* Resize-13 of the 2×4 x24 with scales (or sizes when scales is NULL) and string attributes. */
static FwArray *
resize (const double *scales, const double *sizes, const double *roi, const char *mode, const char *coord,
        const char *nearest, double cubic_a, gboolean exclude, double extrapolation)
{
  g_autoptr(Op) c = op_new (13, "Resize", 1);
  FwArray *y;

  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 4), x24));
  if (roi)
    op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (4), roi));
  else
    op_none (c);
  if (scales)
    op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), scales));
  else
    op_none (c);
  if (sizes)
    op_const (c, ints (2, sizes));
  fw_node_set_attr_string (op_node (c), "mode", mode);
  fw_node_set_attr_string (op_node (c), "coordinate_transformation_mode", coord);
  if (nearest)
    fw_node_set_attr_string (op_node (c), "nearest_mode", nearest);
  fw_node_set_attr_float (op_node (c), "cubic_coeff_a", (float) cubic_a);
  fw_node_set_attr_int (op_node (c), "exclude_outside", exclude);
  fw_node_set_attr_float (op_node (c), "extrapolation_value", (float) extrapolation);
  op_ok (c);
  y = g_steal_pointer (&c->out[0]);
  return y;
}

static void
test_resize_linear (void)
{
  g_autoptr(FwArray) a = resize (VALS (2, 1.5), NULL, NULL, "linear", "half_pixel", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) b = resize (NULL, VALS (3, 7), NULL, "linear", "align_corners", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) c = resize (VALS (0.5, 0.75), NULL, NULL, "linear", "pytorch_half_pixel", NULL, -0.75,
                                 FALSE, 0);
  g_autoptr(FwArray) d = resize (VALS (0.5, 0.5), NULL, NULL, "linear", "asymmetric", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) e = resize (NULL, VALS (3, 4), VALS (0, -0.5, 1, 1.2), "linear", "tf_crop_and_resize", NULL,
                                 -0.75, FALSE, 10);

  check (a, 2, DIMS (4, 6), VALS (1, 1.5, 2.16666667, 2.83333333, 3.5, 4, 2, 2.5, 3.16666667, 3.83333333, 4.5, 5,
                                  4, 4.5, 5.16666667, 5.83333333, 6.5, 7, 5, 5.5, 6.16666667, 6.83333333, 7.5, 8));
  check (b, 2, DIMS (3, 7), VALS (1, 1.5, 2, 2.5, 3, 3.5, 4, 3, 3.5, 4, 4.5, 5, 5.5, 6, 5, 5.5, 6, 6.5, 7, 7.5, 8));
  check (c, 2, DIMS (1, 3), VALS (1.16666667, 2.5, 3.83333333));
  check (d, 2, DIMS (1, 2), VALS (1, 3));
  check (e, 2, DIMS (3, 4), VALS (10, 1.2, 2.9, 10, 10, 3.2, 4.9, 10, 10, 5.2, 6.9, 10));
}

static void
test_resize_cubic (void)
{
  g_autoptr(FwArray) a = resize (VALS (2, 1.5), NULL, NULL, "cubic", "half_pixel", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) b = resize (NULL, VALS (3, 5), NULL, "cubic", "align_corners", NULL, -0.5, TRUE, 0);
  g_autoptr(FwArray) c = resize (VALS (1.5, 0.75), NULL, NULL, "cubic", "half_pixel", NULL, -0.75, TRUE, 0);

  check (a, 2, DIMS (4, 6), VALS (0.491319444, 0.984375, 1.79108796, 2.36516204, 3.171875, 3.66493056,
                                  1.81944444, 2.3125, 3.11921296, 3.69328704, 4.5, 4.99305556,
                                  4.00694444, 4.5, 5.30671296, 5.88078704, 6.6875, 7.18055556,
                                  5.33506944, 5.828125, 6.63483796, 7.20891204, 8.015625, 8.50868056));
  check (b, 2, DIMS (3, 5), VALS (1, 1.70992366, 2.5, 3.29007634, 4, 3, 3.70992366, 4.5, 5.29007634, 6,
                                  5, 5.70992366, 6.5, 7.29007634, 8));
  check (c, 2, DIMS (3, 3), VALS (0.710675532, 2.09459459, 3.47851366, 3.11608094, 4.5, 5.88391906,
                                  5.52148634, 6.90540541, 8.28932447));
}

static void
test_resize_nearest (void)
{
  g_autoptr(FwArray) a = resize (VALS (2, 1.5), NULL, NULL, "nearest", "asymmetric", "floor", -0.75, FALSE, 0);
  g_autoptr(FwArray) b = resize (VALS (1.5, 1.5), NULL, NULL, "nearest", "half_pixel", "round_prefer_ceil",
                                 -0.75, FALSE, 0);
  g_autoptr(FwArray) c = resize (VALS (1.5, 1.5), NULL, NULL, "nearest", "half_pixel", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) d = resize (VALS (1.5, 0.75), NULL, NULL, "nearest", "align_corners", "ceil", -0.75, FALSE, 0);

  check (a, 2, DIMS (4, 6), VALS (1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 5, 5, 6, 7, 7, 8));
  check (b, 2, DIMS (3, 6), VALS (1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 8, 5, 6, 6, 7, 8, 8));
  check (c, 2, DIMS (3, 6), VALS (1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8));
  check (d, 2, DIMS (3, 3), VALS (1, 3, 4, 5, 7, 8, 5, 7, 8));
}

static void
test_resize_aspect (void)
{
  /* not_larger: sizes [4, 4] of a 2×4 input → one scale min(2, 1) = 1: output 2×4, unchanged. */
  g_autoptr(Op) c = op_new (18, "Resize", 1);

  op_dyn (c, mk (FW_DTYPE_UINT8, 4, DIMS (1, 1, 2, 4), x24));
  op_none (c);
  op_none (c);
  op_const (c, ints (2, VALS (4, 4)));
  fw_node_set_attr_ints (op_node (c), "axes", 2, DIMS (2, 3));
  fw_node_set_attr_string (op_node (c), "keep_aspect_ratio_policy", "not_larger");
  op_ok (c);
  check (c->out[0], 4, DIMS (1, 1, 2, 4), x24);
}

static void
test_upsample (void)
{
  {
    g_autoptr(Op) c = op_new (7, "Upsample", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 4, DIMS (1, 1, 2, 2), VALS (1, 2, 3, 4)));
    fw_node_set_attr_floats (op_node (c), "scales", 4, (const float[]) { 1, 1, 2, 3 });
    op_ok (c);
    check (c->out[0], 4, DIMS (1, 1, 4, 6),
           VALS (1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4));
  }
  {
    /* Opset 9: scales input; linear is asymmetric. */
    g_autoptr(Op) c = op_new (9, "Upsample", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (1, 2), VALS (1, 3)));
    op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), VALS (1, 2)));
    fw_node_set_attr_string (op_node (c), "mode", "linear");
    op_ok (c);
    check (c->out[0], 2, DIMS (1, 4), VALS (1, 2, 3, 3));
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/resize/linear", test_resize_linear);
  g_test_add_func ("/core/exec/resize/cubic", test_resize_cubic);
  g_test_add_func ("/core/exec/resize/nearest", test_resize_nearest);
  g_test_add_func ("/core/exec/resize/keep-aspect-ratio", test_resize_aspect);
  g_test_add_func ("/core/exec/resize/upsample", test_upsample);
  return g_test_run ();
}
