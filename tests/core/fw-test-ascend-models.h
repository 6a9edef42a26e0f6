/* fw-test-ascend-models.h: small models for the ops the real models need beyond the transformer and conv
 * blocks: MobileNetV3's hard activations, Swin's mask chain, LayerNormalization and LogSoftmax nodes, and
 * broadcast operands of elementwise groups. Graphs linked, shapes not inferred. */
#pragma once

#include "graph/fw-model.h"

G_BEGIN_DECLS

/* x -> HardSigmoid -> Mul(x, .) -> HardSwish -> Relu, and GlobalAveragePool -> HardSigmoid beside it. */
FwModel *fw_test_hard_model      (void);
/* Sub of two broadcast operands, Equal -> Not -> Cast(bool) -> Where, and a comparison gating a Mul. */
FwModel *fw_test_mask_model      (void);
/* A LayerNormalization node after a residual Add, and LogSoftmax after a bias Add. */
FwModel *fw_test_norm_model      (void);
/* x [4, 32, 64] with a [1] scalar input, a [64] row vector, per-row scalars [4, 32, 1], as asked. */
FwModel *fw_test_broadcast_model (gboolean scalar,
                                  gboolean row_vector,
                                  gboolean per_row);

G_END_DECLS
