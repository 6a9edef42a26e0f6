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
};

/* The array for value in frame: computed, constant (borrowed) or captured from an enclosing frame. A new
 * reference, or NULL with error when it is not available. */
FwArray  *fw_exec_frame_lookup (FwExecFrame   *frame,
                                const FwValue *value,
                                GError       **error);
/* Checks a kernel's outputs against what shape inference said (dtype, static dims): a mismatch is a bug in
 * a kernel or in inference, reported as FW_ERROR_INTERNAL naming the node. */
gboolean  fw_exec_check_outputs (const FwNode  *node,
                                 FwArray      **outputs,
                                 GError       **error);
/* A kernel's boundary inputs from values (FwValue* → FwArray*, as a run with keep filled it); constants
 * are borrowed from the model. */
gboolean  fw_verify_gather_inputs (const FwGroupKernel *kernel,
                                   GHashTable    *values,
                                   FwArray      **in,
                                   GError       **error);
/* splitmix64 */
guint64   fw_exec_random_next   (guint64       *state);

G_END_DECLS
