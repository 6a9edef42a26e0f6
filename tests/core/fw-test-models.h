/* fw-test-models.h: small models built in memory with the graph builder, for tests, benchmarks and the
 * bundled example. Each comes back as an FwModel that has been linked (not yet inferred). */
#pragma once

#include "graph/fw-model-private.h"
#include "onnx/fw-onnx.h"
#include "shape/fw-shape-infer.h"
#include "hw/fw-profile.h"
#include "rules/fw-rules.h"
#include "plan/fw-plan.h"
#include "report/fw-model-report.h"

G_BEGIN_DECLS

FwModel  *fw_test_model_new            (gint64      opset);
/* A float initializer of dims, uniform in [-scale, scale) from rand. */
void      fw_test_add_random_weight    (FwGraph    *g,
                                        GRand      *rand,
                                        const char *name,
                                        guint       rank,
                                        const gint64 *dims,
                                        float       scale);
/* A float graph input of static dims. */
void      fw_test_add_float_input      (FwGraph    *g,
                                        const char *name,
                                        guint       rank,
                                        const gint64 *dims);
/* The model planned on the 910B profile under strategy, class-based discovery alone (no rules). */
FwPlan   *fw_test_plan_with            (FwModel    *model,
                                        FwStrategy  strategy);
/* The refusal of plan with code whose refused node is named `refused`, or NULL. */
const FwRefusal *fw_test_refusal_of    (const FwPlan *plan,
                                        FwReasonCode code,
                                        const char *refused);
/* A node of op reading a (and b when not NULL) and writing out, in the default domain. */
FwNode   *fw_test_add_node             (FwGraph    *g,
                                        const char *op,
                                        const char *name,
                                        const char *a,
                                        const char *b,
                                        const char *out);
/* A node of op reading a, b and c (each NULL when absent, trailing ones first) and writing out. */
FwNode   *fw_test_add_node3            (FwGraph    *g,
                                        const char *op,
                                        const char *name,
                                        const char *out,
                                        const char *a,
                                        const char *b,
                                        const char *c);
/* n elementwise/broadcast ops (Add, Mul, Relu, Sigmoid, Tanh, Sub, Exp, Neg…) on [batch, n_elems]. */
FwModel  *fw_test_elementwise_chain    (guint       n_ops,
                                        gint64      n_elems,
                                        gboolean    symbolic_batch);
/* One BERT-style encoder layer on [batch, seq, hidden] with decomposed LayerNorm, attention through a
 * Shape → Gather → Unsqueeze → Concat → Reshape chain, and erf-GELU. */
FwModel  *fw_test_transformer_block    (gint64      seq,
                                        gint64      hidden,
                                        gint64      heads,
                                        gboolean    symbolic_batch);
/* n_layers such layers in a row, sharing one set of weights (so a 100,000-node stack stays small). */
FwModel  *fw_test_transformer_stack    (guint       n_layers,
                                        gint64      seq,
                                        gint64      hidden,
                                        gint64      heads,
                                        gboolean    symbolic_batch);
/* Conv → BatchNormalization → Relu → MaxPool → Conv → BN → Add (residual) → Relu → GlobalAveragePool →
 * Flatten → Gemm on [1, 3, 32, 32]. */
FwModel  *fw_test_conv_block           (void);
/* A chain of n_nodes Add/Relu nodes on [64] float, for scale tests. */
FwModel  *fw_test_long_chain           (guint       n_nodes);

/* Custom operators (docs/custom-ops.md): x [rows, cols] → Add bias w → com.example:FastGelu →
 * com.example:ScaledAdd with a [cols] row r → y. Linked only: without a registry that declares the two ops
 * (FW_TEST_CUSTOM_OPS_YAML) they are opaque and infer nothing. */
FwModel  *fw_test_custom_op_model      (gint64      rows,
                                        gint64      cols);
#define FW_TEST_GELU_EXPR "x0 * 0.5f * (1.0f + tanhf(0.7978845608f * (x0 + 0.044715f * x0 * x0 * x0)))"
/* The registry of both, with host expressions; the entries start at 3:5 and 9:5. */
#define FW_TEST_CUSTOM_OPS_YAML                                                                            \
  "version: 1\n"                                                                                           \
  "ops:\n"                                                                                                 \
  "  - domain: com.example\n"                                                                              \
  "    type: FastGelu\n"                                                                                   \
  "    class: elementwise\n"                                                                               \
  "    inputs: 1\n"                                                                                        \
  "    cost: {flops_per_element: 9}\n"                                                                     \
  "    host_expression: \"" FW_TEST_GELU_EXPR "\"\n"                                                       \
  "  - domain: com.example\n"                                                                              \
  "    type: ScaledAdd\n"                                                                                  \
  "    class: broadcast\n"                                                                                 \
  "    inputs: 2\n"                                                                                        \
  "    shape: broadcast\n"                                                                                 \
  "    dtype: {same_as: 0}\n"                                                                              \
  "    host_expression: x0 + 0.5 * x1\n"

/* Groups with injective operators (fw-test-index-models.c), linked and inferred. */
typedef enum {
  FW_TEST_INDEX_TRANSPOSE_EPILOGUE,  /* MatMul → Add → Transpose → Relu: a transposed store */
  FW_TEST_INDEX_SLICE_PROLOGUE,      /* Exp → Neg → Slice (step 2) → Mul → Tanh: an offset, strided read */
  FW_TEST_INDEX_VIEW_TRANSPOSE,      /* Sigmoid → Reshape → Transpose → Mul → Add: a head split */
  FW_TEST_INDEX_GATHER_ROW,          /* Relu → Gather (constant scalar index) → Add */
  FW_TEST_INDEX_TWO_MAPS,            /* Relu, then x + transpose(x): refused, FW-NF-017 */
  FW_TEST_INDEX_GATHER_DYNAMIC,      /* Relu → Gather at run-time indices: refused, FW-NF-018 */
  FW_TEST_INDEX_CONCAT,              /* Relu, Neg → Concat → Sigmoid: refused, FW-NF-019 */
} FwTestIndexCase;

FwModel  *fw_test_index_model          (FwTestIndexCase which);

/* Attention score chains (fw-test-attention-models.c), linked and inferred: MatMul → Div → Add (mask) →
 * Softmax → MatMul → Transpose → Reshape. */
typedef enum {
  FW_TEST_ATTENTION_SHORT,         /* 16 keys: one key block */
  FW_TEST_ATTENTION_LONG,          /* 2,048 keys: the online softmax over key blocks */
  FW_TEST_ATTENTION_OUTSIDE_USE,   /* the scaled scores are a graph output too: refused, FW-NF-002 */
  FW_TEST_ATTENTION_SOFTMAX_AXIS,  /* Softmax over the queries: refused, FW-NF-020 */
  FW_TEST_ATTENTION_MASK_RANK,     /* a mask of higher rank than the scores: refused, FW-NF-020 */
  FW_TEST_ATTENTION_ROTARY,        /* Llama's block: projections, rotary Q and K, K and V repeated for grouped
                                      queries; the prologue joins the attention */
  FW_TEST_ATTENTION_ROTARY_SHAPED, /* the same, Q's rotary halves cut at Shape (q) → … (folded), as exported:
                                      Q's head split stays out (it would feed its own slice bounds) */
} FwTestAttentionCase;

FwModel  *fw_test_attention_model      (FwTestAttentionCase which);
/* Projections sharing one activation (fw-test-hgemm-models.c), linked and inferred: the horizontal GEMM. */
typedef enum {
  FW_TEST_HGEMM_QKV,            /* Q (bias, head view), K, V (Relu) on one activation: one group */
  FW_TEST_HGEMM_SWIGLU,         /* gate and up, gate · sigmoid (gate) · up: one group, a slice reads another */
  FW_TEST_HGEMM_DYNAMIC_WEIGHT, /* V's weight is a graph input: V stays out, FW-NF-025; Q and K fuse */
  FW_TEST_HGEMM_FLOOR,          /* V's epilogue has a Floor: V stays out, FW-NF-026; Q and K fuse */
  FW_TEST_HGEMM_GEMM,           /* Gemm projections of a [32, 32] activation: transB, alpha, beta, a bias of
                                   [32] and of one element, none; one group */
  FW_TEST_HGEMM_RMSNORM,        /* Q, K and V of an RMSNorm's result: the norm in the product's prologue */
  FW_TEST_HGEMM_RMSNORM_OUT,    /* the same, the normalised value also a graph output: the norm stays out */
} FwTestHgemmCase;
FwModel  *fw_test_hgemm_model          (FwTestHgemmCase which);

/* Writes model to ONNX bytes and reads it back, as a fresh model. */
FwModel  *fw_test_roundtrip            (FwModel    *model,
                                        GError    **error);
/* Infers with optional bindings "name=value" (NULL-terminated). */
gboolean  fw_test_infer                (FwModel    *model,
                                        const char * const *binds,
                                        FwInferReport *report,
                                        GError    **error);
/* The shipped Ascend 910B profile and rule set; a test failure if they do not load. */
FwProfile *fw_test_profile_910b        (void);
FwRuleSet *fw_test_builtin_rules       (void);

/* The batch report of model with plan's section, as text (shapes already inferred). */
char      *fw_test_plan_report         (FwModel        *model,
                                        FwPlan         *plan,
                                        FwReportFormat  format);

/* A new temporary folder, and its removal with the files in it. */
char     *fw_test_temp_dir             (void);
void      fw_test_remove_dir           (const char *dir);

/* The shape of value name as "[1,3,224,224]"; "missing" when there is no such value. */
char     *fw_test_shape_of             (FwModel    *model,
                                        const char *name);

G_END_DECLS
