/* fw-exec-private.h: what the interpreter, the fused executor and measurement share. */
#pragma once

#include "fw-exec.h"
#include "fw-fused.h"

G_BEGIN_DECLS

/* The values of one graph being run; subgraphs see their enclosing frames' values. */
typedef struct _FwExecFrame FwExecFrame;

struct _FwExecFrame
{
  const FwGraph *graph;
  FwArray      **values;   /* by FwValue index */
  FwExecFrame   *parent;
};

struct _FwExecContext
{
  guint          n_threads;
  GCancellable  *cancellable;
  FwExecFrame   *frame;     /* innermost frame being run */
  FwDType        golden;    /* FW_DTYPE_UNDEFINED, or the golden mode's widest type (fw-golden.c) */
  gboolean       unquantised; /* Q/DQ of float values pass them on (fw-unquantised.c) */
};

/* fw-unquantised.c: TRUE when node, in the unquantised mode, passed its float input on as outputs[0]. */
gboolean  fw_exec_run_node_unquantised (const FwNode  *node,
                                        FwArray *const *inputs,
                                        FwArray      **outputs);

/* The array for value in frame: computed, constant (borrowed) or captured from an enclosing frame. A new
 * reference, or NULL with error when it is not available. */
FwArray  *fw_exec_frame_lookup (FwExecFrame   *frame,
                                const FwValue *value,
                                GError       **error);
/* Checks a kernel's outputs against what shape inference said (dtype, static dims): a mismatch is a bug in
 * a kernel or in inference, reported as FW_ERROR_INTERNAL naming the node. */
gboolean  fw_exec_check_outputs (const FwNode  *node,
                                 FwArray      **outputs,
                                 FwDType        golden,
                                 GError       **error);
/* fw-golden.c: node's kernel run on its inputs widened to the golden types, outputs widened after. */
gboolean  fw_exec_run_node_golden (FwExecContext *ctx,
                                   const FwNode  *node,
                                   FwKernelFunc   run,
                                   FwArray *const *inputs,
                                   FwArray      **outputs,
                                   GError       **error);
/* A kernel's boundary inputs from values (FwValue* → FwArray*, as a run with keep filled it); constants
 * are borrowed from the model. */
gboolean  fw_verify_gather_inputs (const FwGroupKernel *kernel,
                                   GHashTable    *values,
                                   FwArray      **in,
                                   GError       **error);
/* Binds a graph's inputs in frame (initializers skipped when skip_initializers), one array each. */
gboolean  fw_exec_frame_bind_inputs (FwExecFrame   *frame,
                                     FwArray *const *inputs,
                                     guint          n_inputs,
                                     gboolean       skip_initializers,
                                     GError       **error);
/* One use of v done: frees its array when uses[v] drops to 0. */
void      fw_exec_frame_release   (FwExecFrame   *frame,
                                   guint         *uses,
                                   const FwValue *v);
/* Uses per value of frame's graph before a run: graph outputs and kept values get one extra. */
void      fw_exec_frame_count_kept (FwExecFrame  *frame,
                                    guint        *uses,
                                    GHashTable   *keep);
/* After a run: outputs gets a reference per graph output, keep's NULL entries are filled. */
gboolean  fw_exec_frame_finish    (FwExecFrame   *frame,
                                   FwArray      **outputs,
                                   GHashTable    *keep,
                                   GError       **error);
/* Stores a computed array for v: kept while a use is left, dropped at once otherwise. Takes array. */
void      fw_exec_frame_store     (FwExecFrame   *frame,
                                   const guint   *uses,
                                   const FwValue *v,
                                   FwArray       *array);
/* Runs node on its reference kernel in frame (nothing when its outputs were folded at load), then
 * releases one use of each input. */
gboolean  fw_exec_frame_run_node  (FwExecContext *ctx,
                                   FwExecFrame   *frame,
                                   guint         *uses,
                                   const FwNode  *node,
                                   GError       **error);
/* Unrefs every value of frame and frees the table. */
void      fw_exec_frame_clear     (FwExecFrame   *frame);
/* splitmix64 */
guint64   fw_exec_random_next   (guint64       *state);

G_END_DECLS
