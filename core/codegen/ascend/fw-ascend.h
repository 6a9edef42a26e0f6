/* fw-ascend.h: the `ascend` target: one fused candidate → an Ascend C vector kernel (CopyIn / Compute /
 * CopyOut over double-buffered TQue queues), its tiling struct, a host tiling function that sizes tiles from
 * the Unified Buffer budget as the planner's estimate did, a CMake project for the CANN toolchain and a
 * README.
 *
 * Groups with a MatMul/Gemm root become one mixed cube + vector kernel where they can (the Matmul API's
 * object computes C block by block into the Unified Buffer, the epilogue runs on each block: fw-ascend-cube.c);
 * Conv roots, and MatMul/Gemm roots that cannot, become the vector epilogue only: the cube part runs as
 * CANN's own MatMul (or Conv) and writes its result to global memory, from which the epilogue kernel reads it. Names
 * from the model reach the sources only inside escaped comments; identifiers are generated. Nothing here
 * needs the CANN toolchain; docs/ascend-target.md says what the generated code has and has not been checked
 * against. */
#pragma once

#include <glib.h>

#include "codegen/fw-kernel-source.h"
#include "exec/fw-array.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef struct _FwAscendKernel FwAscendKernel;

/* The numbers the tiling header carries, as this generator computed them for the plan's profile. The host
 * tiling function computes the same from a UB size and core count given at run time. */
typedef struct
{
  gint64  total_length;     /* elements of the iteration space */
  gint64  tile_length;      /* elements per tile (whole rows for row groups) */
  gint64  tile_num;         /* tiles in all */
  gint64  rows;             /* rows per tile for row reductions, 0 otherwise */
  gint64  row_length;       /* elements of one row, 0 without row reductions */
  gint64  block_num;        /* cores used */
  gint64  tiles_per_block;
  gdouble ub_bytes;         /* what the planner's model charges for the tile */
  gdouble kernel_ub_bytes;  /* what the generated kernel allocates, scratch included */
  /* A mixed cube + vector kernel: the fields its tiling struct carries after the seven above (the
   * TCubeTiling's 22 fields and the batch walk's 3, in the struct's order, fw-ascend-cube.c); n_cube 0 for
   * any other kernel. */
  guint   n_cube;
  guint64 cube[32];
  /* Bytes of GM workspace the kernel takes (its argument after the outputs; an integer kernel's activation
   * requantised to int8 for the cube, fw-ascend-int8.c); 0: none. */
  gint64  workspace_bytes;
} FwAscendTiling;

/* One generated file: a name relative to the kernel's folder and its text. */
/* The buffers the kernel of candidate allocates, for the planner to price (an FwUbArrangeFunc: set
 * FwPlanOptions.arrange to it when planning for an Ascend profile). FALSE when the target cannot make it. */
gboolean              fw_ascend_arrange              (const FwPlan      *plan,
                                                      const FwCandidate *candidate,
                                                      FwUbArrangement   *out,
                                                      GError           **error);
FwAscendKernel       *fw_ascend_kernel_generate      (FwPlan            *plan,
                                                      const FwCandidate *candidate,
                                                      GError           **error);
void                  fw_ascend_kernel_free          (FwAscendKernel    *kernel);
/* "fw_k007": the entry point's name, also the file stem. */
const FwAscendTiling *fw_ascend_kernel_get_tiling    (FwAscendKernel    *kernel);
/* Its files: the kernel .cpp, NAME_tiling.h, NAME_tiling.cpp (the host tiling function), CMakeLists.txt and
 * README.md; its inputs (streamed, then broadcast operands) and outputs in argument order. */
const FwKernelSource *fw_ascend_kernel_get_kernel_source (FwAscendKernel *kernel);

/* The kernel as a SuperKernel's sub-kernel: C++ defining namespace NAME (fw_k007) with everything the kernel
 * file has and, for its entry, `__aicore__ inline void Run(...)` with the same arguments, to paste after the
 * scope's includes and its tiling header (fw-ascend-superkernel.h). */
const char           *fw_ascend_kernel_get_body      (FwAscendKernel    *kernel);

char                 *fw_ascend_escape_comment       (const char        *text);
/* The head of a kernel folder's CMakeLists.txt (the CANN toolchain's ascendc.cmake found, project name), for
 * a "what" ("fused kernel", "SuperKernel"); its targets follow. */
char                 *fw_ascend_cmake_preamble       (const char        *name,
                                                      const char        *what);

/* How far a mixed kernel's outputs may lie from a reference that sums the same product in another float32
 * order (a BLAS sgemm): the forward error bound of a K-term dot product, K u max|A| max|B| (u = 2^-24), for
 * each of the two sums; 0 for any other kernel. inputs in the kernel source's order (A and B first). An
 * absolute tolerance to add to the dtype's, where no explicit one was asked for. */
/* An integer (QDQ) group's kernel (fw-ascend-int8.c): its product bound is of the dequantised operands, its
 * inputs not needed. */
gboolean              fw_ascend_kernel_is_integer    (FwAscendKernel    *kernel);
gdouble               fw_ascend_kernel_product_tolerance (FwAscendKernel    *kernel,
                                                      FwArray *const    *inputs);
/* The same bound for a product over k terms of a and b (a kernel re-run from a package, whose tiling gives k). */
gdouble               fw_ascend_product_tolerance    (guint64            k,
                                                      const FwArray     *a,
                                                      const FwArray     *b);

/* What the Ascend kernel of a group is, for the reports (the spec's form, fw_kernel_spec_get_form): "vector"
 * (no compute root: the whole group runs on the vector unit), "cube_vector" (one mixed kernel: the Matmul
 * API computes a MatMul/Gemm root's result block by block into the Unified Buffer and the epilogue runs on
 * it there) or "epilogue" (a Conv root, or a MatMul/Gemm one that cannot be mixed, runs as CANN's own cube
 * operator, writing its result to GM; the kernel is the vector epilogue reading it back). */
const char           *fw_ascend_kernel_form          (const FwKernelSpec *spec);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwAscendKernel, fw_ascend_kernel_free)

G_END_DECLS
