/* fw-ascend-superkernel.h: the `ascend` target's SuperKernel: one sk_NNN.cpp per scope of the plan's
 * SuperKernel plan (fw-superkernel-plan.h) whose entry, `extern "C" __global__ __aicore__ void sk_NNN`, calls
 * each sub-kernel's body in execution order (the generated kernels as `__aicore__` functions,
 * fw_ascend_kernel_get_body), each on its own cores, with the plan's narrowed barriers between them, every
 * core of the scope taking part in every barrier (CANN's feed-sync-all). One tiling struct holds every
 * sub-kernel's tiling in turn; a CMake project and a README go with it (docs/superkernel.md).
 *
 * A sub-kernel we do not generate (a single op, or the cube operator before an epilogue: CANN's own kernel)
 * is a stand-in: on the chip CANN's SuperKernel compile binds the operator's compiled kernel in its place;
 * here every core of it reads each input the scope wrote before it and writes its share of the result,
 * which the caller passes in (the reference run's), so that the barriers around it are exercised on the
 * twin like any other. */
#pragma once

#include <glib.h>

#include "codegen/ascend/fw-ascend.h"
#include "plan/fw-superkernel-plan.h"

G_BEGIN_DECLS

typedef struct _FwAscendScope FwAscendScope;

/* The Ascend kernel the target generated for fused group candidate, or NULL (then a stand-in). */
typedef FwAscendKernel *(*FwAscendKernelLookup) (guint candidate, gpointer data);

/* Scope index of sk (its files are sk_NNN.*). The kernels lookup returns stay the caller's and must outlive
 * the scope. */
FwAscendScope        *fw_ascend_scope_generate        (FwPlan               *plan,
                                                       const FwSkPlan       *sk,
                                                       guint                 index,
                                                       FwAscendKernelLookup  lookup,
                                                       gpointer              data,
                                                       GError              **error);
void                  fw_ascend_scope_free            (FwAscendScope        *scope);

/* Named "sk_NNN": sk_NNN.cpp, sk_NNN_tiling.h, CMakeLists.txt, README.md. Its inputs are the values read
 * from outside the scope, then each stand-in's result (the same value as its output); its outputs every
 * value a sub-kernel writes, in the order they are written. */
const FwKernelSource *fw_ascend_scope_get_kernel_source (FwAscendScope      *scope);
/* The tiling struct's uint64 fields in order (every sub-kernel's, in turn). */
const guint64        *fw_ascend_scope_get_tiling      (FwAscendScope        *scope,
                                                       guint                *n);
guint                 fw_ascend_scope_get_blocks      (FwAscendScope        *scope);
guint                 fw_ascend_scope_get_n_barriers  (FwAscendScope        *scope);
guint                 fw_ascend_scope_get_n_stand_ins (FwAscendScope        *scope);
/* The largest fw_ascend_kernel_product_tolerance of its mixed sub-kernels, on the arrays values holds for
 * their inputs (FwValue* → FwArray*). */
gdouble               fw_ascend_scope_product_tolerance (FwAscendScope      *scope,
                                                       GHashTable           *values);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwAscendScope, fw_ascend_scope_free)

G_END_DECLS
