/* fw-onnx-rewrite.h: writing a model with sets of its main-graph nodes replaced by function nodes.
 *
 * Each set becomes one node of domain "fusion.workbench" whose body is a model-local function
 * (ModelProto.functions, IR 8) holding the set's original nodes, attributes and value names. Its inputs are
 * what the set reads from outside, its outputs what the rest of the graph (or the graph's outputs) reads
 * from it; the node goes where the set's first node was, after anything it reads that came later. ONNX
 * Runtime inlines model-local functions, so the file runs there and gives the original outputs.
 *
 * This is a format operation: which nodes, and the names and descriptions of their function nodes, are the
 * caller's (core/export/fw-fused-model.c makes them from a plan). A rewrite without sets writes the same
 * bytes fw_onnx_serialize writes for the model; like fw_onnx_write, writing refuses the model's own source
 * file and its external data. */
#pragma once

#include <gio/gio.h>

#include "fw-onnx.h"

G_BEGIN_DECLS

#define FW_ONNX_FUSED_DOMAIN "fusion.workbench"
#define FW_ONNX_FUSED_DOMAIN_VERSION 1
/* Model-local functions need IR 8. */
#define FW_ONNX_FUSED_MIN_IR_VERSION 8

typedef struct _FwOnnxRewrite FwOnnxRewrite;

/* model is referenced. */
FwOnnxRewrite *fw_onnx_rewrite_new        (FwModel             *model);
void           fw_onnx_rewrite_free       (FwOnnxRewrite       *rewrite);
/* Whether a function node may not be called op_type: a fusion.workbench node of the model has it (a model
 * fused before and fused again) or a set added before does. */
gboolean       fw_onnx_rewrite_is_taken   (FwOnnxRewrite       *rewrite,
                                           const char          *op_type);
/* Replaces nodes (FwNode*, the model's main graph, in topological order, none in a set added before) by one
 * function node op_type (also the function's name) called name. doc_string may be NULL; metadata is key,
 * value, … (char*, taken; node metadata_props where the IR has them), may be NULL. FW_ERROR_INTERNAL when a
 * node is not in the main graph or already in a set. */
gboolean       fw_onnx_rewrite_add        (FwOnnxRewrite       *rewrite,
                                           GPtrArray           *nodes,
                                           const char          *op_type,
                                           const char          *name,
                                           const char          *doc_string,
                                           GPtrArray           *metadata,
                                           GError             **error);
/* Makes the set added last compute its products `roots` (MatMul or Gemm nodes of the set reading the same
 * activation, each result's last axis `columns[i]` wide) as one MatMul of that activation with `weight` (their
 * weights side by side, [K, Σ columns]: a new initializer named after the set), plus `bias` ([Σ columns]) when
 * not NULL, split back into the roots' results along the last axis; the roots' own weights and biases no
 * longer enter the function. The tensors are referenced. FW_ERROR_INTERNAL for a set in a control-flow body,
 * or roots that are not the set's or read different activations. */
gboolean       fw_onnx_rewrite_pack_products (FwOnnxRewrite    *rewrite,
                                           GPtrArray           *roots,
                                           const gint64        *columns,
                                           FwTensor            *weight,
                                           FwTensor            *bias,
                                           GError             **error);
/* FW_ERROR_INTERNAL when the sets form a cycle (a path leaves a set and comes back into it). */
GBytes        *fw_onnx_rewrite_serialize  (FwOnnxRewrite       *rewrite,
                                           FwOnnxWriteFlags     flags,
                                           GError             **error);
gboolean       fw_onnx_rewrite_write      (FwOnnxRewrite       *rewrite,
                                           const char          *path,
                                           FwOnnxWriteFlags     flags,
                                           GError             **error);

/* Sets added, and one of them alone as a model: its nodes with their attributes, what it reads from outside
 * as graph inputs (constants as initializers), what the rest of the graph reads from it as outputs, the
 * shapes inside as value_info; the model's opsets. The small model a graph dump keeps per fused kernel. */
guint          fw_onnx_rewrite_get_n_sets (FwOnnxRewrite      *rewrite);
GBytes        *fw_onnx_rewrite_serialize_set (FwOnnxRewrite   *rewrite,
                                           guint               index,
                                           GError            **error);
/* The same with prologue (FwNode*, in order, none of them in the set) computed first inside the small
 * model: what the prologue reads becomes the model's inputs (constants as initializers) in place of what it
 * makes. An integer kernel reading its int8 operands through DequantizeLinear nodes others share has those
 * int8 values in its group's model this way. */
GBytes        *fw_onnx_rewrite_serialize_set_with_prologue (FwOnnxRewrite   *rewrite,
                                                            guint            index,
                                                            const GPtrArray *prologue,
                                                            GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwOnnxRewrite, fw_onnx_rewrite_free)

G_END_DECLS
