/* fw-exec.h: running a model on the host: the reference interpreter (every node its own reference kernel)
 * and seeded inputs. The fused executor, verification and measurement build on it (fw-fused.h).
 *
 * Values are freed after their last use, so a run holds only the live tensors; constants are borrowed
 * from the model's mapping. */
#pragma once

#include <gio/gio.h>

#include "fw-array.h"
#include "fw-kernel.h"
#include "graph/fw-model.h"

G_BEGIN_DECLS

/* n_threads 0: the machine's cores. cancellable may be NULL; a run checks it between nodes. */
FwExecContext *fw_exec_context_new      (guint            n_threads,
                                         GCancellable    *cancellable);
void           fw_exec_context_free     (FwExecContext   *ctx);
/* Golden mode (FW_DTYPE_FLOAT: float16 and bfloat16 computed as float32; FW_DTYPE_DOUBLE: every float type
 * as float64; FW_DTYPE_UNDEFINED: off, the default): every run in ctx computes the graph with its floating
 * values widened, and its arrays of those values come out widened. */
void           fw_exec_context_set_golden (FwExecContext *ctx,
                                         FwDType          golden);
/* The unquantised mode (fw-unquantised.c): QuantizeLinear and DequantizeLinear pass float values on. */
void           fw_exec_context_set_unquantised (FwExecContext *ctx,
                                                gboolean       unquantised);
/* The type a value of dtype has in golden mode golden. */
FwDType        fw_exec_golden_dtype     (FwDType          golden,
                                         FwDType          dtype);

/* One array per graph input that is not an initializer, in order, filled from seed: floats uniform in
 * [-1, 1), integers in [0, 8) (so they index small dims safely), bool 0/1. Every dim must be static. */
GPtrArray     *fw_exec_make_inputs      (FwModel         *model,
                                         guint64          seed,
                                         GError         **error);

/* Runs graph with the reference kernels. inputs: one per non-initializer graph input. outputs receives one
 * new array per graph output. keep, when not NULL, maps FwValue* to NULL for values the caller wants too
 * (group boundaries); the run replaces each NULL by a reference to the value's array. */
gboolean       fw_exec_run_reference    (FwExecContext   *ctx,
                                         const FwGraph   *graph,
                                         FwArray *const  *inputs,
                                         guint            n_inputs,
                                         FwArray        **outputs,
                                         GHashTable      *keep,
                                         GError         **error);

/* Runs one node's reference kernel on arrays (measurement and tests). */
gboolean       fw_exec_run_node         (FwExecContext   *ctx,
                                         const FwNode    *node,
                                         FwArray *const  *inputs,
                                         FwArray        **outputs,
                                         GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwExecContext, fw_exec_context_free)

G_END_DECLS
