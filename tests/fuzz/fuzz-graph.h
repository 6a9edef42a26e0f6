/* fuzz-graph.h: the grammar the fuzz targets over fuzzer-built graphs share: the planner's (fuzz-planner.c)
 * and the interpreter's (fuzz-exec.c). A program of bytes adds graph inputs, then constants and nodes whose
 * op comes from a fixed list and whose inputs are values that already exist, with small static (sometimes
 * symbolic) shapes and attributes drawn from the bytes; the result is linked and its shapes inferred.
 *
 * Encoding (each item one byte, 0 once the input runs out; the seeds in corpus/planner and corpus/exec
 * follow it, after each target's own header):
 *   n          1 + n % 3 graph inputs, each: rank % 5, kind (% 8: 6 int64, 7 float16, else float), then per
 *              dim d: symbolic ("batch" or "seq") when d % 11 == 10, else {1,2,3,4,8,16}[d % 6]
 *   then until the input ends or FUZZ_GRAPH_MAX_NODES nodes: w; w % 8 == 0 adds a float constant (rank % 4,
 *   one dim byte each), else a node: op index into the op list, input picks (index % number of values so
 *   far), then the op's own bytes (constants, axis as b % 9 − 4, perm, …) in the order fuzz-graph.c reads
 *   them. */
#pragma once

#include <glib.h>

#include "graph/fw-model.h"
#include "hw/fw-profile.h"
#include "rules/fw-rules.h"

G_BEGIN_DECLS

#define FUZZ_GRAPH_MAX_NODES 48

typedef struct
{
  const guint8 *p;
  const guint8 *end;
} FuzzInput;

/* The next byte, 0 once the input runs out. */
guint     fuzz_input_next          (FuzzInput    *in);

/* Builds a model (IR 8, opset 17) from the program at in. The last value is a graph output; when
 * output_choice % 4 == 0 so is value output_choice % (values − 1). bindings (symbol → gint64*, may be NULL)
 * go to shape inference. NULL when any step refuses the graph (with a GError, which is not a finding). */
FwModel  *fuzz_graph_build         (FuzzInput    *in,
                                    guint         output_choice,
                                    GHashTable   *bindings);

/* The Ascend 910B profile and the built-in rules, or aborts naming target. */
void      fuzz_graph_planner_setup (const char   *target,
                                    FwProfile   **profile,
                                    FwRuleSet   **rules);

G_END_DECLS
