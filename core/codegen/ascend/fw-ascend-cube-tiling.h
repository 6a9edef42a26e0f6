/* fw-ascend-cube-tiling.h: the cube tiling (TCubeTiling) of a mixed cube + vector kernel, computed on the host
 * from the matrix shape and the profile, the way CANN's MultiCoreMatmulTiling fills it for the
 * MatmulLeakyReluCustom sample, but from our own rules (docs/ascend-twin.md, the Matmul API). */
#pragma once

#include <glib.h>

#include "hw/fw-profile.h"

G_BEGIN_DECLS

/* C [m, n] = A [m, k] B [k, n] (+ bias [n]); element sizes in bytes, bias_bytes 0 without a bias. whole_n:
 * each C block holds whole rows of C (an epilogue with row operations): N is not split and baseN covers it. */
typedef struct
{
  gint64   m, n, k;
  guint    a_bytes, b_bytes, bias_bytes;
  gboolean whole_n;
} FwCubeShape;

/* The fields of TCubeTiling结构体.md the generated kernel and the twin read, same names. */
typedef struct
{
  gint used_core_num;
  gint m, n, ka, kb;
  gint single_core_m, single_core_n, single_core_k;
  gint base_m, base_n, base_k;
  gint depth_a1, depth_b1;
  gint step_m, step_n, step_ka, step_kb;
  gint is_bias, iterate_order;
  gint db_l0a, db_l0b, db_l0c;
} FwCubeTiling;

/* Tries every split of C over the profile's cube cores (row shares by column shares of whole 16-row/column
 * fractals), every fractal-aligned baseM x baseN whose float accumulators fit L0C and whose C block of
 * c_block_budget bytes (the UB the kernel gives one C block, at c_bytes per element) fits, the largest baseK
 * that fits L0A/L0B, and every way of spending L1 (iterateOrder, an A or B panel held for the core's whole
 * share by stepM or stepN, which operands keep all of K); of the candidates that keep at least three quarters
 * of the most cores any uses busy, the one that reads the fewest bytes from GM by fw_ascend_cube_traffic
 * wins (then more cores, then larger blocks). FALSE with error when no tiling fits (a dimension past the
 * API's int fields, or not even 16 x 16 x C0 fitting). */
gboolean fw_ascend_cube_tiling (const FwCubeShape *shape,
                                const FwProfile   *profile,
                                guint              c_bytes,
                                guint64            c_block_budget,
                                FwCubeTiling      *out,
                                GError           **error);

/* The L1, L0A, L0B and L0C bytes a tiling takes (the twin's FW-TWIN-L1-CAPACITY/L0-CAPACITY sums): depthA1
 * blocks of baseM x baseK of A, depthB1 of baseN x baseK of B and the bias of stepN column blocks in L1. */
void     fw_ascend_cube_tiling_usage (const FwCubeTiling *t,
                                      const FwCubeShape  *shape,
                                      guint64            *l1,
                                      guint64            *l0a,
                                      guint64            *l0b,
                                      guint64            *l0c);

/* The bytes the Matmul API reads from GM for one product under the tiling, as the twin counts them (its
 * MTE2 traffic). Each core walks its share of C in iterateOrder (0: M first, 1: N first). An operand whose L1
 * buffer holds all of K (stepKa x baseK >= K, depthA1 >= stepM x stepKa; B likewise) is loaded a panel of
 * stepM row blocks (stepN column blocks, with the bias) at a time, when a block needs a panel the buffer does
 * not hold: once per core along the outer loop's axis, once per outer step along the inner one unless one
 * panel is the core's share. Otherwise every block loads its own rows of A (columns of B). */
gdouble  fw_ascend_cube_traffic      (const FwCubeTiling *t,
                                      const FwCubeShape  *shape);

G_END_DECLS
